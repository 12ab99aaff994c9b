// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c: when to scan and what to cull.
 *
 * Scans run in a background thread (scan.c touches no working directory)
 * and hand over a table of the oldest objects, sized from the deficit
 * (target.c).  The main thread culls from the table oldest first, in
 * batches, re-checking each object just before (victims.c), and stops at
 * the target.  It rescans only when the table ran out while the kernel
 * still wants culling, and either the table was full and the pass culled
 * something (older objects were left out of it) or the table is stale;
 * otherwise nothing known is cullable and it backs off (30 s doubling to
 * 10 min), retrying the busy objects when the kernel reports released
 * objects.  The age
 * limit, when set, is the only reason for periodic scans: every cull_age/10,
 * clamped to [1 min, 1 day], and at once when a full table held only
 * objects past the limit.  Without it an idle engine sets no timer.
 *
 * When a cull fails with EIO and the kernel channel finds the cache dead
 * (kernel_dead()), the engine stops and returns ENGINE_IDLE; the loop
 * checks kernel_dead() after every step and exits non-zero.
 */
#include "daemon/engine.h"
#include "config/config.h"
#include "kernel/channel.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "cull/names.h"
#include "cull/scan.h"
#include "cull/target.h"
#include "lib/util.h"
#include "cull/victims.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH_MAX 64
#define BATCH_MS 20
#define BACKOFF_FIRST_MS (30 * 1000)
#define BACKOFF_MAX_MS (10 * 60 * 1000)
#define RETRY_MIN_MS 1000
#define STALE_MIN_MS (60 * 1000)
#define SCAN_NICE 5			/* the scan yields to the cache's users */
#define IOPRIO_BE_LOWEST ((2 << 13) | 7)	/* best-effort class, level 7 */
#define AGE_PERIOD_MIN_S 60
#define AGE_PERIOD_MAX_S 86400

struct engine {
	int cachefd;
	struct kchan *k;
	int evfd;
	int nocull;
	uint64_t cull_age, cull_memory;
	unsigned threads;

	/* The scan in progress. */
	pthread_t tid;
	int scanning;
	int done;			/* set by the thread (atomic) */
	volatile int cancel;
	struct scan_opts opts;		/* fixed before the thread starts */
	uint64_t scan_t0;
	struct scan_progress prog;
	struct scan_result *next;

	/* The candidates being culled. */
	struct scan_result *cur;
	struct victims *vs;
	int cur_full;			/* the table was filled: more may exist */
	uint64_t cur_started, cur_done;	/* when its scan started and finished */
	uint64_t cull_since;		/* when the kernel last began asking */
	int kernel_cull;		/* the kernel's flag at the last step */
	uint64_t mean_bytes, objects;
	uint64_t round_culled;		/* successful culls since this table came */
	uint64_t odd_logged;		/* what the last logged scan left alone */

	struct kstate st;
	int have_st, started, released, dead;
	uint64_t backoff_ms, backoff_until, retry_after, next_age_scan;
	int retrying;
	uint64_t retry_t0;

	struct engine_stats s;
	struct victims_stats vgone;	/* from tables already freed */
};

static void
settings(struct engine *e, const struct config *cfg)
{
	e->nocull = cfg->nocull;
	e->cull_age = cfg->cull_age;
	e->cull_memory = cfg->cull_memory;
	e->threads = cfg->scan_threads ? cfg->scan_threads : 1;
	if (e->threads > 64)
		e->threads = 64;
}

struct engine *
engine_new(const struct config *cfg, int cachefd, struct kchan *k)
{
	struct engine *e = xcalloc(1, sizeof(*e));

	e->cachefd = cachefd;
	e->k = k;
	e->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->evfd < 0) {
		log_warn("cull engine: eventfd");
		free(e);
		return NULL;
	}
	settings(e, cfg);
	return e;
}

void
engine_reconfigure(struct engine *e, const struct config *cfg)
{
	settings(e, cfg);
	e->next_age_scan = 0;
}

int
engine_fd(const struct engine *e)
{
	return e->evfd;
}

static void *
scan_thread(void *arg)
{
	struct engine *e = arg;
	uint64_t one = 1;
	pid_t tid = gettid();

	/* Best effort, per thread (the workers inherit it): failures change nothing. */
	(void)setpriority(PRIO_PROCESS, (id_t)tid, SCAN_NICE);
	(void)syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, tid, IOPRIO_BE_LOWEST);
	e->next = scan_run(e->cachefd, &e->opts, &e->prog);
	__atomic_store_n(&e->done, 1, __ATOMIC_RELEASE);
	if (write(e->evfd, &one, sizeof(one)) < 0)
		return NULL;	/* cannot happen with a counter this small */
	return NULL;
}

static struct target
run_target(const struct engine *e)
{
	struct target t = { e->st.brun, e->st.frun };

	return t;
}

static void
start_scan(struct engine *e)
{
	struct fsfree f;
	struct target t;
	sigset_t all, old;
	int err;

	if (e->scanning)
		return;
	if (target_fsfree(e->cachefd, &f) < 0) {
		log_warn("cache: statvfs");
		memset(&f, 0, sizeof(f));
	}
	if (!e->have_st)
		memset(&e->st, 0, sizeof(e->st));
	t = run_target(e);
	e->opts.max_candidates = target_candidates(&t, &f, e->mean_bytes,
						   e->objects, e->cull_memory);
	e->opts.threads = e->threads;
	e->opts.cancel = &e->cancel;
	e->cancel = 0;
	e->done = 0;
	memset(&e->prog, 0, sizeof(e->prog));
	e->scan_t0 = now_ms();
	/* Signals belong to the loop's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&e->tid, NULL, scan_thread, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		errno = err;
		log_warn("cull engine: scan thread");
		return;
	}
	e->scanning = 1;
	log_debug(1, "scan started, keeping up to %zu candidates",
		  e->opts.max_candidates);
}

static void
log_scan(struct engine *e, const struct scan_result *r)
{
	const struct scan_stats *ss = scan_stats(r);
	uint64_t odd = ss->unknown + ss->errors + ss->too_deep + ss->unsendable + ss->mounts;
	unsigned i;

	log_info("scan: %llu objects, %llu MiB in %llu.%03llu s, %zu candidates",
		 (unsigned long long)ss->objects,
		 (unsigned long long)(ss->bytes >> 20),
		 (unsigned long long)(ss->ms / 1000), (unsigned long long)(ss->ms % 1000),
		 scan_ncand(r));
	/* What the scan left alone: named once, then again only when it changes. */
	if (odd == 0 || odd == e->odd_logged)
		return;
	e->odd_logged = odd;
	log_warnx("scan: left alone: %llu entries not understood, %llu unreadable "
		  "or failed (errors), %llu too deep (over %d levels), %llu names no "
		  "cull command can carry, %llu mount points",
		  (unsigned long long)ss->unknown, (unsigned long long)ss->errors,
		  (unsigned long long)ss->too_deep, NAMES_MAX_DEPTH,
		  (unsigned long long)ss->unsendable, (unsigned long long)ss->mounts);
	for (i = 0; i < ss->nsamples; i++)
		log_warnx("cache: left alone: %s", ss->samples[i]);
}

static uint64_t
age_period_ms(const struct engine *e)
{
	uint64_t p = e->cull_age / 10;

	if (p < AGE_PERIOD_MIN_S)
		p = AGE_PERIOD_MIN_S;
	if (p > AGE_PERIOD_MAX_S)
		p = AGE_PERIOD_MAX_S;
	return p * 1000;
}

/* Take the finished scan's table, if there is one. */
static void
harvest(struct engine *e)
{
	const struct scan_stats *ss;
	uint64_t v;

	if (!e->scanning || !__atomic_load_n(&e->done, __ATOMIC_ACQUIRE))
		return;
	pthread_join(e->tid, NULL);
	e->scanning = 0;
	if (read(e->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_warn("cull engine: eventfd read");
	if (e->next == NULL) {
		log_warnx("scan of the cache failed");
		return;
	}
	if (e->vs) {
		const struct victims_stats *vst = victims_stats(e->vs);
		e->vgone.vanished += vst->vanished;
		e->vgone.moved += vst->moved;
		e->vgone.errors += vst->errors;
	}
	victims_free(e->vs);
	scan_free(e->cur);
	e->cur = e->next;
	e->next = NULL;
	e->vs = victims_new(e->cur, e->cachefd);
	ss = scan_stats(e->cur);
	e->cur_full = scan_ncand(e->cur) >= e->opts.max_candidates;
	e->objects = ss->objects;
	e->mean_bytes = ss->objects ? ss->bytes / ss->objects : 0;
	e->round_culled = 0;
	e->cur_done = now_ms();
	e->cur_started = e->scan_t0;
	/* A new table ends a back-off; if it holds nothing cullable, the next is longer. */
	e->backoff_until = 0;
	e->retrying = 0;
	e->s.scans++;
	e->s.scanned_objects = ss->objects;
	e->s.candidates = scan_ncand(e->cur);
	e->s.scan_ms_last = ss->ms;
	if (e->cull_age)
		e->next_age_scan = now_ms() + age_period_ms(e);
	log_scan(e, e->cur);
}

static uint64_t
age_cutoff_ns(const struct engine *e)
{
	struct timespec ts;
	uint64_t now;

	if (e->cull_age == 0 || clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return 0;
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return e->cull_age * 1000000000u < now ? now - e->cull_age * 1000000000u : 0;
}

/* Send one cull; 1 culled, 0 not, -1 the cache died. */
static int
cull_one(struct engine *e, const struct victim *v, int keep_busy)
{
	char name[ESCAPE_SIZE(NAME_MAX)];
	int err;

	escape_text(v->name, name, sizeof(name));
	if (fchdir(v->dirfd) < 0) {
		log_warn("%s: fchdir", name);
		e->s.busy++;
		return 0;
	}
	err = kernel_cull(e->k, v->name);
	switch (err) {
	case 0:
		e->s.culled++;
		e->s.culled_blocks += v->blocks;
		e->round_culled++;
		log_debug(2, "culled %s", name);
		return 1;
	case -EBUSY:
	case -ENOMEM:
		e->s.busy++;
		if (keep_busy)
			victims_keep(e->vs);
		return 0;
	case -ENOENT:
	case -ESTALE:
		e->s.vanished++;
		return 0;
	case -EIO:
		/* The channel probed: a dead cache is the loop's to handle. */
		if (kernel_dead(e->k)) {
			log_warnx("cull %s: %s; the cache is dead", name, strerror(EIO));
			e->dead = 1;
			return -1;
		}
		/* FALLTHROUGH */
	default:
		errno = -err;
		log_warn("cull %s", name);
		return 0;
	}
}

/*
 * One batch, oldest first.  kernel: the kernel wants culling (stop at the
 * target); otherwise only objects older than the age limit are culled.
 * Returns the number of candidates examined, or -1 when the cache died.
 */
static int
cull_batch(struct engine *e, int kernel)
{
	uint64_t t0 = now_ms(), cutoff = age_cutoff_ns(e);
	int n = 0, culled = 0, r = 0;
	struct victim v;

	/* Directories are opened afresh by path for each batch (victims.h). */
	victims_drop_dirs(e->vs);

	while (n < BATCH_MAX && now_ms() - t0 < BATCH_MS) {
		if (kernel && culled > 0) {
			struct fsfree f;
			struct target t = run_target(e);

			if (target_fsfree(e->cachefd, &f) == 0 && target_met(&t, &f))
				break;
		}
		if (!victims_next(e->vs, &v))
			break;
		if (!kernel && v.atime_ns >= cutoff) {
			victims_unget(e->vs);
			break;
		}
		n++;
		r = cull_one(e, &v, kernel);
		if (r < 0)
			break;
		culled += r;
	}
	if (fchdir(e->cachefd) < 0)
		log_warn("cache: fchdir");
	if (culled > 0)
		e->backoff_ms = e->backoff_until = 0;
	return r < 0 ? -1 : n;
}

static int
age_due(const struct engine *e)
{
	uint64_t at;

	if (e->cull_age == 0 || e->vs == NULL)
		return 0;
	at = victims_peek_atime(e->vs);
	return at != 0 && at < age_cutoff_ns(e);
}

static enum engine_next
timer(uint64_t until, uint64_t now, unsigned *delay_ms)
{
	uint64_t d = until > now ? until - now : 1;

	*delay_ms = d > UINT32_MAX ? UINT32_MAX : (unsigned)d;
	return ENGINE_TIMER;
}

/* Nothing cullable in a whole pass: wait, longer each time. */
static enum engine_next
back_off(struct engine *e, uint64_t now, unsigned *delay_ms)
{
	e->backoff_ms = e->backoff_ms ? e->backoff_ms * 2 : BACKOFF_FIRST_MS;
	if (e->backoff_ms > BACKOFF_MAX_MS)
		e->backoff_ms = BACKOFF_MAX_MS;
	e->backoff_until = now + e->backoff_ms;
	if (e->vs && victims_kept(e->vs) > 0)
		log_info("cull: nothing cullable (%zu busy); waiting %llu s or for released objects",
			 victims_kept(e->vs), (unsigned long long)(e->backoff_ms / 1000));
	else
		log_info("cull: candidates used up and the last scan found no more; "
			 "next scan in %llu s or when the kernel releases objects",
			 (unsigned long long)(e->backoff_ms / 1000));
	return timer(e->backoff_until, now, delay_ms);
}

/* Scans started by released-objects notices: at most a tenth of the time. */
static uint64_t
rescan_gap_ms(const struct engine *e)
{
	uint64_t gap = e->s.scan_ms_last * 10;

	return gap > RETRY_MIN_MS ? gap : RETRY_MIN_MS;
}

/*
 * In back-off: when the kernel reported released objects, go over the busy
 * ones again (at most once per retry_after, which grows with the cost of a
 * pass); when the timer runs out, rescan.
 */
static enum engine_next
backing_off(struct engine *e, uint64_t now, unsigned *delay_ms)
{
	if (!e->retrying && e->released) {
		if (now < e->retry_after)
			return timer(e->retry_after < e->backoff_until ?
				     e->retry_after : e->backoff_until, now, delay_ms);
		if (e->vs == NULL || victims_kept(e->vs) + victims_left(e->vs) == 0) {
			/* Nothing to retry: released objects may be new ones. */
			e->released = 0;
			e->retry_after = now + rescan_gap_ms(e);
			start_scan(e);
			if (e->scanning)
				return timer(e->backoff_until, now, delay_ms);
			return back_off(e, now, delay_ms);
		}
		victims_retry(e->vs);
		e->released = 0;
		e->retrying = 1;
		e->retry_t0 = now;
	}
	if (e->retrying) {
		if (victims_left(e->vs) > 0) {
			cull_batch(e, 1);
			if (e->backoff_until == 0)
				e->retrying = 0;	/* it worked: cull normally */
			return ENGINE_AGAIN;
		}
		e->retrying = 0;
		e->retry_after = now + (now - e->retry_t0) * 10 + RETRY_MIN_MS;
	}
	if (now < e->backoff_until)
		return timer(e->backoff_until, now, delay_ms);
	e->backoff_until = 0;
	e->released = 0;
	start_scan(e);
	return e->scanning ? ENGINE_IDLE : back_off(e, now, delay_ms);
}

/* A table older than this no longer describes the cache. */
static int
table_stale(const struct engine *e, uint64_t now)
{
	uint64_t limit = e->s.scan_ms_last * 10;

	if (limit < STALE_MIN_MS)
		limit = STALE_MIN_MS;
	return now - e->cur_done > limit;
}

/*
 * The table has run out while the kernel wants culling.  Look again when
 * the table predates this episode of culling or is stale (objects were
 * added since), or when the pass made real progress: it culled something
 * from a full table (older objects were left out of it) or culled at least
 * half of it (the cache is changing under us).  Otherwise everything known
 * is busy: back off, which bounds the scans to one per back-off period or
 * released-objects notice.
 */
static int
worth_rescanning(const struct engine *e, uint64_t now)
{
	if (e->cur == NULL || table_stale(e, now) || e->cur_started < e->cull_since)
		return 1;
	return e->round_culled > 0 &&
	    (e->cur_full || 2 * e->round_culled >= scan_ncand(e->cur));
}

/* The kernel wants culling. */
static enum engine_next
kernel_wants(struct engine *e, uint64_t now, unsigned *delay_ms)
{
	if (e->dead)
		return ENGINE_IDLE;
	if (e->backoff_until)
		return backing_off(e, now, delay_ms);
	if (e->vs && victims_left(e->vs) > 0) {
		cull_batch(e, 1);
		return e->dead ? ENGINE_IDLE : ENGINE_AGAIN;
	}
	if (e->scanning)
		return ENGINE_IDLE;	/* the scan's descriptor wakes the loop */
	if (worth_rescanning(e, now)) {
		e->released = 0;
		start_scan(e);
		if (e->scanning)
			return ENGINE_IDLE;
	}
	e->retry_after = now + RETRY_MIN_MS;
	return back_off(e, now, delay_ms);
}

enum engine_next
engine_step(struct engine *e, const struct kstate *st, unsigned *delay_ms)
{
	uint64_t now = now_ms();

	*delay_ms = 0;
	if (st) {
		if (st->cull && !e->kernel_cull)
			e->cull_since = now;
		e->kernel_cull = st->cull;
		e->st = *st;
		e->have_st = 1;
		if (st->has_released && (st->freleased || st->breleased))
			e->released = 1;
	}
	if (e->dead || e->nocull)
		return ENGINE_IDLE;
	harvest(e);
	if (!e->started) {
		/* The first scan also warms the dentry and inode caches. */
		e->started = 1;
		start_scan(e);
	}
	if (e->have_st && e->st.cull)
		return kernel_wants(e, now, delay_ms);
	e->backoff_ms = e->backoff_until = 0;
	e->retrying = 0;
	if (age_due(e)) {
		if (cull_batch(e, 0) < 0)
			return ENGINE_IDLE;
		return ENGINE_AGAIN;
	}
	if (e->cull_age) {
		/* A full table of aged objects means more may be waiting. */
		if (!e->scanning && e->vs && e->cur_full && victims_left(e->vs) == 0 &&
		    e->round_culled > 0)
			start_scan(e);
		else if (!e->scanning && now >= e->next_age_scan)
			start_scan(e);
		if (e->scanning)
			return ENGINE_IDLE;
		return timer(e->next_age_scan, now, delay_ms);
	}
	return ENGINE_IDLE;
}

void
engine_status(const struct engine *e, char *buf, size_t len)
{
	if (e->scanning) {
		uint64_t objs = __atomic_load_n(&e->prog.objects, __ATOMIC_RELAXED);
		uint64_t ms = now_ms() - e->scan_t0;
		snprintf(buf, len, "scanning: %llu objects (%llu/s); culled %llu, busy %llu",
			 (unsigned long long)objs,
			 (unsigned long long)(ms ? objs * 1000 / ms : 0),
			 (unsigned long long)e->s.culled, (unsigned long long)e->s.busy);
	} else if (e->s.scans == 0) {
		snprintf(buf, len, "no scan yet");
	} else {
		snprintf(buf, len, "%llu objects, %llu candidates left; culled %llu, busy %llu%s",
			 (unsigned long long)e->s.scanned_objects,
			 (unsigned long long)(e->vs ? victims_left(e->vs) : 0),
			 (unsigned long long)e->s.culled, (unsigned long long)e->s.busy,
			 e->backoff_until ? "; backing off" : "");
	}
}

void
engine_stats(const struct engine *e, struct engine_stats *out)
{
	*out = e->s;
	out->vanished += e->vgone.vanished;
	out->moved = e->vgone.moved;
	if (e->vs) {
		out->vanished += victims_stats(e->vs)->vanished;
		out->moved += victims_stats(e->vs)->moved;
	}
	out->scanning = e->scanning;
}

void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	if (e->scanning) {
		e->cancel = 1;
		pthread_join(e->tid, NULL);
		scan_free(e->next);
	}
	victims_free(e->vs);
	scan_free(e->cur);
	close(e->evfd);
	free(e);
}
