#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile trees: unreadable directories (mode 000) at the fan-out and
# volume levels, and an ENOSPC cache filesystem (a full tmpfs, blocks and
# then inodes).  Root bypasses file modes only through CAP_DAC_OVERRIDE and
# CAP_DAC_READ_SEARCH, which the daemon drops after bind when it owns the
# whole tree (it logs "capabilities kept: none"), so mode 000 is enforced
# on it while the test, as root, can still set it up and check.  Where the
# daemon keeps them, the directories are readable to it and the test says
# so instead.  The daemon must leave what it cannot read alone, say so,
# cull the rest, and go on when the filesystem is full.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

FAULT_OBJECTS=20 fault_setup
c=$SIM_DIR/cache
daemon_signal TERM; daemon_wait_exit 5
cull_objects v2 6 64 $(($(date +%s) - 60 * 86400)) 600
chmod 000 "$c/Iv1/@00" "$c/Iv1/@01" "$c/Iv2"
daemon_start
sim_wait_bound 5 || { not_ok "daemon binds"; exit 1; }
cull_wait_scan 10 || not_ok "the scan ends"
if grep -q 'capabilities kept: none' "$DAEMON_LOG"; then
	check_grep "unreadable directories are counted" ' [1-9][0-9]* unreadable or failed' "$DAEMON_LOG"
	cull_fill 30
	sim_ctl check >/dev/null
	_rest_culled() { [ "$(cull_survivors v1 20 | wc -l)" -le 2 ]; }
	check "everything readable is culled" wait_for 20 _rest_culled
	check_eq "objects in the unreadable fan-outs are left" "0
1" "$(cull_survivors v1 20)"
	check_eq "the unreadable volume is left whole" 6 "$(cull_survivors v2 6 | wc -l)"
else
	skip "unreadable directories" "the daemon kept its DAC capabilities here: $(grep 'capabilities kept' "$DAEMON_LOG")"
fi
check "still running" daemon_alive
chmod 700 "$c/Iv1/@00" "$c/Iv1/@01" "$c/Iv2"

# ENOSPC: fill every block, then every inode, outside the cache.
fault_mark
cull_objects v3 20 64 $(($(date +%s) - 90 * 86400)) 600
sim_fs_ours && cat /dev/zero >>"$SIM_FS/filler" 2>/dev/null
check_eq "the filesystem is full" 0 "$(cull_bavail)"
sim_ctl check >/dev/null
# The kernel still asks from the first part (nothing readable was left, so
# the daemon backs off for 30 s): a release wakes it, as the kernel would.
fault_kick
check "ENOSPC (blocks): the daemon culls" fault_wait_progress 3 10
_v3_gone() { [ "$(cull_survivors v3 20 | wc -l)" -eq 0 ]; }
check "ENOSPC (blocks): all of it, as the kernel keeps asking" wait_for 10 _v3_gone
rm -f "$SIM_FS/filler"
cull_objects v4 20 4 $(($(date +%s) - 90 * 86400)) 600
fault_mark
mkdir -p "$SIM_FS/inodes"
"$CFSIM" tree wide "$SIM_FS/inodes" 1000000 2>/dev/null	# stops at ENOSPC
check_eq "no inode is left" 0 "$(cull_ffree)"
note "ENOSPC (inodes): $(ls -f "$SIM_FS/inodes" | wc -l) files made to use up the inodes"
fault_mark
sim_ctl check >/dev/null
fault_kick
check "ENOSPC (inodes): the daemon culls" fault_wait_progress 1 10
check "ENOSPC: still running" daemon_alive
hwm=$(fault_hwm)
check "memory bounded: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
fault_check_outside "unreadable and full"
note "table: mode 000 dirs + full tmpfs (blocks, inodes) | culled $(fault_culls) | VmHWM $hwm kB | outside changed: $([ "$(fault_sum)" = "$FAULT_SUM0" ] && echo 0 || echo changed)"
tap_done
