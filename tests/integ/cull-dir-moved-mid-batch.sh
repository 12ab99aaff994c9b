#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A directory moved out of the cache in the middle of a batch of culls is
# not culled in: the daemon checks, just before each cull, that the
# object's directory still resolves from DIR/cache to the directory it
# holds open.  The move is made by the simulator itself right after the
# second cull (control request rename-after), so the race is hit every
# run: the daemon opened the fan-out directory for the first victim in it
# and meets it again, moved, four culls later.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

cull_moved_setup "a directory moved mid-batch is not culled in"
moved=$SIM_FS/moved-away
_arm() { sim_ctl rename-after 2 Iv/@01 "$moved" >/dev/null; }
check "the simulator arms the move" _arm
# Everything is wanted: more than the cache holds.
sim_fill_to 2
sim_ctl check >/dev/null
_hooked() { grep -q '^[0-9.]* hook: renamed' "$SIM_LOG"; }
check "the directory is moved after the second cull" wait_for 20 _hooked
_settled() { [ "$(ls "$SIM_DIR/cache/Iv/@00" | wc -l)" -eq 0 ]; }
check "the rest of the cache is culled" wait_for 20 _settled
check "the cull count settles" cull_wait_still 10
check_grep "culls were sent (the log below has something to say)" '^[0-9.]+ cull ' "$SIM_LOG"
check_no_grep "no cull is sent with the cwd outside DIR/cache" 'VIOLATION' "$SIM_LOG"
# D1 went before the move; D5, D9, ... D57 moved with the directory and stay.
check_eq "every object in the moved directory survives" 14 "$(ls "$moved" | wc -l)"
check_eq "the object culled before the move is gone" "" "$(ls "$moved" | grep -x D1)"
tap_done
