/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.h: the daemon's life from opening the device to exit: bind, detach,
 * pidfile, privileges, the libevent loop (device, signals, graveyard, cull
 * engine), systemd notification.
 */
#ifndef CFD_DAEMON_H
#define CFD_DAEMON_H

struct options;
struct config;
struct ktransport;

/*
 * The transport the daemon opens the kernel through, fixed when the program
 * is linked: each daemon program links exactly one object defining it.
 * cachefilesd links daemon/link-device.c (/dev/cachefiles); the test daemon
 * links tests/sim/link-sim.c (the kernel simulator).  See docs/kernel-seam.md.
 */
extern const struct ktransport *const daemon_transport;

/* Run until SIGTERM/SIGINT; returns the process exit status. */
int daemon_run(const struct options *opt, struct config *cfg);

#endif
