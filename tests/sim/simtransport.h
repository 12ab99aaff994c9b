/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simtransport.h: the kernel channel's transport to the kernel simulator's
 * SOCK_SEQPACKET socket (docs/simulator-protocol.md, docs/kernel-seam.md).
 * Linked only into test programs: cfsim (conform), the test daemon
 * cachefilesd-sim and the unit tests.
 */
#ifndef CFSIM_SIMTRANSPORT_H
#define CFSIM_SIMTRANSPORT_H

#include "kernel/transport.h"

/* The test daemon's default path: the simulator socket this names. */
#define SIM_DEVICE_ENV "CACHEFILESD_DEVICE"

extern const struct ktransport ktransport_sim;

#endif
