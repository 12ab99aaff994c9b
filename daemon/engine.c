// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c: the cull engine's hands.  What to do next is decided by the
 * state machine in engine_fsm.c; this file gathers the facts it needs,
 * carries out its actions and reports their outcome back to it.
 *
 * Scans run in a background thread (scan.c touches no working directory)
 * and hand over a table of the oldest objects, sized from the deficit
 * (target.c).  The main thread culls from the table oldest first, in
 * batches, re-checking each object just before (victims.c), and stops as
 * soon as every goal is met, checking before each cull.
 *
 * When a cull fails with EIO and the kernel channel finds the cache dead
 * (kernel_dead()), the engine stops and returns ENGINE_IDLE; the loop
 * checks kernel_dead() after every step and exits non-zero.  So it does
 * when DIR/cache is no longer the directory the engine culls in (moved or
 * replaced while the daemon runs: engine_cache_lost()).
 */
#include "daemon/engine.h"
#include "config/config.h"
#include "cull/namememo.h"
#include "cull/names.h"
#include "cull/scan.h"
#include "cull/state.h"
#include "cull/target.h"
#include "cull/victims.h"
#include "kernel/channel.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/samefile.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/*
 * Candidates kept beyond today's deficit for the worst one (worst_target):
 * 1.25 MiB.  Every copy of the table (early snapshots, the kept state)
 * grows with it, so on a cache whose worst deficit is millions of objects
 * it stops here rather than at cull_memory.
 */
#define WORST_EXTRA 65536
#define BATCH_MAX 64
#define BATCH_MS 20
/*
 * The scan yields to the cache's users and to our own culls: at nice 10 it
 * gets about a tenth of a CPU the culls want too, so culling from the kept
 * state or an early snapshot is not slowed by the scan that runs meanwhile.
 * Not a scan that culling waits for (scan_urgent: the kernel asks, or a
 * goal is pending, and no table is left to cull from when it starts; a
 * restart's kept table is culled while its scan runs niced, as the
 * restart's figures need): under a burst of writes at nice 0 a
 * niced scan took seconds while free space sat at bstop and the kernel
 * refused new data, where 0.10.10, at nice 0, kept up.  A thread cannot
 * lower its nice value again without CAP_SYS_NICE, so it is chosen once.
 */
#define SCAN_NICE 10
#define IOPRIO_BE_LOWEST ((2 << 13) | 7)	/* best-effort class, level 7 */
/*
 * A finished scan's table is kept (DIR/cachefilesd.state) once the culling
 * it serves pauses, not at the scan's end: written there, the file came
 * before the culls the kernel waits for, and its own blocks (0.8 MiB at
 * 200,000 objects, up to 20 MiB) counted against the run limits being
 * reached, 83 culls more in the VM's first round.  While culling goes on
 * without a pause, it is kept this long after the scan at the latest.
 */
#define STATE_DEFER_MS 60000
#define AGE_PERIOD_MIN_S 60
#define AGE_PERIOD_MAX_S 86400
/*
 * A kernel that refuses every cull the same way (EROFS on a cache remounted
 * read-only, EACCES, EIO on a live cache) would log a line an object, again
 * after each rescan: a million-object cache, a million lines.  So the first
 * few of a minute are named, the rest counted in one line.
 */
#define REFUSED_NAMED 5
#define REFUSED_WINDOW_MS 60000

struct outside_goal {
	int used;
	int fresh;			/* asked since the last step */
	enum engine_goal_state state;
	struct goal_active a;
	uint64_t culled0, bytes0;	/* the engine's counters when it came */
	uint64_t culled, bytes, ms;	/* frozen when it ended */
	uint64_t unseen;		/* age goal: unseen() when it ended */
};

struct engine {
	int cachefd;
	struct kchan *k;
	int evfd;
	uint64_t cull_age, cull_memory;
	unsigned threads;
	struct efsm m;
	int batched;			/* a batch ran in this step */

	/* The scan in progress. */
	pthread_t tid;
	int thread;			/* tid is a thread to join */
	int scan_urgent;		/* culling waits for it: not niced (SCAN_NICE) */
	atomic_int done;		/* set by the thread */
	atomic_int cancel;
	atomic_int yield;		/* culling goes on: the scan waits (scan_opts.yield) */
	unsigned cpus;			/* CPUs the process may run on, when the scan started */
	struct scan_opts opts;		/* fixed before the thread starts */
	char empties_root[PATH_MAX];	/* DIR/cache, for opts.empties_root */
	uint64_t scan_t0;
	struct scan_progress prog;
	struct scan_result *next;
	int scan_errno;			/* why next is NULL: set by the thread */
	/* Early snapshots of the scan in progress (cull_early). */
	int cull_early;
	struct scan_early early;
	/*
	 * The scan's latest snapshot, kept until the machine takes it: it is
	 * offered while the table in use lasts, and taken the moment that
	 * runs out instead of after the next snapshot.  partial_k: the part
	 * certain when it was last offered.
	 */
	struct scan_result *partial;
	size_t partial_k;
	/* Names of its likely victims, kept by its workers (namememo.h); NULL without cull_early. */
	struct namememo *memo;
	uint64_t scan_culled0, scan_blocks0;	/* culled and culled_blocks at its start */
	/*
	 * Objects culled while it runs, by inode and atime (at most
	 * max_candidates of them): the scan may have seen them before they
	 * went, and its table leaves them out (take_table).
	 */
	struct cand_key *gone;
	size_t ngone, gone_cap;
	int early_logged;		/* the scan's first partial table was logged */
	/* Kept state (state_file): DIR/cachefilesd.state. */
	int state_file;
	uint64_t tag_hash;
	char dir[PATH_MAX];		/* DIR as configured, when there is no channel */

	/* The candidates being culled. */
	struct scan_result *cur;
	struct victims *vs;
	/*
	 * What the kept state says of cur, when cur is what it holds (a
	 * finished scan's table, or the table read from it at start): the
	 * candidates it lists, whether their list was full, when it was
	 * written.  cur_kept 0: cur is not in the file (a partial table).
	 */
	int cur_kept, cur_full;
	size_t cur_n0;
	uint64_t cur_written_s;
	/*
	 * cur is a finished scan's table not yet in the file: since
	 * state_due_ms.  state_dir_bytes: what its directories take in it;
	 * state_old_bytes: what the file it replaces took on disk then.
	 * state_failed: the last write failed, so no blocks are set aside
	 * for the next one until a write succeeds.
	 */
	int state_due, state_failed;
	uint64_t state_due_ms, state_dir_bytes, state_old_bytes;
	uint64_t mean_bytes, objects;
	uint64_t odd_logged;		/* what the last logged scan left alone */

	/* The kernel's latest state. */
	struct kstate st;
	int have_st;

	struct outside_goal goals[ENGINE_GOALS_MAX];
	int lost;			/* DIR/cache is not our directory any more */

	uint64_t scans, culled, culled_blocks, busy, vanished, moved;
	/* Culls the kernel refused (not busy, not gone): see REFUSED_NAMED. */
	uint64_t refused_t0;
	unsigned refused_named;
	uint64_t refused_quiet;
	int refused_err;		/* the last one counted */
	struct scan_stats last;
	/* Per volume, from the last finished scan (a partial table has none). */
	struct engine_vol *vols;
	size_t nvols;
	struct victims_stats vgone;	/* from tables already freed */
};

static uint64_t
age_period_ms(uint64_t cull_age)
{
	uint64_t p = cull_age / 10;

	if (cull_age == 0)
		return 0;
	if (p < AGE_PERIOD_MIN_S)
		p = AGE_PERIOD_MIN_S;
	if (p > AGE_PERIOD_MAX_S)
		p = AGE_PERIOD_MAX_S;
	return p * 1000;
}

static void
settings(struct engine *e, const struct config *cfg)
{
	e->cull_age = cfg->cull_age;
	e->cull_memory = cfg->cull_memory;
	e->threads = cfg->scan_threads ? cfg->scan_threads : 1;
	e->cull_early = cfg->cull_early;
	e->state_file = cfg->state_file;
	memcpy(e->dir, cfg->dir, sizeof(e->dir));
	e->tag_hash = state_fnv64(cfg->tag[0] ? cfg->tag : "CacheFiles",
				  strlen(cfg->tag[0] ? cfg->tag : "CacheFiles"), STATE_FNV_INIT);
	if (e->threads > 64)
		e->threads = 64;
}

/* A worker of the scan published an early snapshot: wake the loop. */
static void
early_notify(void *arg)
{
	struct engine *e = arg;
	uint64_t one = 1;

	if (write(e->evfd, &one, sizeof(one)) < 0)
		return;	/* cannot happen with a counter this small */
}

/*
 * The filesystem, by an identity that outlives a reboot: its fsid (from
 * the UUID on ext4 and btrfs), else its device number, which a btrfs
 * subvolume or a device-mapper volume may change from one boot to the
 * next, and the kept state would be refused as another cache's.
 */
static uint64_t
fs_identity(int fd, const struct stat *sb)
{
	struct statfs sf;
	uint32_t a, b;

	if (fstatfs(fd, &sf) < 0)
		return (uint64_t)sb->st_dev;
	memcpy(&a, &sf.f_fsid.__val[0], sizeof(a));
	memcpy(&b, &sf.f_fsid.__val[1], sizeof(b));
	return a != 0 || b != 0 ? (uint64_t)a << 32 | b : (uint64_t)sb->st_dev;
}

/* DIR as the kernel bound it (as configured when the engine runs without a channel). */
static const char *
cache_dir(const struct engine *e)
{
	return e->k != NULL ? kernel_dir(e->k) : e->dir;
}

/*
 * DIR, where the kept state lives, by the path the kernel was given (as
 * the channel resolved it; the configured one without a channel), checked
 * to hold the very DIR/cache we cull in.  Not DIR/cache's parent: with
 * DIR/cache moved elsewhere that would be a directory outside DIR, and the
 * file would be written or removed there.  -1 when it cannot be told:
 * errno 0 when DIR/cache is not that directory (moved, replaced, gone),
 * else why DIR could not be opened.
 */
static int
state_dir(const struct engine *e, struct state_key *k)
{
	struct stat here, there;
	const char *dir = cache_dir(e);
	int fd;

	if (dir[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (fstat(e->cachefd, &here) < 0)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstatat(fd, "cache", &there, AT_SYMLINK_NOFOLLOW) < 0 ||
	    here.st_dev != there.st_dev || here.st_ino != there.st_ino) {
		close(fd);
		errno = 0;
		return -1;
	}
	k->dev = fs_identity(e->cachefd, &here);
	k->ino = (uint64_t)here.st_ino;
	k->tag = e->tag_hash;
	return fd;
}

/*
 * An iterator over r's candidates whose root, the cache directory, is
 * checked by its path before a cull whenever the quick check by the
 * working directory's path fails: DIR/cache moved away as a whole must
 * stop the culls at once, not at the next batch (cache_in_place).
 */
static struct victims *
new_victims(struct engine *e, struct scan_result *r)
{
	struct victims *vs = victims_new(r, e->cachefd);
	const char *dir = cache_dir(e);
	char path[PATH_MAX];

	if (dir[0] != '\0' && snprintf_checked(path, sizeof(path), "%s/cache", dir) != -1)
		victims_root_at(vs, path);
	return vs;
}

/* At start: cull from what the last scan kept, while the first scan runs. */
static void
state_read(struct engine *e)
{
	uint64_t now = (uint64_t)time(NULL);
	struct state_info info;
	struct scan_result *r;
	struct state_key k;
	const char *why;
	size_t len, cap;
	void *buf;
	int fd = state_dir(e, &k);

	if (fd < 0)
		return;
	if (state_load(fd, &buf, &len, &why) < 0) {
		if (why != NULL)
			log_warnx("state: %s ignored (%s); a full scan runs", STATE_FILE, why);
		else if (errno != ENOENT)
			log_warn("state: %s ignored; a full scan runs", STATE_FILE);
		close(fd);
		return;
	}
	close(fd);
	if (state_decode(buf, len, &k, now, e->cachefd, &r, &info, &why) != STATE_OK) {
		log_warnx("state: %s ignored (%s); a full scan runs", STATE_FILE, why);
		free(buf);
		return;
	}
	free(buf);
	/* Written under a larger cull_memory: the oldest that fit now. */
	cap = (e->cull_memory ? e->cull_memory : TARGET_DEFAULT_MEMORY) / sizeof(struct cand);
	if (info.ncand > cap) {
		log_info("state: %zu candidates kept, %zu within cull_memory: the oldest of them "
			 "are used", info.ncand, cap);
		state_cut(r, &info, cap);
	}
	e->cur = r;
	e->vs = new_victims(e, r);
	e->cur_kept = 1;
	e->cur_full = info.complete_ns != UINT64_MAX;
	e->cur_n0 = info.ncand;
	e->cur_written_s = info.written_s;
	log_info("state: %zu candidates kept by the scan of %llu s ago; each is checked "
		 "again before its cull", info.ncand,
		 (unsigned long long)(now > info.written_s ? now - info.written_s : 0));
}

/* What is left of cur to keep: the busy victims kept for a retry and those not reached. */
static size_t
table_left(const struct engine *e)
{
	return e->vs ? victims_left(e->vs) + victims_kept(e->vs) : scan_ncand(e->cur);
}

/* Write c[0..n), what is left of cur oldest first, as the kept state; 0 or -1. */
static int
state_write(struct engine *e, const struct cand *c, size_t n)
{
	struct state_key k;
	size_t len;
	void *buf;
	int fd, r = -1;

	if ((fd = state_dir(e, &k)) < 0) {
		const char *dir = cache_dir(e);

		if (errno == 0)
			log_warnx("state: %s not written: %s/cache is not the cache bound at start",
				  STATE_FILE, dir);
		else
			log_warn("state: %s not written: open %s", STATE_FILE, dir);
		return -1;
	}
	if (state_encode_list(e->cur, c, n, &k, e->cur_written_s, e->cur_full, &buf, &len) < 0)
		log_warnx("state: %s not written: the table's directories exceed its limits",
			  STATE_FILE);
	else {
		if ((r = state_save(fd, buf, len)) < 0)
			log_warn("state: %s not written (through %s)", STATE_FILE, STATE_TMP);
		else
			log_debug(1, "state: %zu candidates, %zu bytes written to %s", n, len,
				  STATE_FILE);
		free(buf);
	}
	close(fd);
	return r;
}

/* What the kept state takes on disk now, in bytes (0 when there is none). */
static uint64_t
state_bytes_now(const struct engine *e)
{
	struct state_key k;
	struct stat sb;
	int fd = state_dir(e, &k);
	uint64_t bytes = 0;

	if (fd < 0)
		return 0;
	if (fstatat(fd, STATE_FILE, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
		bytes = (uint64_t)sb.st_blocks * 512;
	close(fd);
	return bytes;
}

/*
 * Keep what is left of cur for the next start, when it is a finished
 * scan's table not yet in the file (state_due), or the file lists objects
 * culled or found gone since: a restart would check all of those first,
 * reading the directories they lived in, before its first cull.  Left:
 * the busy ones kept for a retry and those not reached, still oldest
 * first, with the list's completeness and its time of writing unchanged
 * (what is gone from the front was older than everything left).  With
 * nothing left the file goes: it would list only objects now gone.
 */
static void
state_keep(struct engine *e)
{
	struct state_key k;
	struct cand *left;
	size_t n;
	int fd, due = e->state_due;

	e->state_due = 0;
	if (!e->state_file || !e->cur_kept || e->cur == NULL)
		return;
	n = table_left(e);
	if (!due && n >= e->cur_n0)
		return;		/* the file says what is left already */
	e->cur_n0 = n;
	if (n > 0 && e->vs == NULL) {
		e->state_failed = state_write(e, scan_cands(e->cur), n) < 0;
		return;
	}
	if (n > 0) {
		left = xreallocarray(NULL, n, sizeof(*left));
		n = victims_copy_left(e->vs, left);
		e->state_failed = state_write(e, left, n) < 0;
		free(left);
		return;
	}
	if ((fd = state_dir(e, &k)) < 0)
		return;
	if (unlinkat(fd, STATE_FILE, 0) < 0 && errno != ENOENT)
		log_warn("state: %s not removed", STATE_FILE);
	close(fd);
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
	efsm_init(&e->m, age_period_ms(e->cull_age));
	pthread_mutex_init(&e->early.lock, NULL);
	e->early.notify = early_notify;
	e->early.arg = e;
	if (e->state_file)
		state_read(e);
	return e;
}

int
engine_fd(const struct engine *e)
{
	return e->evfd;
}

/* ---- facts ---- */

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return 0;
	return timespec_ns(&ts);
}

static uint64_t
age_cutoff_ns(const struct engine *e)
{
	uint64_t now = wall_ns();

	if (e->cull_age == 0)
		return 0;
	return e->cull_age * 1000000000u < now ? now - e->cull_age * 1000000000u : 0;
}

/*
 * The kernel's run limits as a target in the filesystem's own blocks.
 * Kernels before 5.17 (no released counters in the state line) gave the
 * block limits in pages and compared f_bavail >> bshift with them, where
 * bshift = log2(page size / block size); f_bavail >> k >= b exactly when
 * f_bavail >= b << k, so the limit becomes b << bshift blocks.
 */
static struct target
kernel_target(const struct engine *e, const struct fsfree *f, uint64_t blocks, uint64_t files)
{
	struct target t = { blocks, files };
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned shift = 0;

	if (e->st.has_released || f->bsize == 0 || f->bsize >= page)
		return t;
	while ((f->bsize << (shift + 1)) <= page)
		shift++;
	t.bavail = t.bavail > UINT64_MAX >> shift ? UINT64_MAX : t.bavail << shift;
	return t;
}

/*
 * The blocks the kept state will take once written (state_keep), less
 * those of the file it replaces: the header, every directory of the table
 * and what is left of it (at most what the file holds), and two more for
 * the rounding and a margin.  0 when nothing is due, and after a failed
 * write (a file that cannot be written is not paid for again).
 */
static uint64_t
state_blocks(const struct engine *e, const struct fsfree *f)
{
	uint64_t n, new, old;

	if (!e->state_due || !e->state_file || e->state_failed || !e->cur_kept ||
	    e->cur == NULL || f->bsize == 0)
		return 0;
	n = table_left(e);
	if (n == 0)
		return 0;
	new = state_bytes_bound(e->state_dir_bytes, n) / f->bsize + 2;
	old = e->state_old_bytes / f->bsize;
	return new > old ? new - old : 0;
}

/*
 * The kernel's run limits, and while a scan's table waits to be kept, the
 * file's blocks on top: written once the goal is met, it would take free
 * space below brun again right away, and the culls that pay for it would
 * follow the write instead of meeting the goal once.
 */
static struct target
run_target(const struct engine *e, const struct fsfree *f)
{
	struct target t = kernel_target(e, f, e->st.brun, e->st.frun);

	t.bavail = u64_sat_add(t.bavail, state_blocks(e, f));
	return t;
}

/*
 * The run limits raised by the free space and files above the stop limits:
 * its deficit is the one the kernel can ask for at worst while bound (it
 * creates nothing below the stop limits), from there back to the run
 * limits.  A table sized for it serves any request until the next scan, and
 * the kept state written from it serves a restart with the disk at its
 * fullest.
 */
static struct target
worst_target(const struct engine *e, const struct fsfree *f)
{
	struct target t = run_target(e, f), stop;

	if (!e->have_st)
		return t;
	stop = kernel_target(e, f, e->st.bstop, e->st.fstop);
	if (f->bavail > stop.bavail)
		t.bavail = u64_sat_add(t.bavail, f->bavail - stop.bavail);
	if (f->ffree > stop.ffree)
		t.ffree = u64_sat_add(t.ffree, f->ffree - stop.ffree);
	return t;
}

static int
kernel_asks(const struct engine *e)
{
	return e->have_st && e->st.cull;
}

static uint64_t
next_atime(const struct engine *e)
{
	return e->vs ? victims_peek_atime(e->vs) : 0;
}

/* Entries the table's scan could not look at: any may be past an age goal. */
static uint64_t
unseen(const struct engine *e)
{
	return e->cur != NULL ? scan_unseen(scan_stats(e->cur)) : 0;
}

/* An age goal is unmet while the oldest candidate is past it, or the table may miss some. */
static int
goal_unmet(const struct engine *e, const struct goal_active *a, const struct fsfree *f)
{
	if (a->asked.kind != GOAL_OLDER_THAN)
		return !goal_met(a, f, 0);
	if (next_atime(e) != 0)
		return !goal_met(a, f, next_atime(e));
	return e->m.table_started < a->since_ms ||
	    (e->m.table_full && e->m.round_culled > 0);
}

/*
 * Nothing more to cull for an age goal, yet it is not met: an object past
 * it is in use (kept for the kernel's retry, which a request does not
 * wait for), or the scan could not look at some entries, any of which may
 * be past it.
 */
static int
goal_short(const struct engine *e, const struct goal_active *a)
{
	if (a->asked.kind != GOAL_OLDER_THAN)
		return 0;
	if (e->vs && victims_kept(e->vs) > 0 && victims_kept_atime(e->vs) < a->before_ns)
		return 1;
	return unseen(e) > 0;
}

/* Does some unmet goal other than the age limit remain? */
static int
wanted(const struct engine *e, const struct fsfree *f)
{
	struct target run = run_target(e, f);
	size_t i;

	if (kernel_asks(e) && !target_met(&run, f))
		return 1;
	for (i = 0; i < ENGINE_GOALS_MAX; i++)
		if (e->goals[i].used && e->goals[i].state == ENGINE_GOAL_PENDING &&
		    goal_unmet(e, &e->goals[i].a, f))
			return 1;
	return 0;
}

static void
facts(const struct engine *e, struct efsm_in *in)
{
	struct fsfree f;
	uint64_t at = next_atime(e);

	memset(in, 0, sizeof(*in));
	in->now_ms = now_ms();
	if (target_fsfree(e->cachefd, &f) < 0)
		memset(&f, 0, sizeof(f));
	in->want = wanted(e, &f);
	in->asks = kernel_asks(e);
	in->age_due = e->cull_age != 0 && at != 0 && at < age_cutoff_ns(e);
	in->left = e->vs ? victims_left(e->vs) : 0;
	in->kept = e->vs ? victims_kept(e->vs) : 0;
}

/* ---- the scan ---- */

static void *
scan_thread(void *arg)
{
	struct engine *e = arg;
	uint64_t one = 1;
	pid_t tid = gettid();

	/* Best effort, per thread (the workers inherit it): failures change nothing. */
	if (!e->scan_urgent) {
		(void)setpriority(PRIO_PROCESS, (id_t)tid, SCAN_NICE);
		(void)syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, tid, IOPRIO_BE_LOWEST);
	}
	e->next = scan_run(e->cachefd, &e->opts, &e->prog);
	e->scan_errno = e->next == NULL ? errno : 0;
	atomic_store_explicit(&e->done, 1, memory_order_release);
	if (write(e->evfd, &one, sizeof(one)) < 0)
		return NULL;	/* cannot happen with a counter this small */
	return NULL;
}

/* The memo goes with its scan, once the thread is gone. */
static void
drop_memo(struct engine *e)
{
	namememo_free(e->memo);
	e->memo = NULL;
	e->opts.memo = NULL;
}

/*
 * Does the kernel refuse rmdir of a directory it uses?  From 5.17 it marks
 * each directory of the cache it holds (volumes, fan-outs) and rmdir then
 * fails with EBUSY; before, a removal could race its lookups, so empty
 * directories are left alone there.
 */
static int
kernel_guards_dirs(void)
{
	struct utsname u;
	unsigned major, minor;

	return uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	    (major > 5 || (major == 5 && minor >= 17));
}

/* Where the scan may remove empty directories from: DIR/cache, or NULL. */
static const char *
empties_root(struct engine *e)
{
	if (e->k == NULL || !kernel_guards_dirs() ||
	    snprintf_checked(e->empties_root, sizeof(e->empties_root), "%s/cache",
			     kernel_dir(e->k)) == -1)
		return NULL;
	return e->empties_root;
}

/* Returns 0, or -1 when no thread could be started. */
static int
start_scan(struct engine *e)
{
	size_t today, worst;
	struct fsfree f;
	struct target t;
	sigset_t all, old;
	int err;

	if (target_fsfree(e->cachefd, &f) < 0) {
		log_warn("%s/cache: statvfs", cache_dir(e));
		memset(&f, 0, sizeof(f));
	}
	e->scan_urgent = wanted(e, &f) && (e->vs == NULL || victims_left(e->vs) == 0);
	t = run_target(e, &f);
	today = target_candidates(&t, &f, e->mean_bytes, e->objects, e->cull_memory);
	t = worst_target(e, &f);
	worst = target_candidates(&t, &f, e->mean_bytes, e->objects, e->cull_memory);
	e->opts.max_candidates = worst - today > WORST_EXTRA ? today + WORST_EXTRA : worst;
	e->opts.threads = e->threads;
	e->opts.cancel = &e->cancel;
	e->opts.yield = &e->yield;
	e->opts.empties_root = empties_root(e);
	e->cpus = scan_usable_cpus();
	e->opts.seed = 0;
	/* The setting is read when a scan starts: a reload changes the next one. */
	e->opts.early = e->cull_early ? &e->early : NULL;
	drop_memo(e);
	if (e->cull_early)
		e->opts.memo = e->memo = namememo_new();
	scan_free(scan_early_take(&e->early));
	scan_free(e->partial);
	e->partial = NULL;
	e->scan_culled0 = e->culled;
	e->scan_blocks0 = e->culled_blocks;
	e->ngone = 0;
	e->early_logged = 0;
	atomic_store(&e->cancel, 0);
	atomic_store(&e->yield, 0);
	atomic_store(&e->done, 0);
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
		return -1;
	}
	e->thread = 1;
	log_debug(1, "scan started, keeping up to %zu candidates",
		  e->opts.max_candidates);
	return 0;
}

static void
cancel_scan(struct engine *e)
{
	if (!e->thread)
		return;
	atomic_store(&e->cancel, 1);
	atomic_store(&e->yield, 0);
	pthread_join(e->tid, NULL);
	e->thread = 0;
	scan_free(e->next);
	e->next = NULL;
	scan_free(scan_early_take(&e->early));
	scan_free(e->partial);
	e->partial = NULL;
	e->ngone = 0;
	drop_memo(e);
}

static void
log_scan(struct engine *e, const struct scan_result *r)
{
	const struct scan_stats *ss = scan_stats(r);
	uint64_t odd = ss->unknown + ss->errors + ss->too_deep + ss->unsendable + ss->mounts;
	unsigned i;

	log_info("scan: %llu objects, %llu MiB in %llu.%03llu s, %zu candidates, "
		 "%u of %u threads",
		 (unsigned long long)ss->objects,
		 (unsigned long long)(ss->bytes >> 20),
		 (unsigned long long)(ss->ms / 1000), (unsigned long long)(ss->ms % 1000),
		 scan_ncand(r), ss->threads_peak, e->opts.threads);
	if (ss->empties_removed > 0)
		log_info("scan: %llu empty directories removed",
			 (unsigned long long)ss->empties_removed);
	log_debug(1, "scan: %llu empty directories in use by the kernel, kept",
		  (unsigned long long)ss->empties_busy);
	if (ss->mount_id_unknown && e->scans == 1)
		log_warnx("scan: this kernel and filesystem give no mount identity (statx mount "
			  "id, file handles), so bind mounts cannot be told apart: no directory "
			  "below %s is entered and nothing is culled", "DIR/cache");
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

/* The current table's victims, their counters kept; the caller frees them. */
static struct victims *
detach_victims(struct engine *e)
{
	struct victims *vs = e->vs;

	if (vs) {
		const struct victims_stats *vst = victims_stats(vs);
		e->vgone.vanished += vst->vanished;
		e->vgone.moved += vst->moved;
		e->vgone.errors += vst->errors;
	}
	e->vs = NULL;
	return vs;
}

/* Let go of the current table, keeping its victims' counters. */
static void
drop_table(struct engine *e)
{
	victims_free(detach_victims(e));
	scan_free(e->cur);
	e->cur = NULL;
	e->cur_kept = 0;
}

/* A cull while a scan runs: remember the object (bounded; see struct engine). */
static void
gone_add(struct engine *e, const struct victim *v)
{
	if (!e->thread || e->ngone >= e->opts.max_candidates)
		return;
	if (e->ngone == e->gone_cap) {
		e->gone_cap = e->gone_cap ? e->gone_cap * 2 : 4096;
		e->gone = xreallocarray(e->gone, e->gone_cap, sizeof(*e->gone));
	}
	e->gone[e->ngone].atime_ns = v->atime_ns;
	e->gone[e->ngone].ino = v->ino;
	e->ngone++;
}

/*
 * Leave out of a table of the scan (a partial one, or the finished one)
 * what was culled while it ran; returns how many.  The culler would check
 * each again (reading its directory) and find it gone,
 * and the kept state written from the table would make the next start do
 * the same before its first cull.  The same inode with the same atime: a
 * new object on a reused inode number is younger, and stays.  The rest
 * keep their order, oldest first.
 */
static size_t
drop_gone(struct engine *e)
{
	size_t n = scan_ncand(e->cur), k;

	if (e->ngone == 0)
		return 0;
	scan_sort_oldest(e->cur, n);	/* it is already: a table is sorted when taken */
	k = cands_drop_keys(scan_cands(e->cur), n, e->gone, e->ngone);
	scan_keep_oldest(e->cur, k);
	return n - k;
}

/*
 * The finished scan's volumes, copied: the table goes when a partial one
 * of the next scan is taken (take_partial), and a partial table has none.
 */
static void
keep_volumes(struct engine *e)
{
	size_t i, n = scan_nvols(e->cur);

	e->vols = xreallocarray(e->vols, n ? n : 1, sizeof(*e->vols));
	for (i = 0; i < n; i++) {
		const struct scan_vol *sv = scan_vol(e->cur, i);

		if (scan_dir_path(e->cur, sv->dir, e->vols[i].name, sizeof(e->vols[i].name)) < 0)
			snprintf(e->vols[i].name, sizeof(e->vols[i].name), "?");
		e->vols[i].objects = sv->objects;
		e->vols[i].bytes = sv->bytes;
	}
	e->nvols = n;
}

/* Make the finished scan's table the current one; 0, or -1 when the scan failed. */
static int
take_table(struct engine *e)
{
	const struct scan_stats *ss;
	struct victims *prev;
	size_t named;

	if (e->next == NULL) {
		errno = e->scan_errno;
		log_warn("%s/cache: scan", cache_dir(e));
		e->ngone = 0;
		return -1;
	}
	prev = detach_victims(e);
	drop_table(e);
	e->cur = e->next;
	e->next = NULL;
	e->cur_kept = 1;
	/* Full or not as the scan left it: what was culled meanwhile is gone, not missing. */
	e->cur_full = scan_ncand(e->cur) >= e->opts.max_candidates;
	log_debug(1, "scan: %zu of its candidates were culled while it ran", drop_gone(e));
	e->ngone = 0;
	e->cur_n0 = scan_ncand(e->cur);
	e->cur_written_s = (uint64_t)time(NULL);
	/* Kept once culling pauses (state_keep): the culls come first. */
	if (!e->state_due)
		e->state_due_ms = now_ms();
	e->state_due = 1;
	e->state_old_bytes = e->state_file ? state_bytes_now(e) : 0;
	e->state_dir_bytes = state_dir_bytes(e->cur);
	e->vs = new_victims(e, e->cur);
	/* The partial tables' directories, open already: the same scan's indices. */
	victims_adopt(e->vs, prev);
	victims_free(prev);
	/* What the workers named spares the first victims their directories' reads. */
	if (e->memo != NULL) {
		named = victims_name_from(e->vs, e->memo);
		log_debug(1, "scan: %zu names kept while it ran; %zu of its table named by them",
			  namememo_count(e->memo), named);
	}
	drop_memo(e);
	ss = scan_stats(e->cur);
	e->objects = ss->objects;
	e->mean_bytes = ss->objects ? ss->bytes / ss->objects : 0;
	e->scans++;
	e->last = *ss;
	keep_volumes(e);
	log_scan(e, e->cur);
	return 0;
}

/* ---- culling ---- */

/* The victim's name as messages show it (escaped into buf). */
static const char *
shown(const struct victim *v, char *buf, size_t size)
{
	escape_text(v->name, buf, size);
	return buf;
}

/* The refusals counted since the last line, in one line. */
static void
refused_summary(struct engine *e)
{
	if (e->refused_quiet == 0)
		return;
	log_warnx("cull: %llu more culls refused within %d s, not named one by one "
		  "(the last: %s)", (unsigned long long)e->refused_quiet,
		  REFUSED_WINDOW_MS / 1000, strerror(e->refused_err));
	e->refused_quiet = 0;
}

/* A cull the kernel refused: named while few in this window, else counted. */
static void
refused(struct engine *e, const char *name, int err)
{
	uint64_t now = now_ms();

	if (e->refused_named == 0 || now - e->refused_t0 >= REFUSED_WINDOW_MS) {
		refused_summary(e);
		e->refused_t0 = now;
		e->refused_named = 0;
	}
	if (e->refused_named < REFUSED_NAMED) {
		e->refused_named++;
		errno = err;
		log_warn("cull %s", name);
		return;
	}
	e->refused_quiet++;
	e->refused_err = err;
}

/* Send one cull; 1 culled, 0 not, -1 the cache died. */
static int
cull_one(struct engine *e, const struct victim *v, int keep_busy)
{
	/* escaped only for a message: one cull is sent in a few microseconds */
	char name[ESCAPE_SIZE(NAME_MAX)];
	int err;

	/* The kernel resolves the name in our cwd: it must still be inside DIR/cache. */
	switch (victims_enter(e->vs, v)) {
	case 1:
		break;
	case 0:
		log_debug(1, "%s: its directory moved since it was opened; not culled",
			  shown(v, name, sizeof(name)));
		return 0;
	default:
		log_warn("%s: fchdir", shown(v, name, sizeof(name)));
		e->busy++;
		return 0;
	}
	err = kernel_cull(e->k, v->name);
	switch (err) {
	case 0:
		e->culled++;
		e->culled_blocks += v->blocks;
		gone_add(e, v);
		if (log_get_debug() >= 2)
			log_debug(2, "culled %s", shown(v, name, sizeof(name)));
		return 1;
	case -EBUSY:
	case -ENOMEM:
		e->busy++;
		if (keep_busy)
			victims_keep(e->vs);
		return 0;
	case -ENOENT:
	case -ESTALE:
		e->vanished++;
		return 0;
	case -EIO:
		/* The channel probed: a dead cache is the loop's to handle. */
		if (kernel_dead(e->k)) {
			log_warnx("cull %s: %s; the cache is dead", shown(v, name, sizeof(name)),
				  strerror(EIO));
			return -1;
		}
		/* FALLTHROUGH */
	default:
		refused(e, shown(v, name, sizeof(name)), -err);
		return 0;
	}
}

/*
 * Which unmet goal would this victim serve?  Returns 1 for one that keeps
 * busy victims for a retry (the kernel's, or one asked from outside), 2
 * for the age limit alone, 0 for none: every goal is met or none wants an
 * object this young.
 */
static int
serves(const struct engine *e, const struct fsfree *f, uint64_t atime_ns)
{
	struct target run = run_target(e, f);
	size_t i;

	if (kernel_asks(e) && !target_met(&run, f))
		return 1;
	for (i = 0; i < ENGINE_GOALS_MAX; i++) {
		const struct outside_goal *g = &e->goals[i];

		if (g->used && g->state == ENGINE_GOAL_PENDING &&
		    goal_wants(&g->a, f, atime_ns))
			return 1;
	}
	return e->cull_age != 0 && atime_ns < age_cutoff_ns(e) ? 2 : 0;
}

/*
 * Is DIR/cache still the directory we hold open?  The kernel resolves names
 * in our working directory, below that descriptor: if DIR/cache was moved
 * away (and perhaps replaced), culling there would remove files outside
 * DIR/cache.  Checked by path, without following a symlink, before each
 * batch.
 */
static int
cache_in_place(struct engine *e)
{
	char path[PATH_MAX];

	/* No channel (the unit tests drive the engine without one): no path to check. */
	if (e->k == NULL ||
	    snprintf_checked(path, sizeof(path), "%s/cache", kernel_dir(e->k)) == -1)
		return 1;	/* the latter cannot happen: the kernel took the directory */
	if (name_is_fd(AT_FDCWD, path, e->cachefd))
		return 1;
	if (errno != 0 && errno != ENOENT && errno != ENOTDIR) {
		/* Not known to be gone, but not known to be in place either. */
		log_err("%s: cannot tell whether it is still the cache directory bound "
			"at start; not culling there; exiting", path);
		e->lost = 1;
		return 0;
	}
	log_errx("%s is no longer the cache directory bound at start (moved, replaced "
		  "or removed); not culling there; exiting so that the service manager "
		  "restarts the daemon on the directory as it is now", path);
	e->lost = 1;
	return 0;
}

int
engine_cache_lost(const struct engine *e)
{
	return e->lost;
}

/* Does a running scan wait for the culls (efsm_scan_waits)? */
static int
scan_waits(const struct engine *e)
{
	return e->thread && efsm_scan_waits(&e->m, e->cpus);
}

/* One batch, oldest first, each victim checked against the goals first. */
static int
cull_batch(struct engine *e, uint64_t *culled)
{
	uint64_t t0 = now_ms();
	int n = 0, r = 0, why;
	struct victim v;
	struct fsfree f;

	*culled = 0;
	if (!cache_in_place(e))
		return -1;	/* the engine stops as for a dead cache */
	if (scan_waits(e))
		atomic_store(&e->yield, 1);
	while (n < BATCH_MAX && now_ms() - t0 < BATCH_MS) {
		if (!victims_next(e->vs, &v))
			break;
		if (target_fsfree(e->cachefd, &f) < 0)
			memset(&f, 0, sizeof(f));
		if ((why = serves(e, &f, v.atime_ns)) == 0) {
			victims_unget(e->vs);
			break;
		}
		n++;
		r = cull_one(e, &v, why == 1);
		if (r < 0)
			break;
		*culled += (uint64_t)r;
	}
	if (fchdir(e->cachefd) < 0)
		log_warn("%s/cache: fchdir", cache_dir(e));
	if (now_ms() - e->refused_t0 >= REFUSED_WINDOW_MS)
		refused_summary(e);
	return r < 0 ? -1 : 0;
}

/* ---- goals asked from outside ---- */

static void
goals_update(struct engine *e, int exhausted)
{
	struct fsfree f;
	uint64_t now = now_ms();
	size_t i;

	if (target_fsfree(e->cachefd, &f) < 0)
		memset(&f, 0, sizeof(f));
	for (i = 0; i < ENGINE_GOALS_MAX; i++) {
		struct outside_goal *g = &e->goals[i];

		if (!g->used || g->state != ENGINE_GOAL_PENDING)
			continue;
		if (!goal_unmet(e, &g->a, &f))
			g->state = goal_short(e, &g->a) ? ENGINE_GOAL_EXHAUSTED : ENGINE_GOAL_MET;
		else if (exhausted || e->m.state == EFSM_DEAD)
			g->state = ENGINE_GOAL_EXHAUSTED;
		else
			continue;
		g->culled = e->culled - g->culled0;
		g->bytes = (e->culled_blocks - g->bytes0) * 512;
		g->ms = now - g->a.since_ms;
		g->unseen = g->a.asked.kind == GOAL_OLDER_THAN ? unseen(e) : 0;
	}
}

int
engine_goal_add(struct engine *e, const struct goal *g)
{
	struct target run;
	struct fsfree f;
	size_t i;

	for (i = 0; i < ENGINE_GOALS_MAX; i++)
		if (!e->goals[i].used)
			break;
	if (i == ENGINE_GOALS_MAX || target_fsfree(e->cachefd, &f) < 0)
		return -1;
	run = run_target(e, &f);
	if (goal_resolve(g, &f, &run, wall_ns(), now_ms(), &e->goals[i].a) < 0)
		return -1;
	e->goals[i].used = 1;
	e->goals[i].state = ENGINE_GOAL_PENDING;
	e->goals[i].culled0 = e->culled;
	e->goals[i].bytes0 = e->culled_blocks;
	e->goals[i].fresh = 1;
	return (int)i;
}

int
engine_goal_poll(struct engine *e, int id, struct engine_goal_report *r)
{
	struct outside_goal *g;

	if (id < 0 || id >= ENGINE_GOALS_MAX || !e->goals[id].used)
		return -1;
	g = &e->goals[id];
	r->state = g->state;
	if (g->state == ENGINE_GOAL_PENDING) {
		r->culled = e->culled - g->culled0;
		r->culled_bytes = (e->culled_blocks - g->bytes0) * 512;
		r->ms = now_ms() - g->a.since_ms;
		r->unseen = 0;
		return 0;
	}
	r->culled = g->culled;
	r->culled_bytes = g->bytes;
	r->ms = g->ms;
	r->unseen = g->unseen;
	g->used = 0;
	return 0;
}

void
engine_goal_cancel(struct engine *e, int id)
{
	if (id >= 0 && id < ENGINE_GOALS_MAX)
		e->goals[id].used = 0;
}

/* Was a goal asked since the last step that is not met yet?  Then none is fresh. */
static int
fresh_goal_unmet(struct engine *e)
{
	struct fsfree f;
	int unmet = 0;
	size_t i;

	if (target_fsfree(e->cachefd, &f) < 0)
		memset(&f, 0, sizeof(f));
	for (i = 0; i < ENGINE_GOALS_MAX; i++) {
		struct outside_goal *g = &e->goals[i];

		if (g->used && g->fresh && g->state == ENGINE_GOAL_PENDING &&
		    goal_unmet(e, &g->a, &f))
			unmet = 1;
		g->fresh = 0;
	}
	return unmet;
}

/* ---- events ---- */

static void
log_backoff(const struct engine *e)
{
	if (e->vs && victims_kept(e->vs) > 0)
		log_info("cull: nothing cullable (%zu busy); waiting %llu s or for released objects",
			 victims_kept(e->vs), (unsigned long long)(e->m.backoff_ms / 1000));
	else
		log_info("cull: candidates used up and the last scan found no more; "
			 "next scan in %llu s or when the kernel releases objects",
			 (unsigned long long)(e->m.backoff_ms / 1000));
}

static void take_partial(struct engine *e);

/* Feed one event; carry out the action; report its outcome as the next event. */
static void
dispatch(struct engine *e, enum efsm_event ev, struct efsm_in *in, struct efsm_out *out)
{
	enum efsm_state was = e->m.state;
	uint64_t culled;
	int r;

	efsm_event(&e->m, ev, in, out);
	if (e->m.state != was)
		log_debug(2, "engine: %s -> %s on %s", efsm_state_name(was),
			  efsm_state_name(e->m.state), efsm_event_name(ev));
	if (e->m.state == EFSM_BACKING_OFF && out->exhausted)
		log_backoff(e);
	goals_update(e, out->exhausted);
	switch (out->act) {
	case EFSM_ACT_NONE:
		return;
	case EFSM_ACT_SCAN:
		if (start_scan(e) == 0)
			return;
		facts(e, in);
		dispatch(e, EFSM_EV_SCAN_FAILED, in, out);
		return;
	case EFSM_ACT_CANCEL:
		cancel_scan(e);
		return;
	case EFSM_ACT_EARLY:
		take_partial(e);
		if (e->vs == NULL) {
			out->next = EFSM_NEXT_AGAIN;
			return;
		}
		goto batch;
	case EFSM_ACT_RETRY:
		victims_retry(e->vs);
		/* FALLTHROUGH */
	case EFSM_ACT_CULL:
	batch:
		if (e->batched) {
			out->next = EFSM_NEXT_AGAIN;
			return;
		}
		e->batched = 1;
		r = cull_batch(e, &culled);
		facts(e, in);
		in->culled = culled;
		in->dead = r < 0;
		dispatch(e, EFSM_EV_BATCH, in, out);
		return;
	}
}

static void
event(struct engine *e, enum efsm_event ev, struct efsm_out *out)
{
	struct efsm_in in;

	facts(e, &in);
	dispatch(e, ev, &in, out);
}

/* The scan finished: join it and hand its outcome to the machine. */
static int
harvest(struct engine *e, struct efsm_out *out)
{
	struct efsm_in in;
	uint64_t v;

	if (!e->thread)
		return 0;
	/* Early snapshots wake the loop too: drain, then look. */
	if (read(e->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_warn("cull engine: eventfd read");
	if (!atomic_load_explicit(&e->done, memory_order_acquire))
		return 0;
	pthread_join(e->tid, NULL);
	e->thread = 0;
	if (read(e->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_warn("cull engine: eventfd read");
	scan_free(e->partial);	/* the whole table follows */
	e->partial = NULL;
	if (take_table(e) < 0) {
		event(e, EFSM_EV_SCAN_FAILED, out);
		return 1;
	}
	facts(e, &in);
	in.ncand = scan_ncand(e->cur);
	in.full = e->cur_full;
	in.scan_ms = scan_stats(e->cur)->ms;
	dispatch(e, EFSM_EV_SCAN_DONE, &in, out);
	return 1;
}

/*
 * How many of a partial table's oldest candidates are certainly among those
 * exact LRU would cull (target_early_rank): 0 when the kernel does not ask.
 * What was culled since the scan started counts as still there, so the
 * sample and the deficit describe the same cache.
 */
static size_t
early_cut(const struct engine *e, struct scan_result *r)
{
	struct fsfree f;
	struct target t;
	struct deficit d;
	struct cand *c = scan_cands(r);
	uint64_t files = e->culled - e->scan_culled0, blocks, rank, names;
	size_t n = scan_ncand(r), k, h;

	if (!kernel_asks(e) || target_fsfree(e->cachefd, &f) < 0 || f.bsize == 0)
		return 0;
	t = run_target(e, &f);
	blocks = (e->culled_blocks - e->scan_blocks0) * 512 / f.bsize;
	f.ffree -= files < f.ffree ? files : f.ffree;
	f.bavail -= blocks < f.bavail ? blocks : f.bavail;
	target_deficit(&t, &f, &d);
	rank = target_early_rank(&d, &f, scan_stats(r)->objects, &scan_stats(r)->sample);
	k = rank < n ? (size_t)rank : n;
	names = target_early_names(&d, &f, scan_stats(r)->objects, &scan_stats(r)->sample);
	h = names < n ? (size_t)names : n;
	/*
	 * From now on the workers name what is older than the one of rank h:
	 * only its atime is needed, so it is selected, not sorted (h is about
	 * twice k, and sorting it every snapshot was a good part of the culler's
	 * own instructions in the simulator: bench/RESULTS.md).
	 */
	if (e->memo != NULL && h > 0)
		namememo_set_below(e->memo, cand_atime(scan_rank_oldest(r, h < n ? h : n - 1)));
	/* The k oldest, and the next one for the tie below, in order. */
	scan_sort_oldest(r, k + 1);
	/* Only objects strictly older than the one of that rank. */
	if (k < n)
		while (k > 0 && cand_atime(&c[k - 1]) == cand_atime(&c[k]))
			k--;
	return k;
}

/*
 * The machine took the partial table offered: cull from its certain part,
 * less what earlier tables culled (drop_gone), which the culler would
 * otherwise look for again directory by directory.
 */
static void
take_partial(struct engine *e)
{
	struct victims *prev;
	size_t named;

	if (e->partial == NULL)
		return;
	/*
	 * A finished scan's table not yet kept: its last chance.  A table
	 * kept already (read at start): the file is brought down to what is
	 * left of it (nothing, mostly: a partial is taken once the table is
	 * used up), or a stop before the scan's end would leave it listing
	 * objects culled or found changed since, each checked again by the
	 * next start.
	 */
	if (e->cur_kept)
		state_keep(e);
	prev = detach_victims(e);
	drop_table(e);
	scan_keep_oldest(e->partial, e->partial_k);
	e->cur = e->partial;
	e->partial = NULL;
	(void)drop_gone(e);
	e->vs = new_victims(e, e->cur);
	victims_adopt(e->vs, prev);
	victims_free(prev);
	named = victims_name_from(e->vs, e->memo);
	if (!e->early_logged)
		log_info("cull: culling before the scan ends: %zu of the %llu objects seen so far "
			 "are certainly among the oldest",
			 scan_ncand(e->cur), (unsigned long long)scan_stats(e->cur)->objects);
	else
		log_debug(1, "cull: partial table: %zu of %llu objects seen, %zu named by the scan",
			  scan_ncand(e->cur), (unsigned long long)scan_stats(e->cur)->objects, named);
	e->early_logged = 1;
}

/* Offer the certainly old part of the scan's latest snapshot to the machine. */
static void
early_offer(struct engine *e, struct efsm_out *out)
{
	struct scan_result *r;
	struct efsm_in in;

	if (!e->thread)
		return;
	if ((r = scan_early_take(&e->early)) != NULL) {
		scan_free(e->partial);
		e->partial = r;
	}
	if (e->partial == NULL || (e->partial_k = early_cut(e, e->partial)) == 0)
		return;
	facts(e, &in);
	in.partial = e->partial_k;
	dispatch(e, EFSM_EV_PARTIAL, &in, out);
}

static enum engine_next
result(const struct efsm_out *out, unsigned *delay_ms)
{
	switch (out->next) {
	case EFSM_NEXT_AGAIN:
		return ENGINE_AGAIN;
	case EFSM_NEXT_TIMER:
		*delay_ms = out->delay_ms;
		return ENGINE_TIMER;
	case EFSM_NEXT_IDLE:
		break;
	}
	return ENGINE_IDLE;
}

enum engine_next
engine_step(struct engine *e, const struct kstate *st, unsigned *delay_ms)
{
	enum engine_next next;
	struct efsm_out out;
	struct efsm_in in;

	*delay_ms = 0;
	e->batched = 0;
	if (st) {
		e->st = *st;
		e->have_st = 1;
	}
	if (!e->m.started)
		event(e, EFSM_EV_START, &out);
	if (!harvest(e, &out))
		early_offer(e, &out);
	facts(e, &in);
	in.released = st && st->has_released && (st->freleased || st->breleased);
	/*
	 * A goal asked since the last step and not met already is this
	 * step's cause, whatever else the state read says: a table from
	 * before it may not hold what it wants (and -dd names the goal, not
	 * the kernel).  One met on arrival, or withdrawn, is no such cause.
	 */
	if (fresh_goal_unmet(e)) {
		dispatch(e, EFSM_EV_GOAL, &in, &out);
	} else {
		dispatch(e, st ? EFSM_EV_KERNEL : EFSM_EV_TIMER, &in, &out);
	}
	/*
	 * That batch may have used the table up: the kept snapshot takes over
	 * now, not at the scan's next snapshot (none may come for a while).
	 */
	if (out.next != EFSM_NEXT_AGAIN && e->partial != NULL) {
		struct efsm_out again;

		early_offer(e, &again);
		if (e->partial == NULL)
			out = again;
	}
	next = result(&out, delay_ms);
	/*
	 * Culls go first: while batches follow one another, a scan running in
	 * the background waits.  Both read the cache's directories, and on a
	 * cold cache the culler reads a whole directory to name its next
	 * victim (victims.c): sharing the disk with the scan's threads made
	 * the first cull after a restart at 10,000,000 objects take 1.1 to
	 * 1.9 s instead of about 0.4.  The culls are what the kernel waits
	 * for; the scan only refreshes the table, and goes on as soon as
	 * culling stops (goal met, table used up, backing off).  Not while
	 * culling early: there the scan is what finds the next victims.
	 */
	atomic_store(&e->yield, next == ENGINE_AGAIN && scan_waits(e));
	if (e->state_due && (next != ENGINE_AGAIN || now_ms() - e->state_due_ms >= STATE_DEFER_MS)) {
		state_keep(e);
		/*
		 * The file's blocks may have taken free space below the run
		 * limits again: while the kernel asks, pay for them now, not at
		 * the watch's next look a second later.
		 */
		if (next == ENGINE_TIMER && kernel_asks(e))
			next = ENGINE_AGAIN;
	}
	return next;
}

int
engine_rescan(struct engine *e)
{
	struct efsm_out out;

	if (e->m.state == EFSM_DEAD || e->m.state == EFSM_STOPPED)
		return -1;
	/* No batch here: the loop steps the engine next. */
	e->batched = 1;
	event(e, EFSM_EV_RESCAN, &out);
	return e->thread ? 0 : -1;
}

void
engine_reconfigure(struct engine *e, const struct config *cfg)
{
	struct efsm_out out;
	struct efsm_in in;
	int had_state = e->state_file;

	settings(e, cfg);
	/* Turned on: the finished table in hand is kept at the next pause, as at a scan's end. */
	if (!had_state && e->state_file && e->cur_kept && e->cur != NULL && !e->state_due) {
		e->state_due = 1;
		e->state_due_ms = now_ms();
		e->state_old_bytes = state_bytes_now(e);
	}
	facts(e, &in);
	in.age_period_ms = age_period_ms(e->cull_age);
	/* No batch here: the loop steps the engine after a reload. */
	e->batched = 1;
	dispatch(e, EFSM_EV_RELOAD, &in, &out);
}

/* ---- status ---- */

void
engine_snapshot(const struct engine *e, struct engine_snap *s)
{
	uint64_t now = now_ms();
	size_t i;

	memset(s, 0, sizeof(*s));
	s->state = e->m.state;
	s->scanning = e->thread;
	if (e->thread) {
		s->scan_objects = __atomic_load_n(&e->prog.objects, __ATOMIC_RELAXED);
		s->scan_ms = now - e->scan_t0;
	}
	s->scans = e->scans;
	s->last_objects = e->last.objects;
	s->last_bytes = e->last.bytes;
	s->last_ms = e->last.ms;
	s->last_candidates = e->cur ? scan_ncand(e->cur) : 0;
	s->last_oldest_ns = e->last.oldest_ns;
	s->last_newest_ns = e->last.newest_ns;
	s->left = e->vs ? victims_left(e->vs) : 0;
	s->kept = e->vs ? victims_kept(e->vs) : 0;
	s->culled = e->culled;
	s->culled_bytes = e->culled_blocks * 512;
	s->busy = e->busy;
	s->vanished = e->vanished + e->vgone.vanished;
	s->moved = e->vgone.moved;
	if (e->vs) {
		s->vanished += victims_stats(e->vs)->vanished;
		s->moved += victims_stats(e->vs)->moved;
	}
	if (e->m.state == EFSM_BACKING_OFF && e->m.backoff_until) {
		s->backoff_ms = e->m.backoff_ms;
		s->backoff_left_ms = e->m.backoff_until > now ? e->m.backoff_until - now : 0;
	}
	s->kernel_asks = kernel_asks(e);
	s->age_limit_s = e->cull_age;
	for (i = 0; i < ENGINE_GOALS_MAX; i++)
		s->goals += e->goals[i].used && e->goals[i].state == ENGINE_GOAL_PENDING;
}

size_t
engine_volumes(const struct engine *e, struct engine_vol *v, size_t max)
{
	if (e->nvols > 0)
		memcpy(v, e->vols, (e->nvols < max ? e->nvols : max) * sizeof(*v));
	return e->nvols;
}

void
engine_free(struct engine *e)
{
	struct efsm_out out;

	if (e == NULL)
		return;
	event(e, EFSM_EV_STOP, &out);
	refused_summary(e);
	cancel_scan(e);		/* whatever the state: never leave a thread behind */
	state_keep(e);
	victims_free(e->vs);
	scan_free(e->cur);
	scan_free(e->partial);
	scan_free(scan_early_take(&e->early));
	drop_memo(e);
	pthread_mutex_destroy(&e->early.lock);
	close(e->evfd);
	free(e->gone);
	free(e->vols);
	free(e);
}
