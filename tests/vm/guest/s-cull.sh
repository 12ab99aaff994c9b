# SPDX-License-Identifier: GPL-2.0-or-later
# Culling against the real module: real objects in two generations (old, new)
# plus a filler bring the cache disk between bstop and bcull; a fresh read
# makes the kernel ask for culling.  The daemon must cull the oldest objects
# first and bring free space back to at least brun.  Along the way: the
# graveyard is emptied (entries planted before the start and while running),
# and files outside DIR/cache and DIR/graveyard, even ones named like cache
# objects, are never touched.
. /vm/glib.sh
DIR=$FS/cull
LOG=/out/cull-daemon.log
mkdir -p "$DIR/graveyard/planted-before/sub"
echo x > "$DIR/graveyard/planted-before/sub/file"
echo x > "$DIR/graveyard/planted-before-file"
echo keep > "$DIR/keep-in-dir"
echo keep > "$FS/keep-on-fs"
conf_limits "$DIR" vmcull > /tmp/cull.conf

if ! cfd_bind /tmp/cull.conf "$LOG" || ! share_mount; then
	not_ok "culling brings free space back to brun"
	not_ok "culling takes the oldest objects first"
	not_ok "the graveyard is emptied"
	not_ok "files outside the cache are never touched"
	diag "the daemon did not bind"
	diag_file "$LOG"
	exit 1
fi

# Graveyard: what was there before the start, and what appears while running.
# Built next to the graveyard and renamed in, as the kernel does.
mkdir -p "$DIR/planted-live/a/b"
echo x > "$DIR/planted-live/a/b/file"
mv "$DIR/planted-live" "$DIR/graveyard/planted-live"
[ -d "$DIR/graveyard/planted-live" ] || [ ! -d "$DIR/planted-live" ] || log "rename into the graveyard failed"
graveyard_empty() { [ -z "$(ls -A "$DIR/graveyard")" ]; }
wait_until 30 graveyard_empty
gy_empty=$?
gy_left=$(ls -A "$DIR/graveyard" | tr '\n' ' ')

# The start-up scan ends first: one still walking while the objects are
# written would hand the culls a table of half-made objects, whose atimes
# then move (each re-check refuses them), instead of the rescan the
# kernel's request brings to an empty table.
scan_ended() { grep -q 'cachefilesd: scan: ' "$LOG"; }
wait_until 30 scan_ended || log "no start-up scan logged in 30 s"
# Two generations of objects, at least a second apart.
read_files "$DATA"/old/*.bin
drop_caches
sleep 1.5
read_files "$DATA"/new/*.bin
drop_caches
objects "$DIR" > /tmp/before
n_before=$(wc -l < /tmp/before)
while read -r o; do echo "$(stat -c %x "$o")|$o"; done < /tmp/before | sort > /tmp/atimes
log "$n_before objects; atimes:"; cat /tmp/atimes >&2

# Decoys: files named like the objects in places the kernel's cull would
# reach if the daemon ever sent "cull" from the wrong directory.
while read -r o; do
	n=${o##*/}
	for d in "$DIR" "$FS" /tmp /; do
		echo decoy > "$d/$n"
		echo "$d/$n" >> /tmp/decoys
	done
done < /tmp/before

brun=$(fs_limit 10)
fill_to 5 "$FS/filler"
pct_filled=$(fs_pct)
# A new object makes the kernel check the space and signal "cull".
read_files "$DATA/small/00.txt"
t0=$(up)
wait_until 90 bavail_at_least "$brun"
reached=$?
t1=$(up)
sleep 1
objects "$DIR" > /tmp/after
n_after=$(wc -l < /tmp/after)
log "free: $pct_filled% after filling, $(fs_pct)% now (brun $brun blocks, bavail $(fs_bavail)); objects $n_before -> $n_after in $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s"

# Culling takes well under a second of work here; the kernel asked for it
# when the trigger file was read.  A daemon that leaves the disk near bstop
# for long lets the kernel stop caching, so the wait is bounded.
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')
if [ "$n_before" -eq 24 ] && [ $reached -eq 0 ] && [ "$took" -le "$CULL_LATENCY" ] &&
   [ "$n_after" -lt "$n_before" ]; then
	ok "culling brings free space back to brun"
	diag "$pct_filled% free after filling, $(fs_pct)% after culling, $((n_before - n_after)) of $n_before objects culled in $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s"
else
	not_ok "culling brings free space back to brun"
	diag "$n_before objects (24 expected), $pct_filled% free after filling, $(fs_pct)% now, brun is $brun blocks, $n_after objects left"
	diag "brun reached: $([ $reached -eq 0 ] && echo "after $took s (limit $CULL_LATENCY s)" || echo "no, within 90 s")"
	diag_file "$LOG" 25
fi

# Oldest first: every culled object is older than every survivor.
awk -F'|' 'NR == FNR { alive[$0] = 1; next }
	{ if ($2 in alive) { ns++; if (!smin || $1 < smin) smin = $1 }
	  else { nc++; if ($1 > cmax) cmax = $1 } }
	END { printf "%d %d %s|%s\n", nc, ns, cmax, smin
	      exit !(nc > 0 && ns > 0 && cmax <= smin) }' /tmp/after /tmp/atimes > /tmp/order
order=$?
if [ $order -eq 0 ]; then
	ok "culling takes the oldest objects first"
else
	not_ok "culling takes the oldest objects first"
	diag "culled, survivors, newest culled atime | oldest survivor atime: $(cat /tmp/order)"
	while IFS='|' read -r t o; do
		grep -qxF "$o" /tmp/after && s=kept || s=culled
		diag "$t $s ${o#$DIR/cache/}"
	done < /tmp/atimes
fi

if [ $gy_empty -eq 0 ]; then
	ok "the graveyard is emptied"
else
	not_ok "the graveyard is emptied"
	diag "left in $DIR/graveyard after 30 s: $gy_left"
	diag_file "$LOG"
fi

echo "$DIR/keep-in-dir" >> /tmp/decoys
echo "$FS/keep-on-fs" >> /tmp/decoys
missing=$(while read -r f; do [ -f "$f" ] || echo "$f"; done < /tmp/decoys)
if [ -z "$missing" ] && [ "$(wc -l < /tmp/decoys)" -gt 90 ]; then
	ok "files outside the cache are never touched"
else
	not_ok "files outside the cache are never touched"
	diag "$(wc -l < /tmp/decoys) files planted outside DIR/cache (named like the objects), gone:"
	echo "$missing" | head -20 | sed 's/^/#   /'
fi
rm -f "$FS/filler"
share_umount
cfd_stop "$CFD_PID" TERM
[ "$FAILED" -eq 0 ]
