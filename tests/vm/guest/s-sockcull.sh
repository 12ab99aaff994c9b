# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull against the real module and the daemon's control socket:
# status shows the kernel's FS-Cache counters moving after reads through 9p;
# "cull --free P%" on a cache the kernel is not asking to cull reaches the
# goal, oldest objects first; a rescan removes no directory the kernel uses.
. /vm/glib.sh
DIR=$FS/sockcull
LOG=/out/sockcull-daemon.log
SOCK=/tmp/cfd/control
mkdir -p "$DIR"
{ conf_limits "$DIR" vmsock; echo "control_socket $SOCK"; } > /tmp/sockcull.conf
TOOL=/usr/sbin/cachefiles-cull
if [ ! -x "$TOOL" ]; then
	not_ok "cull free over the control socket reaches its goal"
	diag "no cachefiles-cull in the guest"
	exit 1
fi
cookies() { "$TOOL" -f /tmp/sockcull.conf --json status | sed -n 's/.*"cookies":\([0-9]*\).*/\1/p'; }
if ! cfd_bind /tmp/sockcull.conf "$LOG" || ! share_mount; then
	not_ok "cull free over the control socket reaches its goal"
	diag "the daemon did not bind"
	diag_file "$LOG"
	exit 1
fi
c0=$(cookies)
read_files "$DATA"/old/*.bin
c1=$(cookies)
"$TOOL" -f /tmp/sockcull.conf status >&2
log "FS-Cache cookies before reading $c0, after $c1"
[ -n "$c0" ] && [ -n "$c1" ] && [ "$c1" -gt "$c0" ]
verdict $? "status shows the kernel's cookie count moving after reads through 9p ($c0 -> $c1)"
"$TOOL" -f /tmp/sockcull.conf --json status | grep -q '"daemon_answers":true'
verdict $? "status finds the daemon through the configuration's socket"
drop_caches
sleep 1.5
read_files "$DATA"/new/*.bin
drop_caches
objects "$DIR" > /tmp/before
while read -r o; do echo "$(stat -c %x "$o")|$o"; done < /tmp/before | sort > /tmp/atimes
# Ask for 2 MiB more than is free now, as a percentage of the disk.
want=$(awk -v a="$(fs_bavail)" -v b="$(fs_blocks)" -v s="$(fs_bsize)" \
	'BEGIN { p = int((a + 2097152 / s) * 100 / b) + 1; print (p > 100 ? 100 : p) }')
r=$("$TOOL" -f /tmp/sockcull.conf cull --free "$want%" 2>&1)
rc=$?
log "cachefiles-cull cull --free $want%: status $rc: $r; now $(fs_pct)%"
objects "$DIR" > /tmp/after
if [ "$rc" -eq 0 ] && echo "$r" | grep -q ': met$'; then
	[ "$(fs_bavail)" -ge "$(fs_limit "$want")" ]
	verdict $? "cachefiles-cull cull --free reaches its goal"
else
	not_ok "cachefiles-cull cull --free reaches its goal"
	diag "status $rc: $r"
	diag_file "$LOG" 20
fi
awk -F'|' 'NR == FNR { alive[$0] = 1; next }
	{ if ($2 in alive) { ns++; if (!smin || $1 < smin) smin = $1 }
	  else { nc++; if ($1 > cmax) cmax = $1 } }
	END { exit !(nc > 0 && ns > 0 && cmax <= smin) }' /tmp/after /tmp/atimes
verdict $? "cachefiles-cull cull --free takes the oldest objects first"
# A rescan while the 9p volume is in use: its empty fan-out directories
# are the kernel's, which refuses their rmdir (EBUSY, 5.17 on), so all 256
# stay and caching goes on.
vol=$(ls -d "$DIR"/cache/I* 2>/dev/null | head -1)
n0=$(grep -c 'scan: .* objects' "$LOG")
o0=$(nobjects "$DIR")
if [ -x /usr/bin/cfctl ] && [ -n "$vol" ]; then
	/usr/bin/cfctl "$SOCK" rescan >&2
	wait_until 60 sh -c "[ \$(grep -c 'scan: .* objects' '$LOG') -gt $n0 ]"
	nf=$(ls "$vol" | wc -l)
	read_files "$DATA"/small/*.txt
	drop_caches
	o1=$(nobjects "$DIR")
	log "rescan: $(grep -c 'scan: .* objects' "$LOG") scans, $nf fan-outs in $vol, objects $o0 -> $o1"
	[ "$nf" -eq 256 ] && [ "$o1" -gt "$o0" ]
	verdict $? "a rescan leaves the empty fan-outs of a volume in use, and caching goes on ($nf, objects $o0 -> $o1)"
else
	not_ok "a rescan leaves the empty fan-outs of a volume in use, and caching goes on"
	diag "no cfctl in the guest, or no volume in $DIR/cache"
fi
cfd_stop "$CFD_PID"
[ "$CFD_RC" -eq 0 ] && [ ! -e "$SOCK" ]
verdict $? "the daemon exits cleanly and removes its socket"
share_umount
