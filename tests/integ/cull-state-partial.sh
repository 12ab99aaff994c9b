#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Kept state replaced by a partial table: a restart culls from the kept
# state, every object of which was used since it was written (re-dated, so
# each is checked and left alone); the kept table is used up, and the
# engine takes the scan's first snapshot (the early gate holds the scan
# there).  Stopped before the scan ends, the daemon must not leave the file
# listing the kept table as it was: the next start would check every one
# of those objects again, for nothing.  With nothing of it left, it goes.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

N=2560
SIM_FS_SIZE=32m SIM_FS_INODES=4096
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "kept state replaced by a partial table" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
V=$SIM_DIR/cache/Ivol1
S=$SIM_DIR/cachefilesd.state

_scanned() { grep -q 'scan: .* objects' "$DAEMON_LOG"; }
_culled_some() { [ "$(sim_state culls)" -gt 0 ]; }

sim_start
mkdir -p "$V"
"$CFSIM" populate "$V" "$N" 0 256
# A first run without a deficit: a scan, its table kept.
sim_config "scan_threads 1"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
wait_for 20 _scanned
daemon_signal TERM
daemon_wait_exit 5
check "the scan wrote $S" test -f "$S"
cp "$S" "$SIM_TMP/kept.state"

# Every object's atime changed since (the file lists them all on a cache
# this small), still one apart from the next: the same inodes, re-dated.
"$CFSIM" populate "$V" "$N" 0 256 61

: >"$DAEMON_LOG"
CFSIM_EARLY_GATE=$SIM_TMP/early-gate
export CFSIM_EARLY_GATE
sim_config "scan_threads 1" "frun 60%" "fcull 50%" "fstop 1%"
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds with a deficit"; exit 1; }
check "culling starts from the scan's first snapshot" wait_for 20 _culled_some
K=$(sed -n 's/.*state: \([0-9]*\) candidates kept.*/\1/p' "$DAEMON_LOG" | head -1)
check "the kept state was read (${K:-?} candidates)" test -n "$K"
check "the scan has not ended" sh -c "! grep -q 'scan: .* objects' '$DAEMON_LOG'"
r=$(sed -n 's/.*culling before the scan ends: \([0-9]*\) of the.*/\1/p' "$DAEMON_LOG" | head -1)
check "culled from the snapshot (${r:-?} certain)" test -n "$r"
daemon_signal TERM
daemon_wait_exit 5
check "the file listing only objects used since is gone" test ! -e "$S"
tap_done
