#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A cache directory on a read-only mount: the kernel would bind it and fail
# only at its first object, so the daemon refuses it before opening the
# device, names ReadWritePaths= (the shipped unit's ProtectSystem=strict
# makes every other path read-only) and exits 2, the status the unit's
# RestartPreventExitStatus= names.  A read-only bind mount of a writable
# directory stands for the sandbox's view.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"
CFD=${CACHEFILESD:?}

sim_setup
RO=$SIM_TMP/ro
mkdir -p "$RO"
if ! mount --bind "$SIM_DIR" "$RO" 2>/dev/null; then
	skip "a cache directory on a read-only mount" "mount --bind is not permitted here"
	tap_done; exit
fi
trap 'umount "$RO" 2>/dev/null || umount -l "$RO" 2>/dev/null; sim_cleanup' EXIT
if ! mount -o remount,bind,ro "$RO" 2>/dev/null; then
	skip "a cache directory on a read-only mount" "mount -o remount,bind,ro is not permitted here"
	tap_done; exit
fi
sim_start
notify_start
sim_config
sed -i "s,^dir .*,dir $RO," "$SIM_CONF"

o0=$(sim_state opens)
daemon_start
daemon_wait_exit 5
check_eq "read-only cache directory: exit status 2" 2 "$DAEMON_STATUS"
check_grep "  ... the message says read-only" 'read-only' "$DAEMON_LOG"
check_grep "  ... and names ReadWritePaths=" 'ReadWritePaths=' "$DAEMON_LOG"
check_grep "  ... and the directory" "$RO" "$DAEMON_LOG"
check_eq "  ... the device was not opened" "$o0" "$(sim_state opens)"
check_no_grep_may_be_empty "  ... no READY=1" '^READY=1' "$NOTIFY_OUT"

# Detached (no -n): the parent reports the child's status.
: >"$DAEMON_LOG"
daemon_start -s -f "$SIM_CONF" -p "$SIM_TMP/pid"
daemon_wait_exit 5
check_eq "detached: the parent exits 2 as well" 2 "$DAEMON_STATUS"

# -t, which the unit's ExecReload= runs, says the same (status 1: the
# configuration itself is right).
"$CFD" -t -f "$SIM_CONF" >"$SIM_TMP/t.out" 2>&1
check_eq "-t on the read-only directory: exit status 1" 1 "$?"
check_grep "  ... naming ReadWritePaths=" 'ReadWritePaths=' "$SIM_TMP/t.out"

# Writable again: the same configuration binds.
mount -o remount,bind,rw "$RO"
: >"$DAEMON_LOG"
daemon_start
if sim_wait_bound 5; then ok "remounted read-write: the daemon binds"; else
	not_ok "remounted read-write: the daemon binds"; sed 's/^/#   /' "$DAEMON_LOG" | tail -5
fi
daemon_signal TERM
daemon_wait_exit 5
check_eq "  ... and exits 0 on SIGTERM" 0 "$DAEMON_STATUS"
tap_done
