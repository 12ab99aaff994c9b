#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A culling episode that one batch ends (the kernel asks, the first batch
# brings free space back above brun, the kernel's flag is down again when
# the step ends) still gets its three lines in order, "the kernel asks
# for culling", "culled N objects, ..." with N every cull of it, "culling
# done: ...", and the metrics file is rewritten at its end.  An episode of
# several batches then counts the culls of all of them.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "a one-batch episode" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
now=$(date +%s)
# 30 objects of 32 KiB, the oldest, then 600 of 4 KiB.
cull_objects v1 30 32 $((now - 90 * 86400)) 60
cull_objects v2 600 4 $((now - 80 * 86400)) 60
sim_start
M=$SIM_TMP/metrics.prom
sim_config "metrics_file $M"
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
check "the scan finishes" cull_wait_scan 10
_metrics_written() { [ -s "$M" ]; }
check "the metrics file is written after the scan" wait_for 5 _metrics_written
# 200 blocks free against brun's 400: 25 objects of 8 blocks, under one batch.
cull_fill 200
sim_ctl check >/dev/null
check "the culls settle" cull_wait_idle 20
culls=$(sim_state cull_files)
check "some objects were culled ($culls), fewer than a batch" test "$culls" -gt 0 -a "$culls" -lt 64
check_eq "the kernel no longer asks" 0 "$(sim_state cull)"
_episode_logged() { grep -q 'culled [0-9]* objects' "$DAEMON_LOG"; }
check "the episode is logged" wait_for 5 _episode_logged
check_grep "its line counts every cull" "culled $culls objects, [0-9.]+ MiB in [0-9]\.[0-9] s \\(0 busy" \
	"$DAEMON_LOG"
order=$(grep -Eo 'the kernel asks for culling|culled [0-9]+ objects|culling done' "$DAEMON_LOG" |
	sed 's/culled [0-9]* objects/culled/' | tr '\n' ,)
check_eq "asked, culled, done, in that order" "the kernel asks for culling,culled,culling done," \
	"$order"
_metrics_counted() { grep -q "^cachefilesd_culled_objects_total $culls\$" "$M"; }
check "the metrics file counts the episode's culls" wait_for 3 _metrics_counted

# 150 free: the 5 big objects left and about 200 small ones, several batches.
cull_fill 150
sim_ctl check >/dev/null
check "the second episode's culls settle" cull_wait_idle 20
more=$(($(sim_state cull_files) - culls))
check "more than a batch culled ($more)" test "$more" -gt 64
_second_logged() { [ "$(grep -c 'culled [0-9]* objects' "$DAEMON_LOG")" -ge 2 ]; }
check "the second episode is logged" wait_for 5 _second_logged
check_eq "its line counts the culls of every batch" "culled $more objects" \
	"$(grep -o 'culled [0-9]* objects' "$DAEMON_LOG" | tail -1)"
tap_done
