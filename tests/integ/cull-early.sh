#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culling before the scan ends (cull_early, on by default).  A cache of
# 2560 objects spread over 256 fan-out directories, atimes a minute apart,
# with the kernel asking for about a thousand files back: the k oldest must
# go.  The test daemon's early gate (tests/sim/link-sim.c) holds the scan
# (one thread) right after its first early snapshot, so what is culled
# meanwhile was culled before the scan ended, deterministically.  Every
# object culled then must be among the k oldest (the bound of
# target_early_rank); once the scan ends, exactly the k oldest are gone
# (exact LRU).  With cull_early no, nothing is culled before the scan's end.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

N=2560
SIM_FS_SIZE=32m SIM_FS_INODES=4096
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "culling before the scan ends" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
V=$SIM_DIR/cache/Ivol1
CFSIM_EARLY_GATE=$SIM_TMP/early-gate
export CFSIM_EARLY_GATE

populate() {
	rm -rf "$V"
	mkdir -p "$V"
	"$CFSIM" populate "$V" "$N" 0 256
}

# missing: indices of the objects gone, one a line, ascending
missing() {
	i=0
	while [ "$i" -lt "$N" ]; do
		[ -e "$V/@$(printf %02x $((i % 256)))/D$i" ] || echo "$i"
		i=$((i + 1))
	done
}

_culled_some() { [ "$(sim_state culls)" -gt 0 ]; }

sim_start
# No kept state: the early snapshots alone (and its file would take an inode of the deficit).
sim_config "frun 60%" "fcull 50%" "fstop 1%" "scan_threads 1" "state_file no"
# A first start on the empty cache: the daemon's own directories exist, the limit is known.
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
frun=$(sim_state frun)
daemon_signal TERM
daemon_wait_exit 5
: >"$DAEMON_LOG"
populate
k=$((frun - $(cull_ffree)))
note "$N objects; the kernel wants $k files back: D0..D$((k - 1)) must go"
check "the deficit is a large share of the cache" test "$k" -gt $((N / 4))

daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
check "culling starts while the scan is held" wait_for 10 _culled_some
# nice values (field 19 of stat; the name in field 2 has no spaces here):
# the kernel asked before the scan began, so culling waits for the scan
# and it is not niced: every thread at the loop's nice
n0=$(cut -d' ' -f19 /proc/"$DAEMON_PID"/stat)
nices=$(for t in /proc/"$DAEMON_PID"/task/*; do cut -d' ' -f19 "$t/stat"; done | sort -n | uniq | tr '\n' ' ')
check_eq "the scan culling waits for at the loop's nice" "$n0 " "$nices"
sleep 0.5
early=$(missing)
n_early=$(printf '%s\n' "$early" | grep -c .)
check "the scan has not ended" sh -c "! grep -q 'scan: .* objects' '$DAEMON_LOG'"
check "the daemon says it culls before the scan ends" \
	grep -q 'culling before the scan ends' "$DAEMON_LOG"
seen=$(sed -n 's/.*culling before the scan ends: [0-9]* of the \([0-9]*\) objects seen.*/\1/p' "$DAEMON_LOG" | head -1)
note "culled $n_early before the scan ended, after the scan had seen ${seen:-?} of $N objects"
worst=$(printf '%s\n' "$early" | tail -1)
check "every object culled early is among the $k oldest (youngest: D$worst)" \
	test "${worst:-0}" -lt "$k"
check "objects were culled before the scan ended" test "$n_early" -gt 0
: >"$CFSIM_EARLY_GATE"
cull_wait_scan 20
check "culling finishes" cull_wait_idle 30
gone=$(missing)
n_gone=$(printf '%s\n' "$gone" | grep -c .)
last=$(printf '%s\n' "$gone" | tail -1)
check_eq "exactly the deficit was culled" "$k" "$n_gone"
check_eq "the oldest went, in order (exact LRU)" $((k - 1)) "$last"
# Once the first snapshot set the threshold, the scan named what it saw older
# than it, and the finished table's victims took those names.
set -- $(sed -n 's/.*scan: \([0-9]*\) names kept while it ran; \([0-9]*\) of its table named.*/\1 \2/p' \
	"$DAEMON_LOG" | tail -1)
note "names kept by the scan: ${1:-?}; the finished table's named by them: ${2:-?}"
check "the scan kept the names of likely victims" test "${1:-0}" -gt 0
check "the finished table's victims were named from them" test "${2:-0}" -gt 0
daemon_signal TERM
daemon_wait_exit 5

# cull_early no: the same cache, and nothing culled before the scan's end.
rm -f "$CFSIM_EARLY_GATE"
populate
: >"$DAEMON_LOG"
sim_config "frun 60%" "fcull 50%" "fstop 1%" "scan_threads 1" "state_file no" "cull_early no"
c0=$(sim_state culls)
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds again"; exit 1; }
cull_wait_scan 20
check "culling finishes (cull_early no)" cull_wait_idle 30
check "nothing was culled early" sh -c "! grep -q 'before the scan ends' '$DAEMON_LOG'"
check "no names kept without early culling" sh -c "! grep -q 'names kept' '$DAEMON_LOG'"
check_eq "the deficit was culled after the scan" "$k" $(($(sim_state culls) - c0))
tap_done
