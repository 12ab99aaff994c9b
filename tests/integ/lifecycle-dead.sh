#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A dead cache (kernel I/O error): the daemon notices on its next command
# (EIO, confirmed by a probe) and exits non-zero with a clear message, so
# that the service manager restarts it.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "dead cache ends the daemon" "needs a tmpfs to make the kernel ask for culling"
	tap_done; exit
fi
sim_start
notify_start
sim_config
sim_populate 300 4
daemon_start
sim_wait_bound 5 || not_ok "binds"
wait_for 5 grep -q '^READY=1' "$NOTIFY_OUT"
sleep 0.5
check "bound and idle: running" daemon_alive

# The cache dies while idle: nothing happens until the daemon sends a command.
sim_ctl dead >/dev/null
sleep 0.5
check "dead while idle: the daemon only learns it from a command" daemon_alive
# Space runs short: the daemon reads the state, tries to cull, gets EIO.
sim_fill_to 4
sim_ctl check >/dev/null
daemon_wait_exit 10
case $DAEMON_STATUS in
0 | timeout) not_ok "dead cache: the daemon exits non-zero"; note "status $DAEMON_STATUS" ;;
*) ok "dead cache: the daemon exits non-zero ($DAEMON_STATUS)" ;;
esac
check_grep "dead cache: the message says the cache is dead" '[Dd]ead|I/O error|EIO' "$DAEMON_LOG"
check_grep "dead cache: the daemon's last command got EIO" 'write ".*" pid [0-9]+ -> EIO' "$SIM_LOG"
check_grep "dead cache: STOPPING=1 sent" '^STOPPING=1$' "$NOTIFY_OUT"
check_eq "dead cache: the device was closed" 0 "$(sim_state connected)"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
