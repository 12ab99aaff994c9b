#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile trees: the cache directory itself replaced (renamed away and a
# new DIR/cache made) or removed while the daemon runs, then the kernel
# asks for culling.  Nothing outside DIR/cache may be culled: the old
# directory, now elsewhere, is outside it (no VIOLATION), though the daemon
# still holds it open and the kernel would cull there.  The daemon finds
# out before its next batch and exits non-zero with a clear message, so
# that the service manager restarts it on the directory as it is now.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

# variant replaced|removed
variant() {
	FAULT_OBJECTS=40 fault_setup
	sim_ctl log "cache directory $1" >/dev/null
	if [ "$1" = replaced ]; then
		mv "$SIM_DIR/cache" "$SIM_FS/outside/cache.old"
		mkdir "$SIM_DIR/cache"
		cp -a "$SIM_FS/outside/cache.old/Iv1" "$SIM_DIR/cache/"
		FAULT_SUM0=$(fault_sum)
	else
		rm -rf "$SIM_DIR/cache"
	fi
	fault_ask
	daemon_wait_exit 10
	case $DAEMON_STATUS in
	0 | timeout) not_ok "$1: the daemon exits non-zero"; note "status $DAEMON_STATUS" ;;
	*) ok "$1: the daemon exits non-zero ($DAEMON_STATUS)" ;;
	esac
	check_grep "$1: with a clear message" 'cache is no longer the cache directory bound at start' "$DAEMON_LOG"
	check_eq "$1: nothing was culled" 0 "$(fault_culls)"
	status="exit $DAEMON_STATUS"
	fault_check_outside "$1"
	note "table: cache directory $1 | $status | culled $(fault_culls)"
	_sim_kill $DAEMON_PID; _sim_kill $SIM_PID
	DAEMON_PID= SIM_PID=
	umount "$SIM_FS" 2>/dev/null || umount -l "$SIM_FS"
	rm -rf "$SIM_TMP"
	trap - EXIT
}
variant replaced
variant removed
tap_done
