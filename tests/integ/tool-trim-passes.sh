#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull trim beyond one table: with more objects than cull_memory
# holds, a dry run lists what the real run removes (each pass goes on after
# the last object of the one before), on a filesystem without inode counts
# (tmpfs nr_inodes=0, as btrfs) the whole goal is reached; an object that
# cannot be removed, or cannot be seen (an unreadable directory, one too
# deep, a name with a newline), leaves --older-than unmet (status 3) and
# status counts as unseen; once DIR/cache has been
# moved away, trim removes nothing more there and says its result is error;
# objects touched to an older atime while trim runs are found by a pass from
# the oldest again, which names an object that would not go only once.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/tool-lib.inc"

SIM_FS_SIZE=64m SIM_FS_INODES=0
tool_setup
[ "$SIM_TMPFS" = 1 ] || { skip "trim beyond one table" "no tmpfs of our own (mount failed)"; tap_done; exit; }
check_eq "the filesystem reports no inode counts" 0 "$(stat -f -c %c "$SIM_FS")"
N=70000				# more than cull_memory 1M holds (52,428) and than 16 x 4096
DEV=$SIM_TMP/device
: >"$DEV"
CONF=$SIM_TMP/small.conf
printf 'dir %s\ncull_memory 1M\n' "$SIM_DIR" >"$CONF"
old=$(( $(date +%s) - 30 * 86400 ))
count() { find "$1" -type f -name 'D*' | wc -l; }
# make_cache spread|same: N objects, atimes one second apart (the next pass
# goes on by atime) or all the same (by inode number), all over 10 days old.
make_cache() {
	rm -rf "$SIM_DIR/cache"
	mkdir -p "$SIM_DIR/cache/Ivol"
	if [ "$1" = spread ]; then
		"$CFSIM" populate "$SIM_DIR/cache/Ivol" "$N" 0 256 1
	else
		"$CFSIM" populate "$SIM_DIR/cache/Ivol" "$N" 0 256 &&
		    find "$SIM_DIR/cache" -type f -exec touch -a -d "@$old" {} +
	fi
}
trim() {
	"$TOOL" -f "$CONF" -s "$SIM_TMP/no-daemon" trim --older-than 1d "$@" >"$TOOL_OUT" 2>"$TOOL_ERR"
}

for atimes in spread same; do
check "$N objects made ($atimes atimes)" make_cache $atimes
trim --dry-run
check_eq "dry run over more than one table: status 0" 0 $?
check_grep "dry run lists every object" "^would remove $N objects .* would be met" "$TOOL_OUT"
check_eq "dry run lists each object once" "$N" "$(grep -c ' Ivol/@' "$TOOL_OUT")"
check_eq "dry run lists no object twice" "$N" "$(grep ' Ivol/@' "$TOOL_OUT" | sort -u | wc -l)"
check_eq "dry run removes nothing" "$N" "$(count "$SIM_DIR/cache")"
trim --device "$DEV"
check_eq "real run over more than one table: status 0" 0 $?
check_grep "real run removes every object" "^removed $N objects .* met" "$TOOL_OUT"
check_eq "nothing left" 0 "$(count "$SIM_DIR/cache")"
done

# The default cull_memory on a filesystem without inode counts: one table.
check "$N objects made again" make_cache same
"$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status --json >"$TOOL_OUT" 2>"$TOOL_ERR"
check_grep "no inode counts: status --json gives no free share of files" '"free_files_pct":null' "$TOOL_OUT"
"$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" trim --older-than 1d --device "$DEV" >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "no inode counts: status 0" 0 $?
check_eq "no inode counts: nothing left" 0 "$(count "$SIM_DIR/cache")"

# An object that will not go: --older-than is not met.
rm -rf "$SIM_DIR/cache"; mkdir -p "$SIM_DIR/cache/Ivol"
"$CFSIM" populate "$SIM_DIR/cache/Ivol" 10 0 4
find "$SIM_DIR/cache" -type f -exec touch -a -d "@$old" {} +
if chattr +i "$SIM_DIR/cache/Ivol/@02/D2" 2>/dev/null; then
	trim --device "$DEV"
	check_eq "an immutable object: status 3" 3 $?
	check_grep "an immutable object: not met" "^removed 9 objects .* not met" "$TOOL_OUT"
	check_grep "the failure names the object" "Ivol/@02/D2: unlink: Operation not permitted" "$TOOL_ERR"
	chattr -i "$SIM_DIR/cache/Ivol/@02/D2"
else
	skip "an immutable object: status 3" "chattr +i does not work on this tmpfs"
fi

# Objects trim cannot see: --older-than is not met either.  A directory it
# cannot read (root without the capabilities that pass over modes), and one
# deeper than the scan goes, each hiding an object older than the cut-off.
rm -rf "$SIM_DIR/cache"; mkdir -p "$SIM_DIR/cache/Ivol"
"$CFSIM" populate "$SIM_DIR/cache/Ivol" 10 0 4
find "$SIM_DIR/cache" -type f -exec touch -a -d "@$old" {} +
# setpriv must be able to drop them here (not in a container without CAP_SETPCAP).
if setpriv --bounding-set=-dac_override,-dac_read_search \
    --inh-caps=-dac_override,-dac_read_search true 2>/dev/null; then
	hidden=$(count "$SIM_DIR/cache/Ivol/@03")
	chmod 000 "$SIM_DIR/cache/Ivol/@03"
	setpriv --bounding-set=-dac_override,-dac_read_search \
	    --inh-caps=-dac_override,-dac_read_search \
	    "$TOOL" -f "$CONF" -s "$SIM_TMP/no-daemon" trim --older-than 1d --device "$DEV" \
	    >"$TOOL_OUT" 2>"$TOOL_ERR"
	check_eq "an unreadable directory: status 3" 3 $?
	check_grep "an unreadable directory: not met, and why" \
	    "^removed [0-9]* objects .* not met: some entries could not be read" "$TOOL_OUT"
	chmod 700 "$SIM_DIR/cache/Ivol/@03"
	check_eq "the objects in it are still there" "$hidden" "$(count "$SIM_DIR/cache/Ivol/@03")"
else
	skip "an unreadable directory: status 3" "setpriv is missing or cannot drop DAC capabilities here"
fi
rm -rf "$SIM_DIR/cache"; mkdir -p "$SIM_DIR/cache/Ivol"
"$CFSIM" populate "$SIM_DIR/cache/Ivol" 4 0 4
"$CFSIM" tree deep "$SIM_DIR/cache/Ivol/@00" 40
# and a data name no cull command can carry (a newline in it)
: >"$SIM_DIR/cache/Ivol/@01/$(printf 'Dnew\nline')"
find "$SIM_DIR/cache" -type f -exec touch -a -d "@$old" {} +
"$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status --json >"$TOOL_OUT" 2>"$TOOL_ERR"
check_grep "status --json counts them as unseen" '"unseen":2[,}]' "$TOOL_OUT"
check_grep "  ... and says on stderr that its figures are short" \
    "^cachefiles-cull: 2 entries were not looked at .*figures are short" "$TOOL_ERR"
"$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" report --json >"$TOOL_OUT" 2>"$TOOL_ERR"
check_grep "report --json counts them as unseen too" '"errors":0,"unseen":2,' "$TOOL_OUT"
trim --json --device "$DEV"
check_eq "objects too deep or with a newline: status 3" 3 $?
check_grep "too deep, a newline: the result is exhausted" '"result":"exhausted"' "$TOOL_OUT"
check_grep "too deep, a newline: both counted as unseen" '"unseen":2[,}]' "$TOOL_OUT"
check_eq "the deep object is still there" 1 "$(find "$SIM_DIR/cache" -name Ddeep | wc -l)"
check_eq "the one with a newline too" 1 "$(find "$SIM_DIR/cache" -name 'Dnew?line' -printf x | wc -c)"

# trim_on_fifo NAME: trim --older-than 1d --json in the background (tpid),
# writing to the FIFO $SIM_TMP/NAME, whose reading end is then fd 8.
trim_on_fifo() {
	mkfifo "$SIM_TMP/$1"
	"$TOOL" -f "$CONF" -s "$SIM_TMP/no-daemon" trim --older-than 1d --json --device "$DEV" \
	    >"$SIM_TMP/$1" 2>"$TOOL_ERR" &
	tpid=$!
	SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $tpid"
	exec 8<"$SIM_TMP/$1"
}

# DIR/cache moved away while trim waits on its output: nothing more goes.
check "$N objects made a third time" make_cache same
trim_on_fifo fifo
# It blocks in write(2) once the pipe is full (its JSON names each object
# removed): the kernel says where it sleeps, or which system call it is in
# (write's number for this machine, from the C library's headers).
WRITE_NR=$(printf '#include <sys/syscall.h>\nSYS_write\n' | ${CC:-cc} -E -P - 2>/dev/null | tail -n 1)
blocked() {
	case $(cat "/proc/$tpid/wchan" 2>/dev/null) in *pipe_write) return 0 ;; esac
	read -r nr _ <"/proc/$tpid/syscall" && [ "$nr" = "$WRITE_NR" ]
}
if wait_for 60 blocked; then
	mv "$SIM_DIR/cache" "$SIM_FS/moved"
	mkdir "$SIM_DIR/cache"
	n1=$(count "$SIM_FS/moved")
	cat <&8 >"$SIM_TMP/moved.json"
	exec 8<&-
	wait "$tpid"
	check_eq "cache moved away: status 1" 1 $?
	check_grep "cache moved away: the result is error" '"result":"error"' "$SIM_TMP/moved.json"
	check "some objects had gone before the move" test "$n1" -lt "$N"
	check_eq "none went after the move" "$n1" "$(count "$SIM_FS/moved")"
	check_grep "cache moved away: says so" "cache is no longer the directory trim opened" "$TOOL_ERR"
else
	exec 8<&-
	not_ok "trim blocked on its output"
fi

# Objects touched while trim waits on its output, to an atime older still
# (before the key a next pass goes on from): their re-check fails, they are
# counted as skipped, and trim looks again from the oldest, so that
# --older-than is met with none of them left.
check "$N objects made a fourth time" make_cache same
trim_on_fifo fifo2
if wait_for 60 blocked; then
	find "$SIM_DIR/cache" -type f -exec touch -a -d "@$((old - 5))" {} +
	n1=$(count "$SIM_DIR/cache")
	cat <&8 >"$SIM_TMP/touched.json"
	exec 8<&-
	wait "$tpid"
	check_eq "objects touched during trim: --older-than still met, status 0" 0 $?
	check_grep "  ... the result is met" '"result":"met"' "$SIM_TMP/touched.json"
	check "  ... the touched ones counted as skipped" \
	    grep -Eq '"skipped":[1-9][0-9]*[,}]' "$SIM_TMP/touched.json"
	check "  ... some were left when they were touched" test "$n1" -gt 0
	check_eq "  ... none is left now" 0 "$(count "$SIM_DIR/cache")"
else
	exec 8<&-
	not_ok "trim blocked on its output, a second time"
fi

# The same with an object that will not go: trim looks again from the
# oldest, but names the object once and counts it once, and the goal is
# not met.
check "$N objects made a fifth time" make_cache same
if chattr +i "$SIM_DIR/cache/Ivol/@02/D2" 2>/dev/null; then
	trim_on_fifo fifo3
	if wait_for 60 blocked; then
		find "$SIM_DIR/cache" -type f -name 'D*' ! -name D2 \
		    -exec touch -a -d "@$((old - 5))" {} +
		cat <&8 >"$SIM_TMP/refused.json"
		exec 8<&-
		wait "$tpid"
		check_eq "touched, one immutable: status 3" 3 $?
		check_grep "  ... the result is exhausted" '"result":"exhausted"' "$SIM_TMP/refused.json"
		check_eq "  ... the immutable one is named once" 1 \
		    "$(grep -c 'Ivol/@02/D2: unlink: Operation not permitted' "$TOOL_ERR")"
		check_eq "  ... it alone is left" 1 "$(count "$SIM_DIR/cache")"
	else
		exec 8<&-
		not_ok "trim blocked on its output, a third time"
	fi
	chattr -i "$SIM_DIR/cache/Ivol/@02/D2"
else
	skip "touched, one immutable: status 3" "chattr +i does not work on this tmpfs"
fi
tap_done
