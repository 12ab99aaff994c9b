#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Result lines of bench/vm-vs-historical.sh from what the guest left in OUT:
#   vm-report.sh OUT VM_WORK ACCEL HIST_VERSION
set -u
out=$1 work=$2 accel=$3 hver=$4

# val FILE KEY: the value of KEY= in a raw file of key=value words.
val() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | tail -1; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "NA"; else printf "%.2f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || a == "" || b == "" || b + 0 == 0) print "NA"; else printf "%.2f", a / b }'; }
ts_of() { sed 's/.* \([0-9][0-9.]*\): .*/\1/'; }

# lru MANIFEST SURVIVORS: culled count, the fraction of them among the truly
# oldest of that many (atimes are distinct), and MiB freed.
lru() {
	k=$(awk 'NR == FNR { alive[$1] = 1; next } !($3 in alive) { k++ } END { print k + 0 }' "$2" "$1")
	[ "$k" -gt 0 ] || { echo "0 NA 0"; return; }
	cut=$(cut -d' ' -f1 "$1" | sort -n | sed -n "${k}p")
	awk -v cut="$cut" -v k="$k" 'NR == FNR { alive[$1] = 1; next }
	     !($3 in alive) { bytes += $2; if ($1 + 0 <= cut + 0) good++ }
	     END { printf "%d %.4f %.1f\n", k, good / k, bytes / 1048576 }' "$2" "$1"
}

[ -f "$out/vmbench.tap" ] || echo "bench=vm-cull error=\"the guest did not run (see $out/../console.log)\""
if [ -f "$out/vmb-probe.raw" ]; then
	gone=$(grep -c 'cull_rc=0 gone=1' "$out/vmb-probe.raw")
	echo "bench=vm-probe synthetic_objects=4 culled_by_kernel=$gone untouched_kept=$(val "$out/vmb-probe.raw" untouched_kept)"
fi

for raw in "$out"/vmb-cull-*.raw; do
	[ -f "$raw" ] || continue
	base=${raw%.raw}
	name=${base##*/vmb-cull-}
	dev=${name##*-}; name=${name%-*}
	who=${name%-*} n=${name##*-}
	st=$(val "$raw" start_ts)
	bind=$(sub "$(val "$raw" bind_ts)" "$(val "$raw" kstart_ts)")
	first=$(grep cachefiles_unlink "$base.trace" 2>/dev/null | head -1 | ts_of)
	last=$(grep cachefiles_unlink "$base.trace" 2>/dev/null | tail -1 | ts_of)
	unlinks=$(grep -c cachefiles_unlink "$base.trace" 2>/dev/null)
	done_s=NA
	[ "$(val "$raw" reached)" = 1 ] && done_s=$(sub "$(val "$raw" reached_ts)" "$st")
	cpu=$(awk -v t="$(val "$raw" cpu_ticks)" 'BEGIN { printf "%.2f", t / 100 }')
	set -- $(lru "$work/tree-$n.manifest" "$base.surv")
	echo "bench=vm-cull daemon=$who objects=$n bind_s=$bind first_cull_s=$(sub "$first" "$st") done_s=$done_s last_cull_s=$(sub "$last" "$st") cpu_s=$cpu rss_kb=$(val "$raw" rss_kb) culled=$1 kernel_unlinks=$unlinks freed_mib=$3 lru=$2 filler_kept=$(val "$raw" filler_kept) exit=$(val "$raw" exit) disk=$dev accel=$accel"
done > "$out/cull-lines.txt"
cat "$out/cull-lines.txt"

# A field of the first run of DAEMON on COUNT objects that reached brun.
field() { grep "daemon=$1 objects=$2 " "$out/cull-lines.txt" | grep -v 'done_s=NA' | head -1 | tr ' ' '\n' | sed -n "s/^$3=//p"; }
for n in $(sed -n 's/.* objects=\([0-9]*\) .*/\1/p' "$out/cull-lines.txt" | sort -un); do
	line="bench=vm-cull-ratio objects=$n historical=$hver"
	for f in bind_s first_cull_s done_s cpu_s rss_kb; do
		line="$line ${f%_*}=$(ratio "$(field historical "$n" "$f")" "$(field ours "$n" "$f")")"
	done
	echo "$line (historical / ours)"
done

for raw in "$out"/vmb-idle-*.raw; do
	[ -f "$raw" ] || continue
	name=${raw%.raw}; name=${name##*/vmb-idle-}
	echo "bench=vm-idle daemon=${name%-*} objects=${name##*-} startup20_cpu_s=$(awk -v a="$(val "$raw" c0)" -v b="$(val "$raw" c1)" 'BEGIN { printf "%.2f", (b - a) / 100 }') idle20_cpu_s=$(awk -v a="$(val "$raw" c1)" -v b="$(val "$raw" c2)" 'BEGIN { printf "%.2f", (b - a) / 100 }') rss_kb=$(val "$raw" rss_kb) objects_after=$(val "$raw" objects_after) accel=$accel"
done
for raw in "$out"/vmb-nocull-*.raw; do
	[ -f "$raw" ] || continue
	name=${raw%.raw}; name=${name##*/vmb-nocull-}
	echo "bench=vm-nocull daemon=${name%-*} busy_objects=$(val "$raw" objects_before) objects_after=$(val "$raw" objects_after) cpu20_s=$(awk -v a="$(val "$raw" c0)" -v b="$(val "$raw" c1)" 'BEGIN { printf "%.2f", (b - a) / 100 }') alive=$(val "$raw" alive) accel=$accel"
done
for raw in "$out"/vmb-restart-*.raw; do
	[ -f "$raw" ] || continue
	name=${raw%.raw}; name=${name##*/vmb-restart-}
	starts=$(grep -c '^run=' "$raw")
	died=$(grep -c 'died=1' "$raw")
	codes=$(grep 'died=1' "$raw" | sed 's/.*exit=//' | sort | uniq -c | awk '{ printf "%s%sx%s", s, $1, $2; s = "," }')
	med=$(grep '^run=' "$raw" | tr ' ' '\n' | sed -n 's/^bind_s=//p' | grep -v NA | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "NA" }')
	echo "bench=vm-restart daemon=${name%-*} starts=$starts died=$died exit_codes=${codes:-none} bind_median_s=$med $(head -1 "$raw") accel=$accel"
done
