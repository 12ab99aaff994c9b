#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull trim on an unbound cache: every goal reached exactly, in
# LRU order; --dry-run removes nothing; a held device (a stand-in held with
# flock, as --device documents) or a missing one makes trim refuse and
# remove nothing; nothing outside DIR/cache goes, whatever symlinks are
# planted at every level; entries that are not objects stay.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/tool-lib.inc"

tool_setup
now=$(date +%s)
base=$((now - 100 * 86400))
# 40 objects of 8 KiB, object i used at base + i hours: 0 is the oldest.
cull_objects v1 40 8 $base 3600
DEV=$SIM_TMP/device
: >"$DEV"
survivors() { cull_survivors v1 40 | tr '\n' ' '; }
from() { _i=$1; _s=; while [ "$_i" -lt 40 ]; do _s="$_s$_i "; _i=$((_i + 1)); done; echo "$_s"; }

# --dry-run lists and removes nothing.
before=$(tree_sums)
check "trim --dry-run exits 0" tool trim --bytes 20K --dry-run
check_eq "--dry-run removes nothing" "$before" "$(tree_sums)"
check_eq "--dry-run lists the 3 oldest" 3 "$(grep -c 'Iv1/@' "$TOOL_OUT")"
check_grep "--dry-run says the goal would be met" 'would remove 3 objects' "$TOOL_OUT"

# A held device: refuse, remove nothing.
# One process holds the lock (sh execs sleep with the locked descriptor).
sh -c 'exec 9>>"$1"; flock 9; exec sleep 30' sh "$DEV" &
holder=$!
SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $holder"
wait_for 5 sh -c "! flock -n '$DEV' true"
tool trim --bytes 20K --device "$DEV"
check_eq "held device: status 1" 1 $?
check_grep "held device: points at cull" "busy.*cachefiles-cull cull" "$TOOL_ERR"
check_eq "held device: nothing removed" "$before" "$(tree_sums)"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
tool trim --bytes 20K --device "$SIM_TMP/no-such-device"
check_eq "missing device: status 1" 1 $?
check_grep "missing device: says what to do" 'modprobe cachefiles' "$TOOL_ERR"
check_eq "missing device: nothing removed" "$before" "$(tree_sums)"

# --bytes: 20 KiB of 8 KiB objects is exactly the 3 oldest.
check "trim --bytes 20K exits 0" tool trim --bytes 20K --device "$DEV"
check_eq "--bytes: the 3 oldest went, no more" "$(from 3)" "$(survivors)"
# --older-than: everything used before the cut-off, nothing after.
check "trim --older-than exits 0" tool trim --older-than "$(( now - base - 10 * 3600 - 1800 ))s" --device "$DEV"
check_eq "--older-than: objects 0-10 went" "$(from 11)" "$(survivors)"
check "trim --json exits 0" tool trim --bytes 8K --device "$DEV" --json
check_json "trim --json is valid JSON" "$TOOL_OUT"
check_grep "trim --json: one removed" '"removed":1,"bytes":8192' "$TOOL_OUT"
check_eq "--bytes 8K: one more" "$(from 12)" "$(survivors)"

# --free: only where the filesystem is ours alone.
if [ "$SIM_TMPFS" = 1 ]; then
	bs=$(stat -f -c %S "$SIM_FS"); total=$(stat -f -c %b "$SIM_FS")
	# Fill until about 10 objects' worth under 50 %, then ask for 50 %.
	want=$(( (total * 50 + 99) / 100 ))
	cull_fill $((want - 10 * 8192 / bs))
	check "trim --free 50% exits 0" tool trim --free 50% --device "$DEV"
	left=$(cull_bavail)
	n=$(survivors | wc -w)
	check "--free 50%: reached" test "$left" -ge "$want"
	check "--free 50%: not one object more than needed" test $((left - 8192 / bs)) -lt "$want"
	check_eq "--free 50%: oldest first" "$(from $((40 - n)))" "$(survivors)"
	rm -f "$SIM_FS/filler"
else
	skip "trim --free" "no tmpfs of our own (mount failed)"
fi

# Nothing more to remove: status 3.
tool trim --older-than 1s --device "$DEV"
check_eq "all gone with --older-than 1s" "" "$(survivors)"
tool trim --bytes 1K --device "$DEV"
check_eq "empty cache: status 3" 3 $?

# An old object whose directory's path is longer than PATH_MAX (17 names
# of 250 bytes), beside an old one with a short path: the short one goes,
# the deep one is named on standard error and left, and --older-than is
# not met (status 3) while it is there.
long=@$(printf '%0249d' 0)
# deep OP: perl walks down by relative chdir, which a shell's cd (a whole
# path to chdir) cannot past PATH_MAX; OP is "make" or "test".
deep() {
	perl -e 'my ($top, $n, $op, $t) = @ARGV; chdir $top or exit 1;
		for (1 .. 17) { mkdir $n if $op eq "make"; chdir $n or exit 1 }
		if ($op eq "make") { open(my $f, ">", "Ddeep") or exit 1;
			print $f "x" x 4096; close $f; utime $t, $t, "Ddeep" or exit 1 }
		exit((-s "Ddeep") ? 0 : 1)' "$SIM_DIR/cache/Iv1" "$long" "$1" "$base"
}
deep make || not_ok "a deep tree could not be made"
cull_objects v1 1 8 $base 3600
tool trim --older-than 1d --device "$DEV"
check_eq "a path over PATH_MAX: --older-than not met, status 3" 3 $?
check_grep "a path over PATH_MAX: named on standard error" \
	"/Ddeep: its path is longer than PATH_MAX; not removed" "$TOOL_ERR"
check_eq "a path over PATH_MAX: the short old object went" "" "$(survivors)"
check "a path over PATH_MAX: the deep object is left" deep test
rm -rf "$SIM_DIR/cache/Iv1/$long"

# Planted symlinks at every level, entries that are not objects.
rm -rf "$SIM_DIR/cache"
cull_objects v2 10 4 $((now - 10 * 86400)) 60
cache=$SIM_DIR/cache
out=$SIM_FS/outside
old=$((now - 400 * 86400))
mkdir -p "$out/vol/@00" "$out/fan"
for f in "$out/Dvictim" "$out/vol/@00/Dvolvictim" "$out/fan/Dfanvictim"; do
	head -c 4096 /dev/zero >"$f"; touch -a -d "@$old" "$f"
done
ln -s "$out/Dvictim" "$cache/Iv2/@01/Dlink"
ln -s "$out/vol" "$cache/Ilinkvol"
rm -rf "$cache/Iv2/@aa"; ln -s "$out/fan" "$cache/Iv2/@aa"
: >"$cache/Iv2/@02/Xforeign"; touch -a -d "@$old" "$cache/Iv2/@02/Xforeign"
mkfifo "$cache/Iv2/@03/Dfifo"
mkdir -p "$cache/Iv2/@04/Ddir"; : >"$cache/Iv2/@04/Ddir/Dinside"
touch -a -d "@$old" "$cache/Iv2/@04/Ddir/Dinside"
: >"$SIM_DIR/Dtop"; touch -a -d "@$old" "$SIM_DIR/Dtop"
check "trim of everything exits 0" tool trim --older-than 1s --device "$DEV"
check_eq "every real object went" "" "$(cull_survivors v2 10 | tr '\n' ' ')"
for f in "$out/Dvictim" "$out/vol/@00/Dvolvictim" "$out/fan/Dfanvictim" "$SIM_DIR/Dtop"; do
	check "outside file survives: ${f#$SIM_FS/}" test -s "$f" -o -e "$f"
done
check "symlink planted as an object survives" test -L "$cache/Iv2/@01/Dlink"
check "symlink planted as a volume survives" test -L "$cache/Ilinkvol"
check "symlink planted as a fan-out directory survives" test -L "$cache/Iv2/@aa"
check "foreign file survives" test -e "$cache/Iv2/@02/Xforeign"
check "fifo named like an object survives" test -p "$cache/Iv2/@03/Dfifo"
check "file in a directory named like an object survives" test -e "$cache/Iv2/@04/Ddir/Dinside"
# DIR/cache itself a symlink: refused.
mv "$cache" "$SIM_FS/realcache"; ln -s "$SIM_FS/realcache" "$cache"
tool trim --older-than 1s --device "$DEV"
check_eq "DIR/cache a symlink: status 1" 1 $?
tap_done
