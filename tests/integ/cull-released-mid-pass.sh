#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel releases an object while the daemon is in the middle of a
# retry pass over the busy ones, after the pass tried it: its notice is read
# when the pass has ended and the daemon has armed its back-off.  That
# notice must bring the retry, not the back-off's 30 s: the read consumed
# the kernel's state-changed flag, so no other wake-up comes.  Seen on the
# real module (vm/inuse): the last objects released were culled 30 s late.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "released mid-pass" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
count=10
cull_objects v1 $count 32 $((now - 60 * 86400)) 600
sim_start
sim_ctl busy-tree "$SIM_DIR/cache/Iv1" | grep -q "ok busy-tree $count objects" ||
	not_ok "mark the $count objects busy"
sim_config
daemon_start -n -s -d -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan 10
cull_fill 200
sim_ctl check >/dev/null
wait_for 20 grep -q 'nothing cullable .10 busy.' "$DAEMON_LOG"
check_grep "every object is busy: the daemon backs off" 'nothing cullable .10 busy.' "$DAEMON_LOG"
sleep 1.5	# past the first retry gap: the next notice starts a pass at once
# The retry pass goes oldest first: object 0 is tried first and refused;
# right after that cull the kernel releases it.  Object 5's release is
# what starts the pass.
sim_ctl release-after 1 "$(cull_obj_path v1 0)" >/dev/null || not_ok "arm the release hook"
t0=$(date +%s)
sim_ctl release "$(cull_obj_path v1 5)" >/dev/null
_gone() { [ ! -e "$(cull_obj_path v1 "$1")" ]; }
check "the object whose release started the pass is culled" wait_for 5 _gone 5
check_grep "  ... in a pass over the busy ones" 'retrying busy' "$DAEMON_LOG"
check "the object released mid-pass is culled within 10 s, not after the 30 s back-off" \
	wait_for 10 _gone 0
note "object 0 culled $(( $(date +%s) - t0 )) s after the pass began"
check_eq "the other busy objects stay" "1 2 3 4 6 7 8 9" "$(cull_survivors v1 $count | tr '\n' ' ' | sed 's/ $//')"
check_eq "no command from outside DIR/cache" 0 "$(sim_state violations)"
tap_done
