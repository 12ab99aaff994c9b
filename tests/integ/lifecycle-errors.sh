#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every start-up error gives a clear message naming the cause and exit 1
# (device busy, no privilege, missing directory, bind refusals) or, for a
# configuration error or a read-only cache directory, exit 2, which the
# unit's RestartPreventExitStatus= names; a device busy only for a while (a
# previous instance withdrawing) is waited for.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
notify_start

# fails NAME PATTERN [SECS [LINES [STATUS]]]: the daemon started by
# daemon_start exits STATUS (default 1) within SECS, its output matches
# PATTERN (ERE, case-insensitive) and has at most LINES (default 1) lines,
# no READY=1.
fails() {
	daemon_wait_exit "${3:-5}"
	n=$(grep -c . "$DAEMON_LOG")
	if [ "$n" -ge 1 ] && [ "$n" -le "${4:-1}" ]; then
		ok "$1: one clear message"
	else
		not_ok "$1: one clear message"
		note "$n lines:"; sed 's/^/#   /' "$DAEMON_LOG" | tail -8
	fi
	check_eq "$1: exit status ${5:-1}" "${5:-1}" "$DAEMON_STATUS"
	if grep -Eiq -- "$2" "$DAEMON_LOG"; then
		ok "$1: the message names the cause"
	else
		not_ok "$1: the message names the cause"
		note "no /$2/ in:"; sed 's/^/#   /' "$DAEMON_LOG" | tail -8
	fi
	check_no_grep_may_be_empty "$1: no READY=1" '^READY=1' "$NOTIFY_OUT"
	cp "$DAEMON_LOG" "$SIM_TMP/last.log"	# for checks after this one
	: >"$DAEMON_LOG"; : >"$NOTIFY_OUT"
}

sim_config

# The device is held by another client for longer than the daemon waits.
printf 'x sleep 30\n' | "$CFSIM" client "$SIM_SOCK" >/dev/null &
holder=$!
SIM_EXTRA_PIDS="$holder"
wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^connected=//p')\" = 1 ]"
daemon_start	# it waits 10 s for the holder (a previous instance?), then fails
fails "device held by another client" 'busy' 20 2
kill "$holder" 2>/dev/null
pkill -P "$holder" sleep 2>/dev/null
wait "$holder" 2>/dev/null
SIM_EXTRA_PIDS=
wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^connected=//p')\" = 0 ]"

# Wrong directories and bind refusals.
sim_config
sed -i "s,^dir .*,dir $SIM_FS/missing," "$SIM_CONF"
daemon_start
fails "cache directory missing (ENOENT)" 'missing|No such file'
: >"$SIM_FS/plainfile"
sed -i "s,^dir .*,dir $SIM_FS/plainfile," "$SIM_CONF"
daemon_start
fails "cache directory is a file (ENOTDIR)" 'not a directory'
sim_config
sim_stop
for e in EROFS:'read-only' EOPNOTSUPP:'xattr' EACCES:'permission'; do
	sim_start --fail-bind "${e%%:*}"
	daemon_start
	fails "bind fails ${e%%:*}" "${e#*:}"
	check_grep "bind fails ${e%%:*}: the message names the directory" \
	    "refused \"bind\" of $SIM_DIR:" "$SIM_TMP/last.log"
	sim_stop
done

# A configuration line the kernel refuses is refused again at every
# start: 2, as 0.10.10 gave, so that the unit does not restart it.  A
# shortage (ENOMEM) may pass: 1.
sim_start
sim_config "secctx system_u:system_r:cachefiles_kernel_t:s0"
sim_ctl fault secctx ENOENT >/dev/null
daemon_start
fails "the kernel refuses secctx" 'secctx' 5 1 2
# The likely cause is looked up by the command word alone, not the whole line.
check_grep "the kernel refuses secctx: the message gives the likely cause" \
    'no security module' "$SIM_TMP/last.log"
sim_ctl fault clear >/dev/null
sim_ctl fault secctx ENOMEM >/dev/null
daemon_start
fails "the kernel is short of memory for secctx" 'secctx' 5 1 1
sim_ctl fault clear >/dev/null
sim_config
sim_stop

# No privilege.
sim_start --eperm
daemon_start
fails "open fails EPERM" 'CAP_SYS_ADMIN'
sim_stop

# Nothing listens on the device path.
daemon_start
fails "no device" "$SIM_SOCK|cachefiles"

# A previous instance still withdrawing: the daemon waits and binds.
sim_start --busy-ms 1500
daemon_start
if sim_wait_bound 8; then ok "device busy for a while: the daemon retries and binds"; else not_ok "device busy for a while: the daemon retries and binds"; fi
check_grep "device busy for a while: the wait is logged" 'busy' "$DAEMON_LOG"
daemon_signal TERM; daemon_wait_exit 5
: >"$DAEMON_LOG"; : >"$NOTIFY_OUT"

# Configuration errors: FILE:LINE, before the device is opened.
o0=$(sim_state opens)
sim_config "frobnicate 3"
daemon_start
# The located message, then the count (cachefilesd(8) DIAGNOSTICS).
fails "configuration error" "$SIM_CONF:9: .*frobnicate" 5 2 2
check_grep "configuration error: the count follows" "$SIM_CONF: configuration has 1 error\$" "$SIM_TMP/last.log"
check_eq "configuration error: the device was not opened" "$o0" "$(sim_state opens)"
sim_config "bcull 12%"
daemon_start
# The repeated bcull's warning, the located error, the count.
fails "inconsistent limits in the configuration" "$SIM_CONF:[0-9]+" 5 3 2
tap_done
