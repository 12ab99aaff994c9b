# SPDX-License-Identifier: GPL-2.0-or-later
# Objects in use are not culled, and the daemon does not spin while the
# kernel wants culling and nothing is cullable: the only objects are held by
# files kept open on the 9p mount.  Its CPU time over 20 s must stay under
# 5 %.  When the files are closed and the inodes evicted, the kernel reports
# them released and the daemon culls back to brun.
. /vm/glib.sh
DIR=$FS/inuse
LOG=/out/inuse-daemon.log
mkdir -p "$DIR"
conf_limits "$DIR" vminuse > /tmp/inuse.conf
if ! cfd_bind /tmp/inuse.conf "$LOG" || ! share_mount; then
	not_ok "objects in use are not culled"
	not_ok "no spinning while nothing is cullable (CPU < 5 % over 20 s)"
	not_ok "released objects are culled back to brun"
	diag_file "$LOG"
	exit 1
fi
read_files "$DATA"/busy/*.bin
drop_caches
# Restart so that the daemon's first scan already lists the objects: the
# in-use check below must come from the kernel answering EBUSY, not from a
# table that has not seen them yet.
share_umount
cfd_stop "$CFD_PID" TERM
cfd_bind /tmp/inuse.conf "$LOG" && share_mount || diag "restart failed"
objects "$DIR" > /tmp/before
holders=
for f in "$DATA"/busy/*.bin "$DATA/small/01.txt"; do
	sleep 100000 < "$f" &
	remember_pid $!
	holders="$holders $!"
done
sleep 1
brun=$(fs_limit 10)
fill_to 5 "$FS/filler"
pct_filled=$(fs_pct)
# Touch a new file so that the kernel checks the space and asks for culling.
sleep 100000 < "$DATA/small/02.txt" &
remember_pid $!
holders="$holders $!"
t_ask=$(up)
sleep 5
c0=$(cpu_ticks "$CFD_PID"); t0=$(up)
sleep 20
c1=$(cpu_ticks "$CFD_PID"); t1=$(up)
objects "$DIR" > /tmp/after
used=$((c1 - c0))
# ticks are 1/100 s: 5 % of the elapsed time is elapsed * 5 ticks
limit=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 5 }')
log "in use: $(wc -l < /tmp/before) objects, $pct_filled% free; daemon CPU $used ticks in $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s (limit $limit)"

if [ "$(wc -l < /tmp/before)" -eq 8 ] && cmp -s /tmp/before /tmp/after && alive "$CFD_PID"; then
	ok "objects in use are not culled"
else
	not_ok "objects in use are not culled"
	diag "objects before: $(wc -l < /tmp/before) (8 expected), after: $(wc -l < /tmp/after)"
	diag_file "$LOG"
fi
if alive "$CFD_PID" && [ "$used" -le "$limit" ]; then
	ok "no spinning while nothing is cullable (CPU < 5 % over 20 s)"
	diag "daemon used $used ticks of 1/100 s in $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s at $pct_filled% free"
else
	not_ok "no spinning while nothing is cullable (CPU < 5 % over 20 s)"
	diag "daemon used $used ticks of 1/100 s in $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s (limit $limit)"
	diag_file "$LOG"
fi

# Release: close the files, evict the inodes; the kernel's released counters
# must wake the daemon, which now culls.  The release comes 40 s after the
# kernel asked for culling, so that a daemon which only retries on a
# back-off timer (30 s, then longer) is not rescued by it by chance.
sleep "$(awk -v a="$t_ask" -v b="$(up)" 'BEGIN { d = a + 40 - b; printf "%d", (d > 0) ? d : 0 }')"
for p in $holders; do kill "$p"; done
wait $holders 2>/dev/null
drop_caches
t0=$(up)
wait_until 60 bavail_at_least "$brun"
reached=$?
took=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%d", b - a }')
if [ $reached -eq 0 ] && [ "$took" -le "$CULL_LATENCY" ] && [ "$(nobjects "$DIR")" -lt 8 ]; then
	ok "released objects are culled back to brun"
	diag "$(fs_pct)% free after $(awk -v a="$t0" -v b="$(up)" 'BEGIN{print b-a}') s, $(nobjects "$DIR") objects left"
else
	not_ok "released objects are culled back to brun"
	diag "$(fs_pct)% free (brun $brun blocks, bavail $(fs_bavail)) after $took s (limit $CULL_LATENCY s), $(nobjects "$DIR") objects left"
	diag_file "$LOG"
fi
rm -f "$FS/filler"
share_umount
cfd_stop "$CFD_PID" TERM
[ "$FAILED" -eq 0 ]
