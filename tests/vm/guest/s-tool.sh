# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull on a real cache: list agrees with an independent walk;
# trim of the unbound cache, holding the real /dev/cachefiles, removes the
# oldest objects and exactly enough; the daemon then binds the cache again,
# and status of a second cache with the same tag does not call it bound.
. /vm/glib.sh
TOOL=/usr/sbin/cachefiles-cull
DIR=$FS/tool
LOG=/out/tool-daemon.log
mkdir -p "$DIR"
printf 'dir %s\ntag vmtool\nbrun 10%%\nbcull 7%%\nbstop 3%%\n' "$DIR" > /tmp/tool.conf
if [ ! -x "$TOOL" ] || ! cfd_bind /tmp/tool.conf "$LOG"; then
	not_ok "list agrees with an independent walk"
	not_ok "trim removes the oldest objects, exactly enough"
	not_ok "the daemon binds the trimmed cache"
	not_ok "status of a second cache with the same tag: not bound, the daemon is the other's"
	diag "tool missing or the daemon did not bind"
	exit 1
fi
share_mount && read_files $DATA/small/00.txt $DATA/small/01.txt $DATA/small/02.txt \
    $DATA/new/00.bin $DATA/new/01.bin
drop_caches
sleep 0.5
share_umount
cfd_stop "$CFD_PID"
# Distinct atimes, one minute apart, in an order unrelated to the names.
i=10
for o in $(objects "$DIR" | sort -r); do
	touch -t "2024010112$i.00" "$o"
	i=$((i + 1))
done
objects "$DIR" | while read -r o; do stat -c '%X %n' "$o"; done | sort -n |
    sed "s|^[0-9]* $DIR/cache/||" > /tmp/walk
"$TOOL" -d "$DIR" list -n 100 > /tmp/list 2>/out/tool-list.err
sed 1d /tmp/list | awk '{ print $NF }' > /tmp/listed
n=$(wc -l < /tmp/walk)
if [ "$n" -ge 3 ] && cmp -s /tmp/walk /tmp/listed; then
	ok "list agrees with an independent walk"
else
	not_ok "list agrees with an independent walk"
	diag "walk ($n):"; diag_file /tmp/walk; diag "list:"; diag_file /tmp/list
fi
# The two oldest, by their allocated bytes.
want=0
for p in $(head -2 /tmp/walk); do
	want=$((want + $(stat -c %b "$DIR/cache/$p") * 512))
done
"$TOOL" -d "$DIR" -f /tmp/tool.conf trim --bytes "$want" > /tmp/trim 2>&1
rc=$?
tail -n +3 /tmp/walk > /tmp/want-left
objects "$DIR" | while read -r o; do stat -c '%X %n' "$o"; done | sort -n |
    sed "s|^[0-9]* $DIR/cache/||" > /tmp/left
if [ "$rc" -eq 0 ] && cmp -s /tmp/want-left /tmp/left; then
	ok "trim removes the oldest objects, exactly enough"
else
	not_ok "trim removes the oldest objects, exactly enough"
	diag "status $rc, wanted $want bytes"; diag_file /tmp/trim; diag_file /tmp/left
fi
if cfd_bind /tmp/tool.conf "$LOG" && sleep 1 && alive "$CFD_PID"; then
	ok "the daemon binds the trimmed cache"
	"$TOOL" -f /tmp/tool.conf status >&2
	grep . /proc/fs/fscache/caches /proc/fs/fscache/stats >&2 2>/dev/null
	# A second cache with the same tag: /proc lists an active "vmtool",
	# but it is the running daemon's, which serves the first directory.
	mkdir -p "$FS/tool2/cache"
	sed "s|^dir .*|dir $FS/tool2|" /tmp/tool.conf > /tmp/tool2.conf
	"$TOOL" -f /tmp/tool2.conf status > /tmp/status2 2>&1
	"$TOOL" -f /tmp/tool2.conf --json status > /tmp/status2.json 2>&1
	if grep -q "^bound  *no (the bound cache is the other daemon's)" /tmp/status2 &&
	    grep -q '"bound":false,"bound_from":"daemon"' /tmp/status2.json &&
	    grep -q "\"daemon_serves\":\"$DIR\"" /tmp/status2.json; then
		ok "status of a second cache with the same tag: not bound, the daemon is the other's"
	else
		not_ok "status of a second cache with the same tag: not bound, the daemon is the other's"
		diag_file /tmp/status2; diag_file /tmp/status2.json
	fi
	cfd_stop "$CFD_PID"
else
	not_ok "the daemon binds the trimmed cache"
	not_ok "status of a second cache with the same tag: not bound, the daemon is the other's"
	diag_file "$LOG"
fi
[ "$FAILED" -eq 0 ]
