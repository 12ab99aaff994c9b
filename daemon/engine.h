/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h: the cull engine, as the daemon's event loop sees it.
 *
 * The engine owns the candidate table and the background scan.  The loop
 * hands it every kernel state it reads and calls engine_step() whenever the
 * engine asked for it (again at once, or after a timer) or the scan's
 * notification descriptor became readable.  One step does a bounded amount
 * of work (a batch of culls), so signals and the device stay responsive.
 *
 * The engine changes the working directory only to directories inside
 * DIR/cache, opened with O_NOFOLLOW beneath the descriptor it was given, and
 * removes objects only through kernel_cull().
 */
#ifndef CFD_ENGINE_H
#define CFD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct kchan;
struct kstate;

struct engine;

enum engine_next {
	ENGINE_IDLE,	/* nothing to do until the kernel's state changes */
	ENGINE_AGAIN,	/* call engine_step() again as soon as events are served */
	ENGINE_TIMER,	/* call again after *delay_ms (back-off, or waiting on a scan) */
};

/* cachefd: O_DIRECTORY|O_NOFOLLOW descriptor of DIR/cache.  Takes no ownership of k. */
struct engine *engine_new(const struct config *cfg, int cachefd, struct kchan *k);
void engine_free(struct engine *e);
/* Apply settings that can change while bound (SIGHUP). */
void engine_reconfigure(struct engine *e, const struct config *cfg);

/* Readable when the background scan has finished; -1 if there is none. */
int engine_fd(const struct engine *e);

/* Feed the latest kernel state, then do one bounded unit of work. */
enum engine_next engine_step(struct engine *e, const struct kstate *st,
			     unsigned *delay_ms);

/* One human-readable line for STATUS= and the log (scan progress, culls). */
void engine_status(const struct engine *e, char *buf, size_t len);

struct engine_stats {
	uint64_t scans, scanned_objects, candidates;
	uint64_t culled, culled_blocks, busy, vanished, moved;
	int scanning;
	uint64_t scan_ms_last;
};
void engine_stats(const struct engine *e, struct engine_stats *out);

#endif
