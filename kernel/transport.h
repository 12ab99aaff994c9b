/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport.h: how the kernel channel's bytes reach the kernel.
 *
 * kernel/channel.c owns the protocol (command text and its checks, the
 * configuration order, bind, cull/inuse, the dead-cache probe, the EBUSY
 * back-off at open, the state line); a transport only moves one command or
 * one state line and names the descriptor to poll.  Two exist:
 *
 *   ktransport_device  /dev/cachefiles (kernel/device.c), the only one the
 *                      shipped daemon links
 *   ktransport_sim     the kernel simulator's socket (tests/sim/simtransport.c),
 *                      linked only into test programs
 *
 * Which one a daemon uses is fixed when it is linked: see daemon_transport
 * in daemon/daemon.h and docs/kernel-seam.md.
 *
 * A transport's poll descriptor behaves like the device: readable while a
 * state change is pending, until the state line is read.
 */
#ifndef CFD_TRANSPORT_H
#define CFD_TRANSPORT_H

#include <stddef.h>
#include <sys/types.h>

struct ktransport {
	const char *name;	/* for log messages: "device", ... */
	/* The path kernel_open() uses when given none; NULL if there is none. */
	const char *(*default_path)(void);
	/* Open path: a connection, or NULL with errno set as open(2) would set it. */
	void *(*open)(const char *path);
	/*
	 * Optional (may be NULL): open failed with ENOENT; try once to make
	 * path appear (the device runs modprobe).  Returns 1 if a retry may help.
	 */
	int (*load)(const char *path);
	/* Close; returns 0 or -errno (the connection is gone either way). */
	int (*close)(void *conn);
	/* The descriptor to wait on for read readiness (state changed). */
	int (*fd)(void *conn);
	/* One write(2) of exactly len bytes, whatever they are: 0 or -errno. */
	int (*write)(void *conn, const char *buf, size_t len);
	/* One read(2) with a buffer of size bytes: the length read (0 is EOF) or -errno. */
	ssize_t (*read)(void *conn, char *buf, size_t size);
	/* Optional: a transport's own cause for an open errno, or NULL. */
	const char *(*explain_open)(int err);
};

extern const struct ktransport ktransport_device;

#endif
