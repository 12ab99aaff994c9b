#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cull_age: objects unused for longer are culled although the cache is
# within its limits; younger ones stay.  An object used before 1970 (an
# atime tmpfs and ext4 can hold) is the oldest of all, not "no object":
# it goes first and the others follow.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "age limit" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
# 60 objects, one hour apart: the oldest 60 h ago, the youngest 1 h ago.
cull_objects v1 60 8 $((now - 60 * 3600)) 3600
PRE=$(dirname "$(cull_obj_path v1 0)")/Dpre1970
echo x >"$PRE" && touch -a -d @-100 "$PRE"
sim_start
sim_config "cull_age 1d"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
_aged_gone() { [ "$(cull_survivors v1 60 | head -1)" -ge 36 ]; }
check "objects older than a day are culled" wait_for 10 _aged_gone
check "the cull count settles" cull_wait_idle 10
check "the object used before 1970 went too" test ! -e "$PRE"
check_eq "the kernel did not ask for culling" 0 "$(sim_state cull)"
first=$(cull_survivors v1 60 | head -1)
left=$(cull_survivors v1 60 | wc -l)
# Object i was used 60 - i hours ago: 36 is 24 h old, on the edge.
check "objects younger than a day stay (first survivor $first)" test "$first" -le 37
check "no object younger than a day was culled ($left left)" test "$left" -ge 23
check_eq "no command from outside DIR/cache" 0 "$(sim_state violations)"
# The culls for the age limit come in one step: still one episode's line.
check_grep "the episode's line counts every cull" \
	"culled $((61 - left)) objects, [0-9.]+ MiB in [0-9.]+ s \\(0 busy" "$DAEMON_LOG"
tap_done
