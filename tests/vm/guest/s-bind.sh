# SPDX-License-Identifier: GPL-2.0-or-later
# Bind with the shipped configuration (dir pointed at the ext4 disk), see real
# cache objects appear after reading through the 9p cache=fscache mount, and
# receive READY=1 and STATUS= on the notify socket.
. /vm/glib.sh
DIR=$FS/shipped
LOG=/out/bind-daemon.log
mkdir -p "$DIR"
if [ ! -f /vm/shipped.conf ]; then
	not_ok "bind with the shipped configuration"
	diag "config/cachefilesd.conf is missing from the tree"
	not_ok "cache objects appear after reading through 9p"
	not_ok "READY=1 and STATUS= reach the notify socket"
	exit 1
fi
# Point the shipped file's dir at the ext4 disk, keep everything else.
sed "s|^[[:space:]]*dir[[:space:]].*|dir $DIR|" /vm/shipped.conf > /tmp/shipped.conf
grep -q "^dir $DIR\$" /tmp/shipped.conf || diag "shipped configuration has no dir line"
tag=$(awk '$1 == "tag" { print $2 }' /tmp/shipped.conf | tail -1)
[ -n "$tag" ] || tag=CacheFiles
log "shipped configuration (tag $tag):"; cat /tmp/shipped.conf >&2

notify_start /tmp/notify.sock /tmp/notify.txt
cfd_bind /tmp/shipped.conf "$LOG" /tmp/notify.sock
bound=$?
sleep 1
if [ $bound -eq 0 ] && alive "$CFD_PID" &&
   dmesg | grep -q "CacheFiles: File cache on $tag registered" &&
   [ -d "$DIR/cache" ] && [ -d "$DIR/graveyard" ] &&
   [ -s "$LOG" ] && ! grep -qiE 'error|fail|warn|cannot|denied' "$LOG"; then
	ok "bind with the shipped configuration"
else
	not_ok "bind with the shipped configuration"
	diag "bound=$bound alive=$(alive "$CFD_PID" && echo yes || echo no) tag=$tag"
	dmesg | grep -E 'CacheFiles|FS-Cache' | sed 's/^/#   dmesg: /'
	diag_file "$LOG"
fi

# Objects: read files, evict the netfs inodes, count the data files.
files="$DATA/small/00.txt $DATA/small/01.txt $DATA/small/02.txt $DATA/new/00.bin $DATA/new/01.bin"
n0=$(nobjects "$DIR")
if share_mount; then
	read_files $files
	drop_caches
	sleep 0.5
	n1=$(nobjects "$DIR")
	log "objects before $n0, after reading 5 files and drop_caches $n1"
	objects "$DIR" | while read -r o; do stat -c '%s %n' "$o"; done >&2
	big=$(objects "$DIR" | while read -r o; do stat -c %s "$o"; done | grep -c '^524288$')
	if [ "$n0" -eq 0 ] && [ "$n1" -eq 5 ] && [ "$big" -eq 2 ]; then
		ok "cache objects appear after reading through 9p"
	else
		not_ok "cache objects appear after reading through 9p"
		diag "expected 5 data files (2 of 512 KiB) under $DIR/cache, found $n1 ($big of 512 KiB)"
		diag_file "$LOG"
	fi
	share_umount
else
	not_ok "cache objects appear after reading through 9p"
	diag "mount -t 9p ... cache=fscache failed"
fi

# Notification: READY=1 once bound, STATUS= lines describing the state.
wait_until 10 grep -q 'READY=1' /tmp/notify.txt
if grep -q 'READY=1' /tmp/notify.txt && grep -q 'STATUS=' /tmp/notify.txt; then
	ok "READY=1 and STATUS= reach the notify socket"
	grep 'STATUS=' /tmp/notify.txt | head -5 | sed 's/^/# /'
else
	not_ok "READY=1 and STATUS= reach the notify socket"
	diag_file /tmp/notify.txt
	diag_file /tmp/notify-listen.log 5
fi
cp /tmp/notify.txt /out/bind-notify.txt 2>/dev/null
cfd_stop "$CFD_PID"
[ "$FAILED" -eq 0 ]
