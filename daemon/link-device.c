// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link-device.c: the shipped cachefilesd talks to /dev/cachefiles and to
 * nothing else.  Linked into that program only, never into an archive (the
 * test daemon links tests/sim/link-sim.c instead); see docs/kernel-seam.md.
 */
#include "daemon/daemon.h"
#include "kernel/transport.h"

const struct ktransport *const daemon_transport = &ktransport_device;
