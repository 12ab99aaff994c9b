#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A directory above DIR changes just after bind.  The kernel resolves the
# path once, at bind; the daemon must work in what the kernel bound or not
# at all, never in another tree the path names by then.
#  1. dir goes through a symbolic link further up (base/link/fscache),
#     and the link is pointed elsewhere right after bind (rename-at-bind):
#     the daemon bound the path without links, so it culls in the real
#     tree and touches nothing in the other, graveyard included.
#  2. the real directory above DIR is exchanged with another one right
#     after bind (exchange-at-bind): nobody can tell which one the kernel
#     took, so the daemon says so and exits, having culled and emptied
#     nothing in either.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "a directory above DIR moved at bind" "needs a tmpfs to make the kernel ask for culling"
	tap_done; exit
fi
real=$SIM_FS/real other=$SIM_FS/other
for t in "$real" "$other"; do
	mkdir -p "$t/fscache/cache/Iv/@00" "$t/fscache/graveyard/old/sub"
	"$CFSIM" populate "$t/fscache/cache/Iv" 40 16
	: >"$t/fscache/graveyard/old/sub/file"
done
ln -s "$real" "$SIM_FS/link"
ln -s "$other" "$SIM_FS/link.new"
sim_start
sim_config
sed -i "s|^dir .*|dir $SIM_FS/link/fscache|" "$SIM_CONF"
sim_ctl rename-at-bind "$SIM_FS/link.new" "$SIM_FS/link" >/dev/null
daemon_start
sim_wait_bound 5 || { not_ok "binds"; exit 1; }
check_grep "the link above DIR is swapped right after bind" '^[0-9.]* hook: renamed' "$SIM_LOG"
check_grep "the log names the path bound" \
	"link/fscache: binding $real/fscache, its resolved path" "$DAEMON_LOG"
_cwd() { [ "$(readlink "/proc/$DAEMON_PID/cwd")" = "$real/fscache/cache" ]; }
check "the daemon works in the directory the kernel bound" wait_for 5 _cwd
sim_fill_to 4
sim_ctl check >/dev/null
_culled() { [ "$(sim_state cull_files)" -gt 0 ]; }
check "it culls" wait_for 10 _culled
_gy_empty() { [ -z "$(ls -A "$real/fscache/graveyard")" ]; }
check "it empties the bound cache's graveyard" wait_for 5 _gy_empty
check_eq "nothing in the other cache is culled" 40 "$(find "$other/fscache/cache" -type f | wc -l)"
check "nothing in the other graveyard is removed" test -f "$other/fscache/graveyard/old/sub/file"
check_no_grep "no cull from outside the bound cache" VIOLATION "$SIM_LOG"
"$CFCTL" "$SIM_CTLSOCK" status 3000 >"$SIM_TMP/status.json"
check_grep "its status names the directory bound, links resolved" \
	"\"dir\":\"$real/fscache\"" "$SIM_TMP/status.json"
culls=$(sim_state cull_files)
"$BUILD/cachefiles-cull" -d "$other/fscache" -s "$SIM_CTLSOCK" cull --bytes 1 >/dev/null 2>&1
check_eq "the tool does not take it for the other cache's daemon" 1 $?
check_eq "  ... and nothing is culled for it" "$culls" "$(sim_state cull_files)"
daemon_signal TERM
daemon_wait_exit 10
check_eq "it stops on SIGTERM" 0 "$DAEMON_STATUS"

# 2: the directory above DIR itself swapped with another.
rm -f "$SIM_FS/link" "$SIM_FS/link.new"
rm -rf "$real/fscache/cache/Iv"
mkdir -p "$real/fscache/cache/Iv/@00" "$real/fscache/graveyard/old/sub"
"$CFSIM" populate "$real/fscache/cache/Iv" 20 16
: >"$real/fscache/graveyard/old/sub/file"
culls0=$(sim_state cull_files)
sed -i "s|^dir .*|dir $real/fscache|" "$SIM_CONF"
sim_ctl exchange-at-bind "$real" "$other" >/dev/null
: >"$DAEMON_LOG"
daemon_start
daemon_wait_exit 10
check_grep "the directory above DIR is exchanged right after bind" \
	'^[0-9.]* hook: exchanged' "$SIM_LOG"
check_eq "the daemon exits with status 1" 1 "$DAEMON_STATUS"
check_grep "it says the directory moved while binding" \
	"$real/fscache was moved or replaced while the cache was being bound" "$DAEMON_LOG"
check_eq "  ... after 'Bound cache', as any failure after the bind" "Bound cache,moved," \
	"$(grep -Eo 'Bound cache|was moved or replaced|Daemon Started' "$DAEMON_LOG" |
	  sed 's/was moved or replaced/moved/' | tr '\n' ,)"
check_eq "nothing is culled" "$culls0" "$(sim_state cull_files)"
check "the graveyard now at the path is not emptied" test -f "$real/fscache/graveyard/old/sub/file"
check "nor the one moved away" test -f "$other/fscache/graveyard/old/sub/file"
check_eq "no object is removed from either tree" 60 \
	"$(find "$real/fscache/cache" "$other/fscache/cache" -type f | wc -l)"
tap_done
