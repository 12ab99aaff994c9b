#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Where the control socket goes: its directory is made 0755 when missing,
# the socket is 0600 whatever the umask, "none" creates nothing, a stale
# socket is replaced, and a file that is not a socket is never replaced.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/lib-ctl.sh"

need_cfctl
sim_setup
sim_start
SIM_CTLSOCK=$SIM_TMP/run/cfd/control

# A missing directory, a permissive umask.
sim_config "control_socket $SIM_CTLSOCK"
mkdir "$SIM_TMP/run"	# only the socket's own directory is made
mask=$(umask); umask 0; daemon_start; umask "$mask"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
wait_for 5 test -S "$SIM_CTLSOCK"
check_eq "the directory is made, mode 0755" 755 "$(stat -c %a "$SIM_TMP/run/cfd")"
check_eq "the socket is 0600 under umask 0" 600 "$(stat -c %a "$SIM_CTLSOCK")"
# The daemon logs the takeover before it unlinks the old socket, and binds
# before it listens: for a moment a client finds the old socket, none, or
# one that refuses.  Answering within a few seconds is what counts.
answers() { [ "$(jval ok "$(ctl status 3000)")" = true ]; }
check "it answers" wait_for 5 answers
# A crash leaves the socket behind.
kill -KILL "$DAEMON_PID"; daemon_wait_exit 5
check "after a crash the socket is left" test -S "$SIM_CTLSOCK"
: >"$DAEMON_LOG"
daemon_start
sim_wait_bound || { not_ok "daemon binds over a stale socket"; exit 1; }
check "a stale socket is replaced" wait_for 5 grep -q 'replacing a stale socket' "$DAEMON_LOG"
check "the new socket answers" wait_for 5 answers
# A second daemon must not take the live socket away.
o0=$(sim_state opens)
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" >"$SIM_TMP/second.log" 2>&1
check "a live socket is not replaced: the second daemon fails" test $? -ne 0
check_grep "a live socket is not replaced: it says so at once, and waits" \
    'another process listens there; waiting up to 10 s' "$SIM_TMP/second.log"
check_grep "a live socket is not replaced: and says so when it gives up" \
    'another process listens there still, after 10 s' "$SIM_TMP/second.log"
check_eq "a live socket is not replaced: the device was not opened" "$o0" "$(sim_state opens)"
check_eq "the first daemon still answers" true "$(jval ok "$(ctl status 3000)")"
# A listener that goes away while a new daemon waits (an instance killed and
# still closing its descriptors): the new one takes the socket over.
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" >"$SIM_TMP/third.log" 2>&1 &
third=$!
sleep 1
kill -KILL "$DAEMON_PID"; daemon_wait_exit 5
check "a listener gone within the wait: its socket is taken over" \
    wait_for 15 grep -q 'replacing a stale socket' "$SIM_TMP/third.log"
check "the new daemon answers" wait_for 10 answers
# One that stops cleanly meanwhile removes its socket (systemctl restart
# overlapping a start by hand), and its service manager the directory
# (RuntimeDirectory=): the new one must take neither for an error, and
# binds once the device is free.  Held still (SIGSTOP) while both go, so
# that it meets them gone, whatever the machine's speed.
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" >"$SIM_TMP/fourth.log" 2>&1 &
fourth=$!
sleep 1
kill -STOP "$fourth"
kill -TERM "$third"; wait "$third"
rmdir "$(dirname "$SIM_CTLSOCK")"
kill -CONT "$fourth"
check "a listener that stops cleanly within the wait: the new daemon answers" wait_for 15 answers
check_no_grep "  ... its vanished socket was no error" 'connect' "$SIM_TMP/fourth.log"
check "  ... and the new daemon runs" kill -0 "$fourth"
DAEMON_PID=$fourth
daemon_signal TERM; daemon_wait_exit 5
check "the socket is removed at exit" test ! -e "$SIM_CTLSOCK"

# A regular file in the way: refused, left alone, the kernel untouched.
echo precious >"$SIM_CTLSOCK"
: >"$DAEMON_LOG"
o0=$(sim_state opens)
daemon_start
daemon_wait_exit 5
check "a file in the way: the daemon fails" test "$DAEMON_STATUS" != 0
check_grep "a file in the way: it says so" 'not a socket is in the way' "$DAEMON_LOG"
check_eq "a file in the way: left alone" precious "$(cat "$SIM_CTLSOCK")"
check_eq "a file in the way: the device was not opened" "$o0" "$(sim_state opens)"
rm -f "$SIM_CTLSOCK"

# Its directory's parent missing: only the last directory is made, and the
# message says for what.
sim_config "control_socket $SIM_TMP/nodir/sub/control"
: >"$DAEMON_LOG"
daemon_start
daemon_wait_exit 5
check "a socket two missing directories down: the daemon fails" test "$DAEMON_STATUS" != 0
check_grep "  ... the message names the socket and the directory" \
    "control socket $SIM_TMP/nodir/sub/control: mkdir $SIM_TMP/nodir/sub" "$DAEMON_LOG"
check "  ... nothing made" test ! -e "$SIM_TMP/nodir"

# The directory it makes is 0755 whatever the umask (0077 here).
sim_config "control_socket $SIM_TMP/run2/control"
: >"$DAEMON_LOG"
mask=$(umask); umask 0077; daemon_start; umask "$mask"
sim_wait_bound || { not_ok "daemon binds under umask 0077"; exit 1; }
wait_for 5 test -S "$SIM_TMP/run2/control"
check_eq "under umask 0077 the directory is still made 0755" 755 "$(stat -c %a "$SIM_TMP/run2")"
daemon_signal TERM; daemon_wait_exit 5

# none: nothing is created.
rm -rf "$SIM_TMP/run"
mkdir "$SIM_TMP/run"
sim_config "control_socket none"
: >"$DAEMON_LOG"
daemon_start
sim_wait_bound || { not_ok "daemon binds with control_socket none"; exit 1; }
sleep 0.3
check_eq "control_socket none: no directory, no socket" "" "$(ls -A "$SIM_TMP/run")"
check_no_grep "control_socket none: no socket listened on" 'control socket' "$DAEMON_LOG"
daemon_signal TERM; daemon_wait_exit 5
check_eq "control_socket none: the daemon exits cleanly" 0 "$DAEMON_STATUS"
tap_done
