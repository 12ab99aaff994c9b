#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# -N survives SIGHUP: a daemon started with -N never culls, also after a
# reload of a file without nocull, while the kernel asks for culling.  The
# control: the same reload without -N (nocull dropped from the file) does
# start culling, so the quiet half is not quiet for want of a reason to cull;
# the totals since start survive a reload to nocull and back.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/lib-ctl.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "-N survives SIGHUP while the kernel asks for culling" "cannot mount a tmpfs"
	tap_done; exit
fi
sim_start
sim_populate 40 4

# since LINE PATTERN: PATTERN in the daemon's log after line LINE.
since() { tail -n +$(($1 + 1)) "$DAEMON_LOG" | grep -Eq -- "$2"; }
culls_above() { [ "$(sim_state culls)" -gt "$1" ]; }

# start_asking OPTS...: start the daemon, bound, then make the kernel ask for culling.
start_asking() {
	: >"$DAEMON_LOG"
	daemon_start "$@"
	sim_wait_bound 5 || { not_ok "binds ($*)"; tap_done; exit; }
	sim_fill_to 4
	sim_ctl check >/dev/null
	check "the kernel asks for culling ($*)" wait_for 5 grep -q 'the kernel asks for culling' "$DAEMON_LOG"
}

# -N, then SIGHUP with a file that does not say nocull.
sim_config
c0=$(sim_state culls)
start_asking -n -s -N -f "$SIM_CONF"
line=$(wc -l <"$DAEMON_LOG")
daemon_signal HUP
check "-N: SIGHUP reloads" wait_for 5 since "$line" 'configuration reloaded'
check_no_grep "-N: the reload does not enable culling" 'culling enabled' "$DAEMON_LOG"
sim_ctl check >/dev/null
if wait_for 3 culls_above "$c0"; then
	not_ok "-N: no cull after SIGHUP although the kernel asks"
	note "culls went from $c0 to $(sim_state culls)"
else
	ok "-N: no cull after SIGHUP although the kernel asks"
fi
check_eq "-N: every object is still there" 40 "$(find "$SIM_DIR/cache" -type f | wc -l)"
daemon_signal TERM; daemon_wait_exit 5
check_eq "-N: exit 0" 0 "$DAEMON_STATUS"
rm -f "$SIM_FS/filler"

# The control: nocull in the file, no -N; the reload drops nocull and culls.
sim_config nocull
c0=$(sim_state culls)
start_asking -n -s -f "$SIM_CONF"
sim_config
line=$(wc -l <"$DAEMON_LOG")
daemon_signal HUP
check "control: SIGHUP enables culling" wait_for 5 since "$line" 'culling enabled'
sim_ctl check >/dev/null
check "control: culls follow" wait_for 10 culls_above "$c0"
# Counters "since the daemon started" survive a reload to nocull and back.
if [ -x "$CFCTL" ]; then
	n1=$(jval culled "$(ctl status 3000)")
	sim_config nocull
	line=$(wc -l <"$DAEMON_LOG")
	daemon_signal HUP
	check "reload to nocull" wait_for 5 since "$line" 'culling stops'
	r=$(ctl status 3000)
	check "nocull: culled still counts the culls before (${n1:-?})" \
	    test "${n1:-0}" -gt 0 -a "$(jval culled "$r")" -ge "${n1:-0}"
	check "nocull: scans still count" test "$(jval scans "$r")" -ge 1
	sim_config
	line=$(wc -l <"$DAEMON_LOG")
	daemon_signal HUP
	check "reload back to culling" wait_for 5 since "$line" 'culling enabled'
	check "culling again: culled still counts them" \
	    test "$(jval culled "$(ctl status 3000)")" -ge "${n1:-0}"
else
	skip "counters across a reload to nocull" "no test client at $CFCTL"
fi
daemon_signal TERM; daemon_wait_exit 5
check_eq "control: exit 0" 0 "$DAEMON_STATUS"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
