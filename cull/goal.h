/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * goal.h: what culling works towards, and when it may stop.
 *
 * A goal is asked in the terms an administrator uses (the run limits, a
 * percentage of free blocks, a number of bytes to free, an age) and
 * resolved once, when it becomes active, into the terms the engine checks:
 * a target of free blocks and files (cull/target.h) and an access-time
 * cut-off.  The kernel's own request is the run-limits goal; the cull_age
 * directive is a standing age goal; a goal asked from outside (the control
 * socket) is any of them; so is one the tool cachefiles-cull works towards
 * by itself.  The engine culls towards the union of the active
 * goals: a candidate goes when some unmet goal accepts it, and culling stops
 * when every goal is met.
 */
#ifndef CFD_GOAL_H
#define CFD_GOAL_H

#include <stdint.h>

#include "cull/target.h"

enum goal_kind {
	GOAL_NONE,		/* none asked yet (the tool's options before parsing) */
	GOAL_RUN_LIMITS,	/* up to brun and frun, as the kernel asks */
	GOAL_FREE_PCT,		/* value: percent of the blocks free */
	GOAL_BYTES,		/* value: bytes to free beyond what is free now */
	GOAL_OLDER_THAN,	/* value: seconds; cull what was used longer ago */
};

/* A goal as asked. */
struct goal {
	enum goal_kind kind;
	uint64_t value;
};

/* A goal as checked. */
struct goal_active {
	struct goal asked;
	struct target t;		/* free counts wanted; zero for an age goal */
	uint64_t before_ns;		/* age goal: atimes before this go; else 0 */
	uint64_t since_ms;		/* when it became active (monotonic ms) */
};

/*
 * Resolve g against the filesystem now (f), the kernel's run limits (run)
 * and the wall clock (now_ns).  Returns 0, or -1 when the goal is invalid
 * (a percentage over 100, a zero age or size).
 */
int goal_resolve(const struct goal *g, const struct fsfree *f,
		 const struct target *run, uint64_t now_ns, uint64_t now_ms,
		 struct goal_active *out);
/* Met, given the free counts now and the atime of the oldest candidate left (0: none)? */
int goal_met(const struct goal_active *a, const struct fsfree *f, uint64_t next_atime_ns);
/* Would culling an object of this atime now serve the goal (unmet, and it qualifies)? */
int goal_wants(const struct goal_active *a, const struct fsfree *f, uint64_t atime_ns);
/* "to-run", "free 80%", "bytes 1073741824", "older-than 86400s" */
const char *goal_describe(const struct goal *g, char *buf, unsigned len);

#endif
