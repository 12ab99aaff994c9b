#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Started with standard input, output and error closed, as some
# supervisors, boot scripts and udev helpers do.  The device must not end
# up on descriptor 0, 1 or 2, where detaching points /dev/null (closing the
# device withdraws the cache) and where -s writes log lines.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config
sim_populate 100 4 vol1

# 1. Detached, 0-2 closed.
(CACHEFILESD_DEVICE=$SIM_SOCK exec "$CACHEFILESD_SIM" -f "$SIM_CONF" -p "$SIM_TMP/x.pid" <&- >&- 2>&-)
check_eq "detached with 0-2 closed: the parent reports success" 0 "$?"
sleep 1
pid=$(cat "$SIM_TMP/x.pid" 2>/dev/null)
[ -n "$pid" ] && SIM_EXTRA_PIDS=$pid
check "  ... the daemon is still running 1 s later" sh -c "[ -n '$pid' ] && [ -d /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status"
check_eq "  ... the cache is still bound 1 s later" 1 "$(sim_state bound)"
check_eq "  ... the simulator saw no close" 0 "$(sim_state closes)"
if [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
	kill -TERM "$pid"
	wait_for 5 proc_gone "$pid"
fi
SIM_EXTRA_PIDS=
check "  ... no pid file left behind" test ! -e "$SIM_TMP/x.pid"

# 2. Foreground with -s and descriptor 2 closed: log lines must not reach the device.
wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^connected=//p')\" = 0 ]"
w0=$(sim_state commands)
CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" 2>&- &
DAEMON_PID=$!
SIM_OPENS0=$(( $(sim_state opens) - 1 ))
sim_wait_bound 5
sleep 0.5
check_no_grep "-n -s with stderr closed: no log line written to the device" \
    'write "cachefilesd|unknown message type' "$SIM_LOG"
check "  ... the daemon keeps running" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "  ... exit 0" 0 "$DAEMON_STATUS"
note "commands before: $w0, after: $(sim_state commands)"
tap_done
