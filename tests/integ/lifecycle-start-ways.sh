#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Starting the daemon the ways administrators do.  Detached with an
# inherited descriptor (daemon(7): a daemon closes what it did not open);
# relative -f and -p (with -d, so that stderr stays open after detaching);
# a pid file in a missing directory; -N and nocull
# while the kernel asks for culling; a dir with a trailing slash and one
# with a space, culling correctly in both.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config

# 1. Detached, with descriptor 7 inherited from the caller.
: >"$SIM_TMP/inherited"
(cd "$SIM_TMP" && exec 7>"$SIM_TMP/inherited" &&
    CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -s -d -f cachefilesd.conf -p rel.pid) \
    >>"$DAEMON_LOG" 2>&1
st=$?
check_eq "detached start exits 0 once bound" 0 "$st"
pid=$(cat "$SIM_TMP/rel.pid" 2>/dev/null)
if [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
	SIM_EXTRA_PIDS=$pid
	ok "relative -p: the pid file holds a live pid"
	leaked=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c "$SIM_TMP/inherited")
	check_eq "an inherited descriptor is not kept open by the daemon" 0 "$leaked"
	check "detached: cwd inside DIR/cache" sim_cwd_inside "$pid"
	sid=$(sed 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f4)
	check_eq "detached: session leader" "$pid" "$sid"
	kill -HUP "$pid"
	wait_for 3 grep -q 'configuration reloaded' "$DAEMON_LOG"
	check_grep "relative -f: SIGHUP re-reads the same file after the chdir" 'configuration reloaded' "$DAEMON_LOG"
	kill -TERM "$pid"
	wait_for 5 proc_gone "$pid"
	check "relative -p: the pid file is removed at exit" test ! -e "$SIM_TMP/rel.pid"
	check "nothing was written into the cache by the relative paths" test ! -e "$SIM_DIR/cache/rel.pid"
else
	not_ok "relative -p: the pid file holds a live pid"
	sed 's/^/#   /' "$DAEMON_LOG" | tail -5
fi
SIM_EXTRA_PIDS=

# 2. A pid file in a missing directory: a clear message, status 1, no bind left.
wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^connected=//p')\" = 0 ]"
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -s -f "$SIM_CONF" -p "$SIM_TMP/nodir/x.pid" \
    >"$SIM_TMP/p.err" 2>&1
check_eq "pid file in a missing directory: status 1" 1 "$?"
check_grep "  ... the message names it" 'nodir' "$SIM_TMP/p.err"

# 3. -N and nocull: bound, the kernel asks for culling, nothing is culled.
if [ "$SIM_TMPFS" = 1 ]; then
	sim_populate 100 4 vol1
	sim_fill_to 4
	for how in -N nocull; do
		if [ "$how" = -N ]; then
			sim_config; : >"$DAEMON_LOG"; daemon_start -n -s -N -f "$SIM_CONF"
		else
			sim_config nocull; : >"$DAEMON_LOG"; daemon_start -n -s -f "$SIM_CONF"
		fi
		c0=$(sim_state culls)
		sim_wait_bound 5 || not_ok "$how: binds"
		sleep 1.5
		check_eq "$how: the kernel asks for culling" 1 "$(sim_state cull)"
		check_eq "$how: nothing culled" "$c0" "$(sim_state culls)"
		t=$(proc_cpu "$DAEMON_PID")
		check "$how: little CPU while the kernel asks (under 0.3 s)" [ "${t:-99}" -lt 30 ]
		daemon_signal TERM
		daemon_wait_exit 5
		check_eq "$how: exit 0" 0 "$DAEMON_STATUS"
	done
	rm -f "$SIM_FS/filler"
else
	skip "-N and nocull under pressure" "needs a tmpfs"
fi

# 4. dir spelled with a trailing slash, and a dir with a space: cull right.
if [ "$SIM_TMPFS" = 1 ]; then
	for variant in slash space; do
		sim_stop
		rm -rf "$SIM_FS/fscache" "$SIM_FS/with space" "$SIM_FS/filler"
		if [ "$variant" = slash ]; then
			D=$SIM_FS/fscache; mkdir -p "$D"; spelled=$D/
		else
			D="$SIM_FS/with space"; mkdir -p "$D"; spelled=$D
		fi
		sim_start
		SIM_DIR=$D
		sim_config
		sed -i "1s|.*|dir $spelled|" "$SIM_CONF"
		sim_populate 300 4 vol1
		sim_fill_to 4
		: >"$DAEMON_LOG"
		daemon_start -n -s -f "$SIM_CONF"
		sim_wait_bound 5 || not_ok "$variant: binds"
		wait_for 15 grep -Eq 'culling done|nothing cullable' "$DAEMON_LOG"
		check_grep "$variant: culling completes" 'culling done' "$DAEMON_LOG"
		check_eq "$variant: no violation" 0 "$(sim_state violations)"
		check_eq "$variant: no missing names" 0 "$(sim_state cull_missing)"
		check "$variant: cwd inside DIR/cache" sim_cwd_inside "$DAEMON_PID"
		daemon_signal TERM
		daemon_wait_exit 5
		check_eq "$variant: exit 0" 0 "$DAEMON_STATUS"
	done
else
	skip "trailing slash and space in dir" "needs a tmpfs"
fi
tap_done
