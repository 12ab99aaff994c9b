#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/vm-sched-split.awk on a hand-made trace in the guest's format: each
# switch hands the CPU to next_comm until the next switch, times count from
# the "vmb start" marker, FROM and TO clip the window, and the unlinks and
# jbd2 commits inside it are counted.  The figures in bench/VM-RESULTS.md
# that split a round's CPU time by task come from this script.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-sched-split.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cat > "$T/trace" <<'EOT'
              sh-119     [000] .....   100.000000: tracing_mark_write: vmb start
              sh-119     [000] d..2.   100.500000: sched_switch: prev_comm=sh prev_pid=119 prev_prio=120 prev_state=S ==> next_comm=cachefilesd next_pid=192 next_prio=120
     cachefilesd-192     [000] .....   101.000000: cachefiles_unlink: o=ffffffff B=1b153 w=was_culled
     cachefilesd-192     [000] d..2.   102.500000: sched_switch: prev_comm=cachefilesd prev_pid=192 prev_prio=120 prev_state=D ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [000] d..2.   103.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=jbd2/vdb-8 next_pid=149 next_prio=120
      jbd2/vdb-8-149     [000] .....   103.100000: jbd2_start_commit: dev 254,16 transaction 5 sync 0
      jbd2/vdb-8-149     [000] d..2.   103.250000: sched_switch: prev_comm=jbd2/vdb-8 prev_pid=149 prev_prio=120 prev_state=S ==> next_comm=cachefilesd next_pid=192 next_prio=120
     cachefilesd-192     [000] .....   103.500000: cachefiles_unlink: o=ffffffff B=2ff6d w=was_culled
     cachefilesd-192     [000] d..2.   104.000000: sched_switch: prev_comm=cachefilesd prev_pid=192 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
EOT
split() { awk "$@" -f "$TOP/bench/vm-sched-split.awk" "$T/trace" > "$T/out" 2>&1; }

split
check_grep "the daemon holds the CPU from each switch to it to the next" \
    '^ +2\.750 s +78\.6 %  cachefilesd/192$' "$T/out"
check_grep "the idle task's time is counted as its own" '^ +0\.500 s .*swapper/0/0$' "$T/out"
check_grep "the whole trace from the first switch: 3.5 s, one commit, two unlinks" \
    '^ +3\.500 s  switched  \(1 jbd2 commits, 2 unlinks in the window\)$' "$T/out"
check_eq "the largest share comes first" "cachefilesd/192" "$(head -n 1 "$T/out" | awk '{ print $NF }')"

split -v FROM=1.0 -v TO=3.2
check_grep "a window clips the spans it cuts (FROM, TO after vmb start)" \
    '^ +1\.500 s +68\.2 %  cachefilesd/192$' "$T/out"
check_grep "a window clips the jbd2 thread's span too" '^ +0\.200 s .*jbd2/vdb-8/149$' "$T/out"
check_grep "only the window's commits and unlinks are counted" \
    '^ +2\.200 s  switched  \(1 jbd2 commits, 0 unlinks in the window\)$' "$T/out"
tap_done
