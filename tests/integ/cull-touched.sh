#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An object used (atime moved) after the scan is not culled; the next oldest go instead.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "touched objects survive" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
cull_objects v1 200 32 $((now - 60 * 86400)) 600
sim_start
sim_config
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
check "the scan finished before the objects are used" cull_wait_scan 10
# Use the five oldest objects now, after the scan recorded their atimes.
for i in 0 1 2 3 4; do
	touch -a "$(cull_obj_path v1 "$i")"
done
brun=$(sim_state brun)
cull_fill 200
need=$(((brun - $(cull_bavail) + 7) / 8))
sim_ctl check >/dev/null
check "culling finishes" cull_wait_idle 30
culled=$(sim_state cull_files)
check_eq "exactly the $need objects needed were culled" "$need" "$culled"
survivors=$(cull_survivors v1 200 | head -6 | tr '\n' ' ')
check_eq "the used objects survived, the next oldest went" \
	"0 1 2 3 4 $((5 + culled)) " "$survivors"
check "free blocks reached brun" test "$(cull_bavail)" -ge "$brun"
tap_done
