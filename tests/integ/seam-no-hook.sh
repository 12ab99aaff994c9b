#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped daemon has no simulator hook (docs/kernel-seam.md): its binary
# holds neither the CACHEFILESD_DEVICE variable nor the simulator transport,
# and run with CACHEFILESD_DEVICE naming a live simulator socket it still
# opens /dev/cachefiles and never connects to the simulator.  The test
# daemon, run the same way, does connect: that proves the check can fail.
#
# The runs are unprivileged (nobody, when we are root) so that the shipped
# daemon cannot bind a real cache should this machine have the module.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"
: "${CACHEFILESD:?CACHEFILESD must name the shipped daemon}"

# 1. What the binary holds.
for word in CACHEFILESD_DEVICE simulator ktransport_sim; do
	if grep -aiq -- "$word" "$CACHEFILESD"; then
		not_ok "the shipped binary holds no \"$word\""
		note "$(strings "$CACHEFILESD" 2>/dev/null | grep -i -- "$word" | head -3)"
	else
		ok "the shipped binary holds no \"$word\""
	fi
done
check "the test daemon does hold CACHEFILESD_DEVICE (the check can see it)" \
    grep -aq CACHEFILESD_DEVICE "$CACHEFILESD_SIM"

# 2. What it does with the variable set.
sim_setup
sim_start
sim_config "control_socket none"	# the unprivileged runs could not bind one in $SIM_TMP
# Reachable by an unprivileged client: a hooked daemon would get through.
chmod 0711 "$SIM_TMP"
chmod 0644 "$SIM_CONF"
chmod 0666 "$SIM_SOCK"
# The build may sit below a directory only root may enter (a clone in a
# mktemp -d): nobody runs copies of the two daemons from here instead.
mkdir "$SIM_TMP/bin"
cp "$CACHEFILESD" "$SIM_TMP/bin/cachefilesd"
cp "$CACHEFILESD_SIM" "$SIM_TMP/bin/cachefilesd-sim"
chmod 0755 "$SIM_TMP/bin" "$SIM_TMP/bin/cachefilesd" "$SIM_TMP/bin/cachefilesd-sim"

# as_user CMD...: run CMD unprivileged (as nobody when we are root).
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"
	else
		"$@"
	fi
}

if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null 2>&1; then
	skip "the shipped daemon ignores CACHEFILESD_DEVICE" "running as root without setpriv"
	tap_done; exit
fi

opens0=$(sim_state opens)
as_user env CACHEFILESD_DEVICE="$SIM_SOCK" timeout 20 "$SIM_TMP/bin/cachefilesd" -n -s -f "$SIM_CONF" \
    >"$DAEMON_LOG" 2>&1 </dev/null
st=$?
check_eq "the shipped daemon never connects to the simulator" "$opens0" "$(sim_state opens)"
check_grep "the shipped daemon opens /dev/cachefiles instead" '/dev/cachefiles' "$DAEMON_LOG"
if [ "$st" -ne 0 ] && [ "$st" -ne 124 ]; then
	ok "the shipped daemon fails without the device (status $st)"
else
	not_ok "the shipped daemon fails without the device"
	note "status $st"; sed 's/^/#   /' "$DAEMON_LOG" | tail -5
fi

# The positive control: the test daemon, run the same way, reaches the simulator.
opens0=$(sim_state opens)
as_user env CACHEFILESD_DEVICE="$SIM_SOCK" timeout 20 "$SIM_TMP/bin/cachefilesd-sim" -n -s -f "$SIM_CONF" \
    >"$DAEMON_LOG" 2>&1 </dev/null &
pid=$!
SIM_EXTRA_PIDS=$pid
if wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^opens=//p')\" -gt $opens0 ]"; then
	ok "the test daemon, run the same way, connects to the simulator"
else
	not_ok "the test daemon, run the same way, connects to the simulator"
	sed 's/^/#   /' "$DAEMON_LOG" | tail -5
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
SIM_EXTRA_PIDS=
tap_done
