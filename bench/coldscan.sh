#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/coldscan.sh: a faster cold scan, measured (no daemon change).  On
# the 1,000,000-object tree of make bench, each pass after drop_caches:
#   find TREE -printf '%A@ %i %p\n'           the baseline of its round
#   scanbench -j J    for J in COLD_THREADS   the scanner's stat threads
#   uringstat -b B    for B in COLD_BATCHES   getdents64 + statx through
#                                             io_uring, B in flight (0: plain
#                                             statx calls, same walker)
# Each round runs every variant once, in an order rotated by the round, so
# that drift of the machine spreads over all of them.  Prints one line per
# variant with its median and its ratio find_median / median (> 1: faster
# than find), and every single time.
#
# Environment: BUILD, BENCH_DATA, COLD_SIZE (default 1000000), COLD_RUNS
# (default 3), COLD_THREADS (default "1 2 4 8 16"), COLD_BATCHES (default
# "0 64 256"; skipped when bench/uringstat is not built), BENCH_OUT.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BIN=$BUILD/bench
DATA=${BENCH_DATA:-$BUILD/bench-data}
SIZE=${COLD_SIZE:-1000000}
RUNS=${COLD_RUNS:-3}
THREADS=${COLD_THREADS:-1 2 4 8 16}
BATCHES=${COLD_BATCHES:-0 64 256}
OUT=${BENCH_OUT:-$BUILD/bench-results.txt}
T=$DATA/tree-$SIZE

emit() { echo "$*"; echo "$*" >>"$OUT"; }
now_ns() { date +%s%N; }
elapsed() {
	t0=$(now_ns); "$@" >/dev/null 2>&1; t1=$(now_ns)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
find_tree() { find "$1" -printf '%A@ %i %p\n'; }
load() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' /; }

[ -w /proc/sys/vm/drop_caches ] || { emit "bench=coldscan skipped reason=\"cannot drop caches (not root)\""; exit 0; }
if [ ! -f "$T/.complete" ]; then
	rm -rf "$T"
	"$BIN/cachegen" -s "$SIZE" "$T" "$SIZE" || exit 1
	: >"$T/.complete"
fi
[ -x "$BIN/uringstat" ] || { echo "# uringstat not built (no liburing-dev): io_uring skipped"; BATCHES=; }

variants="find"
for j in $THREADS; do variants="$variants scan-j$j"; done
for b in $BATCHES; do variants="$variants uring-b$b"; done
nv=$(echo $variants | wc -w)

run_variant() {
	case $1 in
	find)     elapsed find_tree "$T" ;;
	scan-j*)  elapsed "$BIN/scanbench" -j "${1#scan-j}" "$T" ;;
	uring-b*) elapsed "$BIN/uringstat" -b "${1#uring-b}" "$T" ;;
	esac
}

echo "# coldscan: $(uname -r), $(nproc) CPUs, $T, load before $(load)"
times=$(mktemp)
r=0
while [ "$r" -lt "$RUNS" ]; do
	# rotate the order by the round
	set -- $variants
	i=0
	while [ "$i" -lt $((r % nv)) ]; do v=$1; shift; set -- "$@" "$v"; i=$((i + 1)); done
	for v in "$@"; do
		drop
		s=$(run_variant "$v")
		echo "$v $s" >>"$times"
		echo "# round $((r + 1)) $v $s s (load $(load))"
	done
	r=$((r + 1))
done
f=$(awk '$1 == "find" { print $2 }' "$times" | tr '\n' ' ' | median)
for v in $variants; do
	all=$(awk -v v="$v" '$1 == v { print $2 }' "$times" | tr '\n' ',' | sed 's/,$//')
	m=$(awk -v v="$v" '$1 == v { print $2 }' "$times" | tr '\n' ' ' | median)
	emit "bench=coldscan tree=$SIZE variant=$v seconds=$m find_seconds=$f ratio_vs_find=$(awk -v f="$f" -v s="$m" 'BEGIN { printf "%.2f", (s > 0) ? f / s : 0 }') runs=$RUNS all=$all load_after=$(load)"
done
rm -f "$times"
