# SPDX-License-Identifier: GPL-2.0-or-later
# Guest half of bench/vm-prewarm.sh (busybox sh, run by tests/vm/init.sh as
# the scenario "prewarm").  Does the daemon's start-up scan, which stats
# every cache file, make reading through 9p with cache=fscache faster
# afterwards, by warming the cache filesystem's dentries and inodes?
#
# 1. populate: bind, read every file of /data once (the objects are written
#    into the cache), unmount, stop the daemon.
# 2. ROUNDS rounds (/out/prewarm-rounds, default 3) of three modes, each
#    starting with the page, dentry and inode caches dropped:
#      scan      start the daemon; wait for its "scan:" line; read
#      noscan    start it with "nocull" (bind, no scan at all); read
#      dropped   start it; wait for the scan; drop caches again; read
#    "read" is: mount 9p, find every file, cat them all, unmount; timed
#    with /proc/uptime.  The three modes alternate within a round.
# Writes /out/prewarm.raw: "mode=M round=R read_s=S scan_s=X objects=N
# cache_reads=C" (C: reads served from the cache during the pass).
. /vm/glib.sh
ROUNDS=$(cat /out/prewarm-rounds 2>/dev/null || echo 3)
RAW=/out/prewarm.raw
LOG=/out/prewarm-daemon.log
: > "$RAW"
conf_limits "$FS" prewarm > /tmp/pw.conf
{ cat /tmp/pw.conf; echo nocull; } > /tmp/pw-nocull.conf

# Reads from the cache so far (6.1: /proc/fs/fscache/stats, "IO     : rd=N wr=N").
cache_reads() { sed -n 's/^IO *: rd=\([0-9]*\).*/\1/p' /proc/fs/fscache/stats 2>/dev/null | grep . || echo 0; }
nscans() { grep -c 'scan: ' "$LOG" 2>/dev/null || echo 0; }
scans_above() { [ "$(nscans)" -gt "$1" ]; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
read_all() {
	share_mount || return 1
	find "$DATA" -type f > /tmp/list
	xargs cat < /tmp/list > /dev/null
	share_umount
}

log "populate: binding, reading $DATA once"
cfd_bind /tmp/pw.conf "$LOG" || { not_ok "bind"; exit 1; }
t0=$(up); read_all; t1=$(up)
sync; sleep 2
cfd_stop "$CFD_PID"
cat /proc/fs/fscache/stats > /out/prewarm-stats.txt 2>&1
n=$(nobjects "$FS")
log "populate: $(wc -l < /tmp/list) files read in $(secs "$t0" "$t1") s; $n cache objects"
echo "mode=populate round=0 read_s=$(secs "$t0" "$t1") scan_s=0 objects=$n" >> "$RAW"
[ "$n" -gt 0 ] || { not_ok "no cache objects after the populate pass"; exit 1; }

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for mode in scan noscan dropped; do
		drop_caches
		s0=$(nscans)
		c=/tmp/pw.conf
		[ "$mode" = noscan ] && c=/tmp/pw-nocull.conf
		cfd_bind "$c" "$LOG" || { not_ok "bind ($mode)"; exit 1; }
		scan_s=0
		if [ "$mode" != noscan ]; then
			wait_until 300 scans_above "$s0" || log "$mode: no scan line in 300 s"
			scan_s=$(grep 'scan: ' "$LOG" | tail -1 | sed -n 's/.* in \([0-9.]*\) s,.*/\1/p')
		fi
		[ "$mode" = dropped ] && drop_caches
		k0=$(cache_reads)
		t0=$(up); read_all; t1=$(up)
		k1=$(cache_reads)
		cfd_stop "$CFD_PID"
		line="mode=$mode round=$r read_s=$(secs "$t0" "$t1") scan_s=${scan_s:-0} objects=$(nobjects "$FS") cache_reads=$((k1 - k0))"
		log "$line"
		echo "$line" >> "$RAW"
	done
	r=$((r + 1))
done
cat /proc/fs/fscache/stats >> /out/prewarm-stats.txt 2>&1
ok "prewarm: $ROUNDS rounds"
