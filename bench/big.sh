#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/big.sh: the 10,000,000-object benchmarks ("make bench BIG=1", or
# run alone).  Needs root: the tree lives on its own ext4 image, loop-mounted,
# with enough inodes (mkfs.ext4 -N OBJECTS * 1.1 on a sparse file), so that
# its inode count, not the host disk, sets the file limits.
#
#   gen      cachegen -d 365 (NFS-style names, atimes over a year, sparse
#            files), once; the tree and its generation time are kept
#   scan     scanbench (-j 1 and -j THREADS) against
#            find TREE -printf '%A@ %i %p\n', warm and after drop_caches
#   daemon   the daemon's test build against the kernel simulator on the
#            same tree: empty filler files outside DIR/cache bring free
#            files 0.1 % below fcull 5 %, frun is 6 %, so the deficit is 1.1 %
#            of the files (about 120,000 objects); everything else is the
#            default configuration.  Peak RSS (VmHWM), bytes per candidate
#            (peak RSS minus RSS at bind, over the candidates of the scan),
#            bind time, time to the first cull and to the end of culling,
#            all from the simulator's log (CLOCK_MONOTONIC, ms).
#   restart  after the daemon's first round has culled and its scan has
#            ended (which writes the kept state, DIR/cachefilesd.state), a
#            clean stop (SIGTERM), the deficit made again by more filler,
#            drop_caches, and a second start: time from bind to the first
#            cull (the target is under 1 s), to the end of culling, the kept
#            state's size at the start and its candidates, peak RSS
#            (bench=big-daemon-restart); BIG_RESTART=N repeats it N times,
#            each round but the last waiting for its scan to end (a cold
#            scan of the whole tree) so that the next has fresh kept state
#
# Culling removes about 1 % of the objects, so each daemon run leaves the
# tree smaller; the objects count is printed on every line.
#
# Environment: BUILD, BIG_OBJECTS (default 10000000), BIG_SIZE (image size,
# default 40G), BIG_RUNS (default 1), BENCH_THREADS (default 4), BENCH_COLD
# (0: no drop_caches runs), BIG_COLD_ONE (0: no cold one-thread scan),
# BIG_MEMORY (0: no table-size scan), BIG_SCAN (0: skip the scans),
# BIG_DAEMON (0: skip the daemon),
# BIG_DAEMON_COLD (1: drop caches before the daemon starts), BIG_RESTART
# (restart rounds, default 1; 0: none), BENCH_OUT.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
BIN=$BUILD/bench
N=${BIG_OBJECTS:-10000000}
RUNS=${BIG_RUNS:-1}
THREADS=${BENCH_THREADS:-4}
COLD=${BENCH_COLD:-1}
OUT=${BENCH_OUT:-$BUILD/bench-results.txt}
DATA=${BENCH_DATA:-$BUILD/bench-data}
IMG=$DATA/big.img
MNT=$DATA/big
T=$MNT/tree-$N

emit() { echo "$*"; echo "$*" >>"$OUT"; }
skip() { emit "bench=big skipped reason=\"$*\""; exit 0; }
now_ns() { date +%s%N; }
elapsed() {
	t0=$(now_ns); "$@" >/dev/null 2>&1; t1=$(now_ns)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v f="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0) ? f / s : 0 }'; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
find_tree() { find "$1" -printf '%A@ %i %p\n'; }
load() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' /; }

[ "$(id -u)" = 0 ] || skip "needs root for the loop-mounted image"
mkdir -p "$DATA" "$MNT"
if ! mountpoint -q "$MNT"; then
	if [ ! -s "$IMG" ]; then
		truncate -s "${BIG_SIZE:-40G}" "$IMG" || skip "truncate $IMG failed"
		# lazy inode tables, not initialised after mount either: the
		# sparse image stays small and nothing writes behind the benchmark
		mkfs.ext4 -q -F -N $((N / 10 * 11)) -E lazy_itable_init=1,lazy_journal_init=1,nodiscard \
			-L cfbig "$IMG" || skip "mkfs.ext4 failed"
	fi
	mount -o loop,noinit_itable,relatime "$IMG" "$MNT" 2>/dev/null ||
		skip "loop mount of $IMG refused here"
fi

if [ ! -f "$T/.complete" ]; then
	rm -rf "$T"
	echo "# generating $T ($N objects; about 10-15 min for 10,000,000 on 2 cores)" >&2
	l0=$(load)
	s=$(elapsed "$BIN/cachegen" -s "$N" -d 365 "$T" "$N")
	[ -d "$T/cache" ] || skip "cachegen failed"
	echo "seconds=$s load_before=$l0 load_after=$(load)" >"$T/.complete"
fi
# Inodes in use that are not objects (root, directories), at generation.
[ -f "$MNT/base-$N" ] || echo $(( $(stat -f -c '%c - %d' "$MNT") - N )) >"$MNT/base-$N"
emit "bench=big-gen objects=$N $(cat "$T/.complete") fs=ext4-loop inodes=$(stat -f -c %c "$MNT")"

# The objects now in the tree (the daemon runs cull some).
# (from the inode count: a find over 10,000,000 names takes a minute)
objects() {
	echo $(( $(stat -f -c '%c - %d' "$MNT") - $(cat "$MNT/base-$N") - $(cat "$MNT/filler.count" 2>/dev/null || echo 0) ))
}

scan_big() {
	n=$(objects)
	find_tree "$T" >/dev/null	# warms what the scans read too
	fs= s1= sn= r=0
	while [ "$r" -lt "$RUNS" ]; do
		fs="$fs $(elapsed find_tree "$T")"
		s1="$s1 $(elapsed "$BIN/scanbench" -j 1 "$T")"
		sn="$sn $(elapsed "$BIN/scanbench" -j "$THREADS" "$T")"
		r=$((r + 1))
	done
	f=$(echo "$fs" | median); a=$(echo "$s1" | median); b=$(echo "$sn" | median)
	emit "bench=big-scan objects=$n state=warm threads=1 seconds=$a find_seconds=$f ratio_vs_find=$(ratio "$f" "$a") runs=$RUNS load=$(load)"
	emit "bench=big-scan objects=$n state=warm threads=$THREADS seconds=$b find_seconds=$f ratio_vs_find=$(ratio "$f" "$b") runs=$RUNS load=$(load)"
	[ "$COLD" = 1 ] && [ -w /proc/sys/vm/drop_caches ] || { echo "# cold runs skipped"; return; }
	fs= s1= sn= r=0
	while [ "$r" -lt "$RUNS" ]; do
		drop; fs="$fs $(elapsed find_tree "$T")"
		drop; sn="$sn $(elapsed "$BIN/scanbench" -j "$THREADS" "$T")"
		[ "${BIG_COLD_ONE:-1}" = 0 ] || { drop; s1="$s1 $(elapsed "$BIN/scanbench" -j 1 "$T")"; }
		r=$((r + 1))
	done
	f=$(echo "$fs" | median); a=$(echo "$s1" | median); b=$(echo "$sn" | median)
	[ "${BIG_COLD_ONE:-1}" = 0 ] ||
	emit "bench=big-scan objects=$n state=cold threads=1 seconds=$a find_seconds=$f ratio_vs_find=$(ratio "$f" "$a") runs=$RUNS load=$(load)"
	emit "bench=big-scan objects=$n state=cold threads=$THREADS seconds=$b find_seconds=$f ratio_vs_find=$(ratio "$f" "$b") runs=$RUNS load=$(load)"
	[ "${BIG_MEMORY:-1}" = 0 ] && return
	# The library's own table for a candidate count like the daemon's.
	line=$("$BIN/scanbench" -j "$THREADS" -k 250000 "$T")
	get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	emit "bench=big-memory objects=$n candidates=$(get candidates) table_bytes=$(get table_bytes) bytes_per_candidate=$(get bytes_per_candidate) maxrss_kb=$(get maxrss_kb) seconds=$(get seconds)"
}

daemon_big() {
	TOP=$PWD
	CFSIM=${CFSIM:-$BUILD/tests/cfsim}
	CACHEFILESD_SIM=${CACHEFILESD_SIM:-$BUILD/tests/cachefilesd-sim}
	export TOP CFSIM CACHEFILESD_SIM
	[ -x "$CFSIM" ] && [ -x "$CACHEFILESD_SIM" ] || { emit "bench=big-daemon skipped reason=\"simulator or test daemon not built\""; return; }
	(
		. tests/lib.sh
		. tests/integ/lib-sim.sh
		SIM_NO_TMPFS=1
		sim_setup
		SIM_DIR=$T
		STATE=$T/cachefilesd.state
		# never the system's control socket: other daemons may run
		printf 'dir %s\ntag big\nfrun 6%%\nfcull 5%%\nfstop 1%%\ncontrol_socket %s\n' \
		    "$T" "$SIM_CTLSOCK" >"$SIM_CONF"
		sim_start
		deficit
		# warm: the scans above left the metadata cached (BIG_DAEMON_COLD=1: drop it)
		[ "${BIG_DAEMON_COLD:-0}" = 1 ] && drop
		rm -f "$STATE"	# the first round starts from a full scan
		daemon_round big-daemon "$([ "${BIG_DAEMON_COLD:-0}" = 1 ] && echo cold || echo warm)" 1
		i=1
		while [ "$i" -le "${BIG_RESTART:-1}" ]; do
			if [ ! -s "$STATE" ]; then
				echo "bench=big-daemon-restart skipped reason=\"no kept state after the last round\""
				exit 0
			fi
			# After a clean stop: the deficit again, the page cache dropped.
			deficit
			drop
			# a round with another to follow lets its scan end: fresh kept state
			daemon_round big-daemon-restart cold $((i < ${BIG_RESTART:-1}))
			i=$((i + 1))
		done
	) | while read -r line; do case $line in bench=*) emit "$line" ;; *) echo "$line" ;; esac; done
}

# In daemon_big's subshell: free files just below fcull 5 %, by empty files
# outside DIR/cache (the deficit, 1.1 % of the files with frun 6 %).
deficit() {
	files=$(stat -f -c %c "$MNT") ffree=$(stat -f -c %d "$MNT")
	want=$((files / 100 * 5 - files / 1000))
	if [ "$ffree" -gt $((want + 300)) ]; then
		mkdir -p "$MNT/filler"
		# cachegen makes 260 directories besides the files
		"$BIN/cachegen" -s 7 "$MNT/filler/$(date +%s)" $((ffree - want - 260)) || exit 1
	fi
	# every inode under filler/ (files and directories) is not an object
	echo $(( $(find "$MNT/filler" | wc -l) )) >"$MNT/filler.count"
	ffree=$(stat -f -c %d "$MNT")
}

# daemon_round NAME STATE SCAN: one daemon run from start to the end of
# culling, then a clean stop (SIGTERM); one result line.  SCAN=1: also wait
# for the scan to end, since that is when the kept state is written whole
# (engine.c take_table -> state_write), and a restart round needs it.
daemon_round() {
	name=$1 how=$2 scan=$3
	sbytes=$(stat -c %s "$STATE" 2>/dev/null || echo 0)
	log0=$(wc -l <"$SIM_LOG")
	c0=$(sim_state cull_files)
	: >"$DAEMON_LOG"
	daemon_start -n -s -f "$SIM_CONF"
	sim_wait_bound 60 || { echo "# daemon did not bind"; cat "$DAEMON_LOG"; exit 1; }
	rss0=$(proc_field "$DAEMON_PID" VmRSS | awk '{ print $1 }')
	# Culling is over when the kernel says so and nothing moves.
	last=-1 same=0 left=3000
	while [ "$left" -gt 0 ] && daemon_alive; do
		c=$(sim_state cull_files)
		if [ "$c" = "$last" ] && [ "$(sim_state cull)" = 0 ]; then
			# done; or never asked to cull (10 s)
			same=$((same + 1))
			[ "$same" -ge 3 ] && [ "$c" != "$c0" ] && break
			[ "$same" -ge 10 ] && break
		else
			same=0
		fi
		last=$c; left=$((left - 1)); sleep 1
	done
	hwm=$(proc_field "$DAEMON_PID" VmHWM | awk '{ print $1 }')
	cpu=$(proc_cpu "$DAEMON_PID" | awk '{ printf "%.2f", $1 / 100 }')
	culled=$(( $(sim_state cull_files) - c0 ))
	if [ "$scan" = 1 ]; then
		left=1200
		while [ "$left" -gt 0 ] && daemon_alive && ! grep -q 'scan: ' "$DAEMON_LOG"; do
			left=$((left - 1)); sleep 1
		done
		hwm=$(proc_field "$DAEMON_PID" VmHWM | awk '{ print $1 }')
	fi
	daemon_alive || echo "# daemon: ended before the stop (not by this script)"
	daemon_signal TERM; daemon_wait_exit 60 >/dev/null 2>&1
	cp "$DAEMON_LOG" "$SIM_TMP/$name.log"
	scanline=$(grep 'scan: ' "$DAEMON_LOG" | head -1)
	kept=$(grep 'state: ' "$DAEMON_LOG" | head -1)
	# the scan's count: culled objects stay in the simulator's graveyard
	n=$(echo "$scanline" | sed -n 's/.*scan: \([0-9]*\) objects.*/\1/p')
	cand=$(echo "$scanline" | sed -n 's/.* \([0-9]*\) candidates.*/\1/p')
	kcand=$(echo "$kept" | sed -n 's/.*state: \([0-9]*\) candidates kept.*/\1/p')
	[ -n "$n" ] || n=$(objects)
	tail -n +$((log0 + 1)) "$SIM_LOG" | awk -v n="$n" -v ffree="$ffree" -v files="$files" \
	    -v rss0="$rss0" -v hwm="$hwm" -v cand="${cand:-0}" -v culled="$culled" -v cpu="$cpu" \
	    -v ld="$(load)" -v state="$how" -v name="$name" -v kcand="${kcand:-0}" \
	    -v sbytes="$sbytes" '
		/ open: pid / && !o { o = $1 }
		/ bound: / && !b { b = $1 }
		/^[0-9.]+ cull .* -> / { if (!f) f = $1; l = $1 }
		END {
			printf "bench=%s state=%s objects=%d files=%d ffree_at_start=%d deficit_files=%d " \
			    "bind_s=%.3f first_cull_s=%.3f last_cull_s=%.3f first_cull_after_bind_s=%.3f culled=%d candidates=%d ", \
			    name, state, n, files, ffree, int(files / 100) * 6 - ffree, b - o, f - o, l - o, f - b, culled, cand
			if (name ~ /restart/)
				printf "kept_candidates=%d state_bytes=%d ", kcand, sbytes
			printf "rss_at_bind_kb=%d peak_rss_kb=%d bytes_per_candidate=%.1f cpu_s=%s load=%s\n",
			    rss0, hwm, (cand > 0) ? (hwm - rss0) * 1024 / cand : 0, cpu, ld
		}'
	echo "# daemon: ${scanline:-no scan ended before the stop}"
	[ -z "$kept" ] || echo "# daemon: $kept"
	grep -E 'cull:|error|warn' "$DAEMON_LOG" | head -5 | sed 's/^/# daemon: /'
}

echo "# big: $(uname -r), $(nproc) CPUs, tree $T, load before $(load)"
[ "${BIG_SCAN:-1}" = 0 ] || scan_big
[ "${BIG_DAEMON:-1}" = 0 ] || daemon_big
echo "# big: load after $(load)"
