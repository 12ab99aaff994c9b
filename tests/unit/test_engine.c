// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_engine.c: the cull engine driven step by step, with kernel_cull()
 * replaced by a stand-in that does what the kernel does (unlink the name
 * in the caller's working directory) or answers EBUSY/EIO on demand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "cull/scan.h"
#include "cull/state.h"
#include "cull/target.h"
#include "daemon/engine.h"
#include "kernel/channel.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

static char top[64];
static char cache_real[PATH_MAX];
static int mode_busy, mode_eio, dead;
static int busy_below;	/* Dobj-i with i below it is busy */
static int nculls, outside;
static int order[4096];

int __wrap_kernel_cull(struct kchan *k, const char *name);
int __wrap_kernel_dead(const struct kchan *k);
int __wrap_target_fsfree(int fd, struct fsfree *f);
int __real_target_fsfree(int fd, struct fsfree *f);
struct scan_result *__wrap_scan_run(int rootfd, const struct scan_opts *opt,
				    struct scan_progress *prog);
struct scan_result *__real_scan_run(int rootfd, const struct scan_opts *opt,
				    struct scan_progress *prog);

static struct state_hdr kept_header(void);

/* The engine's clock, moved on by the tests (now_ms is wrapped). */
static uint64_t clock_skew_ms;
uint64_t __wrap_now_ms(void);
uint64_t __real_now_ms(void);

uint64_t
__wrap_now_ms(void)
{
	return __real_now_ms() + clock_skew_ms;
}

/*
 * The scan gate: with hold set, a scan walks the whole tree and then waits
 * (until hold is cleared or the scan is cancelled) before it hands its table
 * over; walked says it has seen everything.  What the engine does meanwhile
 * happens after the scan saw the tree, for certain.
 */
static atomic_int hold, walked;
static const atomic_int *scan_yield;	/* the last scan's scan_opts.yield */
static atomic_int scan_nice;		/* the last scan's thread's nice value */
static atomic_long scan_ioprio;		/* and its I/O priority */
static atomic_int scan_started;		/* the two above are set */
static atomic_int no_mount_id;		/* scans report no mount identity */
#define IOPRIO_BE_7 ((2 << 13) | 7)

struct scan_result *
__wrap_scan_run(int rootfd, const struct scan_opts *opt, struct scan_progress *prog)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	struct scan_result *r;

	errno = 0;
	atomic_store(&scan_nice, getpriority(PRIO_PROCESS, (id_t)gettid()));
	atomic_store(&scan_ioprio, syscall(SYS_ioprio_get, 1, gettid()));
	atomic_store(&scan_started, 1);
	r = __real_scan_run(rootfd, opt, prog);
	/* As on a kernel and filesystem that give no mount identity. */
	if (r != NULL && atomic_load(&no_mount_id))
		((struct scan_stats *)(uintptr_t)scan_stats(r))->mount_id_unknown = 1;
	scan_yield = opt->yield;
	atomic_store(&walked, 1);
	while (atomic_load(&hold) && !(opt->cancel != NULL && atomic_load(opt->cancel)))
		nanosleep(&tick, NULL);
	return r;
}

/*
 * A filesystem of 1,000,000 blocks and files where every cull frees
 * OBJ_BLOCKS blocks and one file: goals can be met to the object.
 */
#define OBJ_BLOCKS 8
#define BASE_FREE 1000
static int fake_fs;
static uint64_t base_free = BASE_FREE;
static uint64_t fake_bsize = 4096;

static int fake_state_blocks;	/* the kept state's file takes its blocks */
static uint64_t fake_state_extra;	/* and these more, which nobody foresaw */
static int rig_state_file = 1;	/* state_file for the next rig */
static uint64_t rig_cull_memory;	/* cull_memory for the next rig, 0: the default */

/* The next rig starts as on a fresh cache, without a kept table. */
static void
forget_kept(void)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/cachefilesd.state", top);
	assert_true(unlink(p) == 0 || errno == ENOENT);
}

static uint64_t
state_file_blocks(void)
{
	char p[PATH_MAX];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/cachefilesd.state", top);
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) ?
	    ((uint64_t)sb.st_size + fake_bsize - 1) / fake_bsize : 0;
}

int
__wrap_target_fsfree(int fd, struct fsfree *f)
{
	if (!fake_fs)
		return __real_target_fsfree(fd, f);
	f->blocks = f->files = 1000000;
	f->bavail = base_free + (uint64_t)nculls * OBJ_BLOCKS;
	if (fake_state_blocks && state_file_blocks() > 0)
		f->bavail -= state_file_blocks() + fake_state_extra;
	f->ffree = base_free + (uint64_t)nculls;
	f->bsize = fake_bsize;
	return 0;
}

/* The kernel's cull: the name in the cwd, which must be inside the cache. */
int
__wrap_kernel_cull(struct kchan *k, const char *name)
{
	char cwd[PATH_MAX];
	int i;

	(void)k;
	if (getcwd(cwd, sizeof(cwd)) == NULL ||
	    strncmp(cwd, cache_real, strlen(cache_real)) != 0)
		outside++;
	if (mode_eio)
		return -EIO;
	if (sscanf(name, "Dobj-%d", &i) != 1)
		i = -1;
	if (mode_busy || (i >= 0 && i < busy_below))
		return -EBUSY;
	if (unlink(name) < 0)
		return -errno;
	if (i >= 0 && nculls < (int)(sizeof(order) / sizeof(order[0])))
		order[nculls] = i;
	nculls++;
	return 0;
}

int
__wrap_kernel_dead(const struct kchan *k)
{
	(void)k;
	return dead;
}

static void
make_tree(int n)
{
	char p[PATH_MAX];
	struct timespec ts[2];
	time_t now = time(NULL);
	int i, fd;

	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/cache/Ivol/@%02x", top, i);
		mkdir(p, 0700);
	}
	/* Created in a scrambled order; object i is used n - i minutes ago. */
	for (i = 0; i < n; i++) {
		int j = (i * 7) % n;
		snprintf(p, sizeof(p), "%s/cache/Ivol/@%02x/Dobj-%d", top, j % 4, j);
		fd = open(p, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		ts[0].tv_sec = now - (time_t)(n - j) * 60;
		ts[0].tv_nsec = 0;
		ts[1] = ts[0];
		assert_int_equal(futimens(fd, ts), 0);
		close(fd);
	}
}

static int
setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_engine.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	snprintf(p, sizeof(p), "%s/cache", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cache/Ivol", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cache", top);
	if (realpath(p, cache_real) == NULL)
		return -1;
	mode_busy = mode_eio = dead = nculls = outside = fake_fs = busy_below = 0;
	atomic_store(&hold, 0);
	atomic_store(&walked, 0);
	fake_bsize = 4096;
	base_free = BASE_FREE;
	clock_skew_ms = 0;
	fake_state_blocks = 0;
	fake_state_extra = 0;
	rig_state_file = 1;
	rig_cull_memory = 0;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[PATH_MAX];

	(void)state;
	if (chdir("/") < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

struct rig {
	struct config cfg;
	struct engine *e;
	int cachefd;
};

static void
rig_start_early(struct rig *r, uint64_t cull_age, int cull_early)
{
	char p[PATH_MAX];

	config_defaults(&r->cfg);
	r->cfg.cull_age = cull_age;
	r->cfg.cull_early = cull_early;
	r->cfg.scan_threads = 2;
	r->cfg.state_file = rig_state_file;
	if (rig_cull_memory != 0)
		r->cfg.cull_memory = rig_cull_memory;
	snprintf(r->cfg.dir, sizeof(r->cfg.dir), "%s", top);
	snprintf(p, sizeof(p), "%s/cache", top);
	r->cachefd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	assert_true(r->cachefd >= 0);
	r->e = engine_new(&r->cfg, r->cachefd, NULL);
	assert_non_null(r->e);
}

static void
rig_start(struct rig *r, uint64_t cull_age)
{
	rig_start_early(r, cull_age, 1);
}

static void
rig_stop(struct rig *r)
{
	engine_free(r->e);
	close(r->cachefd);
}

/*
 * Wait for the scan's descriptor, as the loop does.  On a loaded machine a
 * small tree's scan may end before the step that started it looked, and
 * that step then took its result already: nothing to wait for.
 */
static void
wait_scan(struct rig *r)
{
	struct pollfd pfd = { .fd = engine_fd(r->e), .events = POLLIN };
	struct engine_snap es;

	engine_snapshot(r->e, &es);
	if (!es.scanning)
		return;
	assert_int_equal(poll(&pfd, 1, 60000), 1);	/* the scan runs niced */
}

/* The first step (which starts the scan), then the scan's end, as the loop sees them. */
static void
first_scan(struct rig *r, struct kstate *st)
{
	unsigned delay;

	engine_step(r->e, st, &delay);
	wait_scan(r);
}

static struct kstate
wants(int cull)
{
	struct kstate st;

	memset(&st, 0, sizeof(st));
	st.cull = cull;
	/* Limits nobody can reach: only the kernel's flag stops culling. */
	st.brun = st.frun = UINT64_MAX / 2;
	st.has_released = 1;
	return st;
}

static int
cwd_is_cache(void)
{
	char cwd[PATH_MAX];

	return getcwd(cwd, sizeof(cwd)) != NULL && strcmp(cwd, cache_real) == 0;
}

static void
test_scan_at_start_then_idle(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct engine_snap es;
	unsigned delay;

	(void)state;
	make_tree(50);
	rig_start(&r, 0);
	/* The first step starts the warming scan and does not wait for it. */
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	wait_scan(&r);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scans, 1);
	assert_int_equal(es.last_objects, 50);
	assert_int_equal(es.last_candidates, 50);
	assert_int_equal(es.scanning, 0);
	assert_int_equal(nculls, 0);
	rig_stop(&r);
}

static void
test_culls_oldest_first_in_batches(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	enum engine_next next;
	unsigned delay;
	int i, steps = 0;
	struct engine_snap es;

	(void)state;
	make_tree(200);
	rig_start(&r, 0);
	/* Idle while the scan runs; on a loaded machine it may be done already. */
	next = engine_step(r.e, &st, &delay);
	assert_true(next == ENGINE_IDLE || next == ENGINE_AGAIN);
	assert_true(nculls <= 64);
	wait_scan(&r);
	do {
		int before = nculls;
		next = engine_step(r.e, &st, &delay);
		assert_true(nculls - before <= 64);
		assert_true(cwd_is_cache());
		steps++;
	} while (next == ENGINE_AGAIN && nculls < 150);
	assert_true(steps >= 3);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.culled, nculls);
	assert_int_equal(es.state, EFSM_CULLING);
	/* The kernel is satisfied: nothing more, and idle. */
	st.cull = 0;
	i = nculls;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, i);
	assert_int_equal(outside, 0);
	rig_stop(&r);
}

static void
test_busy_backs_off(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	struct engine_snap es;
	enum engine_next next;
	unsigned delay = 0;
	int steps = 0;

	(void)state;
	make_tree(100);
	mode_busy = 1;
	rig_start(&r, 0);
	first_scan(&r, &st);
	while ((next = engine_step(r.e, &st, &delay)) == ENGINE_AGAIN)
		assert_true(++steps < 10);
	/* Everything busy: a timer, not a spin. */
	assert_int_equal(next, ENGINE_TIMER);
	assert_true(delay >= 29000 && delay <= 30000);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.busy, 100);
	/* Culling paused: the table is kept, the busy ones with it. */
	assert_int_equal(kept_header().ncand, 100);
	/* Stepping again before the timer changes nothing. */
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_TIMER);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.busy, 100);
	/* Released objects: after the short retry delay, a retry pass culls them. */
	mode_busy = 0;
	st.freleased = 3;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_TIMER);
	assert_true(delay <= 1000);
	usleep((delay + 20) * 1000);
	st.freleased = 0;
	next = engine_step(r.e, &st, &delay);
	assert_int_equal(next, ENGINE_AGAIN);
	assert_true(nculls > 0);
	assert_int_equal(order[0], 0);
	rig_stop(&r);
}

/*
 * A back-off (everything busy) ends for a goal asked from outside that is
 * not met yet, and only for such a goal: one met on arrival (half the
 * blocks free, 10 % asked), or one withdrawn before the step, starts no
 * scan.
 */
static void
test_back_off_ends_for_an_unmet_goal_only(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	struct goal met = { GOAL_FREE_PCT, 10 };
	struct goal more = { GOAL_BYTES, 4096 };
	struct engine_snap es;
	unsigned delay = 0;
	int id, steps = 0;

	(void)state;
	make_tree(20);
	mode_busy = 1;
	fake_fs = 1;
	base_free = 500000;
	rig_start(&r, 0);
	first_scan(&r, &st);
	while (engine_step(r.e, &st, &delay) == ENGINE_AGAIN)
		assert_true(++steps < 10);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.state, EFSM_BACKING_OFF);
	assert_int_equal(es.scans, 1);
	/* Met on arrival: the back-off stands. */
	id = engine_goal_add(r.e, &met);
	assert_true(id >= 0);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_TIMER);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.state, EFSM_BACKING_OFF);
	assert_int_equal(es.scanning, 0);
	/* Withdrawn before its step: the back-off stands. */
	id = engine_goal_add(r.e, &more);
	assert_true(id >= 0);
	engine_goal_cancel(r.e, id);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_TIMER);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scanning, 0);
	assert_int_equal(es.scans, 1);
	/* Unmet: a look at once, not at the timer. */
	id = engine_goal_add(r.e, &more);
	assert_true(id >= 0);
	engine_step(r.e, &st, &delay);
	engine_snapshot(r.e, &es);
	assert_true(es.scanning || es.scans == 2);
	rig_stop(&r);
}

/* A fan-out directory moved out of the cache between two batches is not entered. */
static void
test_moved_dir_not_entered(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	char from[PATH_MAX], to[PATH_MAX];
	unsigned delay;
	int i, steps = 0, first, before;

	(void)state;
	make_tree(400);
	rig_start(&r, 0);
	first_scan(&r, &st);
	/* On a loaded machine the first step may have culled a batch already. */
	before = nculls;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	first = nculls;
	assert_true(first > before && first - before <= 64);
	snprintf(from, sizeof(from), "%s/cache/Ivol/@01", top);
	snprintf(to, sizeof(to), "%s/moved-away", top);
	assert_int_equal(rename(from, to), 0);
	while (engine_step(r.e, &st, &delay) == ENGINE_AGAIN)
		assert_true(++steps < 100);
	assert_int_equal(outside, 0);
	/* Every object left in the moved directory survived. */
	for (i = first; i < nculls; i++)
		assert_int_not_equal(order[i] % 4, 1);
	rig_stop(&r);
}

/* A table from before the kernel asked (an empty cache at start) is not trusted. */
static void
test_table_older_than_request(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct engine_snap es;
	unsigned delay;

	(void)state;
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.last_candidates, 0);
	/* The cache fills, then the kernel asks: look again, do not back off. */
	make_tree(30);
	usleep(2000);
	st.cull = 1;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scanning, 1);
	wait_scan(&r);
	/* Culled at once; the table was used up, so it looks again rather than backing off. */
	assert_int_not_equal(engine_step(r.e, &st, &delay), ENGINE_TIMER);
	assert_int_equal(nculls, 30);
	assert_int_equal(order[0], 0);
	rig_stop(&r);
}

static void
test_dead_cache_stops(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	unsigned delay;
	int after;

	(void)state;
	make_tree(100);
	mode_eio = 1;
	dead = 1;
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	after = nculls;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, after);
	assert_true(cwd_is_cache());
	rig_stop(&r);
}

static void
test_age_limit(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	enum engine_next next;
	unsigned delay;
	int i;

	(void)state;
	/* Objects used 1..100 minutes ago; the limit is 30 minutes and a half. */
	make_tree(100);
	rig_start(&r, 30 * 60 + 30);
	first_scan(&r, &st);
	while ((next = engine_step(r.e, &st, &delay)) == ENGINE_AGAIN)
		;
	/* Then a periodic timer: the age limit is the one reason for it. */
	assert_int_equal(next, ENGINE_TIMER);
	assert_true(delay >= 59000);
	assert_int_equal(nculls, 70);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	rig_stop(&r);
}

/* Step until the engine rests; returns the last answer. */
static enum engine_next
run_until_rest(struct rig *r, struct kstate *st, unsigned *delay)
{
	enum engine_next next;
	int steps = 0;

	while ((next = engine_step(r->e, st, delay)) == ENGINE_AGAIN)
		assert_true(++steps < 1000);
	return next;
}

/*
 * At rest with the kernel's run limits met while its cull flag is still
 * set: not idle but watching, the first look again within a second
 * (engine_fsm.c, watch_deadline()).
 */
static void
watching(struct rig *r, struct kstate *st, unsigned *delay)
{
	assert_true(st->cull);
	assert_int_equal(run_until_rest(r, st, delay), ENGINE_TIMER);
	assert_in_range(*delay, 1, EFSM_WATCH_FIRST_MS);
}

/*
 * Busy victims kept for a retry go into the file before those not reached:
 * still oldest first, which a restart checks before it trusts the file.
 */
static void
test_busy_kept_before_the_rest(void **state)
{
	struct kstate st = wants(1);
	struct engine_snap es;
	struct rig r;
	unsigned delay;

	(void)state;
	make_tree(100);
	fake_fs = 1;
	busy_below = 5;
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 10;
	rig_start_early(&r, 0, 0);
	first_scan(&r, &st);
	run_until_rest(&r, &st, &delay);
	assert_int_equal(nculls, 10);
	assert_int_equal(order[0], 5);
	rig_stop(&r);
	assert_int_equal(kept_header().ncand, 90);
	/* The restart takes the file (its scan held): 90 left, the 5 busy first. */
	busy_below = 0;
	atomic_store(&hold, 1);
	st = wants(0);
	rig_start_early(&r, 0, 0);
	engine_step(r.e, &st, &delay);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.left, 90);
	st = wants(1);
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 12;
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 12);
	assert_int_equal(order[10], 0);
	assert_int_equal(order[11], 1);
	atomic_store(&hold, 0);
	rig_stop(&r);
}

static void kept_100(void);

/*
 * A scan started at rest runs niced; one started while the kernel asks
 * (culling waits for its table) keeps the daemon's own priority, unless
 * a kept table gives culling something to do meanwhile.
 */
static void
test_scan_niced_unless_culling_waits(void **state)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	struct kstate st = wants(0);
	struct rig r;
	long own_io = syscall(SYS_ioprio_get, 1, gettid());
	unsigned delay;
	int own, i;

	(void)state;
	errno = 0;
	own = getpriority(PRIO_PROCESS, 0);
	/* Under "nice" (tests/mutate.sh) the I/O priority still tells them apart. */
	if (own >= 10 && own_io == IOPRIO_BE_7)
		skip();
	make_tree(20);
	rig_start(&r, 0);
	first_scan(&r, &st);
	if (own < 10)
		assert_int_equal(atomic_load(&scan_nice), 10);
	assert_int_equal(atomic_load(&scan_ioprio), IOPRIO_BE_7);
	rig_stop(&r);

	/*
	 * On a loaded machine the first step may have taken the scan's result
	 * and kept it; a kept table would rightly nice the next scan.
	 */
	forget_kept();
	st = wants(1);
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(atomic_load(&scan_nice), own);
	assert_int_equal(atomic_load(&scan_ioprio), own_io);
	rig_stop(&r);

	/* Culled from at once, the scan held meanwhile: seen as it starts. */
	kept_100();
	st = wants(1);
	atomic_store(&scan_started, 0);
	rig_start(&r, 0);
	engine_step(r.e, &st, &delay);
	for (i = 0; i < 5000 && !atomic_load(&scan_started); i++)
		nanosleep(&tick, NULL);
	assert_true(atomic_load(&scan_started));
	if (own < 10)
		assert_int_equal(atomic_load(&scan_nice), 10);
	assert_int_equal(atomic_load(&scan_ioprio), IOPRIO_BE_7);
	rig_stop(&r);
}

/* The kernel's run limits are met in the middle of a batch: not one cull more. */
static void
test_kernel_target_met_exactly(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	unsigned delay;
	int i;

	(void)state;
	make_tree(100);
	fake_fs = 1;
	rig_state_file = 0;	/* the kept state's blocks would add to the target */
	st.brun = BASE_FREE + 10 * OBJ_BLOCKS;
	st.frun = BASE_FREE + 3;
	rig_start(&r, 0);
	first_scan(&r, &st);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 10);
	assert_int_equal(state_file_blocks(), 0);	/* state_file no: none, ever */
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	/* Files are the tighter limit this time. */
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 25;
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 25);
	rig_stop(&r);
}

/*
 * The table covers what the kernel can ask for at worst, from the stop
 * limits back to the run limits, not just today's deficit: one file wanted
 * now, but 10,000 between fstop and frun, so all 6,000 objects are kept
 * (today's deficit alone keeps TARGET_FLOOR, 4,096), and one is culled.
 */
static void
test_table_covers_worst_deficit(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	struct engine_snap es;
	unsigned delay;

	(void)state;
	make_tree(6000);
	fake_fs = 1;
	/* 5,000 files in use: before its first scan the engine counts on 50 more for 1 %. */
	base_free = 995000;
	st.brun = 0;
	st.frun = base_free + 1;
	st.fstop = base_free - 10000;
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	/* Early snapshots wake the loop too: step until the scan has ended. */
	for (engine_snapshot(r.e, &es); es.scanning; engine_snapshot(r.e, &es)) {
		wait_scan(&r);
		run_until_rest(&r, &st, &delay);
	}
	assert_int_equal(es.last_objects, 6000);
	assert_int_equal(es.last_candidates, 6000);
	assert_int_equal(nculls, 1);
	assert_int_equal(order[0], 0);
	rig_stop(&r);
}

/*
 * A kernel before 5.17 (no released counters) gives block limits in pages:
 * with 1 KiB blocks on 4 KiB pages, brun 300 means 1200 free blocks.
 */
static void
test_old_kernel_limits_in_pages(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	unsigned delay;

	(void)state;
	make_tree(100);
	fake_fs = 1;
	fake_bsize = 1024;
	rig_state_file = 0;	/* the kept state's blocks would add to the target */
	st.has_released = 0;
	st.brun = 300;
	st.frun = 0;
	rig_start(&r, 0);
	first_scan(&r, &st);
	watching(&r, &st, &delay);
	/* 1200 - 1000 blocks to free, 8 a cull. */
	assert_int_equal(nculls, 25);
	/* With the counters (5.17+), limits are blocks: brun 1100 is 100 blocks away, 13 culls. */
	rig_stop(&r);
	nculls = 0;
	make_tree(100);
	st.has_released = 1;
	st.brun = 1100;
	rig_start(&r, 0);
	first_scan(&r, &st);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 13);
	rig_stop(&r);
}

/*
 * n objects on the fake filesystem, the first scan over, the kernel
 * content and the engine at rest, then g asked; returns its id.
 */
static int
goal_at_rest(struct rig *r, struct kstate *st, int n, const struct goal *g)
{
	unsigned delay;
	int id;

	make_tree(n);
	fake_fs = 1;
	rig_start(r, 0);
	first_scan(r, st);
	assert_int_equal(run_until_rest(r, st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, 0);
	id = engine_goal_add(r->e, g);
	assert_true(id >= 0);
	return id;
}

/* A goal asked from outside while the kernel is content: culled to the object, reported. */
static void
test_outside_goal_bytes(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct goal g = { GOAL_BYTES, 12 * OBJ_BLOCKS * 4096 - 100 };
	struct engine_goal_report rep;
	struct engine_snap es;
	unsigned delay;
	int id;

	(void)state;
	id = goal_at_rest(&r, &st, 100, &g);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
	assert_int_equal(rep.state, ENGINE_GOAL_PENDING);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.goals, 1);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, 12);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[11], 11);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
	assert_int_equal(rep.state, ENGINE_GOAL_MET);
	assert_int_equal(rep.culled, 12);
	/* Reported once, then forgotten. */
	assert_int_equal(engine_goal_poll(r.e, id, &rep), -1);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.goals, 0);
	rig_stop(&r);
}

/*
 * Step with the debug log (level 2) written to a file; returns what the
 * step logged, in buf.
 */
static enum engine_next
logged_step(struct rig *r, struct kstate *st, char *buf, size_t size)
{
	char path[PATH_MAX];
	enum engine_next next;
	unsigned delay;
	int fd, saved;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/step.log", top);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0 && dup2(fd, 2) == 2);
	log_init("test_engine", 1, 2);
	next = engine_step(r->e, st, &delay);
	fflush(stderr);
	log_init("test_engine", 1, 0);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	n = pread(fd, buf, size - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return next;
}

/*
 * A goal asked is the cause of the step that follows, even with the kernel
 * asking too (the machine's goal event: a table from before the request
 * is not trusted to hold what it wants), and -dd says so.
 */
static void
test_goal_is_the_steps_event(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct goal g = { GOAL_BYTES, 3 * OBJ_BLOCKS * 4096 };
	char out[4096];
	unsigned delay;

	(void)state;
	goal_at_rest(&r, &st, 40, &g);
	logged_step(&r, &st, out, sizeof(out));
	assert_non_null(strstr(out, "engine: idle -> culling on goal"));
	/* The next step is the kernel's again. */
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	st = wants(1);
	logged_step(&r, &st, out, sizeof(out));
	assert_non_null(strstr(out, " on kernel"));
	assert_null(strstr(out, " on goal"));
	rig_stop(&r);
}

/* More than the cache holds: everything goes, then the goal is exhausted. */
static void
test_outside_goal_exhausted(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct goal g = { GOAL_FREE_PCT, 50 };
	struct engine_goal_report rep;
	unsigned delay;
	int id;

	(void)state;
	make_tree(40);
	fake_fs = 1;
	rig_start(&r, 0);
	first_scan(&r, &st);
	engine_step(r.e, &st, &delay);
	id = engine_goal_add(r.e, &g);
	assert_true(id >= 0);
	/* All culled from a table that paid off: one more look before giving up. */
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, 40);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
	assert_int_equal(rep.state, ENGINE_GOAL_PENDING);
	wait_scan(&r);
	/* Nothing more: the goal is given up and, the kernel content, the engine rests. */
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
	assert_int_equal(rep.state, ENGINE_GOAL_EXHAUSTED);
	assert_int_equal(rep.culled, 40);
	rig_stop(&r);
}

/* Start, scan once, ask for g and run until the engine rests; returns g's id. */
static int
goal_after_first_scan(struct rig *r, struct kstate *st, const struct goal *g, unsigned *delay)
{
	int id;

	rig_start(r, 0);
	first_scan(r, st);
	engine_step(r->e, st, delay);
	id = engine_goal_add(r->e, g);
	assert_true(id >= 0);
	assert_int_equal(run_until_rest(r, st, delay), ENGINE_IDLE);
	return id;
}

/* An age goal culls exactly what is older; a withdrawn goal stops culling. */
static void
test_outside_goal_older_than_and_cancel(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct goal g = { GOAL_OLDER_THAN, 60 * 60 + 30 };
	struct engine_goal_report rep;
	unsigned delay;
	int id, i;

	(void)state;
	/* Objects used 1..100 minutes ago: the 40 used over an hour ago go. */
	make_tree(100);
	id = goal_after_first_scan(&r, &st, &g, &delay);
	assert_int_equal(nculls, 40);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
	assert_int_equal(rep.state, ENGINE_GOAL_MET);
	/* A goal withdrawn before its step culls nothing. */
	g.value = 60;
	id = engine_goal_add(r.e, &g);
	assert_true(id >= 0);
	engine_goal_cancel(r.e, id);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	assert_int_equal(nculls, 40);
	assert_int_equal(engine_goal_poll(r.e, id, &rep), -1);
	rig_stop(&r);
}

/*
 * A scan that could not look at the cache (no mount identity: it entered
 * no directory) leaves an age goal exhausted, not met, and the report
 * counts what went unseen; with the identity, the same goal is met.
 */
static void
test_outside_goal_older_than_unseen(void **state)
{
	struct rig r;
	struct kstate st = wants(0);
	struct goal g = { GOAL_OLDER_THAN, 60 * 60 + 30 };
	struct engine_goal_report rep;
	unsigned delay;
	int id, blind;

	(void)state;
	make_tree(10);			/* used 1..10 minutes ago: none past the hour */
	for (blind = 1; blind >= 0; blind--) {
		atomic_store(&no_mount_id, blind);
		id = goal_after_first_scan(&r, &st, &g, &delay);
		assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
		assert_int_equal(rep.state, blind ? ENGINE_GOAL_EXHAUSTED : ENGINE_GOAL_MET);
		assert_true(rep.unseen == (blind ? 1u : 0u));
		rig_stop(&r);
	}
	assert_int_equal(nculls, 0);
}

/* The kept state's header, as the file in DIR holds it now. */
static struct state_hdr
kept_header(void)
{
	char p[PATH_MAX];
	struct state_hdr h;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, STATE_FILE);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	return h;
}

static void
wait_walked(void)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	int n = 30000;

	while (!atomic_load(&walked) && --n > 0)
		nanosleep(&tick, NULL);
	assert_true(atomic_load(&walked));
}

/* A first run on the tree made: one scan, its candidates kept, nothing culled. */
static void
kept_run(void)
{
	struct rig r;
	struct kstate st = wants(0);
	unsigned delay;

	fake_fs = 1;
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	rig_stop(&r);
	atomic_store(&walked, 0);
}

/* The filesystem's fsid as statfs gives it, else its device number. */
static uint64_t
fsid_or_dev(void)
{
	struct statfs sf;
	struct stat sb;
	uint32_t a, b;

	assert_int_equal(statfs(top, &sf), 0);
	assert_int_equal(stat(top, &sb), 0);
	memcpy(&a, &sf.f_fsid.__val[0], sizeof(a));
	memcpy(&b, &sf.f_fsid.__val[1], sizeof(b));
	return a != 0 || b != 0 ? (uint64_t)a << 32 | b : (uint64_t)sb.st_dev;
}

/*
 * The same on 100 objects: all 100 kept, keyed to the filesystem by its
 * fsid, which a reboot keeps (a device number may change).
 */
static void
kept_100(void)
{
	make_tree(100);
	kept_run();
	assert_int_equal(kept_header().ncand, 100);
	assert_true(kept_header().dev == fsid_or_dev());
}

/*
 * state_file turned on by a reload after the scan: the table in hand is
 * kept at once (at the next rest), not only after the next scan or cull.
 */
static void
test_state_file_turned_on(void **state)
{
	struct kstate st = wants(0);
	struct config cfg;
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];

	(void)state;
	make_tree(100);
	fake_fs = 1;
	rig_state_file = 0;
	rig_start(&r, 0);
	first_scan(&r, &st);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	snprintf(p, sizeof(p), "%s/%s", top, STATE_FILE);
	assert_int_equal(access(p, F_OK), -1);
	cfg = r.cfg;
	cfg.state_file = 1;
	engine_reconfigure(r.e, &cfg);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	assert_int_equal(kept_header().ncand, 100);
	assert_int_equal(nculls, 0);
	rig_stop(&r);
}

/*
 * A kept table written under a larger cull_memory: only its oldest that
 * fit the new one are read, and culled from while the scan runs.
 */
static void
test_kept_cut_to_cull_memory(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	int i;

	(void)state;
	kept_100();
	rig_cull_memory = 40 * sizeof(struct cand);
	atomic_store(&hold, 1);
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 60;
	rig_start(&r, 0);
	engine_step(r.e, &st, &delay);
	(void)run_until_rest(&r, &st, &delay);
	assert_int_equal(nculls, 40);		/* the rest waits for the scan */
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	atomic_store(&hold, 0);
	rig_stop(&r);
}

/*
 * What the last scan could not look at goes with its kept table: an age
 * goal answered from that table after a restart, before the new scan has
 * ended, is exhausted with the count, not met.
 */
static void
test_outside_goal_older_than_unseen_kept(void **state)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	struct kstate st = wants(0);
	struct goal g = { GOAL_OLDER_THAN, 30 * 60 + 30 };
	struct engine_goal_report rep;
	struct engine_snap es;
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];
	int id, fd, i;

	(void)state;
	make_tree(100);
	/* A name no cull command can carry: the scan cannot offer it. */
	snprintf(p, sizeof(p), "%s/cache/Ivol/@00/Dno\ncommand", top);
	assert_true((fd = open(p, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(fd);
	kept_run();
	assert_int_equal(kept_header().ncand, 100);
	assert_int_equal(kept_header().unseen, 1);
	/* The restart's scan is held: the goal is answered from the kept table. */
	atomic_store(&hold, 1);
	rig_start(&r, 0);
	engine_step(r.e, &st, &delay);
	id = engine_goal_add(r.e, &g);
	assert_true(id >= 0);
	for (i = 0; i < 5000; i++) {
		(void)run_until_rest(&r, &st, &delay);
		assert_int_equal(engine_goal_poll(r.e, id, &rep), 0);
		if (rep.state != ENGINE_GOAL_PENDING)
			break;
		nanosleep(&tick, NULL);
	}
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scanning, 1);
	assert_int_equal(rep.state, ENGINE_GOAL_EXHAUSTED);
	assert_true(rep.unseen == 1);
	assert_int_equal(nculls, 70);	/* used 31..100 minutes ago */
	atomic_store(&hold, 0);
	rig_stop(&r);
}

/*
 * A clean stop keeps only what is left of the kept table: a restart then
 * culls the next oldest at once, without checking again the objects culled
 * before the stop (each of them a directory read on a large cache).  With
 * nothing left, the file goes.
 */
static void
test_stop_keeps_what_is_left(void **state)
{
	struct state_hdr h0, h1;
	struct engine_snap es;
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];
	int i;

	(void)state;
	kept_100();
	h0 = kept_header();
	/* Culling from the kept state while the scan is held: 10 go, then a stop. */
	atomic_store(&hold, 1);
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 10;
	rig_start(&r, 0);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 10);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scanning, 1);
	rig_stop(&r);
	h1 = kept_header();
	assert_int_equal(h1.ncand, 90);
	assert_true(h1.written_s == h0.written_s);	/* what it knows is as old as it was */
	assert_true(h1.complete_ns == h0.complete_ns);
	/* The restart's culls are the next oldest, none of them found gone. */
	st.frun = BASE_FREE + 15;
	rig_start(&r, 0);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 15);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.vanished, 0);
	rig_stop(&r);
	assert_int_equal(kept_header().ncand, 85);
	/* All of it culled: no file is left to list what is gone. */
	st.frun = BASE_FREE + 100;
	rig_start(&r, 0);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 100);
	rig_stop(&r);
	snprintf(p, sizeof(p), "%s/%s", top, STATE_FILE);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(outside, 0);
}

/*
 * Objects culled while a scan runs, after it saw them, are left out of its
 * table: not checked again by the culler, not kept for the next start.
 */
static void
test_culled_during_scan_left_out(void **state)
{
	struct engine_snap es;
	struct kstate st = wants(0);
	struct rig r;
	unsigned delay;
	int i;

	(void)state;
	kept_100();
	/* The restart's scan sees all 100, then waits; 10 are culled from the kept state. */
	atomic_store(&hold, 1);
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 10;
	rig_start(&r, 0);
	engine_step(r.e, &st, &delay);
	wait_walked();
	st.cull = 1;
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 10);
	/* The scan ends: its table holds the 90 left, and so does the file. */
	atomic_store(&hold, 0);
	wait_scan(&r);
	watching(&r, &st, &delay);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scans, 1);
	assert_int_equal(es.last_objects, 100);
	assert_int_equal(es.last_candidates, 90);
	assert_int_equal(kept_header().ncand, 90);
	/* Culling from it goes on with the next oldest, none found gone. */
	st.frun = BASE_FREE + 20;
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 20);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], i);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.vanished, 0);
	rig_stop(&r);
	assert_int_equal(outside, 0);
}

/*
 * 300 objects scanned, without culling early; the kernel wants 200 files
 * back (at least four batches).  p: the kept state's path.
 */
static void
scanned_300(struct rig *r, struct kstate *st, char *p, size_t size)
{
	make_tree(300);
	fake_fs = 1;
	snprintf(p, size, "%s/%s", top, STATE_FILE);
	st->brun = BASE_FREE;
	st->frun = BASE_FREE + 200;
	rig_start_early(r, 0, 0);
	first_scan(r, st);
}

/*
 * A finished scan's table is kept once the culling it serves pauses, not
 * between its batches (the culls the kernel waits for come first), and
 * the file then lists only what is left.  At rest it is not written again
 * for each cull; a clean stop brings it up to date.
 */
static void
test_state_kept_once_culling_pauses(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];
	int i;

	(void)state;
	scanned_300(&r, &st, p, sizeof(p));
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	assert_true(nculls > 0 && nculls < 200);
	assert_int_equal(access(p, F_OK), -1);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 200);
	assert_int_equal(kept_header().ncand, 100);
	/* Culling again from the same table: the file waits for the stop. */
	st.frun = BASE_FREE + 230;
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 230);
	assert_int_equal(kept_header().ncand, 100);
	rig_stop(&r);
	assert_int_equal(kept_header().ncand, 70);
	/* What it lists is what was left: the restart culls the next oldest. */
	nculls = 0;
	st.frun = BASE_FREE + 5;
	atomic_store(&hold, 1);
	rig_start_early(&r, 0, 0);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 5);
	for (i = 0; i < nculls; i++)
		assert_int_equal(order[i], 230 + i);
	rig_stop(&r);
	assert_int_equal(outside, 0);
}

/*
 * Written once the goal is met, the file would take free space below the
 * run limits again: its blocks are culled for before it is written, so
 * that free space stays above brun once it got there.
 */
static uint64_t
engine_scans(const struct rig *r)
{
	struct engine_snap es;

	engine_snapshot(r->e, &es);
	return es.scans;
}

/* Free blocks left above brun once the kept state is written: at least 0, and no cull too many. */
static void
assert_paid_exactly(const struct kstate *st)
{
	uint64_t fin = BASE_FREE + (uint64_t)nculls * OBJ_BLOCKS - state_file_blocks();

	assert_true(fin >= st->brun);
	/* One cull less would not have paid for the file, its rounding and the margin's 2. */
	assert_true(fin < st->brun + OBJ_BLOCKS + 3);
}

/* 3,000 objects, 200 to go; the file's blocks culled for first, at the filesystem's block size. */
static void
paid_for_first(uint64_t bsize)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;

	make_tree(3000);
	fake_fs = fake_state_blocks = 1;
	fake_bsize = bsize;
	st.brun = BASE_FREE + 200 * OBJ_BLOCKS;
	st.frun = BASE_FREE;
	rig_start_early(&r, 0, 0);
	first_scan(&r, &st);
	watching(&r, &st, &delay);
	/* About 2,800 candidates of 20 bytes: 56 KiB, and 2 blocks for the estimate's margin. */
	assert_true(state_file_blocks() >= 2790 * 20 / bsize);
	/* Written after the last cull, and free space still above brun. */
	assert_int_equal(kept_header().ncand, 3000 - nculls);
	assert_paid_exactly(&st);
	rig_stop(&r);
}

static void
test_state_write_paid_for_first(void **state)
{
	(void)state;
	paid_for_first(4096);
	assert_int_equal(nculls, 202);		/* 14 blocks and 2 */
}

static void
test_state_write_paid_for_in_small_blocks(void **state)
{
	(void)state;
	paid_for_first(1024);
	assert_true(nculls >= 207);		/* 55 blocks and 2 */
}

/*
 * The file a new one replaces is freed by the rename: only the difference
 * is culled for, not the whole new file again on every scan after the first.
 */
static void
test_state_write_less_the_file_it_replaces(void **state)
{
	struct kstate st = wants(0);
	struct rig r;
	unsigned delay;

	(void)state;
	make_tree(3000);
	fake_fs = fake_state_blocks = 1;
	rig_start_early(&r, 0, 0);
	first_scan(&r, &st);
	assert_int_equal(run_until_rest(&r, &st, &delay), ENGINE_IDLE);
	rig_stop(&r);
	assert_int_equal(kept_header().ncand, 3000);
	assert_true(state_file_blocks() >= 14);
	/*
	 * A restart, 200 objects to go: culled from the kept table while the
	 * scan waits, then the scan's table replaces the file.
	 */
	st = wants(1);
	st.brun = BASE_FREE + 200 * OBJ_BLOCKS;
	st.frun = BASE_FREE;
	rig_start_early(&r, 0, 0);
	watching(&r, &st, &delay);
	wait_scan(&r);
	watching(&r, &st, &delay);
	assert_int_equal(engine_scans(&r), 1);
	assert_int_equal(kept_header().ncand, 3000 - nculls);
	assert_paid_exactly(&st);
	rig_stop(&r);
}

/*
 * A file that cannot be written (here a directory stands at its name) is
 * paid for once, at the write that fails, and not again by later scans.
 */
static void
test_state_write_failed_not_paid_again(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];

	(void)state;
	make_tree(3000);
	fake_fs = 1;
	snprintf(p, sizeof(p), "%s/%s", top, STATE_FILE);
	assert_int_equal(mkdir(p, 0700), 0);
	st.brun = BASE_FREE + 200 * OBJ_BLOCKS;
	st.frun = BASE_FREE;
	rig_start_early(&r, 0, 0);
	first_scan(&r, &st);
	watching(&r, &st, &delay);
	assert_true(nculls > 200);		/* the reserve, before the write failed */
	/* A rescan, 100 more to go: exactly those. */
	st.brun = BASE_FREE + 300 * OBJ_BLOCKS;
	assert_int_equal(engine_rescan(r.e), 0);
	watching(&r, &st, &delay);		/* the scan waits while culls run */
	wait_scan(&r);
	watching(&r, &st, &delay);
	assert_int_equal(engine_scans(&r), 2);
	assert_int_equal(nculls, 300);
	rig_stop(&r);
}

/*
 * DIR/cache moved elsewhere (and a new one made) before the table was
 * kept: the file is written neither beside the old directory, now outside
 * DIR, nor in DIR, whose cache is another one now.
 */
static void
test_state_not_kept_for_a_moved_cache(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	char p[PATH_MAX], away[PATH_MAX];

	(void)state;
	scanned_300(&r, &st, p, sizeof(p));
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	snprintf(away, sizeof(away), "%s/away", top);
	assert_int_equal(mkdir(away, 0700), 0);
	snprintf(away, sizeof(away), "%s/away/cache", top);
	assert_int_equal(rename(cache_real, away), 0);
	assert_int_equal(mkdir(cache_real, 0700), 0);
	rig_stop(&r);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(away, sizeof(away), "%s/away/%s", top, STATE_FILE);
	assert_int_equal(access(away, F_OK), -1);
}

/*
 * When the file takes more than foreseen (here 16 blocks more), the
 * engine culls for the rest at once while the kernel asks, not at the
 * watch's next look a second later.
 */
static void
test_state_write_shortfall_paid_at_once(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	int steps = 0;

	(void)state;
	make_tree(300);
	fake_fs = fake_state_blocks = 1;
	fake_state_extra = 16;
	st.brun = BASE_FREE + 200 * OBJ_BLOCKS;
	st.frun = BASE_FREE;
	rig_start_early(&r, 0, 0);
	first_scan(&r, &st);
	while (engine_step(r.e, &st, &delay) == ENGINE_AGAIN)
		assert_true(++steps < 1000);
	assert_int_equal(kept_header().ncand, 99);
	/* 201 before the write (8 blocks over brun), then 9 blocks short: 2 more. */
	assert_int_equal(nculls, 203);
	rig_stop(&r);
}

/* While batches follow one another without a pause, the table is kept a minute on. */
static void
test_state_kept_a_minute_on_at_latest(void **state)
{
	struct kstate st = wants(1);
	struct rig r;
	unsigned delay;
	char p[PATH_MAX];
	int n;

	(void)state;
	scanned_300(&r, &st, p, sizeof(p));
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	clock_skew_ms += 59000;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	assert_int_equal(access(p, F_OK), -1);
	clock_skew_ms += 2000;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	n = nculls;
	assert_true(n < 200);
	assert_int_equal(kept_header().ncand, 300 - n);
	watching(&r, &st, &delay);
	assert_int_equal(kept_header().ncand, 300 - n);
	rig_stop(&r);
	assert_int_equal(kept_header().ncand, 100);
}

/*
 * Culls go first: while batches follow one another from a table (here the
 * kept one) and a scan runs, the scan is asked to wait; once culling
 * stops, it is let go.
 */
static void
test_scan_yields_to_culls(void **state)
{
	struct kstate st = wants(0);
	struct rig r;
	unsigned delay;

	(void)state;
	kept_100();
	atomic_store(&hold, 1);
	st.brun = BASE_FREE;
	st.frun = BASE_FREE + 80;	/* more than one batch */
	rig_start(&r, 0);
	engine_step(r.e, &st, &delay);
	wait_walked();
	assert_non_null(scan_yield);
	assert_int_equal(atomic_load(scan_yield), 0);
	st.cull = 1;
	assert_int_equal(engine_step(r.e, &st, &delay), ENGINE_AGAIN);
	/* One batch: 64 culls, or fewer when its 20 ms ran out on a loaded host. */
	assert_true(nculls > 0 && nculls <= 64);
	assert_int_equal(atomic_load(scan_yield), 1);
	watching(&r, &st, &delay);
	assert_int_equal(nculls, 80);
	assert_int_equal(atomic_load(scan_yield), 0);
	rig_stop(&r);
}

/*
 * Freed while a scan runs: the scan is cancelled and joined, nothing is
 * culled.  Without culling early: a fast host's scan could otherwise offer
 * a partial table within the first step, and the engine would be culling
 * from it (test_scan_yields_to_culls covers that).
 */
static void
test_free_while_scanning(void **state)
{
	struct rig r;
	struct kstate st = wants(1);
	struct engine_snap es;
	unsigned delay;

	(void)state;
	make_tree(2000);
	rig_start_early(&r, 0, 0);
	engine_step(r.e, &st, &delay);
	engine_snapshot(r.e, &es);
	assert_int_equal(es.scanning, 1);
	assert_int_equal(es.state, EFSM_SCANNING);
	rig_stop(&r);
	assert_int_equal(nculls, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scan_at_start_then_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_culls_oldest_first_in_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_backs_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_back_off_ends_for_an_unmet_goal_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_moved_dir_not_entered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_older_than_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_cache_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_age_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_niced_unless_culling_waits, setup, teardown),
cmocka_unit_test_setup_teardown(test_kernel_target_met_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_covers_worst_deficit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_kernel_limits_in_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_goal_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_goal_is_the_steps_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_goal_exhausted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_goal_older_than_unseen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_goal_older_than_unseen_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kept_cut_to_cull_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_file_turned_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_goal_older_than_and_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_while_scanning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_keeps_what_is_left, setup, teardown),
		cmocka_unit_test_setup_teardown(test_culled_during_scan_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_yields_to_culls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_kept_once_culling_pauses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_kept_a_minute_on_at_latest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_write_paid_for_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_write_paid_for_in_small_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_write_less_the_file_it_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_write_failed_not_paid_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_not_kept_for_a_moved_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_kept_before_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_write_shortfall_paid_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
