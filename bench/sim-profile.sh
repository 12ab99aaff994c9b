#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/sim-profile.sh: the daemon's own instructions, thread by thread,
# while it scans and culls a cachefiles-shaped tree against the kernel
# simulator, counted by valgrind's callgrind.
#
# Under the emulated CPU of the VM benchmark (bench/vm-vs-historical.sh)
# the daemon's user time is under a tenth of its CPU and the only part the
# floor does not also pay; too small there to time apart from the host's
# drift, it is counted here instead, to within a few per cent from one run
# to the next (how many snapshots the scan publishes, and when, depends on
# its threads' timing).  The kernel's work (stat, getdents, the culls) is
# not counted.
#
# A tmpfs of 6 KiB an object gets SIM_PROFILE_OBJECTS (default 200,000)
# objects of one real 4 KiB block each (bench/cachegen -b, distinct
# atimes), about 66 % full; limits brun 40 %, bcull 37 % make the
# simulator ask for culling at once, about 16,000 objects at the default
# count.  Each daemon named in SIM_PROFILE_DAEMONS (NAME=PATH words;
# default: ours=this build's test daemon, tests/cachefilesd-sim; several,
# and repeated, for an A/B in one run) gets a fresh tree and the caches
# dropped before it starts.  One line a thread that ran more than a
# million instructions, then the total:
#   bench=sim-profile daemon=D objects=N culled=C thread=T ir=I top="f p%; ..."
#   bench=sim-profile daemon=D objects=N culled=C thread=all ir=I
# Needs root (tmpfs, drop_caches) and valgrind; says skipped otherwise.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
TOP=$PWD
CFSIM=${CFSIM:-$BUILD/tests/cfsim}
CACHEFILESD_SIM=$BUILD/tests/cachefilesd-sim
export TOP CFSIM CACHEFILESD_SIM
N=${SIM_PROFILE_OBJECTS:-200000}
DAEMONS=${SIM_PROFILE_DAEMONS:-ours=$CACHEFILESD_SIM}

skip() { echo "bench=sim-profile skipped reason=\"$*\""; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root for a tmpfs and drop_caches"
command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1 ||
	skip "valgrind is not installed"

# profile NAME BINARY: one daemon's run, in a subshell of its own (traps).
profile() (
	name=$1 bin=$2
	. tests/lib.sh
	. tests/integ/lib-sim.sh
	# 4 KiB an object fill it to about 66 %, below bcull
	SIM_FS_SIZE=$((N * 6 / 1000 + 1))m SIM_FS_INODES=$((N + 4096))
	sim_setup
	[ "$SIM_TMPFS" = 1 ] || { echo "bench=sim-profile skipped reason=\"no tmpfs\""; exit 0; }
	"$BUILD/bench/cachegen" -b -k 4 -t 0 "$SIM_DIR" "$N" >/dev/null || exit 1
	sim_start
	{
		echo "dir $SIM_DIR"; echo "tag prof"
		echo "brun 40%"; echo "bcull 37%"; echo "bstop 5%"
		echo "frun 5%"; echo "fcull 3%"; echo "fstop 1%"
	} >"$SIM_CONF"
	wrap=$SIM_TMP/daemon
	{
		echo '#!/bin/sh'
		echo "exec valgrind -q --tool=callgrind --separate-threads=yes \\"
		echo "	--callgrind-out-file=$SIM_TMP/cg.%p \"$bin\" \"\$@\""
	} >"$wrap"
	chmod +x "$wrap"
	sync; echo 3 >/proc/sys/vm/drop_caches
	CACHEFILESD_SIM=$wrap
	daemon_start -n -s -f "$SIM_CONF"
	sim_wait_bound 60 || { echo "bench=sim-profile daemon=$name error=\"no bind\""; exit 1; }
	# Culling is over when the kernel says so and nothing moves.
	sim_wait_settled 1800 5
	culled=$(sim_state cull_files)
	# A clean stop writes callgrind's files.
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
	all=0
	for f in "$SIM_TMP"/cg.*-*; do
		[ -s "$f" ] || continue
		# callgrind numbers threads 01, 02, ...: not octal to $(( ))
		t=${f##*-}
		while case $t in 0?*) true ;; *) false ;; esac; do t=${t#0}; done
		ir=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
		[ -n "$ir" ] || continue
		all=$((all + ir))
		[ "$ir" -gt 1000000 ] || continue
		top=$(callgrind_annotate "$f" 2>/dev/null |
			awk -v top="${SIM_PROFILE_TOP:-5}" '/file:function/ { on = 1; getline; next }
			     on && n < top && match($0, /\( *[0-9.]+%\)/) {
				p = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", p)
				f = substr($0, RSTART + RLENGTH); sub(/ \[.*$/, "", f)
				sub(/^.*:/, "", f)
				printf "%s%s %s", n ? "; " : "", f, p; n++ }')
		echo "bench=sim-profile daemon=$name objects=$N culled=$culled thread=$t ir=$ir top=\"$top\""
	done
	echo "bench=sim-profile daemon=$name objects=$N culled=$culled thread=all ir=$all"
)

for d in $DAEMONS; do
	profile "${d%%=*}" "${d#*=}"
done
