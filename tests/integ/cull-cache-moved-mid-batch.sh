#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# DIR/cache moved away as a whole in the middle of a batch of culls: not
# one more cull is sent there.  Each object's directory still resolves
# from the cache root the daemon holds (the root moved with it), so the
# check before each cull must also find the root at DIR/cache by path;
# before, the batch went on culling in the moved tree until the next
# batch's check.  The simulator renames DIR/cache right after the second
# cull (rename-after), so the race is hit every run.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

cull_moved_setup "DIR/cache moved mid-batch: no cull there"
mkdir -p "$SIM_FS/elsewhere"
_arm() { sim_ctl rename-after 2 "$SIM_DIR/cache" "$SIM_FS/elsewhere/cache" >/dev/null; }
check "the simulator arms the move" _arm
sim_fill_to 2
sim_ctl check >/dev/null
_hooked() { grep -q '^[0-9.]* hook: renamed' "$SIM_LOG"; }
check "DIR/cache is moved after the second cull" wait_for 20 _hooked
check "the daemon stops: the cache it bound is gone" daemon_wait_exit 10
check_grep "and says so" 'no longer the cache directory' "$DAEMON_LOG"
check_eq "two culls were sent, both before the move" 2 "$(grep -c '^[0-9.]* cull ' "$SIM_LOG")"
check_no_grep "no cull is sent with the cwd outside DIR/cache" 'VIOLATION' "$SIM_LOG"
check_eq "every object in the moved cache survives" 58 \
    "$(find "$SIM_FS/elsewhere/cache" -type f | wc -l)"
tap_done
