#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cwd invariant while the daemon culls: its working directory is inside
# DIR/cache whenever it is sampled, every cull/inuse the simulator sees is
# resolved inside DIR/cache (no VIOLATION), busy objects are skipped; and
# when nothing is cullable it waits instead of spinning.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "cwd invariant while culling" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
sim_start --cull-delay-ms 5	# a slow kernel, so that sampling sees culling
sim_config
sim_populate 600 4 vol1
sim_populate 200 4 vol2
# the two oldest objects are held by the netfs
sim_ctl busy "$SIM_DIR/cache/Ivol1/@00/D0" >/dev/null
sim_ctl busy "$SIM_DIR/cache/Ivol1/@01/D1" >/dev/null
sim_fill_to 4			# below bcull 7%
daemon_start
sim_wait_bound 5 || not_ok "binds"

# Sample the cwd as fast as the shell allows while culling goes on.
real=$(cd "$SIM_DIR/cache" && pwd -P)
bad=0 samples=0 n=0
while [ "$n" -lt 300 ]; do
	cwd=$(readlink "/proc/$DAEMON_PID/cwd") || break
	case $cwd in
	"$real" | "$real"/*) ;;
	*) bad=$((bad + 1)); note "cwd sample outside the cache: $cwd" ;;
	esac
	samples=$((samples + 1)); n=$((n + 1))
	if [ $((n % 10)) = 0 ] && [ "$(sim_state cull)" = 0 ] && [ "$(sim_state culls)" -gt 0 ]; then
		break
	fi
done
note "$samples cwd samples"
check_eq "every cwd sample is inside DIR/cache" 0 "$bad"
wait_for 10 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^cull=//p')\" = 0 ]"
culls=$(sim_state culls)
check "the daemon culled" [ "${culls:-0}" -gt 0 ]
check_eq "culling brought free space back above brun (cull=0)" 0 "$(sim_state cull)"
check_eq "no cull or inuse outside DIR/cache (simulator)" 0 "$(sim_state violations)"
check_no_grep "no VIOLATION in the simulator log" VIOLATION "$SIM_LOG"
bad=$(grep -E '^[0-9.]+ (cull|inuse) /' "$SIM_LOG" | grep -vc " $real/")
check_eq "every resolved path is under DIR/cache" 0 "$bad"
check "busy objects survive" test -f "$SIM_DIR/cache/Ivol1/@00/D0" -a -f "$SIM_DIR/cache/Ivol1/@01/D1"
check "never more than one cull per object (culled objects are forgotten)" sh -c \
    "! grep -E '^[0-9.]+ cull .* -> 0$' '$SIM_LOG' | awk '{ print \$3 }' | sort | uniq -d | grep -q ."
check "cwd still inside DIR/cache when idle" sim_cwd_inside "$DAEMON_PID"

# Nothing cullable: everything busy, space short. The daemon must wait.
rm -f "$SIM_FS/filler"
sim_ctl busy-tree "$SIM_DIR/cache" >/dev/null
sim_fill_to 4
sim_ctl check >/dev/null
sleep 1
c1=$(( $(sim_state culls) + $(sim_state inuses) )); t1=$(proc_cpu "$DAEMON_PID")
sleep 2
c2=$(( $(sim_state culls) + $(sim_state inuses) )); t2=$(proc_cpu "$DAEMON_PID")
note "cull+inuse attempts in 2 s with nothing cullable: $((c2 - c1)); CPU ticks: $((t2 - t1))"
check "nothing cullable: no spinning (fewer than 50 attempts in 2 s)" [ $((c2 - c1)) -lt 50 ]
check "nothing cullable: little CPU (under 0.2 s in 2 s)" [ $((t2 - t1)) -lt 20 ]
check "nothing cullable: the daemon keeps running" daemon_alive
# A release makes objects cullable again: the daemon goes back to work.
c3=$(sim_state culls)
f3=$(sim_state cull_files)
sim_ctl release-tree Ivol2 >/dev/null
wait_for 5 sh -c "[ \$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^cull_files=//p') -gt $f3 ]"
check "after releases the daemon culls again" [ "$(sim_state culls)" -gt "$c3" ]
check_eq "still no violation" 0 "$(sim_state violations)"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
