/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h: the cull engine, as the daemon's event loop sees it.
 *
 * The engine owns the candidate table and the background scan, and decides
 * through one state machine (engine_fsm.h, where the table of states and
 * events is) when to scan, cull, back off or wait.  The loop hands it every
 * kernel state it reads and calls engine_step() whenever the engine asked
 * for it (again at once, or after a timer) or the scan's descriptor became
 * readable.  One step does a bounded amount of work (one batch of culls),
 * so signals and the device stay responsive.
 *
 * Culling works towards the union of the active goals (goal.h): the
 * kernel's run limits while it asks, the age limit (cull_age), and goals
 * asked from outside with engine_goal_add().
 *
 * The engine changes the working directory only to directories inside
 * DIR/cache, opened with O_NOFOLLOW beneath the descriptor it was given, and
 * removes objects only through kernel_cull().
 */
#ifndef CFD_ENGINE_H
#define CFD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/engine_fsm.h"
#include "cull/goal.h"

struct config;
struct kchan;
struct kstate;

struct engine;

enum engine_next {
	ENGINE_IDLE,	/* nothing to do until the kernel's state changes */
	ENGINE_AGAIN,	/* call engine_step() again as soon as events are served */
	ENGINE_TIMER,	/* call again after *delay_ms (back-off, or the age limit) */
};

/* cachefd: O_DIRECTORY|O_NOFOLLOW descriptor of DIR/cache.  Takes no ownership of k. */
struct engine *engine_new(const struct config *cfg, int cachefd, struct kchan *k);
/* Stops the engine (cancelling a scan) and frees it. */
void engine_free(struct engine *e);
/* Apply settings that can change while bound (SIGHUP). */
void engine_reconfigure(struct engine *e, const struct config *cfg);

/* Readable when the background scan has finished; -1 if there is none. */
int engine_fd(const struct engine *e);
/* DIR/cache was moved, replaced or removed: the engine stopped; the loop exits. */
int engine_cache_lost(const struct engine *e);

/* Feed the latest kernel state (or NULL), then do one bounded unit of work. */
enum engine_next engine_step(struct engine *e, const struct kstate *st,
			     unsigned *delay_ms);

/* ---- goals asked from outside ---- */

#define ENGINE_GOALS_MAX 8

enum engine_goal_state {
	ENGINE_GOAL_PENDING,	/* culling towards it */
	ENGINE_GOAL_MET,
	ENGINE_GOAL_EXHAUSTED,	/* nothing more could be culled */
};

struct engine_goal_report {
	enum engine_goal_state state;
	uint64_t culled, culled_bytes;	/* by the engine while the goal was active */
	uint64_t ms;			/* how long it has been active */
	uint64_t unseen;		/* age goal: entries the last scan could not look at */
};

/* Returns an id >= 0, or -1: invalid goal, or ENGINE_GOALS_MAX active. Call engine_step() next. */
int engine_goal_add(struct engine *e, const struct goal *g);
/* Returns 0 and fills r, or -1 for an unknown id.  A met or exhausted goal is forgotten. */
int engine_goal_poll(struct engine *e, int id, struct engine_goal_report *r);
/* Withdraw a goal (its asker went away). */
void engine_goal_cancel(struct engine *e, int id);

/*
 * Start a scan now (the control socket's "rescan").  Returns 0 when a scan
 * was started or one is running, -1 when none can be (the engine is dead,
 * or the scan could not start).  Call engine_step() next.
 */
int engine_rescan(struct engine *e);

/* ---- what the engine knows, for STATUS=, the log, and later the socket ---- */

struct engine_snap {
	enum efsm_state state;
	int scanning;
	uint64_t scan_objects, scan_ms;		/* the running scan so far */
	uint64_t scans;				/* finished scans */
	uint64_t last_objects, last_bytes, last_ms, last_candidates;
	uint64_t last_oldest_ns, last_newest_ns;
	uint64_t left, kept;			/* candidates left in this pass; busy ones kept */
	uint64_t culled, culled_bytes, busy, vanished, moved;
	uint64_t backoff_ms, backoff_left_ms;	/* 0: not backing off */
	int kernel_asks;
	uint64_t age_limit_s;			/* cull_age; 0: none */
	unsigned goals;				/* goals asked from outside, pending */
};
void engine_snapshot(const struct engine *e, struct engine_snap *s);

/* Per volume (a directory at the top of DIR/cache), from the last scan. */
#define ENGINE_VOL_NAME_MAX 256
struct engine_vol {
	char name[ENGINE_VOL_NAME_MAX];	/* the directory's name, raw bytes */
	uint64_t objects, bytes;
};
/* Fill up to max entries; returns how many volumes the last scan found. */
size_t engine_volumes(const struct engine *e, struct engine_vol *v, size_t max);

#endif
