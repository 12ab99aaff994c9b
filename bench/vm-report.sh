#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Result lines of bench/vm-vs-historical.sh from what the guest left in OUT:
#   vm-report.sh OUT VM_WORK ACCEL HIST_VERSION SIZES [TREE_SUFFIX]
# (TREE_SUFFIX: "-dx" for the tree with indexed directories)
set -u
out=$1 work=$2 accel=$3 hver=$4 sizes=$5 tsuf=${6:-}

# val FILE KEY: the value of KEY= in a raw file of key=value words.
val() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | tail -1; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "NA"; else printf "%.2f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || a == "" || b == "" || b + 0 == 0) print "NA"; else printf "%.2f", a / b }'; }
ticks() { awk -v t="$1" 'BEGIN { if (t == "") print "NA"; else printf "%.2f", t / 100 }'; }
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

# A round's raw file is vmb-cull-DAEMON-COUNT-RUN-ROUND.raw.  The objects a
# round could cull: all of the manifest's in round 1, round 1's survivors in
# round 2 (the LRU figure is then among those).
for raw in "$out"/vmb-cull-*-[12].raw; do
	[ -f "$raw" ] || continue
	base=${raw%.raw}
	IFS=- read -r who n run round <<EOF
${base##*/vmb-cull-}
EOF
	man=$work/tree-$n-$sizes$tsuf.manifest
	if [ "$round" = 2 ]; then
		awk 'NR == FNR { alive[$1] = 1; next } $3 in alive' \
			"${base%-2}-1.surv" "$man" > "$base.universe"
		man=$base.universe
	fi
	st=$(val "$raw" start_ts)
	bind=$(sub "$(val "$raw" bind_ts)" "$(val "$raw" kstart_ts)")
	first=$(grep cachefiles_unlink "$base.trace" 2>/dev/null | head -1 | ts_of)
	last=$(grep cachefiles_unlink "$base.trace" 2>/dev/null | tail -1 | ts_of)
	unlinks=$(grep -c cachefiles_unlink "$base.trace" 2>/dev/null)
	done_s=NA
	[ "$(val "$raw" reached)" = 1 ] && done_s=$(sub "$(val "$raw" reached_ts)" "$st")
	cpu=$(awk -v t="$(val "$raw" cpu_idle_ticks)" 'BEGIN { printf "%.2f", t / 100 }')
	cpu_brun=$(awk -v t="$(val "$raw" cpu_ticks)" 'BEGIN { printf "%.2f", t / 100 }')
	# ours logs its scans; the historical daemon culls when its scan ends
	scan=$(sed -n 's/.*scan: [0-9]* objects, [0-9]* MiB in \([0-9.]*\) s.*/\1/p' "$base.log" 2>/dev/null | head -1)
	kept=$(grep -c 'state: .* candidates kept' "$base.log" 2>/dev/null)
	# pages the guest's reclaim scanned from bind to brun: 0 unless memory ran short
	reclaim=$(awk -v a="$(val "$raw" mem0_pgscan_kswapd)" -v b="$(val "$raw" mem0_pgscan_direct)" \
		-v c="$(val "$raw" mem1_pgscan_kswapd)" -v d="$(val "$raw" mem1_pgscan_direct)" \
		'BEGIN { if (a == "" || c == "") print "NA"; else print c + d - a - b }')
	set -- $(lru "$man" "$base.surv")
	echo "bench=vm-cull daemon=$who objects=$n run=$run round=$round bind_s=$bind first_cull_s=$(sub "$first" "$st") done_s=$done_s last_cull_s=$(sub "$last" "$st") scan_s=${scan:-NA} cpu_s=$cpu user_s=$(ticks "$(val "$raw" user_ticks)") sys_s=$(ticks "$(val "$raw" sys_ticks)") cpu_at_brun_s=$cpu_brun rss_kb=$(val "$raw" rss_kb) culled=$1 kernel_unlinks=$unlinks freed_mib=$3 lru=$2 kept_state=$kept state_file_before=$(val "$raw" state_file) exit=$(val "$raw" exit) $(cat "${base%-[12]}-1.dev" 2>/dev/null) sizes_kib=$sizes accel=$accel reclaim_scanned=$reclaim minflt=$(val "$raw" minflt)"
done > "$out/cull-lines.txt"
cat "$out/cull-lines.txt"

# A field of DAEMON's round on COUNT objects in RUN, when it reached brun.
field() {
	grep "daemon=$1 objects=$2 run=$3 round=$4 " "$out/cull-lines.txt" | grep -v 'done_s=NA' |
		head -1 | tr ' ' '\n' | sed -n "s/^$5=//p"
}
sed -n 's/.* objects=\([0-9]*\) run=\([0-9]*\) round=\([12]\) .*/\1 \2 \3/p' "$out/cull-lines.txt" |
	sort -u -k1n -k2n -k3n |
while read -r n run round; do
	line="bench=vm-cull-ratio objects=$n run=$run round=$round historical=$hver"
	for f in bind_s first_cull_s done_s cpu_s rss_kb; do
		line="$line ${f%_*}=$(ratio "$(field ours "$n" "$run" "$round" "$f")" "$(field historical "$n" "$run" "$round" "$f")")"
	done
	# our cold scan against the historical daemon's first (it culls when it ends)
	[ "$round" = 1 ] && line="$line scan=$(ratio "$(field ours "$n" "$run" 1 scan_s)" "$(field historical "$n" "$run" 1 first_cull_s)")"
	echo "$line lru_ours=$(field ours "$n" "$run" "$round" lru) lru_historical=$(field historical "$n" "$run" "$round" lru) (ours / historical)"
	# bench/vm-floor.c, the least work: what no daemon's ratio can go below
	[ -n "$(field floor "$n" "$run" "$round" cpu_s)" ] || continue
	line="bench=vm-cull-floor objects=$n run=$run round=$round"
	for f in done_s cpu_s; do
		line="$line ${f%_*}=$(ratio "$(field floor "$n" "$run" "$round" "$f")" "$(field historical "$n" "$run" "$round" "$f")")"
	done
	for f in done_s cpu_s; do
		line="$line ours_${f%_*}=$(ratio "$(field ours "$n" "$run" "$round" "$f")" "$(field floor "$n" "$run" "$round" "$f")")"
	done
	echo "$line lru_floor=$(field floor "$n" "$run" "$round" lru) (floor / historical; ours_*: ours / floor)"
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
for raw in "$out"/vmb-scan-*.raw; do
	[ -f "$raw" ] || continue
	n=${raw%.raw}; n=${n##*/vmb-scan-}
	sed "s/^/bench=vm-scan objects=$n /" "$raw"
done
