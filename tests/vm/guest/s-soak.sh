# SPDX-License-Identifier: GPL-2.0-or-later
# Long runs on the real module, shortened in make check (SOAK_CYCLES and
# SOAK_ROUNDS in /out/params; make soak raises them):
#  1. kill -9 and restart under culling load, again and again: the daemon
#     binds every time (the kernel withdraws the old cache meanwhile);
#  2. one daemon through many culling rounds and reloads: its open
#     descriptors stay the same and its memory stays flat;
# and across both, nothing outside DIR/cache changes.
. /vm/glib.sh
[ -f /out/params ] && . /out/params
CYCLES=${SOAK_CYCLES:-20}
ROUNDS=${SOAK_ROUNDS:-12}
DIR=$FS/soak
LOG=/out/soak-daemon.log
mkdir -p "$DIR"
# Narrow limits, so each round's few megabytes of objects can satisfy them.
printf 'dir %s\ntag vmsoak\nbrun 9%%\nbcull 8%%\nbstop 3%%\nfrun 9%%\nfcull 8%%\nfstop 3%%\n' "$DIR" > /tmp/soak.conf
brun=$(fs_limit 9)
# Decoys: named like objects, outside the cache, checked at the end.
for d in "$DIR" "$FS"; do
	for n in D0 Dsoak T5180ca, E1; do echo decoy > "$d/$n"; echo "$d/$n" >> /tmp/decoys; done
done
sums() { while read -r f; do md5sum "$f" 2>&1; done < /tmp/decoys; }
sums > /tmp/sums.before
if ! share_mount; then
	not_ok "kill -9 and restart under culling load"
	not_ok "a long-lived daemon keeps its descriptors and memory flat"
	not_ok "nothing outside DIR/cache changes"
	exit 1
fi
# load I: six new objects (2.3 MB), the disk filled to 7 % free (below
# bcull; brun is 2 % more, 1.3 MB), and the read that makes the kernel ask.
load() {
	for k in 0 7 14 21 28 35; do
		read_files "$DATA/demo/$(printf %02d $((($1 + k) % 40))).bin"
	done
	drop_caches
	fill_to 7 "$FS/filler" 2>/dev/null
	read_files "$DATA/small/$(printf %02d $(($1 % 16))).txt"
}

# 1. kill -9 cycles.
i=0 binds=0
while [ "$i" -lt "$CYCLES" ]; do
	cfd_bind /tmp/soak.conf "$LOG" || { log "cycle $i: no bind"; break; }
	binds=$((binds + 1))
	load "$i"
	# Killed at a different moment of its work each time.
	sleep "0.$((i * 37 % 10))"
	kill -9 "$CFD_PID"
	wait "$CFD_PID" 2>/dev/null
	rm -f "$FS/filler"
	i=$((i + 1))
done
log "$binds binds in $CYCLES cycles"
[ "$binds" -eq "$CYCLES" ]
verdict $? "kill -9 and restart under culling load: bound $binds times in $CYCLES cycles"

# 2. One daemon, many rounds.
cfd_bind /tmp/soak.conf "$LOG"
P=$CFD_PID
r=1 fdmin=999999 fdmax=0 rounds_ok=0
while [ "$r" -le "$ROUNDS" ]; do
	load "$r"
	wait_until 30 bavail_at_least "$brun" && rounds_ok=$((rounds_ok + 1))
	rm -f "$FS/filler"
	[ $((r % 3)) -eq 0 ] && kill -HUP "$P"
	# Sampled with no scan thread running.  Directories inside the cache
	# that the culling batches hold open (up to 256) come and go; every
	# other descriptor (device, eventfd, inotify, cache root...) must not.
	wait_until 10 grep -q '^Threads:[[:space:]]*1$' "/proc/$P/status"
	fds=0 dirfds=0
	for l in /proc/$P/fd/*; do
		case $(readlink "$l") in
		"$DIR"/cache/?*) dirfds=$((dirfds + 1)) ;;
		*) fds=$((fds + 1)) ;;
		esac
	done
	[ "$dirfds" -gt "${dirmax:-0}" ] && dirmax=$dirfds
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$P/status")
	log "round $r: $fds descriptors and $dirfds held directories, VmRSS $rss kB, free $(fs_pct)%"
	# The first rounds warm up (libevent, the first table); then nothing may grow.
	if [ "$r" -ge 3 ]; then
		[ "$fds" -lt "$fdmin" ] && fdmin=$fds
		[ "$fds" -gt "$fdmax" ] && fdmax=$fds
		[ "$r" -eq 3 ] && rss3=$rss
	fi
	r=$((r + 1))
done
alive "$P"; up_rc=$?
grow=$((rss - rss3))
# Under a sanitizer its quarantine of freed blocks grows the RSS by design:
# there only the descriptors are held to account.
rss_bound=512
[ -n "${SANITIZED:-}" ] && rss_bound=999999999
[ "$up_rc" -eq 0 ] && [ "$rounds_ok" -eq "$ROUNDS" ] && [ "$fdmin" -eq "$fdmax" ] &&
    [ "${dirmax:-0}" -le 256 ] && [ "$grow" -le "$rss_bound" ]
verdict $? "a long-lived daemon through $ROUNDS culling rounds and $((ROUNDS / 3)) reloads: descriptors $fdmin..$fdmax (plus at most ${dirmax:-0} held directories), VmRSS grew $grow kB (at most $([ -n "${SANITIZED:-}" ] && echo "unchecked under $SANITIZED" || echo 512))"
[ "$rounds_ok" -eq "$ROUNDS" ] || diag "brun reached in $rounds_ok of $ROUNDS rounds"
cfd_stop "$P"
share_umount

sums > /tmp/sums.after
cmp -s /tmp/sums.before /tmp/sums.after
verdict $? "nothing outside DIR/cache changes ($(wc -l < /tmp/decoys) decoys named like objects)"
grep -iE 'sanitizer|abort|segv' "$LOG" >&2 && not_ok "no crash in the daemon's log"
[ "$FAILED" -eq 0 ]
