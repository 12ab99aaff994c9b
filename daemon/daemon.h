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

/* Run until SIGTERM/SIGINT; returns the process exit status. */
int daemon_run(const struct options *opt, struct config *cfg);

#endif
