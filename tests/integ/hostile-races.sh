#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile trees: files vanishing and directories renamed mid-scan and
# mid-cull.  Mid-cull is deterministic: the simulator's rename-after hook
# moves a fan-out directory out of the cache (or to another place inside
# it) right after the Nth cull, before the daemon's next one.  Mid-scan is
# a randomized storm with a fixed seed (FAULT_SEED): a precomputed list of
# renames within and out of the cache and of removals runs while the
# daemon is restarted (each start scans at once) and the kernel asks for
# culling; the order of operations is reproducible, their timing against
# the scan is not, so the storm is repeated over several restarts.
# Nothing may be culled outside DIR/cache (no VIOLATION: the simulator
# refuses such a cull and logs it), the daemon stays up, memory bounded.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

SIM_FS_SIZE=64m SIM_FS_INODES=80000
FAULT_OBJECTS=200 fault_setup
c=$SIM_DIR/cache
away=$SIM_FS/away
mkdir -p "$away"
# Padding that makes a scan last long enough to be raced (tens of ms).
for i in 0 1 2 3 4 5 6 7; do
	mkdir -p "$c/Iw/@0$i"
	"$CFSIM" tree wide "$c/Iw/@0$i" 5000
done

# --- mid-cull: rename-after, three times, out of the cache and within ---
sim_ctl rename-after 2 Iv1/@03 "$away/mid1" >/dev/null
fault_mark
fault_ask
check "mid-cull: culling goes on after a directory moved out" fault_wait_progress 3 10
sim_ctl rename-after 1 Iv1 Iv1moved >/dev/null
fault_mark
fault_ask
fault_kick
check "mid-cull: culling goes on after the volume moved within the cache" fault_wait_progress 3 10
sim_ctl rename-after 1 Iv1moved/@0a "$away/mid2" >/dev/null
fault_mark
fault_ask
fault_kick
check "mid-cull: culling goes on after a second move out" fault_wait_progress 3 10
check_grep "the hook ran" 'hook: renamed .*/away/mid1' "$SIM_LOG"
check "what moved out is still there" test -d "$away/mid1" -a -d "$away/mid2"
check_no_grep "mid-cull: no VIOLATION" VIOLATION "$SIM_LOG"

# --- mid-scan: a seeded storm of renames and removals during restarts ---
note "mid-scan storm seed $FAULT_SEED"
awk -v seed="$FAULT_SEED" -v c="$c" -v away="$away" 'BEGIN {
	srand(seed)
	for (i = 0; i < 600; i++) {
		v = (rand() < 0.5) ? "Iw" : "Iv1moved"
		a = sprintf("@%02x", int(rand() * (v == "Iw" ? 8 : 256)))
		b = sprintf("@%02x", int(rand() * 256))
		r = rand()
		if (r < 0.4)
			printf "mv %s/%s/%s %s/%s/%s-%d 2>/dev/null\n", c, v, a, c, v, b, i
		else if (r < 0.6)
			printf "mv %s/%s/%s %s/ms-%d 2>/dev/null\n", c, v, a, away, i
		else
			printf "rm -f %s/%s/%s/D* 2>/dev/null\n", c, v, a
	}
}' >"$SIM_TMP/storm.sh"
sh "$SIM_TMP/storm.sh" &
storm=$!
SIM_EXTRA_PIDS=$storm
rs=0
while [ $rs -lt 4 ]; do
	daemon_signal TERM
	daemon_wait_exit 5
	check_eq "restart $rs: the daemon before it ran until stopped (exit 0)" 0 "$DAEMON_STATUS"
	daemon_start
	sim_wait_bound 5 || not_ok "restart $rs binds"
	fault_ask
	sleep 0.3
	rs=$((rs + 1))
done
wait "$storm" 2>/dev/null
SIM_EXTRA_PIDS=
fault_ask
fault_kick
sleep 2
check "mid-scan: still running after the storm" daemon_alive
check "mid-scan: every restart scanned during the storm" test "$(grep -c 'scan: [0-9]* objects' "$DAEMON_LOG")" -ge 5
hwm=$(fault_hwm)
check "memory bounded: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
fault_check_outside "races"
note "table: rename-after x3 + 600 seeded renames/removals over 4 restarts | culled $(fault_culls) | VmHWM $hwm kB | violations $(sim_state violations)"
tap_done
