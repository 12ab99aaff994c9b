#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culling frees files up to frun and stops there, oldest objects first.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

SIM_FS_INODES=1024
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "culling stops at the file target" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
sim_start
# The kept state's file would take one of the files counted here.
sim_config "state_file no"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
frun=$(sim_state frun)
fcull=$(sim_state fcull)
daemon_signal TERM
daemon_wait_exit 5
# Empty objects, one minute apart, until fewer than fcull files are free.
free=$(cull_ffree)
nobj=$((free - 256 - fcull + 20))
note "frun=$frun fcull=$fcull free=$free: making $nobj objects"
cull_objects v1 "$nobj" 0 $((now - 30 * 86400)) 60
before=$(cull_ffree)
need=$((frun - before))
check "fewer than fcull files are free ($before < $fcull)" test "$before" -lt "$fcull"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds again"; exit 1; }
sim_ctl check >/dev/null
check "culling finishes" cull_wait_idle 30
after=$(cull_ffree)
culled=$(sim_state cull_files)
check "free files reached frun ($after >= $frun)" test "$after" -ge "$frun"
check_eq "culling stopped exactly at the target ($need needed)" "$need" "$culled"
first=$(cull_survivors v1 "$nobj" | head -1)
left=$(cull_survivors v1 "$nobj" | wc -l)
check_eq "the oldest objects went, in order" "$culled" "$first"
check_eq "every younger object is still there" $((nobj - culled)) "$left"
tap_done
