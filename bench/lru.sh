#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lru.sh: LRU accuracy of the daemon (its test build, cachefilesd-sim)
# against the kernel simulator.
#
# A tmpfs gets a cachefiles-shaped tree (bench/cachegen, real 4 KiB blocks,
# creation order unrelated to age) with a manifest of every object's atime.
# The daemon binds with limits that make the simulator ask for culling at
# once; when culling has stopped, the culled objects (in the manifest, gone
# from the disk) are compared with the truly oldest set of the same size:
#
#   accuracy = |culled ∩ oldest(|culled|)| / |culled|
#
# With ties (-t) membership of the boundary day is ambiguous, so there an
# object counts as correct when its atime is not newer than the
# |culled|-th oldest atime.  One line per variant:
#   bench=lru objects=N culled=C accuracy=A ties=PCT seconds=S culls_per_s=R
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac	# an absolute BUILD works too
TOP=$PWD
CFSIM=${CFSIM:-$BUILD/tests/cfsim}
CACHEFILESD_SIM=${CACHEFILESD_SIM:-$BUILD/tests/cachefilesd-sim}
export TOP CFSIM CACHEFILESD_SIM
. tests/lib.sh
. tests/integ/lib-sim.sh
N=${BENCH_LRU_OBJECTS:-20000}

# run TIES_PCT: one measurement in a fresh simulator and tmpfs.
run() {
	ties=$1
	(
		SIM_FS_SIZE=128m SIM_FS_INODES=$((N + 4096))
		sim_setup
		[ "$SIM_TMPFS" = 1 ] || { echo "# lru: no tmpfs"; exit 0; }
		man=$SIM_TMP/manifest
		"$BUILD/bench/cachegen" -b -k 4 -t "$ties" -m "$man" "$SIM_DIR" "$N" || exit 1
		sim_start
		{
			echo "dir $SIM_DIR"; echo "tag lru"
			echo "brun 50%"; echo "bcull 45%"; echo "bstop 5%"
			echo "frun 5%"; echo "fcull 3%"; echo "fstop 1%"
		} >"$SIM_CONF"
		t0=$(date +%s%N)
		daemon_start -n -s -f "$SIM_CONF"
		sim_wait_bound 10 || { echo "# lru: daemon did not bind"; exit 1; }
		# Culling is over when the kernel says so and nothing moves.
		sim_wait_settled 600 3
		t1=$SIM_SETTLED_NS
		culled=$(sim_state cull_files)
		sort -n "$man" >"$SIM_TMP/sorted"
		# Culled: in the manifest, no longer on disk.
		while read -r at path; do
			[ -e "$path" ] || echo "$at $path"
		done <"$SIM_TMP/sorted" >"$SIM_TMP/culled"
		c=$(wc -l <"$SIM_TMP/culled")
		cut=$(sed -n "${c}p" "$SIM_TMP/sorted" | cut -d' ' -f1)
		head -n "$c" "$SIM_TMP/sorted" | cut -d' ' -f2 | sort >"$SIM_TMP/oldest"
		cut -d' ' -f2 "$SIM_TMP/culled" | sort >"$SIM_TMP/culled.names"
		if [ "$ties" = 0 ]; then
			good=$(comm -12 "$SIM_TMP/oldest" "$SIM_TMP/culled.names" | wc -l)
		else
			good=$(awk -v cut="$cut" '$1 <= cut' "$SIM_TMP/culled" | wc -l)
		fi
		awk -v n="$N" -v c="$c" -v k="$culled" -v g="$good" -v ties="$ties" \
		    -v t0="$t0" -v t1="${t1:-$t0}" -v v="$(sim_state violations)" 'BEGIN {
			s = (t1 - t0) / 1e9
			acc = c > 0 ? g / c : 0
			rate = s > 0 ? c / s : 0
			printf "bench=lru objects=%d culled=%d kernel_culls=%d accuracy=%.4f ties=%d seconds=%.2f culls_per_s=%.0f violations=%d\n",
			    n, c, k, acc, ties, s, rate, v
		}'
	)
}

run 0
run 20
