#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile trees, large: one directory of HOSTILE_WIDE empty files (200,000;
# SOAK=1 makes it 1,000,000) and directories nested 10,000 deep.  The scan
# must finish, leave the deep part alone past its depth limit and say so,
# keep its memory bounded (the candidate table is a bounded heap), and the
# daemon must still cull the oldest objects when the kernel asks; nothing
# outside the cache changes.  Creating 1,000,000 files takes about 5 s and
# the scan a few more on a 2-core machine, too slow for every "make check".
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

if [ "${SOAK:-0}" = 1 ]; then
	HOSTILE_WIDE=${HOSTILE_WIDE:-1000000}
else
	HOSTILE_WIDE=${HOSTILE_WIDE:-200000}
fi
DEEP=10000
SIM_FS_SIZE=64m
SIM_FS_INODES=$((HOSTILE_WIDE * 13 / 10 + DEEP + 10000))
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "huge trees" "needs a tmpfs"
	exit 0
fi
cull_objects v1 20 128 $(($(date +%s) - 30 * 86400)) 600
mkdir -p "$SIM_DIR/cache/Iwide/@00" "$SIM_DIR/cache/Ideep/@00"
t0=$(date +%s%N)
"$CFSIM" tree wide "$SIM_DIR/cache/Iwide/@00" "$HOSTILE_WIDE" || { not_ok "make the wide tree"; exit 1; }
t1=$(date +%s%N)
"$CFSIM" tree deep "$SIM_DIR/cache/Ideep/@00" "$DEEP" || { not_ok "make the deep tree"; exit 1; }
t2=$(date +%s%N)
note "made $HOSTILE_WIDE files in one directory in $(((t1 - t0) / 1000000)) ms, $DEEP levels in $(((t2 - t1) / 1000000)) ms"
fault_sentinel
sim_start
sim_config
sed -i 's/^brun .*/brun 8%/' "$SIM_CONF"
daemon_start
sim_wait_bound 5 || { not_ok "daemon binds"; exit 1; }
check "the scan of $HOSTILE_WIDE + $DEEP entries ends" cull_wait_scan 120
grep 'scan: ' "$DAEMON_LOG" | sed 's/^/# /'
check_grep "the whole wide directory is counted" "scan: $((HOSTILE_WIDE + 20)) objects" "$DAEMON_LOG"
check_grep "the deep part is left alone and logged" ' [1-9][0-9]* too deep \(over [0-9]+ levels\)' "$DAEMON_LOG"
hwm=$(fault_hwm)
check "memory bounded after the scan: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
check "still running" daemon_alive
# The kernel asks: the 20 old objects go first (the wide files are new).
fault_mark
cull_fill $(($(statfs_limit b 7) - 8))
sim_ctl check >/dev/null
check "culling works in the huge tree" fault_wait_progress 3 30
cull_wait_idle 30
check "the oldest objects went first (no wide file culled)" test "$(ls -f "$SIM_DIR/cache/Iwide/@00" | wc -l)" -eq $((HOSTILE_WIDE + 2))
check "the deepest file is still there" test "$(cd "$SIM_DIR/cache/Ideep/@00" && find . -name Ddeep | wc -l)" -eq 1
hwm=$(fault_hwm)
check "memory bounded after culling: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
fault_check_outside "huge trees"
note "table: $HOSTILE_WIDE files in one dir + $DEEP deep | culled $(fault_culls) | VmHWM $hwm kB | outside changed: $([ "$(fault_sum)" = "$FAULT_SUM0" ] && echo 0 || echo changed)"
tap_done
