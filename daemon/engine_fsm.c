// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine_fsm.c: the engine's transition function (the table is in the
 * header).  Every rule that decides when to scan again or how long to wait
 * lives here, in one place, so that each can be tested with synthetic
 * events; the rescan and back-off rules were fixed four times when they
 * were spread over the engine's flags.
 */
#include "daemon/engine_fsm.h"

#include <string.h>

static const char *const state_names[EFSM_NSTATES] = {
	"idle", "scanning", "culling", "backing off", "retrying busy", "early culling",
	"dead", "stopped",
};

static const char *const event_names[EFSM_NEVENTS] = {
	"start", "kernel", "goal", "scan done", "scan failed", "batch", "timer",
	"reload", "rescan", "stop", "partial",
};

const char *
efsm_state_name(enum efsm_state s)
{
	return (unsigned)s < EFSM_NSTATES ? state_names[s] : "?";
}

const char *
efsm_event_name(enum efsm_event ev)
{
	return (unsigned)ev < EFSM_NEVENTS ? event_names[ev] : "?";
}

void
efsm_init(struct efsm *m, uint64_t age_period_ms)
{
	memset(m, 0, sizeof(*m));
	m->state = EFSM_IDLE;
	m->age_period_ms = age_period_ms;
}

static void
act(struct efsm_out *out, enum efsm_action a, enum efsm_next next)
{
	out->act = a;
	out->next = next;
}

static void
timer(struct efsm_out *out, uint64_t until, uint64_t now)
{
	uint64_t d = until > now ? until - now : 1;

	out->next = EFSM_NEXT_TIMER;
	out->delay_ms = d > UINT32_MAX ? UINT32_MAX : (unsigned)d;
}

static void
scan(struct efsm *m, const struct efsm_in *in, struct efsm_out *out)
{
	if (!m->scan_running) {
		m->scan_running = 1;
		m->scan_started = in->now_ms;
		out->act = EFSM_ACT_SCAN;
	}
	out->next = EFSM_NEXT_IDLE;	/* the scan's descriptor wakes the loop */
}

/* Cull now, or, when a batch already ran in this step, in the next one. */
static void
cull(enum efsm_event ev, enum efsm_action a, struct efsm_out *out)
{
	if (ev == EFSM_EV_BATCH)
		act(out, EFSM_ACT_NONE, EFSM_NEXT_AGAIN);
	else
		act(out, a, EFSM_NEXT_AGAIN);
}

/*
 * Nothing cullable in a whole pass: wait, longer each time.  Objects the
 * kernel released during the pass may be the busy ones, and it says so
 * only once: then the wake is the retry gap, not the whole back-off.
 */
static void
back_off(struct efsm *m, const struct efsm_in *in, struct efsm_out *out)
{
	m->backoff_ms = m->backoff_ms ? m->backoff_ms * 2 : EFSM_BACKOFF_FIRST_MS;
	if (m->backoff_ms > EFSM_BACKOFF_MAX_MS)
		m->backoff_ms = EFSM_BACKOFF_MAX_MS;
	m->backoff_until = in->now_ms + m->backoff_ms;
	m->state = EFSM_BACKING_OFF;
	out->exhausted = 1;
	timer(out, m->released && m->retry_after < m->backoff_until ? m->retry_after :
	      m->backoff_until, in->now_ms);
}

/* A table older than this no longer describes the cache. */
static int
table_stale(const struct efsm *m, uint64_t now)
{
	uint64_t limit = m->scan_ms_last * 10;

	if (limit < EFSM_STALE_MIN_MS)
		limit = EFSM_STALE_MIN_MS;
	return now - m->table_done > limit;
}

/*
 * The table ran out while a goal is unmet.  Look again when there is no
 * table, it is stale, or it predates the request; or when the pass paid
 * off: it culled from a full table (older objects were left out of it) or
 * culled at least half of it (the cache changes under us).  Otherwise all
 * that is known is busy.
 */
static int
worth_rescanning(const struct efsm *m, uint64_t now)
{
	if (!m->have_table || table_stale(m, now) || m->table_started < m->cull_since)
		return 1;
	return m->round_culled > 0 &&
	    (m->table_full || 2 * m->round_culled >= m->table_ncand);
}

/* Scans started by released-objects notices: at most a tenth of the time. */
static uint64_t
rescan_gap_ms(const struct efsm *m)
{
	uint64_t gap = m->scan_ms_last * 10;

	return gap > EFSM_RETRY_MIN_MS ? gap : EFSM_RETRY_MIN_MS;
}

static void
backing_off(struct efsm *m, const struct efsm_in *in, struct efsm_out *out)
{
	uint64_t now = in->now_ms;

	if (m->released) {
		if (now < m->retry_after) {
			timer(out, m->retry_after < m->backoff_until ?
			      m->retry_after : m->backoff_until, now);
			return;
		}
		m->released = 0;
		if (in->kept + in->left == 0) {
			/* Nothing to retry: the released objects may be new ones. */
			m->retry_after = now + rescan_gap_ms(m);
			m->state = EFSM_SCANNING;
			scan(m, in, out);
			return;
		}
		m->state = EFSM_RETRYING_BUSY;
		m->retry_t0 = now;
		act(out, EFSM_ACT_RETRY, EFSM_NEXT_AGAIN);
		return;
	}
	if (now < m->backoff_until) {
		timer(out, m->backoff_until, now);
		return;
	}
	m->backoff_until = 0;
	m->state = EFSM_SCANNING;
	scan(m, in, out);
}

/*
 * The kernel still asks for culling but its run limits are met by our
 * count: it clears its flag only at its next check of the space, and says
 * nothing while the flag stays set.  Meanwhile the free space can fall back
 * below the run limits (data the kernel had already accepted reaching the
 * disk after our culls) and no event would tell us.  So look again, at 1,
 * 2, 4 ... 60 s while it lasts; 0 when the kernel does not ask.
 */
static uint64_t
watch_deadline(struct efsm *m, const struct efsm_in *in)
{
	if (!in->asks) {
		m->watch_ms = m->watch_until = 0;
		return 0;
	}
	if (m->watch_until == 0 || in->now_ms >= m->watch_until) {
		m->watch_ms = m->watch_ms ? m->watch_ms * 2 : EFSM_WATCH_FIRST_MS;
		if (m->watch_ms > EFSM_WATCH_MAX_MS)
			m->watch_ms = EFSM_WATCH_MAX_MS;
		m->watch_until = in->now_ms + m->watch_ms;
	}
	return m->watch_until;
}

/* No goal but perhaps the age limit, and the watch above. */
static void
settle_idle(struct efsm *m, const struct efsm_in *in, enum efsm_event ev,
	    struct efsm_out *out)
{
	uint64_t now = in->now_ms, until;

	m->backoff_ms = m->backoff_until = 0;
	if (in->age_due) {
		m->state = EFSM_CULLING;
		cull(ev, EFSM_ACT_CULL, out);
		return;
	}
	m->state = m->scan_running ? EFSM_SCANNING : EFSM_IDLE;
	until = watch_deadline(m, in);
	if (m->age_period_ms != 0 && !m->scan_running) {
		/* A full table of aged objects ran out: more may be waiting. */
		if ((m->have_table && m->table_full && in->left == 0 && m->round_culled > 0) ||
		    now >= m->next_age_scan) {
			m->state = EFSM_SCANNING;
			scan(m, in, out);
			return;
		}
		if (until == 0 || m->next_age_scan < until)
			until = m->next_age_scan;
	}
	if (until != 0)
		timer(out, until, now);	/* otherwise idle: no timer */
}

static void
settle(struct efsm *m, const struct efsm_in *in, enum efsm_event ev, struct efsm_out *out)
{
	uint64_t now = in->now_ms;

	if (in->want && !m->wanting)
		m->cull_since = now;
	m->wanting = in->want;
	if (!in->want) {
		settle_idle(m, in, ev, out);
		return;
	}
	m->watch_ms = m->watch_until = 0;
	if (m->state == EFSM_RETRYING_BUSY) {
		if (in->left > 0) {
			cull(ev, EFSM_ACT_CULL, out);
			return;
		}
		m->retry_after = now + (now - m->retry_t0) * 10 + EFSM_RETRY_MIN_MS;
		m->state = EFSM_BACKING_OFF;
	}
	/* The scan failed: what the partial table holds is still certain. */
	if (m->state == EFSM_EARLY_CULLING && !m->scan_running)
		m->state = EFSM_CULLING;
	if (m->state == EFSM_EARLY_CULLING) {
		if (in->left > 0) {
			cull(ev, EFSM_ACT_CULL, out);
			return;
		}
		m->state = EFSM_SCANNING;
		return;
	}
	if (m->state == EFSM_BACKING_OFF && m->backoff_until != 0) {
		backing_off(m, in, out);
		return;
	}
	if (in->left > 0) {
		m->state = EFSM_CULLING;
		cull(ev, EFSM_ACT_CULL, out);
		return;
	}
	if (m->scan_running) {
		m->state = EFSM_SCANNING;
		return;
	}
	if (worth_rescanning(m, now)) {
		m->released = 0;
		m->state = EFSM_SCANNING;
		scan(m, in, out);
		return;
	}
	m->retry_after = now + EFSM_RETRY_MIN_MS;
	back_off(m, in, out);
}

static void
scan_done(struct efsm *m, const struct efsm_in *in)
{
	m->scan_running = 0;
	m->have_table = 1;
	m->table_full = in->full;
	m->table_ncand = in->ncand;
	m->table_started = m->scan_started;
	m->table_done = in->now_ms;
	m->scan_ms_last = in->scan_ms;
	m->round_culled = 0;
	/* A new table ends a back-off; if it holds nothing cullable, the next is longer. */
	m->backoff_until = 0;
	if (m->state == EFSM_BACKING_OFF || m->state == EFSM_RETRYING_BUSY ||
	    m->state == EFSM_EARLY_CULLING)
		m->state = EFSM_SCANNING;
	if (m->age_period_ms)
		m->next_age_scan = in->now_ms + m->age_period_ms;
}

void
efsm_event(struct efsm *m, enum efsm_event ev, const struct efsm_in *in,
	   struct efsm_out *out)
{
	memset(out, 0, sizeof(*out));
	if (m->state == EFSM_DEAD || m->state == EFSM_STOPPED)
		return;
	switch (ev) {
	case EFSM_EV_STOP:
		if (m->scan_running) {
			m->scan_running = 0;
			out->act = EFSM_ACT_CANCEL;
		}
		m->state = EFSM_STOPPED;
		return;
	case EFSM_EV_START:
		if (m->started)
			break;
		m->started = 1;
		if (in->want) {
			m->cull_since = in->now_ms;
			m->wanting = 1;
		}
		/* The first scan also warms the dentry and inode caches. */
		m->state = EFSM_SCANNING;
		scan(m, in, out);
		return;
	case EFSM_EV_GOAL:
		/*
		 * A table from before this request may miss what it wants, and
		 * a back-off is no reason to make the asker wait for its end
		 * (up to ten minutes) before the look the request calls for;
		 * the state read with it may tell of released objects.
		 */
		if (in->want) {
			m->cull_since = in->now_ms;
			if (m->state == EFSM_BACKING_OFF)
				m->backoff_until = 0;
		}
		/* FALLTHROUGH */
	case EFSM_EV_KERNEL:
		if (in->released)
			m->released = 1;
		break;
	case EFSM_EV_SCAN_DONE:
		scan_done(m, in);
		break;
	case EFSM_EV_SCAN_FAILED:
		m->scan_running = 0;
		if (m->age_period_ms)
			m->next_age_scan = in->now_ms + m->age_period_ms;
		if (in->want && in->left == 0) {
			/* Never straight into another scan that may fail the same way. */
			m->wanting = 1;
			m->retry_after = in->now_ms + EFSM_RETRY_MIN_MS;
			back_off(m, in, out);
			return;
		}
		break;
	case EFSM_EV_BATCH:
		if (in->dead) {
			m->state = EFSM_DEAD;
			return;
		}
		if (in->culled > 0) {
			m->backoff_ms = m->backoff_until = 0;
			m->round_culled += in->culled;
			if (m->state == EFSM_RETRYING_BUSY)
				m->state = EFSM_CULLING;	/* it worked: cull normally */
		}
		break;
	case EFSM_EV_RELOAD:
		m->age_period_ms = in->age_period_ms;
		m->next_age_scan = 0;
		break;
	case EFSM_EV_RESCAN:
		if (m->scan_running)
			break;
		scan(m, in, out);
		if (m->state == EFSM_CULLING || m->state == EFSM_RETRYING_BUSY)
			out->next = EFSM_NEXT_AGAIN;	/* the old table serves meanwhile */
		else
			m->state = EFSM_SCANNING;
		return;
	case EFSM_EV_PARTIAL:
		if (m->scan_running && in->want && in->partial > 0 && in->left == 0 &&
		    (m->state == EFSM_SCANNING || m->state == EFSM_EARLY_CULLING)) {
			m->state = EFSM_EARLY_CULLING;
			act(out, EFSM_ACT_EARLY, EFSM_NEXT_AGAIN);
			return;
		}
		break;
	case EFSM_EV_TIMER:
	case EFSM_NEVENTS:
		break;
	}
	settle(m, in, ev, out);
}

int
efsm_scan_waits(const struct efsm *m, unsigned cpus)
{
	if (!m->scan_running)
		return 0;
	return m->state == EFSM_CULLING || (m->state == EFSM_EARLY_CULLING && cpus == 1);
}
