#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Storms of cull failures while the kernel asks for culling: EBUSY, ENOMEM,
# ESTALE, ENOENT, EIO (the probe says the cache lives) and slow replies.
# For each: nothing outside the cache changes, the daemon never spins while
# no cull can succeed, culling resumes when the faults stop, and at p=0.3
# it goes on through the storm.  FAULT_SEED picks the random storms.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

fault_setup
for e in EBUSY ENOMEM ESTALE ENOENT EIO; do
	fault_storm "cull $e" cull $e
done
fault_storm "slow culls (200 ms)" cull slow=200ms
check_no_grep "an injected EIO never made the cache look dead" 'cache is dead' "$DAEMON_LOG"
check_eq "the cache is not dead" 0 "$(sim_state dead)"
hwm=$(fault_hwm)
check "memory bounded: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
fault_check_outside "cull storms"
fault_report "cull storms"
tap_done
