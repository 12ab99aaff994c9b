#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A cache tree partly owned by another user.  The daemon runs as
# root and drops its capabilities after the bind; a fan-out directory deep in
# the tree that belongs to uid 1000 with mode 0700 cannot be read once the
# capabilities are dropped (cachefilesd(8) keeps the DAC pair only for
# foreign directories at the top level), so its objects, the oldest, are
# never culled: the daemon must at least say that it could not read it.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "foreign-owned directory" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
sim_start
sim_config
sim_populate 200 4 vol1
F=$SIM_DIR/cache/Ivol1/@02
chown -R 1000:1000 "$F"
chmod 0700 "$F"
# its 50 objects are the oldest of the cache
for f in "$F"/*; do touch -a -d '2000-01-01 00:00:00' "$f"; done
sim_fill_to 4
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds"
wait_for 15 grep -Eq 'nothing cullable|culling done' "$DAEMON_LOG"
sleep 0.5
left=$(find "$F" -type f | wc -l)
note "objects left in the foreign directory: $left of 50; culls: $(sim_state culls)"
note "CapEff: $(proc_field "$DAEMON_PID" CapEff)"
[ "$left" -lt 50 ] || note "the 50 oldest objects stay: LRU order is broken for this tree (documented limit)"
check_grep "a directory the scan could not read is reported" \
    'Ivol1/@02|[Pp]ermission denied|could not|cannot|errors' "$DAEMON_LOG"
check_eq "no cull or inuse outside DIR/cache" 0 "$(sim_state violations)"
check "the daemon keeps running" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
