#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel that refuses every cull the same way (here EROFS, as on a cache
# filesystem remounted read-only): the first few refusals of a minute are
# named, the rest counted in one line (at the latest when the daemon
# stops), not a line an object; nothing outside the cache changes and the
# daemon does not spin.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

FAULT_OBJECTS=150 fault_setup
sim_ctl fault "cull EROFS" >/dev/null
fault_ask
check "the kernel refuses culls" wait_for 10 sh -c "[ \$(grep -c ' FAULT: ' '$SIM_LOG') -ge 40 ]"
sleep 1
named=$(grep -c '^.*cull .*: Read-only file system$' "$DAEMON_LOG")
check_eq "only the first 5 refusals are named" 5 "$named"
c=$(fault_idle_cpu 2)
check "no spinning while every cull is refused ($c ticks in 2 s)" test "$c" -lt 20
daemon_signal TERM
daemon_wait_exit 5
check_eq "the daemon exits cleanly" 0 "$DAEMON_STATUS"
check_grep "the rest counted in one line at the stop" \
    'cull: [0-9]+ more culls refused within 60 s, not named one by one \(the last: Read-only file system\)' \
    "$DAEMON_LOG"
n=$(sed -n 's/.*cull: \([0-9]*\) more culls refused.*/\1/p' "$DAEMON_LOG" | awk '{ s += $1 } END { print s + 0 }')
f=$(grep -c ' FAULT: ' "$SIM_LOG")
check_eq "  ... named and counted make every refusal" "$f" $((n + named))
fault_check_outside "refused culls"
tap_done
