# SPDX-License-Identifier: GPL-2.0-or-later
# make demo, guest half: cachefilesd against the real module, narrated on the
# serial console.  Line prefixes (the host colours them): "step" what we do,
# "daemon" its log, "notify" what it sends to the notify socket, "disk" free
# space and object counts, "tool" what cachefiles-cull prints.  The summary
# also goes to /out/summary.txt.
. /vm/glib.sh
exec > /dev/console 2>&1
# the helpers' narration is for test logs; here it would only add noise
log() { echo "[$(up)] $*" >> /out/demo-steps.log; }
DIR=$FS/demo
mkdir -p "$DIR"
step() { echo "step   | $*"; }
TOOL=/usr/sbin/cachefiles-cull
# tool ARGS...: run the culling tool on the demo's configuration, narrated.
tool() {
	step "cachefiles-cull $*"
	[ -x "$TOOL" ] && "$TOOL" -f /tmp/demo.conf "$@" 2>&1 | sed 's/^/tool   | /'
}
{ conf_limits "$DIR" demo; echo "control_socket /tmp/cfd.control"; } > /tmp/demo.conf
: > /tmp/daemon.log
: > /tmp/notify.txt

step "cache disk: $(( $(fs_blocks) * $(fs_bsize) / 1048576 )) MiB ext4; configuration:"
sed 's/^/step   |     /' /tmp/demo.conf
tail -f /tmp/daemon.log | awk '{ print "daemon | " $0; fflush() }' &
remember_pid $!
tail -f /tmp/notify.txt | awk '{ print "notify | " $0; fflush() }' &
remember_pid $!
notify_start /tmp/notify.sock /tmp/notify.txt
step "starting: cachefilesd -n -s -f /tmp/demo.conf (NOTIFY_SOCKET set)"
cfd_bind /tmp/demo.conf /tmp/daemon.log /tmp/notify.sock &&
	step "kernel: $(dmesg | grep 'File cache on demo registered' | tail -1 | sed 's/^\[[^]]*\] //')"

# disk line: free space, objects, graveyard entries; printed when they
# change, and every 5 s anyway so that a stall is visible as one
monitor() {
	last= quiet=0
	while :; do
		b=$(fs_bavail) t=$(fs_blocks)
		pct=$(awk -v a="$b" -v t="$t" 'BEGIN { printf "%.2f", a * 100 / t }')
		awk -v p="$pct" -v l="$(cat /tmp/lowest 2>/dev/null || echo 100)" 'BEGIN { exit !(p < l) }' &&
			echo "$pct" > /tmp/lowest
		now="free $pct% ($b of $t blocks)  objects $(nobjects "$DIR")  graveyard $(ls -A "$DIR/graveyard" 2>/dev/null | wc -l)"
		if [ "$now" != "$last" ] || [ $quiet -ge 5 ]; then
			echo "disk   | $now"
			last=$now quiet=0
		fi
		quiet=$((quiet + 1))
		sleep 1
	done
}
brun=$(fs_limit 10); bcull=$(fs_limit 7); bstop=$(fs_limit 3)
step "limits in blocks: brun $brun, bcull $bcull, bstop $bstop"

share_mount
step "reading 24 files (9 MiB) through 9p mounted with cache=fscache"
i=0
for f in "$DATA"/demo/*.bin; do
	i=$((i + 1)); [ $i -le 24 ] || break
	cat "$f" > /dev/null
done
drop_caches
step "drop_caches: the objects are linked into $DIR/cache"
objects "$DIR" > /tmp/before
objects_before=$(wc -l < /tmp/before)
while read -r o; do echo "$(stat -c %x "$o")|$o"; done < /tmp/before | sort > /tmp/atimes
free_before=$(fs_pct)
echo "disk   | free $free_before%  objects $objects_before"
tool status
tool list -n 5
monitor &
remember_pid $!
mon=$!

step "filling the disk to 5% free (between bstop 3% and bcull 7%) with a fallocated file"
fill_to 5 "$FS/filler" 2>&1 | sed 's/^\[[^]]*\] /step   | /'
free_filled=$(fs_pct)
sleep 1
step "reading 2 new files: creating their objects makes the kernel check the space and ask for culling"
i=0
for f in "$DATA"/demo/*.bin; do
	i=$((i + 1)); [ $i -gt 24 ] && [ $i -le 26 ] && cat "$f" > /dev/null
done
t0=$(up)
if wait_until 45 bavail_at_least "$brun"; then reached=yes; else reached=no; fi
t1=$(up)
sleep 2
kill "$mon"
drop_caches
objects "$DIR" > /tmp/after
objects_after=$(wc -l < /tmp/after)
culled=$(grep -cvxFf /tmp/after /tmp/before)
# oldest first: no survivor is older than a culled object
oldest=$(awk -F'|' 'NR == FNR { alive[$0] = 1; next }
	{ if ($2 in alive) { if (!smin || $1 < smin) smin = $1 } else if ($1 > cmax) cmax = $1 }
	END { print (cmax && (!smin || cmax <= smin)) ? "yes" : "no" }' /tmp/after /tmp/atimes)
free_after=$(fs_pct)
tool status
step "a manual cull while the kernel does not ask: 1 MiB more"
tool cull --bytes 1M
free_manual=$(fs_pct)
share_umount
step "stopping the daemon with SIGTERM"
cfd_stop "$CFD_PID" TERM 2>/dev/null
sleep 0.5
step "kernel: $(dmesg | grep 'File cache on demo unregistering' | tail -1 | sed 's/^\[[^]]*\] //')"
{
	echo "objects culled:           $culled of $objects_before; oldest first: $oldest; $objects_after left"
	echo "free before filling:      $free_before%"
	echo "free after filling:       $free_filled%  (bcull 7%, bstop 3%); lowest seen $(cat /tmp/lowest 2>/dev/null)%"
	echo "free after culling:       $free_after%  (brun 10%)"
	echo "free after a manual cull: $free_manual%  (cachefiles-cull cull --bytes 1M)"
	echo "brun reached:             $reached, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after culling was asked for"
	echo "daemon exit status:       $CFD_RC"
	echo "STATUS= lines received:   $(grep -c 'STATUS=' /tmp/notify.txt)"
} > /out/summary.txt
sleep 0.3
