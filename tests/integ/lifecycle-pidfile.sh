#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Detaching and the pidfile: the parent returns once the cache is bound, the
# pidfile names the daemon and is locked (a second instance refuses with a
# clear message), and it is removed on exit.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config
PIDF=$SIM_TMP/run/cachefilesd.pid
mkdir -p "$SIM_TMP/run"

# Detached: the starting process exits 0 after the bind.
daemon_start -s -p "$PIDF" -f "$SIM_CONF"
daemon_wait_exit 5
check_eq "detached: the starting process exits 0" 0 "$DAEMON_STATUS"
check "detached: the cache is bound when it returns" _sim_bound
check "detached: pidfile written" test -s "$PIDF"
pid=$(cat "$PIDF" 2>/dev/null)
SIM_EXTRA_PIDS=$pid
case $pid in
'' | *[!0-9]*) not_ok "detached: pidfile holds a pid"; note "got '$pid'" ;;
*) check "detached: the pidfile names a running daemon" sh -c "kill -0 $pid && grep -q cachefilesd /proc/$pid/cmdline" ;;
esac
check_eq "detached: the simulator's client is that process" "$pid" "$(sim_state pid)"
check "detached: the daemon has its own session" sh -c "[ \"\$(ps -o sid= -p $pid | tr -d ' ')\" = $pid ]"

# A second instance refuses before touching the device.
opens=$(sim_state opens)
: >"$DAEMON_LOG"
daemon_start -s -n -p "$PIDF" -f "$SIM_CONF"
daemon_wait_exit 5
check_eq "second instance: exit status 1" 1 "$DAEMON_STATUS"
check_grep "second instance: the message names the pidfile and the running pid" "$PIDF.*$pid|$pid.*$PIDF" "$DAEMON_LOG"
check_eq "second instance: the device was not opened" "$opens" "$(sim_state opens)"
check_eq "second instance: the pidfile is left alone" "$pid" "$(cat "$PIDF" 2>/dev/null)"

# SIGTERM: the pidfile goes.
kill -TERM "$pid" 2>/dev/null
wait_for 5 proc_gone "$pid"
check "detached: exits on SIGTERM" proc_gone "$pid"
check "detached: pidfile removed on exit" test ! -e "$PIDF"
SIM_EXTRA_PIDS=

# Foreground with -p: the pidfile holds the foreground pid and goes on exit.
daemon_start -n -s -p "$PIDF" -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "foreground: binds"
wait_for 2 test -s "$PIDF"
check_eq "foreground -p: pidfile holds the daemon's pid" "$DAEMON_PID" "$(cat "$PIDF" 2>/dev/null)"
daemon_signal TERM
daemon_wait_exit 5
check_eq "foreground -p: exit 0" 0 "$DAEMON_STATUS"
check "foreground -p: pidfile removed" test ! -e "$PIDF"

# A stale pidfile (no process holds its lock) does not stop a start.
echo 99999999999 >"$PIDF"	# longer than any pid: nothing of it may be left
daemon_start -n -s -p "$PIDF" -f "$SIM_CONF"
if sim_wait_bound 5; then ok "stale pidfile: the daemon starts"; else not_ok "stale pidfile: the daemon starts"; sed 's/^/#   /' "$DAEMON_LOG" | tail -3; fi
check_eq "stale pidfile: replaced whole by the pid and a newline" \
    "$(printf '%s\n' "$DAEMON_PID" | od -c)" "$(od -c <"$PIDF")"
daemon_signal TERM
daemon_wait_exit 5
check "stale pidfile: removed on exit" test ! -e "$PIDF"

# A lock held by a process that wrote no pid in the file (not ours, or one
# of ours that has not written it yet): refused, without a made-up pid.
echo "not a pid" >"$PIDF"
flock "$PIDF" sleep 30 &
locker=$!
SIM_EXTRA_PIDS="$locker"
wait_for 5 sh -c "! flock -n '$PIDF' true"
: >"$DAEMON_LOG"
daemon_start -n -s -p "$PIDF" -f "$SIM_CONF"
daemon_wait_exit 5
check_eq "a lock held, no pid in the file: exit status 1" 1 "$DAEMON_STATUS"
check_grep "  ... the message says another process holds it" \
    "another process holds $PIDF locked" "$DAEMON_LOG"
check_no_grep "  ... and names no pid 0" 'pid 0' "$DAEMON_LOG"
check_eq "  ... the file is left alone" "not a pid" "$(cat "$PIDF")"
kill "$locker" 2>/dev/null; pkill -P "$locker" sleep 2>/dev/null; wait "$locker" 2>/dev/null
SIM_EXTRA_PIDS=
rm -f "$PIDF"
tap_done
