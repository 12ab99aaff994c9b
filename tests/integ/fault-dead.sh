#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# When the daemon must exit: an injected EIO that the liveness probe
# confirms (on a cull, and on a state read), and state lines that stay
# malformed.  Each exits non-zero with a clear message, promptly, and
# nothing outside the cache changes; a dead cache is the metrics file's
# last state.  The same EIO with a live probe is
# outlived (fault-cull-storm.sh, fault-read-storm.sh).
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

# variant NAME EXPECTED-MESSAGE RULE...: a fresh daemon, the rules, the
# kernel asks; the daemon must exit non-zero within 10 s.
variant() {
	_name=$1 _msg=$2; shift 2
	FAULT_OBJECTS=30 FAULT_METRICS=1 fault_setup
	for _r in "$@"; do sim_ctl fault "$_r" >/dev/null; done
	fault_ask
	daemon_wait_exit 10
	case $DAEMON_STATUS in
	0 | timeout) not_ok "$_name: the daemon exits non-zero"; note "status $DAEMON_STATUS" ;;
	*) ok "$_name: the daemon exits non-zero ($DAEMON_STATUS)" ;;
	esac
	check_grep "$_name: the message says why" "$_msg" "$DAEMON_LOG"
	# The file's last word: dead however it was learnt (a cull, or a read).
	[ "$_msg" = 'cache is dead' ] &&
		check_grep "$_name: the metrics file's last state is dead" \
		    '^cachefilesd_state\{state="dead"\} 1$' "$SIM_TMP/metrics.prom"
	fault_check_outside "$_name"
	note "table: $_name | $(sim_state faults) faults | exit $DAEMON_STATUS"
	sim_cleanup_now
}

# The EXIT trap cleans up the last variant; the others are cleaned here.
sim_cleanup_now() {
	_sim_kill $DAEMON_PID
	_sim_kill $SIM_PID $NOTIFY_PID
	DAEMON_PID= SIM_PID= NOTIFY_PID=
	umount "$SIM_FS" 2>/dev/null || umount -l "$SIM_FS"
	rm -rf "$SIM_TMP"
	trap - EXIT
}

variant "cull EIO, probe confirms" 'cache is dead' "cull EIO nth=2" "probe EIO"
variant "read EIO, probe confirms" 'cache is dead' "read EIO" "probe EIO"
variant "every line malformed" 'malformed state lines in a row' "read malformed"
tap_done
