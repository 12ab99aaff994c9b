/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * channel.h: the channel to the CacheFiles kernel module.
 *
 * The only module that speaks the kernel's daemon protocol: it sends the
 * configuration in an order the kernel accepts, binds, reads and parses the
 * state line, and sends "cull" and "inuse".  The bytes travel through a
 * transport (kernel/transport.h) that kernel_open() is given: the shipped
 * daemon links only the /dev/cachefiles transport; test programs link the
 * kernel simulator's (docs/kernel-seam.md, docs/simulator-protocol.md).
 * Nothing here reads the environment.
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
struct ktransport;

#define KERNEL_DEVICE "/dev/cachefiles"
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
 * Open path (NULL: the transport's default, /dev/cachefiles for the device)
 * through transport t.  When it is missing, lets the transport try once to
 * make it appear (the device runs "modprobe cachefiles") and retries; on
 * EBUSY retries with back-off for up to busy_wait_ms since a previous
 * instance may still be withdrawing its cache.  Returns NULL after logging
 * the cause.
 */
struct kchan *kernel_open(const struct ktransport *t, const char *path, unsigned busy_wait_ms);
void kernel_close(struct kchan *k);
/*
 * The descriptor to wait on for read readiness: readable while a state
 * change is pending, until kernel_read_state() reads the state.
 */
int kernel_fd(const struct kchan *k);

/* Send one command (no newline); returns 0 or -errno.  Does not log. */
int kernel_cmd(struct kchan *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Send dir, tag, secctx, debug and the limits (safe order), then bind. */
int kernel_configure(struct kchan *k, const struct config *cfg);
int kernel_bind(struct kchan *k);
/*
 * The cache directory exactly as sent with "dir" (a symbolic link's
 * target): the daemon opens this string, not the configured one again, so
 * that what it culls in is what the kernel bound.
 */
const char *kernel_dir(const struct kchan *k);

/*
 * Read and parse the state line.  Returns 0, -ENODATA before bind, or
 * -errno; after -EIO the channel probes, as after a cull (kernel_dead()).
 */
int kernel_read_state(struct kchan *k, struct kstate *st);

/* Cull or query a name in the caller's working directory: 0 or -errno. */
int kernel_cull(struct kchan *k, const char *name);
int kernel_inuse(struct kchan *k, const char *name);
/*
 * Did an EIO from cull, inuse or a read turn out to mean a dead cache?  (After
 * an EIO the channel sends a harmless probe; the loop exits when this is set.)
 */
int kernel_dead(const struct kchan *k);

/* Parse a state line of len bytes (no NUL needed).  Returns 0 or -1 if malformed. */
int kstate_parse(const char *line, size_t len, struct kstate *st);
/* A short explanation of errno err returned by command cmd ("bind", "dir", ...). */
const char *kernel_explain(const char *cmd, int err);

#endif
