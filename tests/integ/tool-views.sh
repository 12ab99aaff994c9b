#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull's offline views on a generated tree, without a daemon:
# status, report and list in text and JSON; list agrees with an independent
# walk (find); bad input gets one line and status 1 or 2; nothing changes.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/tool-lib.inc"

tool_setup
now=$(date +%s)
# The smaller volume made first, so that the order a directory lists them
# in is not the report's (largest first).
cull_objects 9p,host, 20 4 $((now - 10 * 86400)) 7200
cull_objects v1 30 8 $((now - 60 * 86400)) 3600
: >"$SIM_DIR/cache/Iv1/@01/Xforeign"
before=$(tree_sums)

check "status exits 0" tool status
check_grep "status names the directory" "^cache +$SIM_DIR " "$TOOL_OUT"
check_grep "status counts the objects" '^objects +50 \(' "$TOOL_OUT"
check_grep "  ... their volumes and the foreign entry, each noun in its number" \
    '^objects +50 \(.*\) in 2 volumes; 1 other entry left alone$' "$TOOL_OUT"
check_grep "status shows the block limits" 'brun 7%  bcull 5%  bstop 1%' "$TOOL_OUT"
check_grep "status says no daemon answers" '^daemon +not answering' "$TOOL_OUT"
check "status --json exits 0" tool status --json
check_json "status --json is valid JSON" "$TOOL_OUT"
for k in dir bound free_blocks_pct free_files_pct limits brun fstop objects bytes oldest_atime newest_atime; do
	check_grep "status --json has $k" "\"$k\":" "$TOOL_OUT"
done
check_grep "status --json: objects" '"objects":50,' "$TOOL_OUT"
check_grep "status --json: oldest_atime" "\"oldest_atime\":$((now - 60 * 86400))," "$TOOL_OUT"
check_grep "status --json: no daemon" '"daemon":null' "$TOOL_OUT"

check "report exits 0" tool report
check_grep "report decodes the 9p volume" ' 9p tag host$' "$TOOL_OUT"
check_grep "report shows the other volume raw" ' Iv1$' "$TOOL_OUT"
# Largest first (v1: 240 KiB, made second; 9p: 80 KiB), whatever order the
# directory lists them in: the same tree gives the same report.
check_eq "report lists the largest volume first" "Iv1" \
    "$(awk '/^ +objects +bytes/ { f = 1; next } f && NF { print $NF; exit }' "$TOOL_OUT")"
check_grep "report has an access-time histogram by week" '^  8w ago ' "$TOOL_OUT"
check_grep "report has a size histogram" '^  <= 8.0 KiB +30 ' "$TOOL_OUT"
check "report --json exits 0" tool report --json
check_json "report --json is valid JSON" "$TOOL_OUT"
check_grep "report --json: the 9p volume" '"volume":"I9p,host,","fs":"9p","desc":"9p tag host","objects":20,' "$TOOL_OUT"
check_eq "report --json: the largest volume first" "Iv1" \
    "$(sed -n 's/.*"volumes":\[{"volume":"\([^"]*\)".*/\1/p' "$TOOL_OUT")"

# list against find: the oldest 12, in order.
check "list -n 12 exits 0" tool list -n 12
find "$SIM_DIR/cache" -type f -name 'D*' -printf '%A@ %P\n' | sort -n | head -12 |
    sed 's/^[0-9]*\.[0-9]* //; s/^[0-9]* //' >"$SIM_TMP/want"
sed 1d "$TOOL_OUT" | awk '{ print $NF }' >"$SIM_TMP/got"
check "list agrees with find, in order" cmp -s "$SIM_TMP/want" "$SIM_TMP/got"
[ -s "$SIM_TMP/got" ] || note "list printed: $(cat "$TOOL_OUT")"
check "list --json exits 0" tool list --json -n 12
check_json "list --json is valid JSON" "$TOOL_OUT"
if [ "$HAVE_PY" = 1 ]; then
	python3 -c 'import json,sys
for o in json.load(sys.stdin): print(o["path"])' <"$TOOL_OUT" >"$SIM_TMP/got"
	check "list --json paths agree with find" cmp -s "$SIM_TMP/want" "$SIM_TMP/got"
	first=$(python3 -c 'import json,sys; o=json.load(sys.stdin)[0]; print(o["atime"], o["bytes"])' <"$TOOL_OUT")
	check_eq "list --json atime and bytes of the oldest" "$((now - 60 * 86400)) 8192" "$first"
else
	skip "list --json paths agree with find" "python3 is not installed"
fi
check "list (default 20)" tool list
check_eq "list prints 20 by default" 21 "$(wc -l <"$TOOL_OUT")"

# Bad input: one line on stderr, status 1 or 2, nothing touched.
bad() {
	want=$1; shift
	"$TOOL" -s "$SIM_TMP/no-daemon" "$@" >"$TOOL_OUT" 2>"$TOOL_ERR"
	rc=$?
	if [ "$rc" = "$want" ] && [ "$(wc -l <"$TOOL_ERR")" = 1 ] && [ ! -s "$TOOL_OUT" ]; then
		ok "bad input: $* -> $want"
	else
		not_ok "bad input: $* -> $want"; note "status $rc: $(cat "$TOOL_ERR")"
	fi
}
bad 2 -d "$SIM_DIR" frobnicate
bad 2 -d "$SIM_DIR"
bad 2 -d "$SIM_DIR" list -n 0
bad 2 -d "$SIM_DIR" trim --bytes 12Q
bad 2 -d "$SIM_DIR" trim --older-than 5y
bad 2 -d "$SIM_DIR" cull --free 0%
bad 2 -d "$SIM_DIR" cull --free 1000%
check_grep "a percentage of four digits: out of range, not malformed" 'out of range' "$TOOL_ERR"
bad 2 -d "$SIM_DIR" status --to-run
bad 1 -d "$SIM_TMP/missing" status
bad 1 -d "$SIM_TMP" list
bad 1 -d "$SIM_DIR/cache/Iv1/@01/Xforeign" report
check_grep "not a cache: a clear reason" 'not a directory' "$TOOL_ERR"
# DIR/cache a symbolic link to a real cache: refused, and said to be a link.
mkdir "$SIM_TMP/linked" && ln -s "$SIM_DIR/cache" "$SIM_TMP/linked/cache"
bad 1 -d "$SIM_TMP/linked" status
check_grep "  ... a symbolic link DIR/cache is named as one" '/linked/cache: a symbolic link, not followed$' "$TOOL_ERR"
bad 1 -f "$SIM_TMP/missing.conf" status
# A file without dir: its limits and tag for the directory -d names, and an
# error without -d.
printf 'tag notdir\nbrun 42%%\n' >"$SIM_TMP/nodir.conf"
"$TOOL" -s "$SIM_TMP/no-daemon" -f "$SIM_TMP/nodir.conf" -d "$SIM_DIR" status >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "-f FILE without dir, with -d: status 0" 0 "$?"
check_grep "-f FILE without dir, with -d: the file's tag" '^cache .*\(tag notdir\)' "$TOOL_OUT"
check_grep "-f FILE without dir, with -d: the file's limits" 'brun 42%' "$TOOL_OUT"
bad 1 -f "$SIM_TMP/nodir.conf" list
check_grep "-f FILE without dir or -d: says why" "nodir.conf: no 'dir' directive" "$TOOL_ERR"
check "--help exits 0" sh -c "\"\$0\" --help >/dev/null" "$TOOL"
check "--help with standard output full: status 1" sh -c "\"\$0\" --help >/dev/full 2>/dev/null; [ \$? = 1 ]" "$TOOL"
check "--version with standard output full: status 1" sh -c "\"\$0\" --version >/dev/full 2>/dev/null; [ \$? = 1 ]" "$TOOL"
check_grep "--version prints it" '^cachefiles-cull [0-9]' "$(
	"$TOOL" --version >"$SIM_TMP/v"; echo "$SIM_TMP/v")"
check_eq "nothing was changed" "$before" "$(tree_sums)"

# The run limit as the kernel sets it, (blocks / 100) * 7 with the default
# brun 7%: free blocks just above it are above run, one below it below,
# whatever the exact percentage says.
# leave_free N: fill the tmpfs outside DIR/cache until N blocks are free.
leave_free() {
	rm -f "$SIM_FS/filler"
	a=$(stat -f -c %a "$SIM_FS")
	[ "$a" -gt "$1" ] && dd if=/dev/zero of="$SIM_FS/filler" bs="$(stat -f -c %S "$SIM_FS")" \
	    count=$((a - $1)) 2>/dev/null
	[ "$(stat -f -c %a "$SIM_FS")" -eq "$1" ]
}
if [ "$SIM_TMPFS" = 1 ]; then
	lim=$(( $(stat -f -c %b "$SIM_FS") / 100 * 7 ))
	if leave_free $((lim + 3)); then
		tool status
		check_grep "free blocks 3 over the kernel's brun: above run" 'brun 7%.*above run$' "$TOOL_OUT"
	else
		not_ok "left $((lim + 3)) blocks free"
	fi
	if leave_free $((lim - 1)); then
		tool status
		check_grep "free blocks 1 under the kernel's brun: below run" 'brun 7%.*below run$' "$TOOL_OUT"
	else
		not_ok "left $((lim - 1)) blocks free"
	fi
	rm -f "$SIM_FS/filler"
else
	skip "status against the kernel's brun" "no tmpfs of our own"
fi

# What /proc/fs/fscache/caches says of a bound cache, without a daemon:
# the tool run in a mount namespace of its own with a tmpfs on /proc/fs
# (the host's /proc untouched), first with no such file, then with one
# listing a cache under the tag CacheFiles.  Unknown is null, not false.
# $1: caches file text ("" for none); the tool's arguments follow.
proc_tool() {
	unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs none /proc/fs || exit 99
		if [ -n "$1" ]; then
			mkdir /proc/fs/fscache && printf "%b" "$1" >/proc/fs/fscache/caches || exit 99
		fi
		shift
		exec "$@"' sh "$@" >"$TOOL_OUT" 2>"$TOOL_ERR"
}
caches_head='CACHE    REF   VOLS  OBJS  ACCES S NAME\n======== ===== ===== ===== ===== = ===============\n'
pst=99
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	proc_tool "" "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status --json; pst=$?
fi
if [ "$pst" = 99 ]; then
	skip "status --json without /proc/fs/fscache" "no mount namespace here"
	skip "status --json with the tag in /proc/fs/fscache/caches" "no mount namespace here"
	skip "trim refused while /proc lists the cache" "no mount namespace here"
else
	check_grep "status --json without /proc/fs/fscache: bound is null (unknown)" \
	    '"bound":null,"bound_from":"unknown"' "$TOOL_OUT"
	proc_tool "" "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status
	check_grep "  ... and the text says unknown" '^bound +unknown \(no daemon answers' "$TOOL_OUT"
	proc_tool "${caches_head}00000001     2     1     0     1 A CacheFiles\n" \
	    "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status --json
	check_grep "status --json with the tag in /proc/fs/fscache/caches: bound" \
	    '"bound":true,"bound_from":"proc"' "$TOOL_OUT"
	proc_tool "${caches_head}00000001     2     1     0     1 A othertag\n" \
	    "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" status --json
	check_grep "  ... another tag there: not bound" '"bound":false,"bound_from":"proc"' "$TOOL_OUT"
	proc_tool "${caches_head}00000001     2     1     0     1 A CacheFiles\n" \
	    "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/no-daemon" trim --bytes 1 --dry-run
	check_eq "trim refused while /proc lists the cache, status 1" 1 $?
	check_grep "  ... naming /proc" 'is bound \(/proc/fs/fscache/caches\)' "$TOOL_ERR"
fi

# An object used at the epoch (or before, which counts as the epoch): list
# gives it 0 in both fields, as its atime says, first of all.
: >"$SIM_DIR/cache/Iv1/@00/Depoch"
touch -a -d @0 "$SIM_DIR/cache/Iv1/@00/Depoch"
tool list --json -n 1
check_grep "list --json: an object at the epoch shows 0 ns" \
    '"path":"Iv1/@00/Depoch","atime":0,"atime_ns":0,' "$TOOL_OUT"
tap_done
