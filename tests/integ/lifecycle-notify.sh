#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd notification: READY=1 right after bind, before any scan or cull,
# even when the cache needs culling from the start, with MAINPID; STATUS=
# lines a person can read (tag, free space against the limits, within
# limits or culling), each sent only when it changed; WATCHDOG=1 under a
# watchdog.
#
# "Before any scan ends" is made deterministic with the test daemon's scan
# gate (tests/sim/link-sim.c): every scan waits until $CFSIM_SCAN_GATE
# exists.  READY=1 must arrive while the gate is still shut, so a daemon
# that waited for its first scan before READY=1 never sends it in time.
# A large tree and timestamps would only show the order when the scan
# happens to be slow enough; the gate shows it every time.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
notify_start -t
sim_config
if [ "$SIM_TMPFS" = 1 ]; then
	sim_populate 400 4
	sim_fill_to 5	# below bcull 7%: the kernel asks for culling at bind
fi
CFSIM_SCAN_GATE=$SIM_TMP/scan-gate
export CFSIM_SCAN_GATE
daemon_start
sim_wait_bound 5 || not_ok "binds"
wait_for 5 grep -q ' READY=1$' "$NOTIFY_OUT"
check_grep "READY=1 arrives while the first scan is held" ' READY=1$' "$NOTIFY_OUT"
# In the same message: the pid of the daemon itself, which a detached child
# reports for its parent, and never the parent's.
check_grep "READY=1 comes with MAINPID, the daemon's own pid" \
    "^[0-9.]+ MAINPID=$DAEMON_PID\$" "$NOTIFY_OUT"
if [ "$SIM_TMPFS" = 1 ]; then
	# The daemon has heard the kernel ask, and is held in its scan.
	wait_for 5 grep -q 'STATUS=.*; culling; scanning' "$NOTIFY_OUT"
	check_grep "STATUS= says culling, scanning, while the scan is held" \
	    'STATUS=.*; culling; scanning' "$NOTIFY_OUT"
fi
check_no_grep "no scan has ended when READY=1 is sent" 'scan: .* objects' "$DAEMON_LOG"
check_eq "no cull while the scan is held" 0 "$(sim_state culls)"
: >"$CFSIM_SCAN_GATE"
wait_for 10 grep -q 'scan: .* objects' "$DAEMON_LOG"
check_grep "the scan ends once the gate opens" 'scan: .* objects' "$DAEMON_LOG"

# stamp FILE PATTERN: the monotonic time of the first line matching PATTERN.
stamp() { grep -E -m1 -- "$2" "$1" | cut -d' ' -f1; }
# before A B: time A is not later than time B (both "s.ms").
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

ready=$(stamp "$NOTIFY_OUT" ' READY=1$')
bind=$(stamp "$SIM_LOG" 'write "bind" .* -> 0')
check "READY=1 comes after the bind" before "$bind" "$ready"
if [ "$SIM_TMPFS" = 1 ]; then
	wait_for 10 grep -Eq '^[0-9.]+ (cull|inuse) ' "$SIM_LOG"
	first=$(stamp "$SIM_LOG" '^[0-9.]+ (cull|inuse) ')
	if [ -z "$first" ]; then
		not_ok "READY=1 comes before the first cull"
		note "the daemon sent no cull or inuse within 10 s although the kernel asked"
	else
		check "READY=1 comes before the first cull" before "$ready" "$first"
	fi
	check_grep "the cache was culled after READY=1" '^[0-9.]+ cull .* -> 0$' "$SIM_LOG"
else
	skip "READY=1 comes before the first cull" "no tmpfs"
	skip "the cache was culled after READY=1" "no tmpfs"
fi
n=$(grep -c ' READY=1$' "$NOTIFY_OUT")
check_eq "READY=1 is sent once" 1 "$n"
check_grep "STATUS= names the cache" '^[0-9.]+ STATUS=.*simtest' "$NOTIFY_OUT"
check_grep "STATUS= gives free space against the limits" '^[0-9.]+ STATUS=.*[0-9]+(\.[0-9]+)?%' "$NOTIFY_OUT"
check_grep "STATUS= says within limits or culling" '^[0-9.]+ STATUS=.*(within limits|culling)' "$NOTIFY_OUT"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
check_grep "STOPPING=1 at exit" ' STOPPING=1$' "$NOTIFY_OUT"
check "STOPPING=1 is the last message" sh -c "tail -1 '$NOTIFY_OUT' | grep -q ' STOPPING=1$'"

# Under a watchdog (WATCHDOG_USEC from the service manager) the daemon
# pings, twice per interval: here every 100 ms.
: >"$NOTIFY_OUT"; : >"$DAEMON_LOG"
WATCHDOG_USEC=200000
export WATCHDOG_USEC
daemon_start
unset WATCHDOG_USEC
sim_wait_bound 5 || not_ok "binds again, under a watchdog"
_pings() { [ "$(grep -c ' WATCHDOG=1$' "$NOTIFY_OUT")" -ge 2 ]; }
check "under a watchdog: WATCHDOG=1, again and again" wait_for 5 _pings

# A reload that changes nothing works the status out again (forced), and
# sends nothing: the line is the one sent last.  Once the scan has ended
# and its status is out (at most 1 s later).
wait_for 10 grep -q 'scan: .* objects' "$DAEMON_LOG"
sleep 1.5
daemon_signal HUP
check "a reload with nothing changed is done" wait_for 5 grep -q 'configuration reloaded' "$DAEMON_LOG"
sleep 1.5
dups=$(awk '/^[0-9.]+ STATUS=/ { s = $0; sub(/^[0-9.]+ /, "", s); if (s == last) n++; last = s }
    END { print n + 0 }' "$NOTIFY_OUT")
check_eq "after the reload, no STATUS= line repeats the one before" 0 "$dups"
daemon_signal TERM
daemon_wait_exit 5
check_eq "under a watchdog: exit 0" 0 "$DAEMON_STATUS"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
