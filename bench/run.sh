#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh: the benchmarks behind "make bench".  Prints one
# machine-readable line per result ("bench=... key=value ...") on stdout and
# appends them to $BENCH_OUT.
#
#   scan     a full scan of a generated cachefiles-shaped tree with the
#            daemon's library (bench/scanbench), warm and after drop_caches,
#            against "find TREE -printf '%A@ %i %p\n' >/dev/null" on the same
#            tree in the same run; the median of BENCH_RUNS runs, interleaved
#   memory   bytes per candidate and peak RSS with a table of 1,000,000
#   victims  rate at which the culler finds the oldest candidates' names
#            again (by inode) and re-checks them, library-driven
#   lru      LRU accuracy, simulator-driven (bench/lru.sh)
#   tool     cachefiles-cull status and report on the largest tree, offline,
#            against "find TREE -printf '%A@ %s %p\n' >/dev/null" (warm)
#
# Environment: BUILD (build directory), BENCH_DATA (where trees are kept
# between runs; default $BUILD/bench-data, on a disk, not a tmpfs),
# BENCH_SIZES (default "100000 1000000"), BENCH_RUNS (default 3),
# BENCH_THREADS (parallel stat threads, default 4; also the tool's
# scan_threads), BENCH_COLD (0 skips the
# drop_caches runs), BENCH_OUT (default $BUILD/bench-results.txt),
# BIG=1 (also bench/big.sh: 10,000,000 objects on a loop-mounted ext4,
# the daemon against the simulator on it; root only).  The cold-scan
# variants (stat threads, io_uring) are bench/coldscan.sh, run alone.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BIN=$BUILD/bench
DATA=${BENCH_DATA:-$BUILD/bench-data}
case $DATA in /*) ;; *) DATA=$PWD/$DATA ;; esac	# the tool's "dir" must be absolute
SIZES=${BENCH_SIZES:-"100000 1000000"}
RUNS=${BENCH_RUNS:-3}
THREADS=${BENCH_THREADS:-4}
COLD=${BENCH_COLD:-1}
OUT=${BENCH_OUT:-$BUILD/bench-results.txt}
# Run alone, without "make bench" first, every figure would be a missing
# program's: times of nothing, ratios of nothing.
for p in "$BIN/cachegen" "$BIN/scanbench" "$BUILD/cachefiles-cull"; do
	[ -x "$p" ] || { echo "bench/run.sh: $p not built (make BUILD=$BUILD bench builds it)" >&2; exit 2; }
done
mkdir -p "$DATA"
: >"$OUT"

emit() { echo "$*"; echo "$*" >>"$OUT"; }

# now_ns: monotonic-enough wall clock in ns.
now_ns() { date +%s%N; }

# elapsed CMD...: run CMD (output discarded), print seconds.
elapsed() {
	t0=$(now_ns)
	"$@" >/dev/null 2>&1
	t1=$(now_ns)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

can_drop() { [ "$COLD" = 1 ] && [ -w /proc/sys/vm/drop_caches ]; }

find_tree() { find "$1" -printf '%A@ %i %p\n'; }

# tree SIZE: generate (once) a tree of SIZE objects; prints its path.
tree() {
	t=$DATA/tree-$1
	if [ ! -f "$t/.complete" ]; then
		rm -rf "$t"
		echo "# generating $t ($1 objects)" >&2
		"$BIN/cachegen" -s "$1" "$t" "$1" || exit 1
		: >"$t/.complete"
	fi
	echo "$t"
}

ratio() { awk -v f="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0) ? f / s : 0 }'; }

scan_bench() {
	size=$1 t=$(tree "$1")
	# Warm: one untimed pass of each first.
	find_tree "$t" >/dev/null
	"$BIN/scanbench" -j 1 "$t" >/dev/null
	fs= s1= sn=
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		fs="$fs $(elapsed find_tree "$t")"
		s1="$s1 $(elapsed "$BIN/scanbench" -j 1 "$t")"
		sn="$sn $(elapsed "$BIN/scanbench" -j "$THREADS" "$t")"
		r=$((r + 1))
	done
	f=$(echo "$fs" | median); a=$(echo "$s1" | median); b=$(echo "$sn" | median)
	emit "bench=scan tree=$size state=warm threads=1 objects=$size seconds=$a find_seconds=$f ratio_vs_find=$(ratio "$f" "$a") runs=$RUNS"
	emit "bench=scan tree=$size state=warm threads=$THREADS objects=$size seconds=$b find_seconds=$f ratio_vs_find=$(ratio "$f" "$b") runs=$RUNS"
	can_drop || { echo "# cold runs skipped (BENCH_COLD=0 or not root)"; return; }
	fs= s1= sn=
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		drop; fs="$fs $(elapsed find_tree "$t")"
		drop; sn="$sn $(elapsed "$BIN/scanbench" -j "$THREADS" "$t")"
		drop; s1="$s1 $(elapsed "$BIN/scanbench" -j 1 "$t")"
		r=$((r + 1))
	done
	f=$(echo "$fs" | median); a=$(echo "$s1" | median); b=$(echo "$sn" | median)
	emit "bench=scan tree=$size state=cold threads=1 objects=$size seconds=$a find_seconds=$f ratio_vs_find=$(ratio "$f" "$a") runs=$RUNS"
	emit "bench=scan tree=$size state=cold threads=$THREADS objects=$size seconds=$b find_seconds=$f ratio_vs_find=$(ratio "$f" "$b") runs=$RUNS"
}

memory_bench() {
	t=$(tree 1000000)
	line=$("$BIN/scanbench" -j 1 -k 1000000 "$t")
	get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	emit "bench=memory tree=1000000 candidates=$(get candidates) table_bytes=$(get table_bytes) bytes_per_candidate=$(get bytes_per_candidate) rss_bytes_per_candidate=$(get rss_bytes_per_candidate) maxrss_kb=$(get maxrss_kb) scan_seconds=$(get seconds)"
	line=$("$BIN/scanbench" -j "$THREADS" -k 4096 "$t")
	emit "bench=memory tree=1000000 candidates=$(get candidates) table_bytes=$(get table_bytes) maxrss_kb=$(get maxrss_kb) threads=$THREADS"
	# The culler's side: 100,000 oldest mapped back to names and re-checked.
	line=$("$BIN/scanbench" -j "$THREADS" -k 100000 -v "$t" | grep '^bench=victims')
	emit "bench=victims tree=1000000 candidates=100000 ${line#bench=victims }"
}

# tool_bench SIZE: the tool's offline views against find -printf '%A@ %s %p'.
tool_bench() {
	t=$(tree "$1")
	conf=$DATA/tool.conf
	printf 'dir %s\nscan_threads %s\n' "$t" "$THREADS" >"$conf"
	tool_find() { find "$1" -printf '%A@ %s %p\n'; }
	tool_find "$t" >/dev/null
	fs= st= rp=
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		fs="$fs $(elapsed tool_find "$t")"
		st="$st $(elapsed "$BUILD/cachefiles-cull" -f "$conf" -s /nonexistent status)"
		rp="$rp $(elapsed "$BUILD/cachefiles-cull" -f "$conf" -s /nonexistent report)"
		r=$((r + 1))
	done
	f=$(echo "$fs" | median); a=$(echo "$st" | median); b=$(echo "$rp" | median)
	emit "bench=tool command=status tree=$1 state=warm threads=$THREADS seconds=$a find_seconds=$f ratio_vs_find=$(ratio "$f" "$a") runs=$RUNS"
	emit "bench=tool command=report tree=$1 state=warm threads=$THREADS seconds=$b find_seconds=$f ratio_vs_find=$(ratio "$f" "$b") runs=$RUNS"
}

echo "# cachefilesd benchmarks: $(uname -r), $(nproc) CPUs, data in $DATA ($(df -T "$DATA" | awk 'NR == 2 { print $2 }'))"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in $SIZES; do
	scan_bench "$size"
done
case " $SIZES " in *" 1000000 "*) memory_bench ;; esac
tool_bench "$(echo "$SIZES" | tr ' ' '\n' | grep . | sort -n | tail -1)"
if [ "$(id -u)" = 0 ]; then
	BUILD=$BUILD sh bench/lru.sh | tee -a "$OUT"
else
	echo "# lru skipped: needs root for a tmpfs"
fi
if [ "${BIG:-0}" = 1 ]; then	# 10,000,000 objects on a loop-mounted ext4 image (bench/big.sh)
	BUILD=$BUILD BENCH_OUT=$OUT BENCH_DATA=$DATA BENCH_THREADS=$THREADS BENCH_COLD=$COLD sh bench/big.sh
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# results in $OUT"
if [ "${BENCH_VM:-0}" = 1 ]; then BUILD=$BUILD sh bench/vm-vs-historical.sh | tee -a "$OUT"; fi  # [hist] opt-in: vs cachefilesd 0.10.10 in QEMU, ~12 min with its image cached (bench/VM-RESULTS.md)
