#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Storms of failed state reads (EIO with a live cache, ENOMEM, EBUSY,
# ESTALE, ENOENT) and of malformed lines at random, while the kernel asks
# for culling.  A failed read is not a dead cache: the daemon retries it
# with a growing delay, never spins, and culls again once reads work.
# Only an EIO that the probe confirms (fault-dead.sh) ends it.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

fault_setup
for e in EIO ENOMEM EBUSY ESTALE ENOENT; do
	fault_storm "read $e" read $e
done
# One malformed line just when the kernel starts asking: the read cleared
# the kernel's flag, so nothing else would wake the daemon; it must read
# again by itself and cull.
sim_ctl fault read malformed nth=1 >/dev/null
fault_mark
fault_ask
check "one malformed line as the kernel asks: the daemon reads again and culls" \
	fault_wait_progress 2 10
sim_ctl fault clear >/dev/null
# Malformed lines at random: at p=0.3, ten in a row (the exit rule) has a
# chance of 6e-6 a read, and the seed makes the run reproducible anyway.
sim_ctl fault read malformed p=0.3 seed="$FAULT_SEED" >/dev/null
fault_mark
fault_ask
check "read malformed p=0.3: culling goes on" fault_wait_progress 2 10
check "read malformed p=0.3: malformed lines were met" grep -q 'state line malformed' "$DAEMON_LOG"
sim_ctl fault clear >/dev/null
check "read malformed p=0.3: still running" daemon_alive
check_no_grep "a failed read never made the cache look dead" 'cache is dead' "$DAEMON_LOG"
check_grep "a failed read is logged with its retry" 'read: .*retrying in [0-9]+ ms' "$DAEMON_LOG"
hwm=$(fault_hwm)
check "memory bounded: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
fault_check_outside "read storms"
fault_report "read storms"
tap_done
