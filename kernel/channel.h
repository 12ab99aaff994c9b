/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.h: the channel to the CacheFiles kernel module.
 *
 * This is the only module that touches /dev/cachefiles.  It opens the device
 * (or, for tests, a kernel simulator's SOCK_SEQPACKET socket named by the
 * environment variable CACHEFILESD_DEVICE: see docs/simulator-protocol.md),
 * sends the configuration in an order the kernel accepts, binds, reads and
 * parses the state line, and sends "cull" and "inuse".
 *
 * Commands return 0 or a negative errno; the functions that configure and
 * bind also log one message naming the command, the errno and its likely
 * cause.
 */
#ifndef CFD_KERNEL_H
#define CFD_KERNEL_H

#include <stddef.h>
#include <stdint.h>

struct config;

#define KERNEL_DEVICE "/dev/cachefiles"
#define KERNEL_DEVICE_ENV "CACHEFILESD_DEVICE"
#define KSTATE_BUF 512		/* read buffer; the kernel's line is < 256 bytes */

/* The state line, parsed.  Limits are absolute counts (files, fs blocks). */
struct kstate {
	int cull;			/* the kernel wants culling */
	uint64_t frun, fcull, fstop;
	uint64_t brun, bcull, bstop;
	uint64_t freleased, breleased;	/* since the last read; breleased in 512-byte units */
	int has_released;		/* kernel reports the released counters (5.17+) */
};

struct kchan;

/*
 * Open the device (CACHEFILESD_DEVICE overrides the path).  When it is
 * missing, runs "modprobe cachefiles" once and retries; on EBUSY retries with
 * back-off for up to busy_wait_ms since a previous instance may still be
 * withdrawing its cache.  Returns NULL after logging the cause.
 */
struct kchan *kernel_open(unsigned busy_wait_ms);
void kernel_close(struct kchan *k);
/* The descriptor to wait on for read readiness (state changed). */
int kernel_fd(const struct kchan *k);

/* Send one command (no newline); returns 0 or -errno.  Does not log. */
int kernel_cmd(struct kchan *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Send dir, tag, secctx, debug and the limits (safe order), then bind. */
int kernel_configure(struct kchan *k, const struct config *cfg);
int kernel_bind(struct kchan *k);

/* Read and parse the state line.  Returns 0, -ENODATA before bind, or -errno. */
int kernel_read_state(struct kchan *k, struct kstate *st);
/* Did a state change arrive while waiting for a command's answer (simulator)? */
int kernel_changed(const struct kchan *k);

/* Cull or query a name in the caller's working directory: 0 or -errno. */
int kernel_cull(struct kchan *k, const char *name);
int kernel_inuse(struct kchan *k, const char *name);
/*
 * Did an EIO from cull or inuse turn out to mean a dead cache?  (After an
 * EIO the channel sends a harmless probe; the loop exits when this is set.)
 */
int kernel_dead(const struct kchan *k);

/* Parse a state line of len bytes (no NUL needed).  Returns 0 or -1 if malformed. */
int kstate_parse(const char *line, size_t len, struct kstate *st);
/* A short explanation of errno err returned by command cmd ("bind", "dir", ...). */
const char *kernel_explain(const char *cmd, int err);

#endif
