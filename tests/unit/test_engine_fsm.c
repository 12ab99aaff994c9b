// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_engine_fsm.c: the engine's transition function driven through every
 * state with synthetic events: no threads, no kernel, no clock.  Each test
 * plays the engine's part by hand: it feeds an event with the facts of the
 * moment and checks the state, the action and the wake-up asked for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/engine_fsm.h"

#include <string.h>

#define T0 1000000u	/* an arbitrary monotonic start, in ms */

struct rig {
	struct efsm m;
	struct efsm_in in;
	struct efsm_out out;
	int visited[EFSM_NSTATES];
};

static void
rig_init(struct rig *r, uint64_t age_period_ms)
{
	memset(r, 0, sizeof(*r));
	efsm_init(&r->m, age_period_ms);
	r->in.now_ms = T0;
}

static void
ev(struct rig *r, enum efsm_event e)
{
	efsm_event(&r->m, e, &r->in, &r->out);
	r->visited[r->m.state] = 1;
	/* One-shot data belongs to its event only. */
	r->in.released = 0;
	r->in.culled = 0;
	r->in.dead = 0;
	r->in.partial = 0;
}

static void
expect(const struct rig *r, enum efsm_state s, enum efsm_action a, enum efsm_next n)
{
	assert_string_equal(efsm_state_name(r->m.state), efsm_state_name(s));
	assert_int_equal(r->out.act, a);
	assert_int_equal(r->out.next, n);
}

/* The scan ends with a table of ncand candidates (full or not). */
static void
scan_done(struct rig *r, size_t ncand, int full, uint64_t scan_ms)
{
	r->in.ncand = ncand;
	r->in.full = full;
	r->in.scan_ms = scan_ms;
	r->in.left = ncand;
	ev(r, EFSM_EV_SCAN_DONE);
}

/* Start, warming scan, table of n, the kernel asking. */
static void
culling(struct rig *r, size_t n)
{
	r->in.want = 1;
	ev(r, EFSM_EV_START);
	expect(r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	r->in.now_ms += 500;
	scan_done(r, n, 0, 500);
	expect(r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
}

/* Start, a table of n, every candidate busy: a back-off. */
static void
all_busy(struct rig *r, size_t n)
{
	culling(r, n);
	r->in.now_ms += 10;
	r->in.left = 0;
	r->in.kept = n;
	ev(r, EFSM_EV_BATCH);
	expect(r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
}

static void
test_start_scans_then_idle(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A kernel state while the scan runs: no second scan. */
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	r.in.now_ms += 100;
	scan_done(&r, 10, 0, 100);
	/* Nobody asks: idle, and no timer without an age limit. */
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
}

static void
test_culls_until_the_goal_is_met_mid_batch(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	culling(&r, 100);
	/* A batch culled 40; more to do: again, but never two batches in one step. */
	r.in.left = 60;
	r.in.culled = 40;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_CULLING, EFSM_ACT_NONE, EFSM_NEXT_AGAIN);
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	/* The goal was met inside the next batch: idle, candidates left over. */
	r.in.left = 45;
	r.in.culled = 15;
	r.in.want = 0;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	assert_int_equal(r.m.round_culled, 55);
	/* The kernel asks again later: the table still serves. */
	r.in.now_ms += 1000;
	r.in.want = 1;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	assert_int_equal(r.m.cull_since, r.in.now_ms);
}

static void
test_failed_scan_backs_off_without_retrying_at_once(void **state)
{
	struct rig r;
	int i;

	(void)state;
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	ev(&r, EFSM_EV_SCAN_FAILED);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 30000);
	assert_true(r.out.exhausted);
	assert_int_equal(r.m.scan_running, 0);
	/* Every loop pass while the kernel wants culling: no new scan before the timer. */
	for (i = 0; i < 5; i++) {
		r.in.now_ms += 1000;
		ev(&r, EFSM_EV_KERNEL);
		expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
		assert_int_equal(r.out.delay_ms, 30000 - 1000 * (i + 1));
	}
	r.in.now_ms = T0 + 30000;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* It fails again: the wait doubles. */
	ev(&r, EFSM_EV_SCAN_FAILED);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 60000);
}

static void
test_all_busy_then_released(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	/* Every candidate was busy: a fresh full table, nothing culled. */
	all_busy(&r, 20);
	assert_int_equal(r.out.delay_ms, 30000);
	/* Objects released: retried after the short gap, not at once. */
	r.in.released = 1;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, EFSM_RETRY_MIN_MS);
	r.in.now_ms += EFSM_RETRY_MIN_MS;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_RETRYING_BUSY, EFSM_ACT_RETRY, EFSM_NEXT_AGAIN);
	/* The retry pass: still busy, then over; back off with a longer retry gap. */
	r.in.left = 12;
	r.in.kept = 8;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_RETRYING_BUSY, EFSM_ACT_NONE, EFSM_NEXT_AGAIN);
	r.in.now_ms += 5;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_RETRYING_BUSY, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	r.in.left = 0;
	r.in.kept = 20;
	r.in.now_ms += 5;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_true(r.m.retry_after > r.in.now_ms);
	/* Released again, and this time the retry culls: normal culling resumes. */
	r.in.released = 1;
	r.in.now_ms = r.m.retry_after;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_RETRYING_BUSY, EFSM_ACT_RETRY, EFSM_NEXT_AGAIN);
	r.in.left = 19;
	r.in.kept = 0;
	r.in.culled = 1;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_CULLING, EFSM_ACT_NONE, EFSM_NEXT_AGAIN);
	assert_int_equal(r.m.backoff_ms, 0);
}

/*
 * Objects released while a pass runs into busy ones: the kernel tells once
 * (its counters are read and reset), so the back-off that follows must
 * wake for them after the retry gap, not after 30 s.
 */
/* Culling a table of 20, 12 left, when event e comes with objects released. */
static void
released_in_a_pass(struct rig *r, enum efsm_event e)
{
	rig_init(r, 0);
	culling(r, 20);
	r->in.now_ms += 10;
	r->in.left = 12;
	r->in.released = 1;
	ev(r, e);
	expect(r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
}

static void
test_released_during_a_pass(void **state)
{
	struct rig r;

	(void)state;
	released_in_a_pass(&r, EFSM_EV_KERNEL);
	r.in.now_ms += 10;
	r.in.left = 0;
	r.in.kept = 20;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, EFSM_RETRY_MIN_MS);
	r.in.now_ms += EFSM_RETRY_MIN_MS;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_RETRYING_BUSY, EFSM_ACT_RETRY, EFSM_NEXT_AGAIN);
}

/*
 * The run limits met by our count while the kernel's flag stays set: no
 * event would tell us that the free space fell back (data the kernel had
 * accepted reaching the disk), so look again at 1, 2, 4 ... 60 s; none
 * once the kernel stops asking; from 1 s again after the next cull.
 */
static void
test_watch_while_the_kernel_asks(void **state)
{
	struct rig r;
	unsigned want_ms = EFSM_WATCH_FIRST_MS;

	(void)state;
	rig_init(&r, 0);
	culling(&r, 20);
	r.in.want = 0;
	r.in.asks = 1;
	r.in.left = 10;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, EFSM_WATCH_FIRST_MS);
	/* Another event meanwhile keeps the deadline. */
	r.in.now_ms += 400;
	ev(&r, EFSM_EV_KERNEL);
	assert_int_equal(r.out.delay_ms, EFSM_WATCH_FIRST_MS - 400);
	r.in.now_ms += EFSM_WATCH_FIRST_MS - 400;
	while (want_ms < EFSM_WATCH_MAX_MS) {
		want_ms = want_ms * 2 > EFSM_WATCH_MAX_MS ? EFSM_WATCH_MAX_MS : want_ms * 2;
		ev(&r, EFSM_EV_TIMER);
		expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
		assert_int_equal(r.out.delay_ms, want_ms);
		r.in.now_ms += want_ms;
	}
	ev(&r, EFSM_EV_TIMER);
	assert_int_equal(r.out.delay_ms, EFSM_WATCH_MAX_MS);
	/* The space fell back: culling, then met again, from 1 s again. */
	r.in.want = 1;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	r.in.want = 0;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, EFSM_WATCH_FIRST_MS);
	/* The kernel stops asking: idle, no timer. */
	r.in.asks = 0;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
}

static void
test_released_with_nothing_kept_rescans(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	culling(&r, 20);
	r.in.left = 0;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	r.in.released = 1;
	r.in.now_ms += EFSM_RETRY_MIN_MS;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* The new table ends the back-off at once. */
	r.in.now_ms += 100;
	scan_done(&r, 5, 0, 100);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	assert_int_equal(r.m.backoff_until, 0);
}

static void
test_rescan_rules(void **state)
{
	struct rig r;

	(void)state;
	/* A full table that paid off: look again at once. */
	rig_init(&r, 0);
	culling(&r, 64);
	r.m.table_full = 1;
	r.in.left = 0;
	r.in.culled = 3;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A table that is not full and culled under half: back off. */
	rig_init(&r, 0);
	culling(&r, 64);
	r.in.left = 0;
	r.in.culled = 31;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	/* Half of it culled: the cache changes under us, look again. */
	rig_init(&r, 0);
	culling(&r, 64);
	r.in.left = 0;
	r.in.culled = 32;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A table from before the request is not trusted. */
	rig_init(&r, 0);
	ev(&r, EFSM_EV_START);
	r.in.now_ms += 10;
	scan_done(&r, 0, 0, 10);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	r.in.now_ms += 10;
	r.in.want = 1;
	r.in.left = 0;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A stale table (older than ten scans' time and a minute) is not either. */
	r.in.now_ms += 10;
	scan_done(&r, 0, 0, 10);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	r.in.now_ms += EFSM_STALE_MIN_MS + 1;
	r.m.backoff_until = 0;		/* as if a goal came and went */
	r.m.state = EFSM_IDLE;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
}

static void
test_reload_while_scanning(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* cull_age set by a reload: no second scan while one runs, no timer yet. */
	r.in.age_period_ms = 60000;
	ev(&r, EFSM_EV_RELOAD);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	assert_int_equal(r.m.age_period_ms, 60000);
	assert_int_equal(r.m.scan_running, 1);
	/* When it ends, the age limit's period starts. */
	r.in.now_ms += 200;
	scan_done(&r, 10, 0, 200);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 60000);
}

/* A reload while idle with an age limit looks at the cache again at once. */
static void
test_reload_rearms_the_age_scan(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 3600000);
	ev(&r, EFSM_EV_START);
	r.in.now_ms += 100;
	scan_done(&r, 10, 0, 100);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 3600000);
	r.in.now_ms += 1000;
	r.in.age_period_ms = 60000;
	ev(&r, EFSM_EV_RELOAD);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* Without an age limit any more: idle, and no timer at all. */
	r.in.now_ms += 100;
	scan_done(&r, 10, 0, 100);
	r.in.age_period_ms = 0;
	ev(&r, EFSM_EV_RELOAD);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
}

static void
test_stop_while_scanning(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	ev(&r, EFSM_EV_STOP);
	expect(&r, EFSM_STOPPED, EFSM_ACT_CANCEL, EFSM_NEXT_IDLE);
	assert_int_equal(r.m.scan_running, 0);
	/* Stopped for good: nothing moves it. */
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_STOPPED, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	scan_done(&r, 10, 0, 1);
	expect(&r, EFSM_STOPPED, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	/* Stopped while idle: nothing to cancel. */
	rig_init(&r, 0);
	ev(&r, EFSM_EV_STOP);
	expect(&r, EFSM_STOPPED, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
}

static void
test_dead_cache_is_final(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 60000);
	culling(&r, 10);
	r.in.dead = 1;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_DEAD, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	r.in.now_ms += 10 * 60000;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_DEAD, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	ev(&r, EFSM_EV_GOAL);
	expect(&r, EFSM_DEAD, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
}

static void
test_age_limit_culls_and_rescans_periodically(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 60000);
	ev(&r, EFSM_EV_START);
	r.in.now_ms += 100;
	r.in.age_due = 1;
	scan_done(&r, 50, 1, 100);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	/* The aged ones are gone, the full table is used up: more may wait. */
	r.in.age_due = 0;
	r.in.left = 0;
	r.in.culled = 50;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A table with nothing aged: the period's timer, and a scan when it runs out. */
	r.in.now_ms += 100;
	scan_done(&r, 50, 0, 100);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 60000);
	r.in.now_ms += 60000;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* A failed age scan waits a whole period too. */
	r.in.left = 50;
	ev(&r, EFSM_EV_SCAN_FAILED);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 60000);
}

static void
test_goal_asked_rescans_an_older_table(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	culling(&r, 10);
	r.in.left = 0;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	/* The kernel is content; a goal comes from outside later. */
	r.in.want = 0;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	r.in.now_ms += 5;
	r.in.want = 1;
	ev(&r, EFSM_EV_GOAL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
}

/*
 * A goal asked while the kernel already asks: the state read with it may
 * tell of released objects, which must not be lost for being a goal's
 * step (the kernel's: test_released_during_a_pass).
 */
static void
test_goal_step_keeps_released_notice(void **state)
{
	struct rig r;

	(void)state;
	released_in_a_pass(&r, EFSM_EV_GOAL);
	assert_int_equal(r.m.released, 1);
}

/*
 * A goal asked during a back-off looks again at once (the table predates
 * it) instead of waiting out the back-off, which the kernel's own events
 * leave as it is.  (The engine sends GOAL only for a goal still unmet:
 * test_engine.c, test_goal_is_the_steps_event.)
 */
static void
test_goal_ends_a_back_off(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	all_busy(&r, 20);
	r.in.now_ms += 1000;
	ev(&r, EFSM_EV_KERNEL);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	r.in.now_ms += 1000;
	ev(&r, EFSM_EV_GOAL);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* Nothing more found: backing off again, for longer. */
	r.in.now_ms += 500;
	r.in.kept = 0;
	scan_done(&r, 0, 0, 500);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	assert_int_equal(r.out.delay_ms, 60000);
	assert_int_equal(r.out.exhausted, 1);
}

/* PARTIAL: a running scan offers a table of n objects certainly among the oldest. */
static void
partial(struct rig *r, size_t n)
{
	r->in.partial = n;
	ev(r, EFSM_EV_PARTIAL);
}

static void
test_early_culling_from_partial_tables(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	/* Nothing certain yet: the offer is dropped, still waiting for the scan. */
	partial(&r, 0);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	/* A partial table: take it and cull, the scan still running. */
	partial(&r, 50);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_EARLY, EFSM_NEXT_AGAIN);
	assert_int_equal(r.m.scan_running, 1);
	r.in.left = 50;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	/* A newer offer while candidates are left: dropped, culling goes on. */
	r.in.left = 20;
	r.in.culled = 30;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_NONE, EFSM_NEXT_AGAIN);
	partial(&r, 80);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	/* The partial table ran out: wait for the next one, never back off or rescan. */
	r.in.left = 0;
	r.in.culled = 20;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	assert_int_equal(r.m.backoff_until, 0);
	partial(&r, 30);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_EARLY, EFSM_NEXT_AGAIN);
	/* The scan ends: the full table replaces the partial one, exact LRU again. */
	r.in.now_ms += 500;
	scan_done(&r, 100, 0, 500);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	assert_int_equal(r.m.scan_running, 0);
	assert_int_equal(r.m.round_culled, 0);
	/* An offer with no scan running (a late snapshot) is never taken. */
	r.in.left = 0;
	partial(&r, 10);
	assert_int_not_equal(r.out.act, EFSM_ACT_EARLY);
	assert_string_equal(efsm_event_name(EFSM_EV_PARTIAL), "partial");
	assert_string_equal(efsm_state_name(EFSM_EARLY_CULLING), "early culling");
}

static void
test_early_culling_only_when_wanted_and_waiting(void **state)
{
	struct rig r;

	(void)state;
	/* Nobody asks: no early culling. */
	rig_init(&r, 0);
	ev(&r, EFSM_EV_START);
	partial(&r, 10);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	/* The goal is met while culling early: idle until the scan ends. */
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	partial(&r, 10);
	r.in.left = 10;
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	r.in.want = 0;
	r.in.left = 5;
	r.in.culled = 5;
	ev(&r, EFSM_EV_BATCH);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	/* A rescan asked while culling from a full table: its offers are not taken. */
	rig_init(&r, 0);
	culling(&r, 10);
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_CULLING, EFSM_ACT_SCAN, EFSM_NEXT_AGAIN);
	partial(&r, 10);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	/* The scan fails while culling early: the partial table still serves, then back off. */
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	partial(&r, 10);
	r.in.left = 10;
	ev(&r, EFSM_EV_SCAN_FAILED);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	r.in.left = 0;
	ev(&r, EFSM_EV_SCAN_FAILED);
	expect(&r, EFSM_BACKING_OFF, EFSM_ACT_NONE, EFSM_NEXT_TIMER);
	/* Stop while culling early cancels the scan. */
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	partial(&r, 10);
	ev(&r, EFSM_EV_STOP);
	expect(&r, EFSM_STOPPED, EFSM_ACT_CANCEL, EFSM_NEXT_IDLE);
}

/*
 * Whether the scan waits for the culls: while culling from a whole table
 * with a scan running (after a restart), always; while culling early, only
 * on one CPU; never while only scanning, and never without a scan.
 */
static void
test_scan_waits_for_culls(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	r.in.want = 1;
	assert_int_equal(efsm_scan_waits(&r.m, 1), 0);	/* no scan yet */
	ev(&r, EFSM_EV_START);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	assert_int_equal(efsm_scan_waits(&r.m, 1), 0);	/* nothing to cull meanwhile */
	partial(&r, 50);
	expect(&r, EFSM_EARLY_CULLING, EFSM_ACT_EARLY, EFSM_NEXT_AGAIN);
	assert_int_equal(efsm_scan_waits(&r.m, 1), 1);
	assert_int_equal(efsm_scan_waits(&r.m, 2), 0);
	assert_int_equal(efsm_scan_waits(&r.m, 0), 0);	/* unknown: as with many */
	/* The scan ends: culling from the full table, no scan left to wait. */
	scan_done(&r, 100, 0, 500);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);
	assert_int_equal(efsm_scan_waits(&r.m, 1), 0);
	/* A scan asked for while culling from that table: it waits, however many CPUs. */
	r.in.left = 60;
	ev(&r, EFSM_EV_RESCAN);
	assert_int_equal(r.m.state, EFSM_CULLING);
	assert_int_equal(r.m.scan_running, 1);
	assert_int_equal(efsm_scan_waits(&r.m, 1), 1);
	assert_int_equal(efsm_scan_waits(&r.m, 4), 1);
}

static void
test_every_state_is_reached(void **state)
{
	struct rig r;
	int seen[EFSM_NSTATES] = { 0 };
	int s;

	(void)state;
	/* The same paths as above, gathered: each state is entered by some event. */
	rig_init(&r, 60000);
	culling(&r, 4);
	memcpy(seen, r.visited, sizeof(seen));
	r.in.left = 0;
	r.in.kept = 4;
	ev(&r, EFSM_EV_BATCH);
	r.in.released = 1;
	r.in.now_ms += EFSM_RETRY_MIN_MS;
	ev(&r, EFSM_EV_KERNEL);
	r.in.dead = 1;
	ev(&r, EFSM_EV_BATCH);
	for (s = 0; s < EFSM_NSTATES; s++)
		seen[s] |= r.visited[s];
	rig_init(&r, 0);
	ev(&r, EFSM_EV_STOP);
	seen[r.m.state] = 1;
	rig_init(&r, 0);
	ev(&r, EFSM_EV_START);
	scan_done(&r, 0, 0, 1);
	seen[r.m.state] = 1;
	rig_init(&r, 0);
	r.in.want = 1;
	ev(&r, EFSM_EV_START);
	partial(&r, 1);
	seen[r.m.state] = 1;
	for (s = 0; s < EFSM_NSTATES; s++) {
		if (!seen[s])
			fail_msg("state %s never reached", efsm_state_name((enum efsm_state)s));
	}
	assert_string_equal(efsm_event_name(EFSM_EV_SCAN_FAILED), "scan failed");
}

/* RESCAN (the control socket): a scan now, whatever the state; culling goes on meanwhile. */
static void
test_rescan(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, 0);
	/* Idle with a table: a scan starts, the state says so, no timer. */
	ev(&r, EFSM_EV_START);
	r.in.now_ms += 100;
	scan_done(&r, 10, 0, 100);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	assert_int_equal(r.m.scan_running, 1);
	/* Asked again while it runs: no second scan. */
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_SCANNING, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	r.in.now_ms += 100;
	scan_done(&r, 10, 0, 100);
	expect(&r, EFSM_IDLE, EFSM_ACT_NONE, EFSM_NEXT_IDLE);

	/* While culling: the scan starts and the old table keeps serving. */
	rig_init(&r, 0);
	culling(&r, 100);
	r.in.left = 60;
	r.in.culled = 40;
	ev(&r, EFSM_EV_BATCH);
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_CULLING, EFSM_ACT_SCAN, EFSM_NEXT_AGAIN);
	ev(&r, EFSM_EV_TIMER);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);

	/* Backing off: the scan starts at once instead of after the timer. */
	rig_init(&r, 0);
	all_busy(&r, 20);
	r.in.now_ms += 10;
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_SCANNING, EFSM_ACT_SCAN, EFSM_NEXT_IDLE);
	r.in.now_ms += 100;
	scan_done(&r, 5, 0, 100);
	expect(&r, EFSM_CULLING, EFSM_ACT_CULL, EFSM_NEXT_AGAIN);

	/* Dead stays dead. */
	rig_init(&r, 0);
	culling(&r, 5);
	r.in.dead = 1;
	ev(&r, EFSM_EV_BATCH);
	ev(&r, EFSM_EV_RESCAN);
	expect(&r, EFSM_DEAD, EFSM_ACT_NONE, EFSM_NEXT_IDLE);
	assert_string_equal(efsm_event_name(EFSM_EV_RESCAN), "rescan");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rescan),
		cmocka_unit_test(test_start_scans_then_idle),
		cmocka_unit_test(test_culls_until_the_goal_is_met_mid_batch),
		cmocka_unit_test(test_failed_scan_backs_off_without_retrying_at_once),
		cmocka_unit_test(test_all_busy_then_released),
		cmocka_unit_test(test_released_with_nothing_kept_rescans),
		cmocka_unit_test(test_released_during_a_pass),
		cmocka_unit_test(test_watch_while_the_kernel_asks),
		cmocka_unit_test(test_rescan_rules),
		cmocka_unit_test(test_reload_while_scanning),
		cmocka_unit_test(test_reload_rearms_the_age_scan),
		cmocka_unit_test(test_stop_while_scanning),
		cmocka_unit_test(test_dead_cache_is_final),
		cmocka_unit_test(test_age_limit_culls_and_rescans_periodically),
		cmocka_unit_test(test_goal_asked_rescans_an_older_table),
		cmocka_unit_test(test_goal_step_keeps_released_notice),
		cmocka_unit_test(test_goal_ends_a_back_off),
		cmocka_unit_test(test_early_culling_from_partial_tables),
		cmocka_unit_test(test_early_culling_only_when_wanted_and_waiting),
		cmocka_unit_test(test_scan_waits_for_culls),
		cmocka_unit_test(test_every_state_is_reached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
