#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Busy objects are skipped; with nothing cullable the daemon waits without
# spinning, and resumes when the kernel reports released objects.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "busy objects" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
count=60
cull_objects v1 $count 32 $((now - 60 * 86400)) 600
sim_start
i=0
while [ "$i" -lt $count ]; do
	sim_ctl busy "$(cull_obj_path v1 "$i")" >/dev/null || not_ok "mark object $i busy"
	i=$((i + 1))
done
sim_config
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan 10
brun=$(sim_state brun)
cull_fill 200
sim_ctl check >/dev/null
wait_for 10 grep -q 'nothing cullable' "$DAEMON_LOG"
check_grep "the daemon says nothing is cullable" 'nothing cullable' "$DAEMON_LOG"
check_eq "the kernel still wants culling" 1 "$(sim_state cull)"
tried=$(sim_state cull_busy)
check "every busy object was tried at most twice ($tried)" \
	test "$tried" -ge $count -a "$tried" -le $((2 * count))
# CPU over a window while the kernel keeps asking and nothing is cullable.
t0=$(proc_cpu "$DAEMON_PID")
i=0
while [ "$i" -lt 10 ]; do
	sim_ctl check >/dev/null
	sleep 0.5
	i=$((i + 1))
done
t1=$(proc_cpu "$DAEMON_PID")
note "CPU ticks over 5 s: $((t1 - t0)); cull commands: $(sim_state culls)"
check "no spinning: at most 5 ticks of CPU in 5 s (got $((t1 - t0)))" \
	test $((t1 - t0)) -le 5
check "no retries without a reason (cull commands $(sim_state culls))" \
	test "$(sim_state culls)" -le $((2 * count))
check_eq "all busy objects survived" $count "$(cull_survivors v1 $count | wc -l)"
# Release the twenty oldest: the kernel reports them and culling resumes.
i=0
while [ "$i" -lt 20 ]; do
	sim_ctl release "$(cull_obj_path v1 "$i")" >/dev/null
	i=$((i + 1))
done
_culled_some() { [ "$(sim_state cull_files)" -gt 0 ]; }
check "released objects are culled soon after" wait_for 10 _culled_some
check "the cull count settles" cull_wait_still 10
left=$(cull_survivors v1 $count | head -1)
check_eq "the released objects went, the busy ones stayed" 20 "$left"
check_eq "no command from outside DIR/cache" 0 "$(sim_state violations)"
tap_done
