#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A simulated week against the kernel simulator: one daemon through
# WEEK_ROUNDS culling rounds (default 168, an hour each; CI runs fewer),
# each adding a new volume of objects an hour younger than the last,
# filling the disk below bcull, letting the kernel ask and the daemon cull
# back to brun; a reload every twelfth round, busy objects released every
# fifth.  The daemon runs under valgrind's massif (WEEK_TOOL=massif, the
# default) or as built (WEEK_TOOL=none: the ThreadSanitizer pass).
# Checks: every round ends with the kernel content, nothing outside the
# cache changes, the daemon is still up, and its heap's peak in the second
# half of the week is within 10 % (+64 KiB) of the first half's.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

ROUNDS=${WEEK_ROUNDS:-168}
TOOL=${WEEK_TOOL:-massif}
SIM_FS_SIZE=64m SIM_FS_INODES=65536
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "a simulated week of culling" "cannot mount a tmpfs"
	exit 0
fi
if [ "$TOOL" = massif ] && ! command -v valgrind >/dev/null; then
	skip "a simulated week of culling" "valgrind is not installed (make deps)"
	exit 0
fi
out=$SIM_FS/outside
mkdir -p "$out"
for i in 1 2 3 4 5; do head -c 8192 /dev/urandom > "$out/D$i"; done
before=$(cd "$out" && md5sum D* | md5sum)

real=$CACHEFILESD_SIM
if [ "$TOOL" = massif ]; then
	MASSIF=$SIM_TMP/massif.out
	cat > "$SIM_TMP/under-massif" <<EOS
#!/bin/sh
exec valgrind -q --tool=massif --pages-as-heap=no --max-snapshots=400 --massif-out-file=$MASSIF "$real" "\$@"
EOS
	chmod +x "$SIM_TMP/under-massif"
	CACHEFILESD_SIM=$SIM_TMP/under-massif
fi
sim_start
sim_config
daemon_start
sim_wait_bound 60 || { not_ok "the daemon binds"; exit 1; }
t0=$(($(date +%s) - ROUNDS * 3600 - 86400))
r=1 good=0
while [ "$r" -le "$ROUNDS" ]; do
	# 3 MB of objects; filled to 6 % free, brun (10 %) is 2.6 MB away.
	cull_objects "w$r" 24 128 $((t0 + r * 3600)) 10
	sim_fill_to 6
	sim_ctl check >/dev/null
	if cull_wait_idle 120; then
		good=$((good + 1))
	else
		note "round $r: the kernel still asks after 120 s"
	fi
	rm -f "$SIM_FS/filler"
	[ $((r % 12)) -eq 0 ] && daemon_signal HUP
	if [ $((r % 5)) -eq 0 ]; then
		p=$(find "$SIM_DIR/cache" -type f | head -1)
		[ -n "$p" ] && sim_ctl busy "$p" >/dev/null && sim_ctl release "$p" >/dev/null
	fi
	r=$((r + 1))
done
check_eq "every round of $ROUNDS ends with the kernel content" "$ROUNDS" "$good"
check "the daemon is still up after the week" daemon_alive
check_eq "nothing outside the cache changed" "$before" "$(cd "$out" && md5sum D* | md5sum)"
check_no_grep "no cull from outside DIR/cache" 'VIOLATION' "$SIM_LOG"
note "culled $(sim_state cull_files) objects in $ROUNDS rounds"
daemon_signal TERM
daemon_wait_exit 60
check_eq "a clean exit" 0 "$DAEMON_STATUS"
check_no_grep "no sanitizer or valgrind report" 'ThreadSanitizer|AddressSanitizer|Invalid (read|write)' "$DAEMON_LOG"
if [ "$TOOL" = massif ]; then
	# Heap (useful + extra) of each snapshot; peaks of the two halves.
	peaks=$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { v[n++] = h + $2 }
		END { for (i = 0; i < n; i++) { if (i < n / 2) { if (v[i] > a) a = v[i] } else if (v[i] > b) b = v[i] }
		      print a + 0, b + 0, n }' "$MASSIF")
	set -- $peaks
	note "massif: $3 snapshots; heap peak first half $1 B, second half $2 B"
	check "the heap's peak stays flat over the week ($1 -> $2 bytes)" \
	    test "$3" -ge 4 -a "$2" -le $(($1 + $1 / 10 + 65536))
fi
tap_done
