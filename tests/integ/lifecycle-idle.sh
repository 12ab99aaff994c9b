#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An idle daemon sleeps in the kernel: once bound and settled, its CPU time
# and context switches (all threads) do not move; and once bound it holds no
# CAP_SYS_ADMIN.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config
sim_populate 50 4
daemon_start
sim_wait_bound 5 || not_ok "binds"

# activity PID: CPU ticks and context switches of every thread, one line.
activity() {
	cpu=0 cs=0
	for t in /proc/"$1"/task/*; do
		c=$(sed 's/^.*) //' "$t/stat" 2>/dev/null | awk '{ print $12 + $13 }')
		v=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$t/status" 2>/dev/null)
		n=$(sed -n 's/^nonvoluntary_ctxt_switches:[[:space:]]*//p' "$t/status" 2>/dev/null)
		cpu=$((cpu + ${c:-0})); cs=$((cs + ${v:-0} + ${n:-0}))
	done
	echo "cpu=$cpu switches=$cs threads=$(ls /proc/"$1"/task | wc -l)"
}

# Settle: the start-up scan and graveyard pass end; wait for 1 s of quiet (at most 10 s).
prev=$(activity "$DAEMON_PID") n=0 quiet=0
while [ "$n" -lt 20 ] && [ "$quiet" -lt 2 ]; do
	sleep 0.5
	cur=$(activity "$DAEMON_PID")
	if [ "$cur" = "$prev" ]; then quiet=$((quiet + 1)); else quiet=0; fi
	prev=$cur n=$((n + 1))
done
check "the daemon settles after start-up" [ "$quiet" -ge 2 ]
a=$(activity "$DAEMON_PID")
sleep 3
b=$(activity "$DAEMON_PID")
check_eq "idle for 3 s: no CPU time and no wake-up (all threads)" "$a" "$b"
note "idle: $a"
if command -v strace >/dev/null 2>&1; then
	timeout 2 strace -f -qq -e 'trace=!restart_syscall' -p "$DAEMON_PID" -o "$SIM_TMP/strace.out" 2>/dev/null
	rc=$?
fi
if [ "${rc:-1}" = 124 ]; then	# strace attached and ran until timeout stopped it
	calls=$(grep -Ev 'resum|unfinished|^[0-9]+ +(\+\+\+|---)' "$SIM_TMP/strace.out" | grep -Evc '^[0-9]+ +(epoll_wait|epoll_pwait|poll|ppoll|select|pselect6)\(' )
	check_eq "idle under strace for 2 s: no system call besides the wait" 0 "$calls"
	[ "$calls" = 0 ] || sed 's/^/#   /' "$SIM_TMP/strace.out" | head -10
else
	skip "idle under strace for 2 s: no system call besides the wait" "strace missing or cannot attach"
fi

# Capabilities: CAP_SYS_ADMIN (bit 21) is gone once the cache is bound.
eff=$(proc_field "$DAEMON_PID" CapEff)
prm=$(proc_field "$DAEMON_PID" CapPrm)
note "CapEff=$eff CapPrm=$prm"
check "CapEff has no CAP_SYS_ADMIN" [ $((0x${eff:-ffffffffff} >> 21 & 1)) = 0 ]
check "CapPrm has no CAP_SYS_ADMIN (dropped for good)" [ $((0x${prm:-ffffffffff} >> 21 & 1)) = 0 ]

# Still working after the drop: a state change is served, SIGTERM exits 0.
sim_ctl release "Isimvol/@00/D0" >/dev/null
wait_for 3 sh -c "grep -q 'freleased=1 ' '$SIM_LOG'"
check_grep "a state change wakes it up and it reads the state" 'read [0-9]+ -> .*freleased=1 ' "$SIM_LOG"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
