#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing outside DIR/cache is removed, whatever is planted in the tree:
# symlinks as data objects, as fan-out and volume directories, a bind mount,
# and entries the daemon does not understand.  The cache is made to need
# more than it holds, so the daemon culls everything it may.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "nothing outside the cache is removed" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
old=$((now - 400 * 86400))
cull_objects v1 40 32 $((now - 30 * 86400)) 600
cache=$SIM_DIR/cache
out=$SIM_FS/outside
# Victims outside the cache, on the same filesystem, older than anything inside.
mkdir -p "$out/vol/@00" "$out/fan" "$out/mnt"
for f in "$out/Dvictim" "$out/vol/@00/Dvolvictim" "$out/fan/Dfanvictim" "$out/mnt/Dmntvictim"; do
	head -c 65536 /dev/zero >"$f"
	touch -a -d "@$old" "$f"
done
ln -s "$out/Dvictim" "$cache/Iv1/@01/Dlink"
ln -s "$out/vol" "$cache/Ilinkvol"
rm -rf "$cache/Iv1/@aa"
ln -s "$out/fan" "$cache/Iv1/@aa"
ln -s "$out/fan" "$cache/Iv1/@ab/Dfan"
# Entries that are not cache objects, inside the cache: left alone.
: >"$cache/Iv1/@02/Xforeign"
touch -a -d "@$old" "$cache/Iv1/@02/Xforeign"
mkfifo "$cache/Iv1/@03/Dfifo"
mkdir -p "$cache/Iv1/@04/Ddir"
: >"$cache/Iv1/@04/Ddir/Dinside"
touch -a -d "@$old" "$cache/Iv1/@04/Ddir/Dinside"
mounted=0
mkdir -p "$cache/Iv1/@05/@mnt"
if mount --bind "$out/mnt" "$cache/Iv1/@05/@mnt" 2>/dev/null; then
	mounted=1
	# Unmount before lib-sim's clean-up unmounts the tmpfs.
	trap 'umount "$cache/Iv1/@05/@mnt" 2>/dev/null; sim_cleanup' EXIT
fi

sim_start
sim_config
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan 10
cull_fill 30
sim_ctl check >/dev/null
_all_culled() { [ "$(cull_survivors v1 40 | wc -l)" -eq 0 ]; }
check "every real object is culled" wait_for 20 _all_culled
check "the cull count settles" cull_wait_still 10
for f in "$out/Dvictim" "$out/vol/@00/Dvolvictim" "$out/fan/Dfanvictim" "$out/mnt/Dmntvictim"; do
	check "outside file survives: ${f#$SIM_FS/}" test -s "$f"
done
check "symlink planted as a data object survives" test -L "$cache/Iv1/@01/Dlink"
check "symlink planted as a volume survives" test -L "$cache/Ilinkvol"
check "symlink planted as a fan-out directory survives" test -L "$cache/Iv1/@aa"
check "foreign file survives" test -e "$cache/Iv1/@02/Xforeign"
check "fifo named like an object survives" test -p "$cache/Iv1/@03/Dfifo"
check "file inside a directory named like an object survives" test -e "$cache/Iv1/@04/Ddir/Dinside"
check_eq "no command from outside DIR/cache" 0 "$(sim_state violations)"
check_eq "no directory was culled" 0 "$(sim_state cull_dirs)"
check_grep "unknown entries are reported" 'left alone: [1-9][0-9]* entries not understood' "$DAEMON_LOG"
check_grep "symlinks are named in the log" 'left alone: Iv1/@01/Dlink \(symlink\)' "$DAEMON_LOG"
if [ "$mounted" = 1 ]; then
	check_grep "the mount inside the cache was not entered" '[1-9][0-9]* mount points' "$DAEMON_LOG"
else
	skip "the mount inside the cache was not entered" "bind mount not possible here"
fi
tap_done
