#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Detaching (no -n): the parent exits with the child's verdict.  When the
# child fails before binding, the parent must exit non-zero even if it
# cannot learn the child's status: started with SIGCHLD ignored (a
# disposition that exec keeps; set through perl, as dash will not), the kernel reaps the child itself and
# waitpid() fails; the parent used to read an uninitialised status then.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

# ignore_chld CMD...: run CMD with SIGCHLD ignored (dash will not pass that on).
ignore_chld() { perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or die "exec: $!"' "$@"; }

sim_setup
if ! command -v perl >/dev/null 2>&1; then
	skip "the parent's exit status with SIGCHLD ignored" "perl is not installed"
	exit 0
fi
sim_start --fail-bind EOPNOTSUPP
sim_config
i=0
while [ "$i" -lt 3 ]; do
	( CACHEFILESD_DEVICE=$SIM_SOCK ignore_chld "$CACHEFILESD_SIM" -s -f "$SIM_CONF" \
	    -p "$SIM_TMP/d$i.pid" ) >>"$DAEMON_LOG" 2>&1
	rc=$?
	check "a failed bind with SIGCHLD ignored: the parent exits 1 (try $i: $rc)" \
	    test "$rc" -eq 1
	i=$((i + 1))
done
check_grep "the child said why" 'EOPNOTSUPP|Operation not supported' "$DAEMON_LOG"
# The same under valgrind: the parent never acts on an uninitialised status.
if command -v valgrind >/dev/null 2>&1; then
	( CACHEFILESD_DEVICE=$SIM_SOCK ignore_chld valgrind -q --error-exitcode=99 \
	    "$CACHEFILESD_SIM" -s -f "$SIM_CONF" -p "$SIM_TMP/vg.pid" ) >"$SIM_TMP/vg.log" 2>&1
	rc=$?
	check "under valgrind: exit status 1, not valgrind's 99 ($rc)" test "$rc" -eq 1
	check_no_grep "under valgrind: no use of an uninitialised value" 'uninitialised' "$SIM_TMP/vg.log"
else
	skip "under valgrind: no use of an uninitialised value" "valgrind is not installed (make deps)"
fi
# And a start that works still exits 0, SIGCHLD ignored or not.
sim_stop
sim_start
( CACHEFILESD_DEVICE=$SIM_SOCK ignore_chld "$CACHEFILESD_SIM" -s -f "$SIM_CONF" \
    -p "$SIM_TMP/ok.pid" ) >>"$DAEMON_LOG" 2>&1
check_eq "a good start with SIGCHLD ignored: the parent exits 0" 0 "$?"
wait_for 5 test -s "$SIM_TMP/ok.pid"
kill "$(cat "$SIM_TMP/ok.pid")" 2>/dev/null
wait_for 5 sh -c "! kill -0 $(cat "$SIM_TMP/ok.pid" 2>/dev/null || echo 0) 2>/dev/null"

# Detached with -d: standard error stays open for the debug messages, but
# standard output does not, so that a command substitution or a pipe
# reading the start's output ends when the parent does (checked through
# the descriptors: a pipe held open would hang this test instead).
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -d -f "$SIM_CONF" -p "$SIM_TMP/dbg.pid" \
    >"$SIM_TMP/dbg.out" 2>"$SIM_TMP/dbg.err"
check_eq "-d, detached: the parent exits 0" 0 $?
wait_for 5 test -s "$SIM_TMP/dbg.pid"
dpid=$(cat "$SIM_TMP/dbg.pid" 2>/dev/null)
check_eq "  ... the daemon's standard output is /dev/null" /dev/null "$(readlink "/proc/$dpid/fd/1")"
check_eq "  ... its standard error is kept" "$SIM_TMP/dbg.err" "$(readlink "/proc/$dpid/fd/2")"
kill "$dpid" 2>/dev/null
wait_for 5 sh -c "! kill -0 ${dpid:-0} 2>/dev/null"
tap_done
