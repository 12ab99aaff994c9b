#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The volume series come from the last finished scan: while the next scan
# runs and the daemon culls early from its partial table (which has no
# volume figures, and replaced the finished table), a rewrite of the
# metrics file still holds them.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl "volume series while culling early"
SIM_FS_SIZE=32m SIM_FS_INODES=4096
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "volume series while culling early" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
CFSIM_EARLY_GATE=$SIM_TMP/early-gate
export CFSIM_EARLY_GATE
: >"$CFSIM_EARLY_GATE"		# open: the first scan runs through
mkdir -p "$SIM_DIR/cache"
"$CFSIM" populate "$SIM_DIR/cache/Ivol1" 100 4
sim_start
M=$SIM_TMP/m.prom
sim_config "metrics_file $M" "scan_threads 1" "state_file no" "brun 40%" "bcull 30%" "bstop 1%"
daemon_start
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }
metric() { sed -n "s/^$1 //p" "$M"; }
check "the first scan's volume" wait_for 5 sh -c \
	"grep -q '^cachefilesd_volume_objects{volume=\"Ivol1\"} 100' '$M'"
# Use the table up, then hold the next scan after its first snapshot.
r=$(ctl "cull free 100" 20000)
check_eq "the table is used up" '"met"' "$(jval result "$r")"
rm -f "$CFSIM_EARLY_GATE"
"$CFSIM" populate "$SIM_DIR/cache/Ivol3" 2560 4 256
cull_fill $(($(stat -f -c %b "$SIM_FS") / 4))
sim_ctl check >/dev/null
check "it culls before the scan ends" wait_for 10 grep -q 'culling before the scan ends' "$DAEMON_LOG"
ino=$(stat -c %i "$M")
_rewritten() { [ "$(stat -c %i "$M")" != "$ino" ]; }
check "the file is rewritten while culling" wait_for 10 _rewritten
check_eq "  ... the scan still runs" 1 "$(metric cachefilesd_scanning)"
check_eq "  ... the last finished scan's volume is still there" 100 \
	"$(metric 'cachefilesd_volume_objects{volume="Ivol1"}')"
: >"$CFSIM_EARLY_GATE"
cull_wait_scan 20
daemon_signal TERM
daemon_wait_exit 10
tap_done
