#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stop asked for while the start waits for a previous instance (the
# device still busy with its withdrawal, its control socket still
# answering) is acted on at once: exit 0, one line that says so, nothing
# bound.  Before, the daemon sat out the wait (up to 10 s) and then exited
# 1, so that "systemctl stop" during a start left the unit failed; a
# detached start's waiting parent exited 1 ("did not start") as well, and
# ignored a SIGINT (a Ctrl-C) of its own.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup

# secs_since T0: whole seconds elapsed since T0 (date +%s).
secs_since() { echo $(($(date +%s) - $1)); }
# start_detached NAME: the test daemon without -n, its output in
# $SIM_TMP/NAME.log and its pid file $SIM_TMP/NAME.pid; sets parent (the
# process that waits for the report) and child (the daemon), then gives
# the child a second to meet the live socket.
start_detached() {
	CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -s -f "$SIM_CONF" -p "$SIM_TMP/$1.pid" \
	    >"$SIM_TMP/$1.log" 2>&1 &
	parent=$!
	child=
	wait_for 5 sh -c "pgrep -P $parent >/dev/null" && child=$(pgrep -P "$parent" | head -1)
	sleep 1
}
# stop_waiting SIG PID WAITPID: the time in t0, SIG to PID, then WAITPID's
# exit (status in DAEMON_STATUS) within 4 s.
stop_waiting() {
	t0=$(date +%s)
	kill -"$1" "$2"
	DAEMON_PID=$3
	daemon_wait_exit 4
}

# 1. The device: a killed daemon's cache takes 8 s to be withdrawn.
sim_start --withdraw-ms 8000
sim_config
daemon_start
sim_wait_bound 5 || { not_ok "binds"; tap_done; exit; }
kill -KILL "$DAEMON_PID"
daemon_wait_exit 5
: >"$DAEMON_LOG"
daemon_start
check "the second daemon meets the busy device and waits" \
    wait_for 5 grep -q 'is busy' "$DAEMON_LOG"
t0=$(date +%s)
daemon_signal TERM
daemon_wait_exit 4
check_eq "SIGTERM during the wait: exit 0" 0 "$DAEMON_STATUS"
check "SIGTERM during the wait: it stops within 2 s, not after the wait" \
    test "$(secs_since "$t0")" -le 2
check_grep "it says it was asked to stop while the device was busy" \
    'asked to stop while it was busy' "$DAEMON_LOG"
check_grep "and that it stopped before it bound the cache" \
    'Daemon Terminated .stopped before it bound the cache.$' "$DAEMON_LOG"
check "no \"Daemon Started\"" sh -c "! grep -q 'Daemon Started' '$DAEMON_LOG'"
check_eq "nothing bound" 0 "$(sim_state connected)"
sim_stop

# 2. The control socket: another daemon still answers on it.
sim_start
SOCK=$SIM_CTLSOCK	# sim_config's control_socket
: >"$DAEMON_LOG"
daemon_start
sim_wait_bound 5 || { not_ok "binds with a control socket"; sed 's/^/#   /' "$DAEMON_LOG"; tap_done; exit; }
wait_for 5 test -S "$SOCK"
first=$DAEMON_PID
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" >"$SIM_TMP/second.log" 2>&1 &
second=$!
sleep 1
check "the second daemon is still waiting after 1 s" kill -0 "$second"
stop_waiting INT "$second" "$second"
check_eq "SIGINT during the wait: exit 0" 0 "$DAEMON_STATUS"
check "SIGINT during the wait: it stops within 2 s" test "$(secs_since "$t0")" -le 2
check_grep "it says another process listened there" \
    'asked to stop while another process listened there' "$SIM_TMP/second.log"
check "the live socket is left in place" test -S "$SOCK"

# 3. Detached (no -n): the parent waiting for the child's report exits
# with the child's 0, not with "did not start" (1).
start_detached third
if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
	stop_waiting TERM "$child" "$parent"
	check_eq "detached, SIGTERM to the waiting child: the parent exits 0" 0 "$DAEMON_STATUS"
	check "  ... within 2 s" test "$(secs_since "$t0")" -le 2
	check_grep "  ... and the child said why" 'Daemon Terminated .stopped before it bound the cache.$' \
	    "$SIM_TMP/third.log"
	check_grep "  ... that is, while another process listened there" \
	    'asked to stop while another process listened there' "$SIM_TMP/third.log"
	check "  ... its pid file is gone" test ! -e "$SIM_TMP/third.pid"
	check_grep "  ... -s without -n or -d: warned that later messages go nowhere" \
	    '-s without -n or -d: standard error is closed' "$SIM_TMP/third.log"
else
	not_ok "detached: the child waits for the live socket"; sed 's/^/#   /' "$SIM_TMP/third.log"
	kill "$parent" $child 2>/dev/null
fi

# 4. Detached, a Ctrl-C at the terminal: SIGINT reaches only the waiting
# parent (the child has its own session), which passes it on.
start_detached fourth
if [ -n "$child" ] && kill -0 "$parent" 2>/dev/null; then
	stop_waiting INT "$parent" "$parent"
	check_eq "detached, SIGINT to the waiting parent: it exits 0" 0 "$DAEMON_STATUS"
	check "  ... within 2 s, not after the wait" test "$(secs_since "$t0")" -le 2
	check_grep "  ... the child was asked to stop and said so" \
	    'Daemon Terminated .stopped before it bound the cache.$' "$SIM_TMP/fourth.log"
	check "  ... and no daemon was left behind" wait_for 2 sh -c "! kill -0 $child 2>/dev/null"
else
	not_ok "detached: the parent waits for the child"; sed 's/^/#   /' "$SIM_TMP/fourth.log"
fi

DAEMON_PID=$first
check "the first daemon still runs" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "the first daemon stops: exit 0" 0 "$DAEMON_STATUS"
tap_done
