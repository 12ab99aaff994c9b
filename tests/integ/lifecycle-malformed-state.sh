#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed state lines: a few are logged and outlived (the daemon reads
# again by itself after each, and culls normally afterwards); a run of
# them, which the real device never gives,
# ends the daemon with a non-zero status and a clear message instead of
# leaving it inert, and it never spins meanwhile.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "malformed state lines" "needs a tmpfs to make the kernel ask for culling"
	tap_done; exit
fi
sim_populate 200 16
sim_start
sim_config
daemon_start
sim_wait_bound 5 || { not_ok "binds"; exit 1; }
_scanned() { grep -q 'scan: .* objects' "$DAEMON_LOG"; }
wait_for 10 _scanned || not_ok "the first scan ends"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat"; }
reads() { sim_state reads; }
# feed N: the next N reads give malformed lines; the daemon reads again by
# itself after each (nothing else would wake it: the read cleared the flag),
# so this waits for N + 1 reads, the last one good.
feed() {
	_r=$(reads)
	sim_ctl malformed "$1" >/dev/null
	wait_for 10 test "$(reads)" -gt $((_r + $1)) 2>/dev/null
}
t0=$(cpu_ticks)
feed 3
sleep 1
t1=$(cpu_ticks)
check_grep "a malformed line is logged" 'state line malformed' "$DAEMON_LOG"
check "three malformed lines in a row, then a good one: still running" daemon_alive
check "the daemon read again by itself after each" test "$(reads)" -gt 4
check "no spinning after them (under half a CPU second in the window)" test $((t1 - t0)) -lt 50
# A good line resets the count: the kernel asks, the daemon culls.
sim_ctl malformed 0 >/dev/null
sim_fill_to 4
sim_ctl check >/dev/null
_culled() { [ "$(sim_state cull_files)" -gt 0 ]; }
check "after them it culls as usual" wait_for 10 _culled
sim_ctl check >/dev/null
_idle() { [ "$(sim_state cull)" = 0 ]; }
wait_for 20 _idle

# A run of them: exit, non-zero, within a few seconds, without spinning.
sim_ctl malformed 1000 >/dev/null
daemon_wait_exit 10
case $DAEMON_STATUS in
0 | timeout) not_ok "ten malformed lines in a row: the daemon exits non-zero"; note "status $DAEMON_STATUS" ;;
*) ok "ten malformed lines in a row: the daemon exits non-zero ($DAEMON_STATUS)" ;;
esac
check_grep "the message says why" 'malformed state lines in a row' "$DAEMON_LOG"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
