# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile cache tree on the real module: symlinks out of the cache at the
# volume, fan-out and object level (and loops), a fifo, a socket, a device
# node, a hard link to a file outside, names with a newline, spaces and
# bytes that are not UTF-8, an unreadable fan-out directory.  The kernel
# asks for culling and the daemon culls what it may: real objects go, the
# planted entries stay, and nothing outside DIR/cache changes (checksums).
. /vm/glib.sh
DIR=$FS/hostile
LOG=/out/hostile-daemon.log
OUT=$FS/outside
mkdir -p "$DIR" "$OUT/vol/@00" "$OUT/fan"
conf_limits "$DIR" vmhostile > /tmp/hostile.conf
# Outside: old files named like objects, the targets of every link.
for f in "$OUT/Dvictim" "$OUT/vol/@00/Dvolvictim" "$OUT/fan/Dfanvictim" "$OUT/Dhard"; do
	head -c 65536 /dev/urandom > "$f"
	touch -a -d @1000000000 "$f"
done
sums() { find "$OUT" -exec stat -c '%n %s %h %a' {} \; | sort; find "$OUT" -type f -exec md5sum {} \; | sort; }
sums > /tmp/out.before

if ! cfd_bind /tmp/hostile.conf "$LOG" || ! share_mount; then
	not_ok "a hostile tree: real objects culled, planted entries left"
	not_ok "a hostile tree: nothing outside DIR/cache changes"
	exit 1
fi
# new/00.bin is read now, not as the trigger below: the kernel writes a new
# object's data after the read has returned, and if those blocks land after
# the culls they take free space back below brun while the kernel, which
# cleared its flag at a check that did not count them yet, rightly stays
# quiet above bcull.  A small file is the trigger instead.
read_files "$DATA"/old/*.bin "$DATA/new/00.bin"
drop_caches
share_umount
# Planted while no daemon runs, so that the next one's first scan meets them.
cfd_stop "$CFD_PID"
vol=$(ls -d "$DIR"/cache/I* | head -1)
fan=$(ls -d "$vol"/@* | head -1)
# Planted, with atimes older than any real object.
ln -s "$OUT/Dvictim" "$fan/Dlink"
ln -s "$OUT/vol" "$DIR/cache/Ilinkvol"
ln -s "$OUT/fan" "$vol/@zz"
ln -s . "$fan/Dloop"
ln -s "$fan/Dpair2" "$fan/Dpair1"; ln -s "$fan/Dpair1" "$fan/Dpair2"
mkfifo "$fan/Dfifo"
mknod "$fan/Ddev" c 1 3 2>/dev/null || log "mknod refused"
"$CFSIM" tree sock "$fan/Dsock" 2>/dev/null || log "no socket planted"
ln "$OUT/Dhard" "$fan/Dhardlink"
nl=$(printf 'D\nnewline')
echo x > "$fan/$nl"
echo x > "$fan/D with spaces "
echo x > "$fan/$(printf 'D\377\376bad')"
mkdir -p "$vol/@locked"; echo x > "$vol/@locked/Dinside"; chmod 000 "$vol/@locked"
for e in "$fan/$nl" "$fan/D with spaces " "$fan/$(printf 'D\377\376bad')" "$vol/@locked/Dinside"; do
	touch -a -d @1000000000 "$e" 2>/dev/null
done
# An immutable object, the oldest of all: the kernel cannot unlink it and
# answers the cull with EIO ("Internal error" in its log) while the cache
# lives on.  The daemon must tell that from a dead cache with a probe the
# kernel does not log ("tag", not "dir", which logs "Second cache
# directory specified"), skip it and go on.
imm=
if command -v chattr >/dev/null; then
	imm="$fan/Dimmutable"
	head -c 65536 /dev/urandom > "$imm"
	touch -a -d @900000000 "$imm"
	chattr +i "$imm" || { log "chattr +i refused"; imm=; }
fi
d0=$(dmesg_lines)
planted="$fan/Dlink $DIR/cache/Ilinkvol $vol/@zz $fan/Dloop $fan/Dpair1 $fan/Dpair2 $fan/Dfifo $vol/@locked"
n_before=$(find "$DIR/cache" -type f -size +100k | wc -l)
s0=$(grep -c 'scan: ' "$LOG")
if ! cfd_bind /tmp/hostile.conf "$LOG" || ! share_mount; then
	not_ok "a hostile tree: real objects culled, planted entries left"
	not_ok "a hostile tree: nothing outside DIR/cache changes"
	exit 1
fi
scanned() { [ "$(grep -c 'scan: ' "$LOG")" -gt "$s0" ]; }
wait_until 30 scanned
grep 'left alone' "$LOG" >&2
brun=$(fs_limit 10)
fill_to 5 "$FS/filler"
read_files "$DATA/small/03.txt"
wait_until 90 bavail_at_least "$brun"
reached=$?
sleep 1
n_after=$(find "$DIR/cache" -type f -size +100k | wc -l)
left=0
for e in $planted; do [ -e "$e" ] || [ -L "$e" ] || { log "planted entry gone: $e"; left=1; }; done
alive "$CFD_PID"; up_rc=$?
log "real objects $n_before -> $n_after, brun reached: $reached, planted intact: $((1 - left)), alive: $up_rc"
if [ "$reached" -eq 0 ] && [ "$n_after" -lt "$n_before" ] && [ "$left" -eq 0 ] && [ "$up_rc" -eq 0 ]; then
	ok "a hostile tree: real objects culled ($n_before -> $n_after), planted entries left, the daemon up"
else
	not_ok "a hostile tree: real objects culled ($n_before -> $n_after), planted entries left, the daemon up"
	diag "$(fs_pct)% free (brun $brun blocks, bavail $(fs_bavail)), brun reached: $reached"
	diag_file "$LOG"
fi
if [ -n "$imm" ]; then
	log "kernel, since the start: $(dmesg_since "$d0" | grep -cE 'CacheFiles: Internal error') internal error line(s)"
	if [ -e "$imm" ] && grep -q "cull .*Dimmutable" "$LOG" && alive "$CFD_PID" &&
	   ! dmesg_since "$d0" | grep -q 'Second cache directory'; then
		ok "an immutable object: skipped, the daemon up, the kernel's log without a probe line"
	else
		not_ok "an immutable object: skipped, the daemon up, the kernel's log without a probe line"
		dmesg_since "$d0" | grep -E 'CacheFiles|FS-Cache' | tail -8 | sed 's/^/#   dmesg: /'
		grep -i 'immutable\|Dimmutable\|dead' "$LOG" | tail -5 | sed 's/^/#   log: /'
	fi
	chattr -i "$imm"
else
	echo "ok - an immutable object # SKIP no chattr in the guest"
fi
chmod 700 "$vol/@locked"
rm -f "$FS/filler"
share_umount
cfd_stop "$CFD_PID"
sums > /tmp/out.after
cmp -s /tmp/out.before /tmp/out.after
verdict $? "a hostile tree: nothing outside DIR/cache changes (names, sizes, links, modes, checksums)"
grep -iE 'sanitizer|abort|segv' "$LOG" >&2 && not_ok "no crash in the daemon's log"
[ "$FAILED" -eq 0 ]
