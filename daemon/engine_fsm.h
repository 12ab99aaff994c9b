/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine_fsm.h: when the cull engine scans, culls, backs off or waits, as
 * one state machine.  It is pure: no threads, no kernel, no clock, no
 * logging.  The engine (engine.c) feeds it events with the facts of the
 * moment and carries out the one action it returns, reporting the outcome
 * as the next event (a scan that cannot start becomes SCAN_FAILED, a batch
 * becomes BATCH).
 *
 * A scan is not a state of its own kind: one may run while the engine
 * culls from the previous table.  The state says what the engine does
 * about culling; scan_running says whether a scan thread exists.
 *
 * "want": a goal other than the age limit is unmet (the kernel asks and
 * its run limits are not reached, or a goal asked from outside is not
 * met).  "age_due": the age limit is set and the oldest candidate left is
 * past it.  "left": candidates left in the current pass; "kept": busy ones
 * kept for a retry.
 *
 *   state          event / condition                     -> state, action
 *   -------------  ------------------------------------  --------------------------
 *   any            STOP                                  -> STOPPED, CANCEL if scanning
 *   any            BATCH with the cache dead             -> DEAD
 *   DEAD, STOPPED  anything                              -> same, nothing
 *   IDLE           START                                 -> SCANNING, SCAN (warms caches)
 *   any            RESCAN, scan running                  -> (settled as below)
 *   CULLING,       RESCAN, no scan running               -> same, SCAN (culling goes on
 *   RETRYING_BUSY                                           from the old table: again)
 *   other          RESCAN, no scan running               -> SCANNING, SCAN
 *   SCANNING,      PARTIAL, scan running, want, partial > 0, -> EARLY_CULLING, EARLY (take
 *   EARLY_CULLING  nothing left                                the partial table, a batch)
 *   other          PARTIAL                               -> (settled as below; dropped)
 *   any            SCAN_DONE                             -> new table, back-off ended, then:
 *   any            SCAN_FAILED, want, nothing left       -> BACKING_OFF (timer; no retry now)
 *   any            SCAN_FAILED, no want                  -> IDLE; next age scan a period on
 *   (after any event, the state is settled from the facts:)
 *   -              no want, age_due                      -> CULLING, CULL (aged objects only)
 *   -              no want                               -> IDLE; SCAN when the age period is
 *                                                           due or a full aged table ran out
 *   BACKING_OFF    want, released, retry gap passed,     -> RETRYING_BUSY, RETRY
 *                  busy ones kept
 *   BACKING_OFF    want, released, gap passed, none kept -> SCANNING, SCAN
 *   BACKING_OFF    GOAL (asked, unmet)                   -> back-off ended; as below: its
 *                                                           table predates the request
 *   BACKING_OFF    want, timer not run out               -> BACKING_OFF (timer)
 *   BACKING_OFF    want, timer run out                   -> SCANNING, SCAN
 *   RETRYING_BUSY  want, left > 0                        -> RETRYING_BUSY, CULL
 *   RETRYING_BUSY  want, pass over                       -> BACKING_OFF (retry gap grows)
 *   RETRYING_BUSY  BATCH that culled something           -> CULLING
 *   EARLY_CULLING  want, left > 0                        -> EARLY_CULLING, CULL
 *   EARLY_CULLING  scan running, nothing left            -> SCANNING (the next partial
 *                                                           table, or the full one)
 *   EARLY_CULLING  no scan running (it failed)           -> CULLING, then as below
 *   other          want, left > 0                        -> CULLING, CULL
 *   other          want, scan running                    -> SCANNING (its descriptor wakes)
 *   other          want, table missing, stale, older     -> SCANNING, SCAN
 *                  than the request, or it paid off
 *   other          want, otherwise                       -> BACKING_OFF (30 s doubling to
 *                                                           10 min; goals asked from
 *                                                           outside are exhausted)
 *
 * A partial table (PARTIAL) holds only objects a running scan has seen
 * that are certainly among those exact LRU would cull (target.h,
 * target_early_rank); the engine offers one only when culling early is on.
 * SCAN_DONE replaces it with the full table: EARLY_CULLING becomes
 * SCANNING and then CULLING as above.
 *
 * A batch is never run twice in one step: after BATCH the machine answers
 * "again" rather than CULL, so the loop serves signals and the device in
 * between.
 */
#ifndef CFD_ENGINE_FSM_H
#define CFD_ENGINE_FSM_H

#include <stddef.h>
#include <stdint.h>

enum efsm_state {
	EFSM_IDLE,		/* no goal unmet */
	EFSM_SCANNING,		/* waiting for a scan, nothing to cull meanwhile */
	EFSM_CULLING,		/* a goal is unmet and candidates are left */
	EFSM_BACKING_OFF,	/* a goal is unmet and nothing known is cullable */
	EFSM_RETRYING_BUSY,	/* objects were released: the busy ones once more */
	EFSM_EARLY_CULLING,	/* culling from a partial table while the scan runs */
	EFSM_DEAD,		/* the cache died */
	EFSM_STOPPED,		/* the engine was stopped */
	EFSM_NSTATES
};

enum efsm_event {
	EFSM_EV_START,		/* the first step */
	EFSM_EV_KERNEL,		/* a kernel state was read (flag, limits, released) */
	EFSM_EV_GOAL,		/* a goal was asked from outside */
	EFSM_EV_SCAN_DONE,	/* the scan finished with a table */
	EFSM_EV_SCAN_FAILED,	/* the scan could not start, or failed */
	EFSM_EV_BATCH,		/* a batch of culls ended */
	EFSM_EV_TIMER,		/* a step was due */
	EFSM_EV_RELOAD,		/* settings changed */
	EFSM_EV_RESCAN,		/* a scan was asked for from outside */
	EFSM_EV_STOP,
	EFSM_EV_PARTIAL,	/* a running scan offers a partial table */
	EFSM_NEVENTS
};

enum efsm_action {
	EFSM_ACT_NONE,
	EFSM_ACT_SCAN,		/* start a scan */
	EFSM_ACT_CULL,		/* one batch, oldest first */
	EFSM_ACT_RETRY,		/* a new pass over the busy ones, then a batch */
	EFSM_ACT_CANCEL,	/* cancel the scan and wait for it */
	EFSM_ACT_EARLY,		/* take the partial table, then one batch */
};

enum efsm_next {
	EFSM_NEXT_IDLE,		/* nothing until an event */
	EFSM_NEXT_AGAIN,	/* step again once pending events are served */
	EFSM_NEXT_TIMER,	/* step again after delay_ms */
};

/* The facts of the moment, and the event's own data. */
struct efsm_in {
	uint64_t now_ms;		/* monotonic */
	int want, age_due;
	int asks;			/* the kernel's cull flag is set (met or not) */
	size_t left, kept;
	int released;			/* KERNEL: objects were released */
	/* SCAN_DONE */
	size_t ncand;
	int full;			/* the table was filled: older objects may be missing */
	uint64_t scan_ms;
	/* BATCH */
	uint64_t culled;
	int dead;
	/* PARTIAL: candidates in the partial table offered */
	size_t partial;
	/* RELOAD */
	uint64_t age_period_ms;
};

struct efsm_out {
	enum efsm_action act;
	enum efsm_next next;
	unsigned delay_ms;
	int exhausted;			/* want, and nothing more can be culled now */
};

struct efsm {
	enum efsm_state state;
	int started, scan_running, released, wanting;
	uint64_t age_period_ms;		/* 0: no age limit */
	uint64_t cull_since;		/* when want last became true, or a goal came */
	/* the table */
	int have_table, table_full;
	size_t table_ncand;
	uint64_t scan_started, table_started, table_done, scan_ms_last;
	uint64_t round_culled;		/* culled from this table */
	/* back-off */
	uint64_t backoff_ms, backoff_until, retry_after, retry_t0;
	uint64_t next_age_scan;
	/* watching: the kernel asks, its run limits are met by our count */
	uint64_t watch_ms, watch_until;
};

#define EFSM_BACKOFF_FIRST_MS (30 * 1000)
#define EFSM_BACKOFF_MAX_MS (10 * 60 * 1000)
#define EFSM_RETRY_MIN_MS 1000
#define EFSM_STALE_MIN_MS (60 * 1000)
#define EFSM_WATCH_FIRST_MS 1000
#define EFSM_WATCH_MAX_MS (60 * 1000)

void efsm_init(struct efsm *m, uint64_t age_period_ms);
/* The transition function: one event, the facts, the action to carry out. */
void efsm_event(struct efsm *m, enum efsm_event ev, const struct efsm_in *in,
		struct efsm_out *out);
/*
 * Does a running scan wait while batches of culls follow one another?
 * Culling from a whole table (the kept one, after a restart): always, the
 * culls are what the kernel waits for.  Culling early: only on one CPU
 * (cpus == 1; 0 is unknown).  With more, the scan finds the next victims
 * meanwhile; on one the two cannot run at once anyway, and a batch at a
 * time is fewer switches between them than the scheduler's slices.
 */
int efsm_scan_waits(const struct efsm *m, unsigned cpus);
const char *efsm_state_name(enum efsm_state s);
const char *efsm_event_name(enum efsm_event ev);

#endif
