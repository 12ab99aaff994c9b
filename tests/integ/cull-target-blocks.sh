#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culling frees blocks up to brun and stops there, oldest objects first.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "culling stops at the block target" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
# 300 objects of 32 KiB (8 blocks), one minute apart, the oldest 90 days ago.
cull_objects v1 300 32 $((now - 90 * 86400)) 60
sim_start
sim_config
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
check "the first scan runs without culling being wanted" cull_wait_scan 10
check_eq "nothing culled while the cache is within its limits" 0 "$(sim_state culls)"

brun=$(sim_state brun)
cull_fill 200
before=$(cull_bavail)
need=$(((brun - before + 7) / 8))
note "brun=$brun bavail=$before: $need objects must go"
sim_ctl check >/dev/null
check "culling finishes" cull_wait_idle 30
after=$(cull_bavail)
culled=$(sim_state cull_files)
check "free blocks reached brun ($after >= $brun)" test "$after" -ge "$brun"
check_eq "culling stopped exactly at the target ($need needed)" "$need" "$culled"
first=$(cull_survivors v1 300 | head -1)
left=$(cull_survivors v1 300 | wc -l)
check_eq "the oldest objects went, in order" "$culled" "$first"
check_eq "every younger object is still there" $((300 - culled)) "$left"
check_eq "no command from outside DIR/cache" 0 "$(sim_state violations)"
check "the filler outside the cache is intact" test -s "$SIM_FS/filler"
tap_done
