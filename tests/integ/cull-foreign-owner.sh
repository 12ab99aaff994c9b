#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A cache tree partly owned by another user.  The daemon runs as root and
# drops its capabilities after the bind, unless part of the tree belongs to
# another user: then it says which directory, keeps the DAC pair (and says
# so), and culls that directory's objects in LRU order like any others.
# Here a fan-out directory of uid 1000, mode 0700, holds the 50 oldest
# objects; the kernel needs about 80 objects culled, so they must all go
# and younger objects must stay.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "foreign-owned directory" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
sim_start
sim_config
sim_populate 200 8 vol1
F=$SIM_DIR/cache/Ivol1/@02
n_foreign=$(find "$F" -type f | wc -l)
check "the foreign directory holds objects ($n_foreign)" test "$n_foreign" -gt 0
chown -R 1000:1000 "$F"
chmod 0700 "$F"
# its objects are the oldest of the cache
for f in "$F"/*; do touch -a -d '2000-01-01 00:00:00' "$f"; done
sim_fill_to 6	# below bcull 7%: about 4% of 16 MiB to free, ~80 objects of 8 KiB
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds"
cull_wait_scan 10
check "culling starts" wait_for 10 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^culls=//p')\" -gt 0 ]"
cull_wait_idle 20
left=$(find "$F" -type f | wc -l)
others=$(find "$SIM_DIR/cache/Ivol1" -type f ! -path "$F/*" | wc -l)
culls=$(sim_state culls)
note "objects left: $left of $n_foreign in the foreign directory, $others others; culls: $culls"
check_grep "the foreign directory is named" 'Ivol1/@02 belongs to uid 1000' "$DAEMON_LOG"
check_grep "the DAC capabilities are kept, and the log says so" \
    'capabilities kept: .*cap_dac_read_search' "$DAEMON_LOG"
check_eq "the foreign directory's objects, the oldest, are all culled" 0 "$left"
check "culling stopped at the target: younger objects stay" test "$others" -gt 0
check "at least the foreign objects were culled" test "$culls" -ge "$n_foreign"
check_eq "no cull or inuse outside DIR/cache" 0 "$(sim_state violations)"
check "the daemon keeps running" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
