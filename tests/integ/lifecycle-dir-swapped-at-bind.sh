#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache directory is resolved once.  dir names a symbolic link; the
# kernel binds its target; the simulator points the link elsewhere right
# after bind (control request rename-at-bind).  The daemon must cull in
# what the kernel bound, not in where the link points by then.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "the cache directory is resolved once" "needs a tmpfs to make the kernel ask for culling"
	tap_done; exit
fi
real_dir=$SIM_FS/real
other_dir=$SIM_FS/other
mkdir -p "$real_dir/cache/Iv/@00" "$other_dir/cache/Iv/@00" "$other_dir/graveyard"
"$CFSIM" populate "$real_dir/cache/Iv" 40 16
"$CFSIM" populate "$other_dir/cache/Iv" 40 16
ln -s "$real_dir" "$SIM_FS/link"
ln -s "$other_dir" "$SIM_FS/link.new"
sim_start
sim_config
sed -i "s|^dir .*|dir $SIM_FS/link|" "$SIM_CONF"
sim_ctl rename-at-bind "$SIM_FS/link.new" "$SIM_FS/link" >/dev/null
daemon_start
sim_wait_bound 5 || { not_ok "binds"; exit 1; }
check_grep "the link is swapped right after bind" '^[0-9.]* hook: renamed' "$SIM_LOG"
check_eq "the link now points elsewhere" "$other_dir" "$(readlink "$SIM_FS/link")"
_cwd() { [ "$(readlink "/proc/$DAEMON_PID/cwd")" = "$real_dir/cache" ]; }
check "the daemon works in the directory the kernel bound" wait_for 5 _cwd
sim_fill_to 4
sim_ctl check >/dev/null
_culled() { [ "$(sim_state cull_files)" -gt 0 ]; }
check "it culls" wait_for 10 _culled
check_eq "nothing in the other directory is touched" 40 "$(find "$other_dir/cache" -type f | wc -l)"
check_no_grep "no cull from outside the bound cache" VIOLATION "$SIM_LOG"
tap_done
