// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link-sim.c: the test daemon, cachefilesd-sim, talks to the kernel
 * simulator's socket named by $CACHEFILESD_DEVICE.  Linked into that
 * program only, in place of daemon/link-device.c; see docs/kernel-seam.md.
 */
#include "daemon/daemon.h"
#include "tests/sim/simtransport.h"

const struct ktransport *const daemon_transport = &ktransport_sim;
