#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culling before the scan ends, from one snapshot to the next.  The early
# gate (tests/sim/link-sim.c) holds the scan after its first snapshot, then
# lets it run to its second and holds it there; the simulated kernel takes
# 30 ms a cull, so the second snapshot comes while the first table is
# still being culled.  The engine must keep that snapshot and cull from it
# once the first table is used up (before, a snapshot offered while a table
# lasted was dropped, and culling stopped until the next one), and must not
# look again for what the first table culled (the second table holds those
# objects too: the scan saw them before they went).
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

N=2560
SIM_FS_SIZE=32m SIM_FS_INODES=4096
need_cfctl "early tables"
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "culling from one snapshot to the next" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
V=$SIM_DIR/cache/Ivol1
CFSIM_EARLY_GATE=$SIM_TMP/early-gate
export CFSIM_EARLY_GATE

sim_start --cull-delay-ms 30
sim_config "frun 60%" "fcull 50%" "fstop 1%" "scan_threads 1" "state_file no"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
frun=$(sim_state frun)
daemon_signal TERM
daemon_wait_exit 5
: >"$DAEMON_LOG"
mkdir -p "$V"
"$CFSIM" populate "$V" "$N" 0 256
k=$((frun - $(cull_ffree)))
note "$N objects; the kernel wants $k files back"

_culled_some() { [ "$(sim_state culls)" -gt 0 ]; }
_second_table() { grep -q 'cull: partial table' "$DAEMON_LOG"; }

daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
check "culling starts while the scan is held at its first snapshot" wait_for 10 _culled_some
k1=$(sed -n 's/.*culling before the scan ends: \([0-9]*\) of the.*/\1/p' "$DAEMON_LOG" | head -1)
note "the first table holds ${k1:-?} certain objects"
# On to the second snapshot, while the first table is still being culled.
echo 1 >"$CFSIM_EARLY_GATE"
check "the second snapshot is taken once the first table is used up" wait_for 20 _second_table
check "the scan has not ended" sh -c "! grep -q 'scan: .* objects' '$DAEMON_LOG'"
cull_wait_still 20
c2=$(sim_state culls)
check "culling went on past the first table while the scan was held (${k1:-?} < $c2)" \
	test "$c2" -gt "${k1:-0}"
r=$(ctl status 2000)
check_eq "nothing culled was looked for again (vanished)" 0 "$(jval vanished "$r")"
early=$(i=0; while [ "$i" -lt "$N" ]; do
	[ -e "$V/@$(printf %02x $((i % 256)))/D$i" ] || echo "$i"; i=$((i + 1)); done | tail -1)
check "every object culled so far is among the $k oldest (youngest: D${early:-?})" \
	test "${early:-0}" -lt "$k"
: >"$CFSIM_EARLY_GATE"
cull_wait_scan 20
check "culling finishes" cull_wait_idle 60
check_eq "exactly the deficit was culled" "$k" "$(sim_state culls)"
daemon_signal TERM
daemon_wait_exit 5
tap_done
