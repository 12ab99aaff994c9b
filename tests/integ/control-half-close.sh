#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A client that shuts down its writing side after its cull request (socat
# at the end of its input) and closes later withdraws its goal within
# about a second, even while the engine takes no step: its first scan is
# held by the test daemon's gate, so nothing else makes the daemon look
# at its clients.  The end of file was read at the half-close, so the
# close raises no event; the daemon must look for it on its own.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl
sim_setup
now=$(date +%s)
cull_objects v1 20 4 $((now - 86400)) 60
sim_start
sim_config
CFSIM_SCAN_GATE=$SIM_TMP/scan-gate
export CFSIM_SCAN_GATE
daemon_start
sim_wait_bound 5 || { not_ok "daemon binds"; exit 1; }

# Half-closed at once (cfctl -r sends stdin, then shuts down its side),
# closed two seconds later, with the scan still held.
printf 'cull bytes 4096\n' | "$CFCTL" -r "$SIM_CTLSOCK" 2 >"$SIM_TMP/reply" 2>&1
t0=$(date +%s)
check "half-close, then close, scan held: the goal is withdrawn" \
    wait_for 3 grep -q 'client went away; its goal is withdrawn' "$DAEMON_LOG"
check "  ... within 3 s of the close" test $(($(date +%s) - t0)) -le 3
check_eq "  ... no reply was sent to it" "" "$(cat "$SIM_TMP/reply")"
r=$(ctl status 3000)
check_eq "  ... no goal left" 0 "$(jval goals "$r")"
printf '%s\n' "$r" >"$SIM_TMP/status"
check_grep "  ... while the scan is still held" '"state":"scanning"' "$SIM_TMP/status"
check_eq "  ... and nothing was culled" 0 "$(sim_state culls)"

# A half-closed client that stays open is still answered.
: >"$CFSIM_SCAN_GATE"
cull_wait_scan || not_ok "first scan"
r=$(printf 'cull bytes 4096\n' | "$CFCTL" -r "$SIM_CTLSOCK" 10)
check_eq "half-closed, still reading: answered" '"met"' "$(jval result "$r")"
daemon_signal TERM
daemon_wait_exit 5
check_eq "the daemon exits cleanly" 0 "$DAEMON_STATUS"
tap_done
