// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_scan.c: the walker and the victim resolver over generated trees:
 * both layouts, planted symlinks (never followed, never candidates),
 * foreign entries, names no command can carry, deep nesting, parallel
 * workers, and objects that change between the scan and the cull.
 *
 * getdents64 is wrapped (test_scan.wrap): a test can make every entry come
 * back with d_type DT_UNKNOWN, as some filesystems return it, so that the
 * scanner must stat to learn the type; and a test can run a hook when a
 * chosen directory has been read to its end, to change the tree while the
 * scan is under way at a deterministic point.  fstatat is wrapped to see
 * what the walk stats and whether a directory read is under way meanwhile,
 * pthread_create to refuse the scan its threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/unit/skip.h"

#include "cull/heap.h"
#include "cull/namememo.h"
#include "cull/scan.h"
#include "cull/victims.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DAY 86400


#include "tests/unit/old_kernel.h"

static char top[64];	/* temp dir: top/cache is the cache, top/outside is not */
static time_t now;

/* ---- the openat2 seam: syscall() counted, openat2 refused on demand ---- */

long __real_syscall(long n, ...);
long __wrap_syscall(long n, ...);

static atomic_int no_openat2, openat2_calls;	/* the scan's workers call in too */

long
__wrap_syscall(long n, ...)
{
	long a[5];
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < 5; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_openat2) {
		openat2_calls++;
		if (no_openat2) {
			errno = ENOSYS;
			return -1;
		}
	}
	return __real_syscall(n, a[0], a[1], a[2], a[3], a[4]);
}

/* ---- the getdents64 seam ---- */

ssize_t __real_getdents64(int fd, void *buf, size_t len);
ssize_t __wrap_getdents64(int fd, void *buf, size_t len);

static atomic_int getdents_calls;	/* every call, the workers' too */
static atomic_int in_getdents;		/* calls under way now */
static int slow_getdents_ms;		/* each call sleeps this long first: a slow disk */
static int force_unknown;		/* every d_type becomes DT_UNKNOWN */
static ino_t hook_ino;			/* the directory whose end runs the hook */
static atomic_ulong yield_ino;		/* the directory whose first read sets *yield_flag */
static atomic_int *yield_flag;
static void (*hook)(void);		/* run once, then cleared */
/*
 * The gate, for a stater that works while its reader is in a chunk however
 * the host schedules the two threads: of the two directories gate_dirs,
 * the first read is stat'ed only once the second's read has begun
 * (gate_open), and that read waits until gate_after "D..." objects have
 * been stat'ed; each side gives up after 5 s, and then for good.
 */
static ino_t gate_dirs[2];
static atomic_ulong gate_first;		/* the one read first */
static atomic_int gate_open;		/* the second's read has begun */
static atomic_int dstats;		/* "D..." stat'ed since the gate was set */
static atomic_int gate_after;

/* Sleep a millisecond at a time until *flag; after 5 s, set it for all. */
static void
wait_for(atomic_int *flag)
{
	const struct timespec ms = { 0, 1000L * 1000L };
	int i;

	for (i = 0; i < 5000 && !*flag; i++)
		nanosleep(&ms, NULL);
	*flag = 1;
}

/* The read of directory fd may go on: waits at the gate. */
static void
gate_read(int fd)
{
	const struct timespec ms = { 0, 1000L * 1000L };
	struct stat sb;
	unsigned long first = 0;
	int i;

	if (gate_dirs[0] == 0 || fstat(fd, &sb) < 0 ||
	    (sb.st_ino != gate_dirs[0] && sb.st_ino != gate_dirs[1]))
		return;
	if (atomic_compare_exchange_strong(&gate_first, &first, (unsigned long)sb.st_ino) ||
	    first == (unsigned long)sb.st_ino)
		return;
	gate_open = 1;
	for (i = 0; i < 5000 && dstats < gate_after; i++)
		nanosleep(&ms, NULL);
	gate_after = 0;		/* the directory's later reads go on */
}

ssize_t
__wrap_getdents64(int fd, void *buf, size_t len)
{
	ssize_t n, off;
	struct stat sb;

	in_getdents++;
	gate_read(fd);
	n = __real_getdents64(fd, buf, len);
	getdents_calls++;
	if (n > 0 && yield_ino != 0 && fstat(fd, &sb) == 0 && sb.st_ino == yield_ino) {
		atomic_store(yield_flag, 1);
		yield_ino = 0;
	}
	if (slow_getdents_ms > 0) {
		struct timespec ts = { 0, slow_getdents_ms * 1000L * 1000L };
		nanosleep(&ts, NULL);
	}
	in_getdents--;
	if (n > 0 && force_unknown)
		for (off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)((char *)buf + off);
			de->d_type = DT_UNKNOWN;
			off += de->d_reclen;
		}
	if (n == 0 && hook != NULL && fstat(fd, &sb) == 0 && sb.st_ino == hook_ino) {
		void (*h)(void) = hook;
		hook = NULL;
		h();
	}
	return n;
}

/* ---- the fstatat seam: which directory each data object was stat'ed in ---- */

int __real_fstatat(int fd, const char *name, struct stat *sb, int flags);
int __wrap_fstatat(int fd, const char *name, struct stat *sb, int flags);

#define STAT_LOG_MAX 4096
static int record_stats;		/* one worker only while set */
static ino_t stat_log[STAT_LOG_MAX];	/* the directory of each "D..." stat'ed */
static size_t nstat_log;
static atomic_int overlaps;		/* "D..." stat'ed while a directory was read */

int
__wrap_fstatat(int fd, const char *name, struct stat *sb, int flags)
{
	struct stat d;

	if (record_stats && name[0] == 'D' && nstat_log < STAT_LOG_MAX && fstat(fd, &d) == 0)
		stat_log[nstat_log++] = d.st_ino;
	if (name[0] == 'D' && in_getdents > 0)
		overlaps++;
	if (name[0] == 'D' && gate_dirs[0] != 0)
		wait_for(&gate_open);
	if (name[0] == 'D')
		dstats++;
	return __real_fstatat(fd, name, sb, flags);
}

/* ---- the pthread_create seam: no threads for the scan on demand ---- */

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int no_threads;

int
__wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	if (no_threads)
		return EAGAIN;
	return __real_pthread_create(t, a, fn, arg);
}

/* ---- the sched_yield seam: the stater's offers of the CPU, counted ---- */

int __real_sched_yield(void);
int __wrap_sched_yield(void);

static atomic_int yields;

int
__wrap_sched_yield(void)
{
	yields++;
	return __real_sched_yield();
}

static void
mkdirs(const char *rel)
{
	char p[PATH_MAX + 128], *s;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	for (s = p + strlen(top) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	mkdir(p, 0700);
}

/* Create top/rel (parents too) with size bytes and the given atime; returns its inode. */
static ino_t
obj(const char *rel, time_t atime, size_t size)
{
	char p[PATH_MAX + 128], dir[PATH_MAX], *slash;
	struct timespec ts[2];
	struct stat sb;
	int fd;

	snprintf(dir, sizeof(dir), "%s", rel);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		mkdirs(dir);
	}
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	if (size)
		assert_int_equal(ftruncate(fd, (off_t)size), 0);
	ts[0].tv_sec = atime;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	assert_int_equal(futimens(fd, ts), 0);
	assert_int_equal(fstat(fd, &sb), 0);
	close(fd);
	return sb.st_ino;
}

static int
cache_fd(void)
{
	char p[PATH_MAX + 128];
	int fd;

	snprintf(p, sizeof(p), "%s/cache", top);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	assert_true(fd >= 0);
	return fd;
}

/* seed: the scan's directory order; 0 takes it from the clock. */
static struct scan_result *
scan_with(size_t k, unsigned threads, uint64_t seed)
{
	struct scan_opts o = { .max_candidates = k, .threads = threads, .seed = seed };
	int fd = cache_fd();
	struct scan_result *r = scan_run(fd, &o, NULL);

	close(fd);
	assert_non_null(r);
	return r;
}

static struct scan_result *
scan(size_t k, unsigned threads)
{
	return scan_with(k, threads, 0);
}

static void
count_notify(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
}

static struct dir_sample last_sample;	/* of the latest early snapshot */

static int
cand_qcmp(const void *a, const void *b)
{
	return cand_cmp(a, b);
}

static void
assert_cand_is(const struct cand *c, const struct cand *want)
{
	assert_non_null(c);
	assert_memory_equal(c, want, sizeof(*c));
}

/*
 * What an early table's taker does (early_cut): the cut-off of rank 2k
 * selected, then the k oldest sorted within what that selection placed,
 * then ranks again inside and past it.  Each against a sorted copy.
 */
static void
check_ranks(struct scan_result *snap, size_t k)
{
	size_t n = scan_ncand(snap), i;
	struct cand *ref = malloc(n * sizeof(*ref));

	assert_non_null(ref);
	memcpy(ref, scan_cands(snap), n * sizeof(*ref));
	qsort(ref, n, sizeof(*ref), cand_qcmp);
	/* A snapshot is a copy of the heap: its first record is the youngest. */
	assert_cand_is(scan_rank_oldest(snap, 0), &ref[0]);
	/* A sort past a selected prefix too small to hold what it sorts. */
	assert_cand_is(scan_rank_oldest(snap, k / 2), &ref[k / 2]);
	scan_sort_oldest(snap, k);
	for (i = 0; i < k; i++)
		assert_cand_is(&scan_cands(snap)[i], &ref[i]);
	assert_cand_is(scan_rank_oldest(snap, k), &ref[k]);
	assert_cand_is(scan_rank_oldest(snap, k - 1), &ref[k - 1]);
	/* early_cut's order: the bound's rank, then a sort within it. */
	assert_cand_is(scan_rank_oldest(snap, 2 * k), &ref[2 * k]);
	scan_sort_oldest(snap, k + k / 4);
	for (i = 0; i < k + k / 4; i++)
		assert_cand_is(&scan_cands(snap)[i], &ref[i]);
	assert_cand_is(scan_rank_oldest(snap, 2 * k), &ref[2 * k]);
	assert_cand_is(scan_rank_oldest(snap, k + 3), &ref[k + 3]);
	assert_cand_is(scan_rank_oldest(snap, (n + 2 * k) / 2), &ref[(n + 2 * k) / 2]);
	assert_cand_is(scan_rank_oldest(snap, n - 1), &ref[n - 1]);
	assert_null(scan_rank_oldest(snap, n));
	for (i = 0; i < k; i++)
		assert_cand_is(&scan_cands(snap)[i], &ref[i]);
	scan_sort_oldest(snap, 2 * k + 1);
	for (i = 0; i <= 2 * k; i++)
		assert_cand_is(&scan_cands(snap)[i], &ref[i]);
	free(ref);
}

/* Scan with early snapshots; returns how many were published. */
static int
scan_early(void)
{
	int notified = 0, fd = cache_fd();
	struct scan_early ea = { .notify = count_notify, .arg = &notified };
	struct scan_opts o = { .max_candidates = 100000, .threads = 1, .seed = 7, .early = &ea };
	struct scan_result *r, *snap;

	pthread_mutex_init(&ea.lock, NULL);
	r = scan_run(fd, &o, NULL);
	close(fd);
	assert_non_null(r);
	snap = scan_early_take(&ea);
	if (notified > 0) {
		/*
		 * Within what the scan saw, directories in its table; the part
		 * asked for sorted, the rest no older, and keeping a part
		 * leaves it sorted.
		 */
		size_t i, k;

		assert_non_null(snap);
		assert_true(scan_stats(snap)->partial);
		assert_true(scan_stats(snap)->objects < scan_stats(r)->objects);
		k = scan_ncand(snap) / 3;
		assert_true(k > 16);
		check_ranks(snap, k);
		for (i = 1; i < k; i++)
			assert_true(cand_cmp(&scan_cands(snap)[i - 1], &scan_cands(snap)[i]) <= 0);
		for (i = k; i < scan_ncand(snap); i++)
			assert_true(cand_cmp(&scan_cands(snap)[k - 1], &scan_cands(snap)[i]) <= 0);
		scan_keep_oldest(snap, k + 20);
		assert_int_equal(scan_ncand(snap), k + 20);
		for (i = 1; i < scan_ncand(snap); i++)
			assert_true(cand_cmp(&scan_cands(snap)[i - 1], &scan_cands(snap)[i]) <= 0);
		for (i = 0; i < scan_ncand(snap); i++)
			assert_true(scan_dir_data(snap, scan_cands(snap)[i].dir));
		/* Its sample: the directories read to the end, what they hold. */
		last_sample = scan_stats(snap)->sample;
		assert_true(last_sample.dirs > 0 && last_sample.dirs < last_sample.known);
		assert_true(last_sample.n == (double)scan_stats(snap)->objects);
		assert_true(last_sample.b == (double)scan_stats(snap)->bytes);
		assert_true(last_sample.n2 >= last_sample.n * last_sample.n / (double)last_sample.dirs);
	}
	scan_free(snap);
	scan_free(r);
	pthread_mutex_destroy(&ea.lock);
	return notified;
}

/* Early snapshots: only where the sample is uniform (data at one depth). */
static void
test_early_snapshots(void **state)
{
	char rel[64];
	int i;

	(void)state;
	for (i = 0; i < 32 * 20; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/D%d", i % 32, i);
		obj(rel, now - 86400 + i, 0);
	}
	assert_true(scan_early() > 0);
	/* The sample's population: the 32 fan-out directories, 20 objects each. */
	assert_int_equal(last_sample.known, 32);
	/* Late snapshots follow each sixteenth of them: the last one near the end. */
	print_message("last snapshot after %llu of 32 directories\n", (unsigned long long)last_sample.dirs);
	assert_true(last_sample.dirs >= 30);	/* a quarter more objects alone: 28 */
	assert_true(last_sample.n2 == 20.0 * 20.0 * (double)last_sample.dirs);
	/* The old layout: data below the fan-outs too, so never a snapshot. */
	for (i = 0; i < 32; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/+k/D%d", i, i);
		obj(rel, now - 86400 + i, 0);
	}
	assert_int_equal(scan_early(), 0);
}

/*
 * 128 fan-out directories of four objects each, made one per directory in
 * turn, so that on most filesystems their inode numbers interleave.
 * Returns whether they do: the second directory's first object between
 * the first's first and last.
 */
static int
interleaved_tree(void)
{
	ino_t a0 = 0, a3 = 0, b0 = 0, ino;
	char rel[64];
	int i, j;

	for (j = 0; j < 4; j++)
		for (i = 0; i < 128; i++) {
			snprintf(rel, sizeof(rel), "cache/Iv/@%02x/D%d", i, j * 128 + i);
			ino = obj(rel, now - DAY + j * 128 + i, 0);
			if (i == 0 && j == 0)
				a0 = ino;
			else if (i == 1 && j == 0)
				b0 = ino;
			else if (i == 0 && j == 3)
				a3 = ino;
		}
	return (a0 < b0 && b0 < a3) || (a3 < b0 && b0 < a0);
}

/*
 * Once the first snapshot may be due, directories are read a chunk at a
 * time and their objects stat'ed together in inode order: the stats
 * switch between directories more often than once a directory.  One at
 * a time, each directory's stats would come in one run: 127 switches.
 */
static void
test_chunks_stat_in_inode_order(void **state)
{
	struct scan_result *r;
	size_t i, switches = 0;

	(void)state;
	if (!interleaved_tree())
		skip_why("this filesystem does not interleave the inode numbers of "
			 "files made in turn in several directories");
	nstat_log = 0;
	record_stats = 1;
	r = scan(1000, 1);
	record_stats = 0;
	assert_int_equal(scan_stats(r)->objects, 512);
	assert_int_equal(nstat_log, 512);
	for (i = 1; i < nstat_log; i++)
		if (stat_log[i] != stat_log[i - 1])
			switches++;
	print_message("%zu switches between directories among 512 stats\n", switches);
	assert_true(switches > 127 + 64);
	scan_free(r);
}

/*
 * Out of descriptors in the middle of a chunk (the culler may hold many),
 * the directories not opened go back for later: every object is seen and
 * nothing counts as an error.  Room is left for the cache, the worker's
 * schedstat and three directories (openat2; two when the walk opens each
 * directory by name, one level at a time).
 */
static void
test_chunks_out_of_descriptors(void **state)
{
	struct scan_result *r;
	struct rlimit old, low;
	int fd;

	(void)state;
	(void)interleaved_tree();
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)fd + 5;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	r = scan(1000, 1);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(scan_stats(r)->objects, 512);
	assert_int_equal(scan_stats(r)->errors, 0);
	assert_int_equal(scan_stats(r)->vanished, 0);
	assert_int_equal(scan_ncand(r), 512);
	scan_free(r);
}

/*
 * A directory whose entries overflow a fill in the middle of a chunk:
 * what was gathered is stat'ed, and the rest of it and the directories
 * after it go into the next fill.  Nothing is lost.
 */
static void
test_chunks_big_directory(void **state)
{
	char p[PATH_MAX + 128];
	struct scan_result *r;
	int i, fd;

	(void)state;
	(void)interleaved_tree();
	for (i = 0; i < 20000; i++) {	/* 32 bytes a dirent: 640,000, over 512 KiB */
		snprintf(p, sizeof(p), "%s/cache/Iv/@05/D%06d", top, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
	r = scan(1000, 1);
	assert_int_equal(scan_stats(r)->objects, 512 + 20000);
	assert_int_equal(scan_stats(r)->errors, 0);
	scan_free(r);
}

/*
 * A worker reads the next chunk's directories while it stats this one's
 * objects (each directory read sleeps here, as on a disk): some stats
 * come while a read is under way.  Refused its threads, the scan does
 * both in turn on the calling thread, big directory and all, and finds
 * the same.
 */
static void
test_reads_ahead(void **state)
{
	char p[PATH_MAX + 128];
	struct scan_result *piped, *alone;
	int i, fd, seen;
	size_t k;

	(void)state;
	(void)interleaved_tree();
	for (i = 0; i < 3000; i++) {	/* over a fill: 32 bytes a dirent */
		snprintf(p, sizeof(p), "%s/cache/Iv/@05/D%06d", top, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
	slow_getdents_ms = 1;
	overlaps = 0;
	piped = scan(1000, 1);
	seen = overlaps;
	print_message("%d stats while a directory was read\n", seen);
	assert_true(seen > 0);
	overlaps = 0;
	no_threads = 1;
	alone = scan(1000, 4);
	no_threads = 0;
	slow_getdents_ms = 0;
	assert_int_equal(overlaps, 0);
	assert_int_equal(scan_stats(alone)->threads_peak, 1);
	assert_int_equal(scan_stats(piped)->objects, 512 + 3000);
	assert_int_equal(scan_stats(alone)->objects, 512 + 3000);
	assert_int_equal(scan_stats(alone)->errors, 0);
	assert_int_equal(scan_ncand(alone), scan_ncand(piped));
	for (k = 0; k < scan_ncand(alone); k++)
		assert_true(cand_cmp(&scan_cands(alone)[k], &scan_cands(piped)[k]) == 0);
	scan_free(piped);
	scan_free(alone);
}

/* One worker, told it has cpus CPUs; returns the scan's count of sched_yield() calls. */
static int
yields_in_scan(unsigned cpus, size_t objects)
{
	struct scan_opts o = { .max_candidates = 100, .threads = 1, .cpus = cpus };
	int fd = cache_fd();
	struct scan_result *r;

	yields = 0;
	r = scan_run(fd, &o, NULL);
	close(fd);
	assert_non_null(r);
	assert_int_equal(scan_stats(r)->objects, objects);
	scan_free(r);
	return yields;
}

/* n empty data objects in top/rel, named from D000000 on. */
static void
empty_objs(const char *rel, int n)
{
	char p[PATH_MAX + 128];
	int i, fd;

	mkdirs(rel);
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/D%06d", top, rel, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
}

/* The inode of directory rel under top. */
static ino_t
dir_ino(const char *rel)
{
	char p[PATH_MAX + 128];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	assert_int_equal(stat(p, &sb), 0);
	return sb.st_ino;
}

/* The gate on @05 and @06: the second read waits for 256 stats of the first's objects. */
static void
gate_set(void)
{
	gate_first = 0;
	gate_open = 0;
	dstats = 0;
	gate_after = 256;
	gate_dirs[0] = dir_ino("cache/Iv/@05");
	gate_dirs[1] = dir_ino("cache/Iv/@06");
}

/*
 * Fewer CPUs than the scan's threads and the culler: the stater offers the
 * CPU to its reader while that reads a chunk (here the second directory,
 * held at the gate while the first is stat'ed), and never while the reader
 * waits between chunks (one directory: nothing left to read while it is
 * stat'ed), nor with CPUs enough, nor when the worker's one thread does
 * both.  The gate, not a sleep, keeps the reader in its chunk while the
 * stater works: on a busy host either niced thread may barely run for a
 * while, and the stater had stat'ed the first directory before its reader
 * began the second (0 offers, 7 runs of 10 under ASan beside a CPU hog).
 */
static void
test_hands_off(void **state)
{
	int n;

	(void)state;
	empty_objs("cache/Iv/@05", 3000);
	assert_int_equal(yields_in_scan(1, 3000), 0);
	empty_objs("cache/Iv/@06", 3000);
	gate_set();
	n = yields_in_scan(1, 6000);
	print_message("%d offers of the CPU\n", n);
	/* one each 32 stats while the reader waits for 256 of them: 8, or 7 */
	assert_true(n >= 7);
	gate_set();
	assert_int_equal(yields_in_scan(64, 6000), 0);
	gate_dirs[0] = gate_dirs[1] = 0;
	/* alone, one thread reads and stats: a directory over a fill is stat'ed mid-chunk */
	empty_objs("cache/Iv/@07", 20000);
	no_threads = 1;
	assert_int_equal(yields_in_scan(1, 26000), 0);
	no_threads = 0;
}

static int
has_ino(struct scan_result *r, ino_t ino)
{
	size_t i;

	for (i = 0; i < scan_ncand(r); i++)
		if (cand_ino(&scan_cands(r)[i]) == (uint64_t)ino)
			return 1;
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_scan.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	mkdirs("cache");
	mkdirs("outside");
	now = time(NULL);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	/* A test that failed half-way left its knobs set: the next starts clean. */
	force_unknown = 0;
	hook = NULL;
	slow_getdents_ms = 0;
	no_threads = 0;
	record_stats = 0;
	gate_dirs[0] = gate_dirs[1] = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_new_layout(void **state)
{
	ino_t ino[60];
	char rel[PATH_MAX];
	struct scan_result *r;
	const struct scan_stats *st;
	size_t i, v0 = 0;

	(void)state;
	for (i = 0; i < 60; i++) {
		snprintf(rel, sizeof(rel), "cache/Ivol%zu/@%02zx/Dobject-%zu", i % 3, i % 7, i);
		/* Object i was used 60 - i days ago: 0 is the oldest. */
		ino[i] = obj(rel, now - (time_t)(60 - i) * DAY, 8192);
	}
	r = scan(10, 1);
	st = scan_stats(r);
	assert_int_equal(st->objects, 60);
	assert_int_equal(st->unknown, 0);
	assert_int_equal(scan_ncand(r), 10);
	for (i = 0; i < 10; i++)
		assert_true(cand_ino(&scan_cands(r)[i]) == (uint64_t)ino[i]);
	assert_true(st->hist[60] == 1 && st->hist[1] == 1 && st->hist[0] == 0);
	assert_int_equal(scan_nvols(r), 3);
	for (i = 0; i < 3; i++)
		v0 += scan_vol(r, i)->objects;
	assert_int_equal(v0, 60);
	assert_int_equal(scan_vol(r, 0)->objects, 20);
	assert_true(st->oldest_ns == (uint64_t)(now - 60 * DAY) * 1000000000u);
	/* The directory table maps back to the path. */
	assert_int_equal(scan_dir_path(r, scan_cands(r)[0].dir, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "Ivol0/@00");
	scan_free(r);
}

/* Write size bytes of data into top/rel, so that blocks are allocated. */
static void
filled(const char *rel, time_t atime, size_t size)
{
	char p[PATH_MAX + 128], buf[4096];
	struct timespec ts[2];
	int fd;

	obj(rel, atime, 0);
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	while (size > 0) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		size -= n;
	}
	ts[0].tv_sec = atime;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

static void
test_size_buckets(void **state)
{
	(void)state;
	assert_int_equal(scan_size_bucket(0), 0);
	assert_int_equal(scan_size_bucket(1), 1);
	assert_int_equal(scan_size_bucket(4096), 1);
	assert_int_equal(scan_size_bucket(4097), 2);
	assert_int_equal(scan_size_bucket(8192), 2);
	assert_int_equal(scan_size_bucket(20480), 4);
	assert_int_equal(scan_size_bucket(UINT64_MAX), SCAN_SIZE_BUCKETS - 1);
	assert_true(scan_size_bucket_max(4) == 32768);
	assert_true(scan_size_bucket_max(SCAN_SIZE_BUCKETS - 1) == UINT64_MAX);
}

/* Per-volume atime range and histogram, and the size histogram. */
static void
test_volume_stats(void **state)
{
	struct scan_result *r;
	const struct scan_stats *st;
	const struct scan_vol *a = NULL, *b = NULL;
	char name[PATH_MAX];
	size_t i;

	(void)state;
	filled("cache/Ia/@00/Da1", now - 3 * DAY, 4096);
	filled("cache/Ia/@01/Da2", now - 5 * DAY, 4096);
	filled("cache/Ia/@02/Da3", now - 9 * DAY, 20000);
	filled("cache/Ib/@00/Db1", now - 200 * DAY, 4096);
	r = scan(0, 2);
	st = scan_stats(r);
	for (i = 0; i < scan_nvols(r); i++) {
		assert_int_equal(scan_dir_path(r, scan_vol(r, i)->dir, name, sizeof(name)), 0);
		if (strcmp(name, "Ia") == 0)
			a = scan_vol(r, i);
		else if (strcmp(name, "Ib") == 0)
			b = scan_vol(r, i);
	}
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a->oldest_ns == (uint64_t)(now - 9 * DAY) * 1000000000u);
	assert_true(a->newest_ns == (uint64_t)(now - 3 * DAY) * 1000000000u);
	assert_true(a->hist[3] == 1 && a->hist[5] == 1 && a->hist[9] == 1 && a->hist[0] == 0);
	assert_true(b->hist[SCAN_HIST_DAYS - 1] == 1 && b->hist[3] == 0);
	assert_true(st->size_hist[1] == 3);
	assert_true(st->size_hist[4] == 1);
	scan_free(r);
}

/*
 * An atime of 0 is a time like any other (its key is 1 ns: 0 means "no
 * object" to the engine); before 1970 is the oldest bucket, the future today.
 */
static void
test_epoch_atimes(void **state)
{
	struct scan_result *r;
	const struct scan_stats *st;
	const struct scan_vol *c = NULL, *d = NULL, *e = NULL;
	char name[PATH_MAX];
	size_t i;

	(void)state;
	filled("cache/Ic/@00/Dc0", 0, 4096);	/* made first: stat'ed first (inode order) */
	filled("cache/Ic/@00/Dc1", now - 2 * DAY, 4096);
	r = scan(0, 1);				/* one worker sees both, 0 first */
	assert_true(scan_stats(r)->oldest_ns == 1);
	scan_free(r);
	filled("cache/Id/@00/Dd0", -315619200, 4096);	/* 1960-01-01 */
	filled("cache/Ie/@00/De0", now + 5 * DAY, 4096);
	r = scan(0, 2);
	st = scan_stats(r);
	for (i = 0; i < scan_nvols(r); i++) {
		const struct scan_vol *v = scan_vol(r, i);
		assert_int_equal(scan_dir_path(r, v->dir, name, sizeof(name)), 0);
		if (strcmp(name, "Ic") == 0)
			c = v;
		else if (strcmp(name, "Id") == 0)
			d = v;
		else if (strcmp(name, "Ie") == 0)
			e = v;
	}
	assert_non_null(c);
	assert_non_null(d);
	assert_non_null(e);
	assert_int_equal(st->objects, 4);
	assert_true(st->oldest_ns == 1);
	assert_true(c->oldest_ns == 1);
	assert_true(c->newest_ns == (uint64_t)(now - 2 * DAY) * 1000000000u);
	assert_true(d->hist[SCAN_HIST_DAYS - 1] == 1 && d->hist[0] == 0);
	assert_true(e->hist[0] == 1);
	assert_true(st->hist[SCAN_HIST_DAYS - 1] == 2 && st->hist[0] == 1 && st->hist[2] == 1);
	scan_free(r);
}

/*
 * A volume whose directory holding an object used at 0 is read before the
 * others keeps it (1 ns) as its oldest: over several directory orders (seeds), one
 * worker, so that some order reads that directory first.
 */
static void
test_volume_oldest_epoch(void **state)
{
	char rel[64];
	uint64_t seed;
	int i;

	(void)state;
	filled("cache/Ig/@00/Dg0", 0, 4096);
	for (i = 1; i < 8; i++) {
		snprintf(rel, sizeof(rel), "cache/Ig/@%02x/Dg%d", i, i);
		filled(rel, now - 3 * DAY, 4096);
	}
	for (seed = 1; seed <= 16; seed++) {
		struct scan_result *r = scan_with(0, 1, seed);
		assert_int_equal(scan_nvols(r), 1);
		assert_true(scan_vol(r, 0)->oldest_ns == 1);
		assert_true(scan_vol(r, 0)->newest_ns == (uint64_t)(now - 3 * DAY) * 1000000000u);
		scan_free(r);
	}
}

static void
test_old_layout(void **state)
{
	ino_t a, b, c, d;
	struct scan_result *r;

	(void)state;
	a = obj("cache/@4a/I03nfs/@30/Jkey1/@75/Eobject1", now - 10 * DAY, 0);
	b = obj("cache/@4a/I03nfs/@30/Jkey1/@76/Dobject2", now - 9 * DAY, 0);
	c = obj("cache/@4a/I03nfs/@30/Jkey1/@23/+xyz/+klm/Spqr", now - 8 * DAY, 0);
	/* A data name outside a fan-out directory is not an object. */
	d = obj("cache/@4a/I03nfs/Dstray", now - 100 * DAY, 0);
	r = scan(100, 1);
	assert_int_equal(scan_stats(r)->objects, 3);
	assert_true(has_ino(r, a) && has_ino(r, b) && has_ino(r, c));
	assert_false(has_ino(r, d));
	assert_int_equal(scan_stats(r)->unknown, 1);
	assert_true(cand_ino(&scan_cands(r)[0]) == (uint64_t)a);
	scan_free(r);
}

static void
test_symlinks_never_followed(void **state)
{
	char p[PATH_MAX + 128], t[PATH_MAX];
	ino_t in, out1, out2, out3;
	struct scan_result *r;

	(void)state;
	in = obj("cache/Iv/@00/Dreal", now - DAY, 0);
	out1 = obj("outside/Dvictim", now - 900 * DAY, 0);
	out2 = obj("outside/vol/@00/Dvolvictim", now - 900 * DAY, 0);
	out3 = obj("outside/fan/Dfanvictim", now - 900 * DAY, 0);
	snprintf(t, sizeof(t), "%s/outside/Dvictim", top);
	snprintf(p, sizeof(p), "%s/cache/Iv/@00/Dlink", top);
	assert_int_equal(symlink(t, p), 0);
	snprintf(t, sizeof(t), "%s/outside/vol", top);
	snprintf(p, sizeof(p), "%s/cache/Ilinked", top);
	assert_int_equal(symlink(t, p), 0);
	snprintf(t, sizeof(t), "%s/outside/fan", top);
	snprintf(p, sizeof(p), "%s/cache/Iv/@01", top);
	assert_int_equal(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/cache/Iv/@02", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cache/Iv/@02/Dfifo", top);
	assert_int_equal(mkfifo(p, 0600), 0);
	r = scan(100, 2);
	assert_int_equal(scan_stats(r)->objects, 1);
	assert_true(has_ino(r, in));
	assert_false(has_ino(r, out1) || has_ino(r, out2) || has_ino(r, out3));
	assert_int_equal(scan_stats(r)->unknown, 4);
	assert_true(scan_stats(r)->nsamples == 4);
	scan_free(r);
}

static void
test_unsendable_and_foreign(void **state)
{
	ino_t bad, foreign, good;
	struct scan_result *r;

	(void)state;
	good = obj("cache/Iv/@00/Dgood", now - DAY, 0);
	bad = obj("cache/Iv/@00/Dnew\nline", now - 50 * DAY, 0);
	foreign = obj("cache/Iv/@00/Xforeign", now - 50 * DAY, 0);
	mkdirs("cache/Iv/@00/Ddirectory");
	mkdirs("cache/Iv/@00/@nested");	/* a fan-out name inside a fan-out: entered */
	obj("cache/Ifile-named-like-a-volume", now, 0);
	r = scan(100, 1);
	assert_true(has_ino(r, good));
	assert_false(has_ino(r, bad) || has_ino(r, foreign));
	assert_int_equal(scan_stats(r)->unsendable, 1);
	/* Named in the samples, with the newline escaped. */
	{
		unsigned i, found = 0;
		for (i = 0; i < scan_stats(r)->nsamples; i++) {
			assert_null(strchr(scan_stats(r)->samples[i], '\n'));
			found |= strstr(scan_stats(r)->samples[i], "Dnew\\012line") != NULL;
		}
		assert_true(found);
	}
	assert_int_equal(scan_stats(r)->unknown, 3);
	scan_free(r);
}

static void
test_deep_nesting_bounded(void **state)
{
	char rel[PATH_MAX] = "cache/Iv";
	struct scan_result *r;
	ino_t shallow, deep;
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		strcat(rel, "/@a");
	strcat(rel, "/Ddeep");
	deep = obj(rel, now - 90 * DAY, 0);
	shallow = obj("cache/Iv/@a/Dshallow", now - DAY, 0);
	r = scan(100, 3);
	assert_true(has_ino(r, shallow));
	assert_false(has_ino(r, deep));
	assert_true(scan_stats(r)->too_deep >= 1);
	assert_true(scan_stats(r)->nsamples >= 1);
	assert_non_null(strstr(scan_stats(r)->samples[0], "too deep"));
	scan_free(r);
}

static void
test_threads_agree(void **state)
{
	struct scan_result *r1, *r4;
	char rel[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv%zu/@%02zx/E0object-with-a-longer-name-%zu",
			 i % 2, i % 256, i);
		/* Ties on purpose: 1/3 share an atime. */
		obj(rel, now - (time_t)((i * 7919) % 1000) * 60 - (i % 3 ? 0 : 3), 4096);
	}
	r1 = scan(500, 1);
	r4 = scan(500, 4);
	assert_int_equal(scan_stats(r1)->objects, 3000);
	assert_int_equal(scan_stats(r4)->objects, 3000);
	assert_int_equal(scan_ncand(r1), 500);
	assert_int_equal(scan_ncand(r4), 500);
	for (i = 0; i < 500; i++) {
		assert_true(cand_atime(&scan_cands(r1)[i]) == cand_atime(&scan_cands(r4)[i]));
		assert_true(cand_ino(&scan_cands(r1)[i]) == cand_ino(&scan_cands(r4)[i]));
		if (i > 0)
			assert_true(cand_cmp(&scan_cands(r1)[i - 1], &scan_cands(r1)[i]) < 0);
	}
	assert_int_equal(scan_stats(r1)->bytes, scan_stats(r4)->bytes);
	scan_free(r1);
	scan_free(r4);
}

/*
 * The worker count (adapt.h): told of one CPU, four workers start as one;
 * while each directory read sleeps as on a slow disk the parked ones are
 * woken and join in; the result is the same as one worker's.  Without
 * schedstat (a kernel without it) every worker reads from the start.
 */
static void
test_threads_adapt(void **state)
{
	struct scan_opts o = { .max_candidates = 500, .threads = 4, .cpus = 1 };
	struct scan_result *r1, *r4, *fast;
	char rel[PATH_MAX];
	int fd = -1;
	size_t i;

	(void)state;
	for (i = 0; i < 2048; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02zx/E0obj-%zu", i % 128, i);
		obj(rel, now - (time_t)((i * 7919) % 2048) * 60, 4096);
	}
	r1 = scan(500, 1);
	assert_int_equal(scan_stats(r1)->threads_peak, 1);
	fd = cache_fd();
	fast = scan_run(fd, &o, NULL);
	assert_non_null(fast);
	slow_getdents_ms = 4;
	r4 = scan_run(fd, &o, NULL);
	slow_getdents_ms = 0;
	close(fd);
	assert_non_null(r4);
	if ((fd = open("/proc/thread-self/schedstat", O_RDONLY)) < 0) {
		/* No numbers to go by: every worker from the start. */
		assert_int_equal(scan_stats(fast)->threads_peak, 4);
	} else {
		close(fd);
		/* CPU work only (the tree is in memory): one worker throughout. */
		assert_int_equal(scan_stats(fast)->threads_peak, 1);
		/* 128 directories, two reads each, 4 ms asleep in each: blocked, more workers. */
		assert_true(scan_stats(r4)->threads_peak > 1);
	}
	assert_int_equal(scan_stats(r4)->objects, 2048);
	assert_int_equal(scan_ncand(r4), 500);
	for (i = 0; i < 500; i++)
		assert_true(cand_cmp(&scan_cands(r1)[i], &scan_cands(r4)[i]) == 0 &&
			    cand_cmp(&scan_cands(r1)[i], &scan_cands(fast)[i]) == 0);
	scan_free(r1);
	scan_free(r4);
	scan_free(fast);
}

static int
exists(const char *rel)
{
	char p[PATH_MAX + 128];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	return access(p, F_OK) == 0;
}

/*
 * With empties_root, the directories found empty go, and then their
 * parents while that leaves them empty; a fan-out holding an object, its
 * volume, DIR/cache and a directory not entered stay.  With DIR/cache not
 * at that path, or without empties_root (the tool's views), none goes.
 */
static void
test_empty_dirs_removed(void **state)
{
	char path[PATH_MAX + 128];
	struct scan_opts o = { .max_candidates = 10, .threads = 2 };
	struct scan_result *r;
	int fd;

	(void)state;
	obj("cache/Ia/@01/Dobj", now - 100, 0);
	mkdirs("cache/Ia/@00");
	mkdirs("cache/Ib/@00");
	mkdirs("cache/Ib/@01");
	mkdirs("cache/Xforeign");
	fd = cache_fd();
	r = scan_run(fd, &o, NULL);
	assert_int_equal(scan_stats(r)->empties_removed, 0);
	assert_true(exists("cache/Ib/@00"));
	scan_free(r);
	o.empties_root = "/nonexistent/cache";
	r = scan_run(fd, &o, NULL);
	assert_int_equal(scan_stats(r)->empties_removed, 0);
	assert_true(exists("cache/Ib/@00"));
	scan_free(r);
	snprintf(path, sizeof(path), "%s/cache", top);
	o.empties_root = path;
	r = scan_run(fd, &o, NULL);
	assert_int_equal(scan_stats(r)->objects, 1);
	assert_int_equal(scan_stats(r)->empties_removed, 4);
	assert_false(exists("cache/Ia/@00"));
	assert_false(exists("cache/Ib"));
	assert_true(exists("cache/Ia/@01/Dobj"));
	assert_true(exists("cache/Xforeign"));
	assert_true(exists("cache"));
	scan_free(r);
	close(fd);
}

/*
 * Before 5.8 the scan still enters the tree (file handles give the mount);
 * with no identity at all it enters no directory: it cannot tell a bind
 * mount of the cache's own filesystem, and says so.
 */
static void
test_mount_identity_fallbacks(void **state)
{
	struct scan_opts o = { .max_candidates = 10, .threads = 1 };
	struct scan_result *r;
	int fd;

	(void)state;
	obj("cache/Iv/@00/Da", now - 100, 0);
	obj("cache/Iv/@01/Db", now - 50, 0);
	fd = cache_fd();
	no_statx_mnt = 1;
	r = scan_run(fd, &o, NULL);
	assert_non_null(r);
	assert_int_equal(scan_stats(r)->objects, 2);
	assert_int_equal(scan_stats(r)->mount_id_unknown, 0);
	scan_free(r);
	no_handles = 1;
	r = scan_run(fd, &o, NULL);
	no_statx_mnt = no_handles = 0;
	assert_non_null(r);
	assert_int_equal(scan_stats(r)->objects, 0);
	assert_int_equal(scan_ncand(r), 0);
	assert_int_equal(scan_stats(r)->mount_id_unknown, 1);
	scan_free(r);
	close(fd);
}

static void
test_cancel(void **state)
{
	static const atomic_int stop = 1;
	struct scan_opts o = { .max_candidates = 10, .threads = 2, .cancel = &stop };
	struct scan_result *r;
	int fd;

	(void)state;
	obj("cache/Iv/@00/Dx", now, 0);
	fd = cache_fd();
	r = scan_run(fd, &o, NULL);
	close(fd);
	assert_non_null(r);
	assert_true(scan_stats(r)->cancelled);
	assert_int_equal(scan_stats(r)->objects, 0);
	scan_free(r);
}

/* A scan asked to yield reads nothing until let go; cancelled, it ends. */
struct yield_run {
	atomic_int yield, cancel;
	struct scan_progress prog;
	struct scan_result *r;
	int fd;
};

static void *
yield_thread(void *arg)
{
	struct yield_run *y = arg;
	/* Four workers for one CPU: only one reads, and sleeping in yield is no disk time. */
	struct scan_opts o = { .max_candidates = 10, .threads = 4, .cpus = 1,
			       .cancel = &y->cancel, .yield = &y->yield };

	y->r = scan_run(y->fd, &o, &y->prog);
	return NULL;
}

static void
test_yield(void **state)
{
	/* longer than adapt.h's window, so that the worker count is decided */
	const struct timespec pause = { 0, 300 * 1000 * 1000 };
	struct yield_run y;
	pthread_t t;
	int round;

	(void)state;
	/* directories enough that a second worker, wrongly woken, finds one */
	for (round = 0; round < 64; round++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/D%d", round, round);
		obj(rel, now, 0);
	}
	for (round = 0; round < 2; round++) {
		memset(&y, 0, sizeof(y));
		atomic_store(&y.yield, 1);
		y.fd = cache_fd();
		assert_int_equal(pthread_create(&t, NULL, yield_thread, &y), 0);
		nanosleep(&pause, NULL);
		assert_int_equal(__atomic_load_n(&y.prog.objects, __ATOMIC_RELAXED), 0);
		/* Let go (round 0), or cancelled while it waits (round 1). */
		atomic_store(round == 0 ? &y.yield : &y.cancel, round == 0 ? 0 : 1);
		assert_int_equal(pthread_join(t, NULL), 0);
		close(y.fd);
		assert_non_null(y.r);
		assert_int_equal(scan_stats(y.r)->objects, round == 0 ? 64 : 0);
		assert_int_equal(scan_stats(y.r)->cancelled, round);
		/* cancelled while it waited, no worker took a chunk */
		assert_int_equal(scan_stats(y.r)->threads_peak, round == 0 ? 1 : 0);
		scan_free(y.r);
	}
}

static atomic_int ended_yielding;	/* the hook directory read to its end meanwhile */

static void
note_end(void)
{
	atomic_store(&ended_yielding, atomic_load(yield_flag) + 1);
}

/*
 * Culls begin while the reader is halfway through a directory: it reads
 * the directory to its end (its stater then finds entries to stat when
 * the culls stop), and stats nothing meanwhile.
 */
static void
test_yield_mid_chunk(void **state)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	char p[PATH_MAX + 128];
	struct yield_run y;
	struct stat sb;
	pthread_t t;
	int i;

	(void)state;
	empty_objs("cache/Iv/@05", 20000);	/* several reads */
	snprintf(p, sizeof(p), "%s/cache/Iv/@05", top);
	assert_int_equal(stat(p, &sb), 0);
	memset(&y, 0, sizeof(y));
	yield_flag = &y.yield;
	yield_ino = sb.st_ino;
	hook_ino = sb.st_ino;
	atomic_store(&ended_yielding, 0);
	hook = note_end;
	y.fd = cache_fd();
	assert_int_equal(pthread_create(&t, NULL, yield_thread, &y), 0);
	for (i = 0; i < 10000 && atomic_load(&ended_yielding) == 0; i++)
		nanosleep(&tick, NULL);
	assert_int_equal(atomic_load(&ended_yielding), 2);	/* read to its end, yield set */
	nanosleep(&tick, NULL);
	assert_int_equal(__atomic_load_n(&y.prog.objects, __ATOMIC_RELAXED), 0);
	atomic_store(&y.yield, 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	close(y.fd);
	assert_non_null(y.r);
	assert_int_equal(scan_stats(y.r)->objects, 20000);
	scan_free(y.r);
	yield_ino = 0;
}

static void
set_atime(const char *rel, time_t t)
{
	char p[PATH_MAX + 128];
	struct timespec ts[2] = { { t, 0 }, { 0, UTIME_OMIT } };

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static void
rm(const char *rel)
{
	char p[PATH_MAX + 128];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	assert_int_equal(unlink(p), 0);
}

static void
test_victims(void **state)
{
	char rel[PATH_MAX], p[PATH_MAX + 128];
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	int fd, i, got[20], n = 0;
	uint64_t kept_at = 0;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/Dvictim-%02d-%s", i % 4, i,
			 "padding-to-an-nfs-like-length-of-sixty-chars");
		obj(rel, now - (time_t)(100 - i) * DAY, 4096);
	}
	r = scan(100, 1);
	/* Between the scan and the cull: 1 used, 2 gone, 3 replaced, @03 swapped for a symlink. */
	snprintf(rel, sizeof(rel), "cache/Iv/@01/Dvictim-01-%s", "padding-to-an-nfs-like-length-of-sixty-chars");
	set_atime(rel, now);
	snprintf(rel, sizeof(rel), "cache/Iv/@02/Dvictim-02-%s", "padding-to-an-nfs-like-length-of-sixty-chars");
	rm(rel);
	/*
	 * Replaced: the new file is made first and renamed over the old one,
	 * so that it cannot get the old inode number back (an unlink then a
	 * create may reuse it, and with the same atime the replacement would
	 * be indistinguishable from the original).
	 */
	{
		char tmp[PATH_MAX + 8], a[PATH_MAX + 256], b[PATH_MAX + 256];
		snprintf(rel, sizeof(rel), "cache/Iv/@00/Dvictim-04-%s", "padding-to-an-nfs-like-length-of-sixty-chars");
		snprintf(tmp, sizeof(tmp), "%s.new", rel);
		obj(tmp, now - 96 * DAY, 4096);
		snprintf(a, sizeof(a), "%s/%s", top, tmp);
		snprintf(b, sizeof(b), "%s/%s", top, rel);
		assert_int_equal(rename(a, b), 0);
	}
	/*
	 * The directory itself moves outside the cache and the symlink points
	 * at it: the same inodes and atimes, found only by following the link.
	 */
	snprintf(p, sizeof(p), "%s/cache/Iv/@03", top);
	snprintf(rel, sizeof(rel), "%s/outside/@03.moved", top);
	assert_int_equal(rename(p, rel), 0);
	assert_int_equal(symlink(rel, p), 0);

	fd = cache_fd();
	vs = victims_new(r, fd);
	while (victims_next(vs, &v)) {
		struct stat sb;
		assert_true(n < 20);
		assert_int_equal(sscanf(v.name, "Dvictim-%d-", &got[n]), 1);
		/* The descriptor is the object's directory: the name resolves there. */
		assert_int_equal(fstatat(v.dirfd, v.name, &sb, AT_SYMLINK_NOFOLLOW), 0);
		assert_true((uint64_t)sb.st_ino == v.ino);
		if (got[n] == 5) {
			victims_keep(vs);
			kept_at = v.atime_ns;
		}
		if (got[n] == 6) {
			victims_unget(vs);
			assert_int_equal(victims_next(vs, &v), 1);
			assert_int_equal(sscanf(v.name, "Dvictim-%d-", &got[n]), 1);
			assert_int_equal(got[n], 6);
		}
		n++;
	}
	/* Oldest first; 1 moved, 2 vanished, 4 replaced, 3/7/11/15/19 behind a symlink. */
	{
		static const int want[] = { 0, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18 };
		assert_int_equal(n, (int)(sizeof(want) / sizeof(want[0])));
		for (i = 0; i < n; i++)
			assert_int_equal(got[i], want[i]);
	}
	/* A replaced object is another inode: its old inode is simply gone. */
	assert_int_equal(victims_stats(vs)->moved, 1);
	assert_int_equal(victims_stats(vs)->vanished, 7);
	/* The kept one is known by its atime, and comes back in a retry pass. */
	assert_int_equal(victims_kept(vs), 1);
	assert_true(kept_at != 0 && victims_kept_atime(vs) == kept_at);
	assert_int_equal(victims_retry(vs), 1);
	assert_true(victims_kept_atime(vs) == 0);
	assert_int_equal(victims_next(vs, &v), 1);
	assert_int_equal(sscanf(v.name, "Dvictim-%d-", &got[0]), 1);
	assert_int_equal(got[0], 5);
	assert_int_equal(victims_next(vs, &v), 0);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

static void
test_victims_many_dirs(void **state)
{
	char rel[PATH_MAX];
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	uint64_t last = 0;
	int fd, i, n = 0;

	(void)state;
	/* More candidates than one directory read would give, in every @xx. */
	for (i = 0; i < 2000; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/E0key-%d", (i * 37) % 256, i);
		obj(rel, now - 2000 + i, 0);
	}
	r = scan(5000, 2);
	assert_int_equal(scan_ncand(r), 2000);
	fd = cache_fd();
	vs = victims_new(r, fd);
	while (victims_next(vs, &v)) {
		assert_true(v.atime_ns > last);
		last = v.atime_ns;
		n++;
	}
	assert_int_equal(n, 2000);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

/*
 * Two volumes' fan-outs (512 directories) and victims in LRU order jumping
 * between them: each directory is opened once, its descriptor kept for the
 * next victim there, not reopened because another directory shares its
 * slot (the descriptor limit allows 512 here).
 */
static void
test_victims_dirs_kept(void **state)
{
	char rel[PATH_MAX];
	struct rlimit rl;
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	int fd, i, n = 0, opened;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 1024) {
		rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	if (rl.rlim_cur < 1024)
		skip_why("a hard limit of %llu open files, under the 1024 this test asks for",
			 (unsigned long long)rl.rlim_max);
	/* Victim k lives in directory k % 512: every directory, then all again. */
	for (i = 0; i < 1024; i++) {
		snprintf(rel, sizeof(rel), "cache/I%c/@%02x/E0key-%d", i % 512 < 256 ? 'a' : 'b',
			 i % 256, i);
		obj(rel, now - 2000 + i, 0);
	}
	r = scan(5000, 1);
	assert_int_equal(scan_ncand(r), 1024);
	fd = cache_fd();
	vs = victims_new(r, fd);
	opened = openat2_calls;
	while (victims_next(vs, &v))
		n++;
	assert_int_equal(n, 1024);
	assert_int_equal(openat2_calls - opened, 512);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

#define MEMO_PAD "padding-to-an-nfs-like-length-of-sixty-chars"

/*
 * The scan names what is older than the memo's threshold, and nothing
 * else; a table whose victims the memo names reads no directory, and a
 * name gone stale since the scan is skipped, not culled by it.  Without
 * the memo the same table reads its directories, and finds the object
 * under its new name.
 */
static void
test_scan_names_old_objects(void **state)
{
	char rel[PATH_MAX], a[PATH_MAX + 128], b[PATH_MAX + 128], buf[NAME_MAX + 1];
	struct scan_opts o = { .max_candidates = 100, .threads = 2 };
	struct namememo *memo = namememo_new();
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	ino_t ino[40];
	int fd, i, n;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@%02x/Dobj-%02d-%s", i % 4, i, MEMO_PAD);
		ino[i] = obj(rel, now - (time_t)(100 - i) * DAY, 4096);
	}
	/* Objects 0 to 19 are older than this; 20 is exactly as old. */
	namememo_set_below(memo, (uint64_t)(now - 80 * DAY) * 1000000000ull);
	o.memo = memo;
	fd = cache_fd();
	r = scan_run(fd, &o, NULL);
	assert_non_null(r);
	assert_int_equal(namememo_count(memo), 20);
	for (i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "Dobj-%02d-%s", i, MEMO_PAD);
		/* the directory index is the scan's own; try them all */
		for (n = 0; n < (int)scan_ndirs(r); n++)
			if (namememo_get(memo, (uint32_t)n, (uint64_t)ino[i], buf, sizeof(buf)))
				break;
		if (i < 20) {
			assert_true(n < (int)scan_ndirs(r));
			assert_string_equal(buf, rel);
		} else {
			assert_int_equal(n, (int)scan_ndirs(r));
		}
	}
	/* Object 3 gets another name after the scan. */
	snprintf(a, sizeof(a), "%s/cache/Iv/@03/Dobj-03-%s", top, MEMO_PAD);
	snprintf(b, sizeof(b), "%s/cache/Iv/@03/Dobj-03-renamed", top);
	assert_int_equal(rename(a, b), 0);
	scan_keep_oldest(r, 20);

	vs = victims_new(r, fd);
	victims_name_from(vs, memo);
	namememo_free(memo);		/* named already: not needed any more */
	getdents_calls = 0;
	for (n = 0; victims_next(vs, &v); n++)
		assert_int_equal(sscanf(v.name, "Dobj-%d-", &i), 1);
	assert_int_equal(n, 19);
	assert_int_equal(getdents_calls, 0);
	assert_int_equal(victims_stats(vs)->vanished, 1);
	victims_free(vs);

	vs = victims_new(r, fd);
	for (n = 0; victims_next(vs, &v); n++)
		if (v.ino == (uint64_t)ino[3])
			assert_string_equal(v.name, "Dobj-03-renamed");
	assert_int_equal(n, 20);
	assert_true(getdents_calls >= 4);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

/* path of top/rel into p */
static void
at_top(char *p, size_t len, const char *rel)
{
	snprintf(p, len, "%s/%s", top, rel);
}

static ino_t
ino_of(const char *rel)
{
	char p[PATH_MAX + 128];
	struct stat sb;

	at_top(p, sizeof(p), rel);
	assert_int_equal(lstat(p, &sb), 0);
	return sb.st_ino;
}

/* Move the directory cache/REL outside the cache; a symlink to it takes its place. */
static void
swap_for_symlink(const char *rel, const char *outside_name)
{
	char p[PATH_MAX + 128], t[PATH_MAX + 128];

	snprintf(p, sizeof(p), "%s/cache/%s", top, rel);
	snprintf(t, sizeof(t), "%s/outside/%s", top, outside_name);
	assert_int_equal(rename(p, t), 0);
	assert_int_equal(symlink(t, p), 0);
}

/*
 * d_type DT_UNKNOWN everywhere: the scanner learns each type by a stat that
 * must not follow symlinks.  A symlink named like a data object and pointing
 * at an old file outside, one named like a fan-out directory, and a fifo are
 * left alone; the real objects are still found, in directories found by stat.
 */
static void
test_dtype_unknown(void **state)
{
	char p[PATH_MAX + 128], t[PATH_MAX + 128];
	ino_t in1, in2, out1, out2;
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	int fd, n = 0;

	(void)state;
	in1 = obj("cache/Iv/@00/Dreal", now - 2 * DAY, 0);
	in2 = obj("cache/Iv/@02/Dother", now - DAY, 0);
	out1 = obj("outside/Dvictim", now - 900 * DAY, 0);
	out2 = obj("outside/fan/Dfanvictim", now - 900 * DAY, 0);
	at_top(t, sizeof(t), "outside/Dvictim");
	at_top(p, sizeof(p), "cache/Iv/@00/Dlink");
	assert_int_equal(symlink(t, p), 0);
	at_top(t, sizeof(t), "outside/fan");
	at_top(p, sizeof(p), "cache/Iv/@01");
	assert_int_equal(symlink(t, p), 0);
	at_top(p, sizeof(p), "cache/Iv/@02/Dfifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	force_unknown = 1;
	r = scan(100, 1);
	assert_int_equal(scan_stats(r)->objects, 2);
	assert_int_equal(scan_ncand(r), 2);
	assert_true(has_ino(r, in1) && has_ino(r, in2));
	assert_false(has_ino(r, out1) || has_ino(r, out2));
	assert_int_equal(scan_stats(r)->unknown, 3);
	assert_int_equal(scan_stats(r)->errors, 0);
	/* The resolver reads the same DT_UNKNOWN entries and names both objects. */
	fd = cache_fd();
	vs = victims_new(r, fd);
	while (victims_next(vs, &v)) {
		assert_true(v.ino == (uint64_t)(n == 0 ? in1 : in2));
		n++;
	}
	assert_int_equal(n, 2);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

static void
swap_fan01(void)
{
	swap_for_symlink("Iv/@01", "@01.moved");
}

/*
 * A fan-out directory replaced by a symlink to itself moved outside while
 * the scan runs: after its parent was read (its name is queued) and before
 * it is opened.  The scanner must not enter it through the link.
 */
static void
test_dir_swapped_during_scan(void **state)
{
	ino_t in, out[3];
	struct scan_result *r;
	char rel[64];
	int i;

	(void)state;
	in = obj("cache/Iv/@00/Dstays", now - DAY, 0);
	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "cache/Iv/@01/Dmoved-%d", i);
		out[i] = obj(rel, now - 500 * DAY, 0);
	}
	hook_ino = ino_of("cache/Iv");
	hook = swap_fan01;
	r = scan(100, 1);
	assert_null(hook);		/* it ran */
	assert_true(has_ino(r, in));
	for (i = 0; i < 3; i++)
		assert_false(has_ino(r, out[i]));
	assert_int_equal(scan_stats(r)->objects, 1);
	assert_int_equal(scan_stats(r)->vanished, 1);
	scan_free(r);
}

/*
 * victims_in_place: true while the victim's directory is the one the path
 * names; false once the directory moved out of the cache and something
 * else (a new directory, or a symlink to the moved one) took its place.
 */
static int (*in_place)(struct victims *, const struct victim *) = victims_in_place;
/* Every victim entered; each must then be in the working directory. */
static int
enter_all(struct victims *vs)
{
	struct victim v;
	struct stat sb;
	int n = 0;

	while (victims_next(vs, &v)) {
		assert_int_equal(victims_enter(vs, &v), 1);
		assert_int_equal(fstatat(AT_FDCWD, v.name, &sb, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(sb.st_ino, v.ino);
		n++;
	}
	return n;
}

/*
 * A table of r that takes over old's directories: every victim entered,
 * want of them, with opens directories opened on the way.
 */
static struct victims *
next_table(struct scan_result *r, int fd, struct victims *old, int want, int opens)
{
	struct victims *vs = victims_new(r, fd);
	int opened;

	victims_adopt(vs, old);
	victims_free(old);
	opened = openat2_calls;
	assert_int_equal(enter_all(vs), want);
	assert_int_equal(openat2_calls - opened, opens);
	return vs;
}

/* Empty the directory rel (files only) and remove it. */
static void
gone_dir(const char *rel)
{
	char p[PATH_MAX + 128];
	DIR *d;
	struct dirent *de;
	int dfd;

	at_top(p, sizeof(p), rel);
	assert_non_null(d = opendir(p));
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			assert_int_equal(unlinkat(dfd, de->d_name, 0), 0);
	closedir(d);
	assert_int_equal(rmdir(p), 0);
}

/* n objects spread over dirs fan-out directories of one volume, oldest first. */
static void
fanout(int n, int dirs)
{
	char rel[PATH_MAX];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "cache/Ia/@%02x/E0key-%d", i % dirs, i);
		obj(rel, now - 2000 + i, 0);
	}
}

/*
 * The next table of the same directories takes over the descriptors the
 * last one opened: none is opened again when the indices match (the tables
 * of one scan, or a scan of the same tree), and when the indices name other
 * directories (one removed before the next scan), none is taken, and every
 * victim is still found in its own directory.
 */
static void
test_victims_adopt(void **state)
{
	char rel[PATH_MAX];
	struct scan_result *r1, *r2, *r3;
	struct victims *vs;
	int fd, i, here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	fanout(32, 16);
	fd = cache_fd();
	r1 = scan_with(1000, 1, 1);
	vs = next_table(r1, fd, NULL, 32, 16);
	r2 = scan_with(1000, 1, 1);
	vs = next_table(r2, fd, vs, 32, 0);
	/* The first fan-out directory found goes: the others' indices move up. */
	for (i = 0; i < (int)scan_ndirs(r2) && !scan_dir_data(r2, (uint32_t)i); i++)
		;
	assert_true(i < (int)scan_ndirs(r2));
	snprintf(rel, sizeof(rel), "cache/Ia/%s", scan_dir_name(r2, (uint32_t)i));
	gone_dir(rel);
	r3 = scan_with(1000, 1, 2);
	vs = next_table(r3, fd, vs, 30, 15);
	victims_free(vs);
	close(fd);
	scan_free(r1);
	scan_free(r2);
	scan_free(r3);
	assert_int_equal(fchdir(here), 0);
	close(here);
}

/*
 * DIR/cache's own path changed between two tables (a parent renamed): the
 * next table learns the root's path again and takes nothing over, so each
 * of its culls is checked the fast way, by the working directory's path as
 * it is now, and not by a lookup from the root for every victim.
 */
static void
test_victims_adopt_root_moved(void **state)
{
	char moved[PATH_MAX + 16];
	struct scan_opts o = { .max_candidates = 1000, .threads = 1, .seed = 1 };
	struct scan_result *r1, *r2;
	struct victims *vs;
	int fd, here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	fanout(16, 8);
	fd = cache_fd();
	r1 = scan_run(fd, &o, NULL);
	assert_non_null(r1);
	vs = next_table(r1, fd, NULL, 16, 8);
	assert_int_equal(victims_stats(vs)->by_cwd, 16);
	snprintf(moved, sizeof(moved), "%s.moved", top);
	assert_int_equal(rename(top, moved), 0);
	r2 = scan_run(fd, &o, NULL);
	assert_non_null(r2);
	vs = next_table(r2, fd, vs, 16, 8);
	assert_int_equal(victims_stats(vs)->by_cwd, 16);
	assert_int_equal(victims_stats(vs)->moved, 0);
	assert_int_equal(rename(moved, top), 0);
	victims_free(vs);
	close(fd);
	scan_free(r1);
	scan_free(r2);
	assert_int_equal(fchdir(here), 0);
	close(here);
}

static uint64_t by_cwd;		/* victims_stats()->by_cwd at the end of the cases */

static void
victims_in_place_cases(void)
{
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	char p[PATH_MAX + 128];
	int fd, here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	obj("cache/Iv/@00/Da", now - 3 * DAY, 0);
	obj("cache/Iv/@01/Db", now - 2 * DAY, 0);
	obj("cache/Iv/@02/Dc", now - DAY, 0);
	r = scan(100, 1);
	fd = cache_fd();
	vs = victims_new(r, fd);
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Da");
	assert_int_equal(in_place(vs, &v), 1);
	assert_int_equal(victims_stats(vs)->moved, 0);
	/* @00 moves out; a new, empty @00 appears. */
	at_top(p, sizeof(p), "cache/Iv/@00");
	{
		char t[PATH_MAX + 128];
		at_top(t, sizeof(t), "outside/@00.moved");
		assert_int_equal(rename(p, t), 0);
	}
	mkdirs("cache/Iv/@00");
	assert_int_equal(in_place(vs, &v), 0);
	assert_int_equal(victims_stats(vs)->moved, 1);
	/* @01 is opened by the resolver, then swapped for a symlink to itself. */
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Db");
	swap_for_symlink("Iv/@01", "@01.moved");
	assert_int_equal(in_place(vs, &v), 0);
	assert_int_equal(victims_stats(vs)->moved, 2);
	/* Untouched: in place. */
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Dc");
	assert_int_equal(in_place(vs, &v), 1);
	/* The volume renamed and a relative symlink in its place: never followed. */
	{
		char t[PATH_MAX + 128];
		at_top(p, sizeof(p), "cache/Iv");
		at_top(t, sizeof(t), "cache/Iv.moved");
		assert_int_equal(rename(p, t), 0);
		assert_int_equal(symlink("Iv.moved", p), 0);
	}
	assert_int_equal(in_place(vs, &v), 0);
	assert_int_equal(victims_stats(vs)->moved, 3);
	assert_int_equal(victims_next(vs, &v), 0);
	by_cwd = victims_stats(vs)->by_cwd;
	victims_free(vs);
	close(fd);
	scan_free(r);
	/* victims_enter() leaves the working directory in the cache. */
	assert_int_equal(fchdir(here), 0);
	close(here);
}

/*
 * DIR/cache moved away as a whole before the root's path was learnt: told
 * where the root must stay (victims_root_at), the iterator does not learn
 * the path it was moved to, and no victim is in place, by the working
 * directory's path or by a lookup from the root, though every directory
 * still resolves from the root it holds and another directory took the
 * path.  Moved back, they are (by the lookup: the path was not learnt).
 */
static void
test_victims_root_at(void **state)
{
	char p[PATH_MAX + 128], t[PATH_MAX + 128];
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	int fd, here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	obj("cache/Iv/@00/Da", now - 3 * DAY, 0);
	obj("cache/Iv/@01/Db", now - 2 * DAY, 0);
	r = scan(100, 1);
	fd = cache_fd();
	vs = victims_new(r, fd);
	at_top(p, sizeof(p), "cache");
	at_top(t, sizeof(t), "cache.moved");
	victims_root_at(vs, p);
	assert_int_equal(rename(p, t), 0);
	assert_int_equal(mkdir(p, 0700), 0);	/* another directory at the path */
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Da");
	assert_int_equal(victims_enter(vs, &v), 0);
	assert_int_equal(victims_in_place(vs, &v), 0);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rename(t, p), 0);
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Db");
	assert_int_equal(victims_enter(vs, &v), 1);
	assert_int_equal(victims_stats(vs)->by_cwd, 0);
	victims_free(vs);
	close(fd);
	scan_free(r);
	assert_int_equal(fchdir(here), 0);
	close(here);
}

/* With openat2 (one call opens a directory beneath the cache). */
static void
test_victims_in_place(void **state)
{
	(void)state;
	openat2_calls = 0;
	victims_in_place_cases();
	assert_true(openat2_calls > 0);
}

/*
 * The check where the cull happens: fchdir() into the directory, and its
 * path from the kernel (getcwd) settles the two victims in place without a
 * lookup; the moved and replaced ones are caught as before.
 */
static void
test_victims_enter(void **state)
{
	(void)state;
	in_place = victims_enter;
	victims_in_place_cases();
	in_place = victims_in_place;
	assert_int_equal(by_cwd, 2);
}

/*
 * Without it (before 5.6, or a seccomp filter): tried once, then the walk
 * component by component does the same.  Last: the fallback is for good.
 */
static void
test_victims_in_place_walk(void **state)
{
	(void)state;
	openat2_calls = 0;
	no_openat2 = 1;
	victims_in_place_cases();
	assert_true(openat2_calls <= 1);
}

/*
 * A directory found moved is let go: the next victim there is looked up
 * through the path again (the new directory), not in the one held, which
 * is outside the cache now.
 */
static void
test_victims_moved_dir_let_go(void **state)
{
	struct scan_result *r;
	struct victims *vs;
	struct victim v;
	char p[PATH_MAX + 128], t[PATH_MAX + 128];
	int fd;

	(void)state;
	obj("cache/Iv/@00/Da", now - 3 * DAY, 0);
	obj("cache/Iv/@00/Db", now - 2 * DAY, 0);
	obj("cache/Iv/@01/Dc", now - DAY, 0);
	r = scan(100, 1);
	fd = cache_fd();
	vs = victims_new(r, fd);
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Da");
	at_top(p, sizeof(p), "cache/Iv/@00");
	at_top(t, sizeof(t), "outside/@00.moved");
	assert_int_equal(rename(p, t), 0);
	obj("cache/Iv/@00/Db", now - 2 * DAY, 0);	/* another inode, same name */
	assert_int_equal(victims_in_place(vs, &v), 0);
	/* Db of the moved directory is never handed out; the new one is not the candidate. */
	assert_int_equal(victims_next(vs, &v), 1);
	assert_string_equal(v.name, "Dc");
	assert_int_equal(victims_stats(vs)->moved, 2);
	assert_int_equal(victims_in_place(vs, &v), 1);
	assert_int_equal(victims_next(vs, &v), 0);
	victims_free(vs);
	close(fd);
	scan_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_buckets),
		cmocka_unit_test_setup_teardown(test_volume_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_atimes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_volume_oldest_epoch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_early_snapshots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunks_stat_in_inode_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunks_out_of_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunks_big_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hands_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_never_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsendable_and_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_nesting_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_adapt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_dirs_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_identity_fallbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_many_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_dirs_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_adopt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_adopt_root_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_names_old_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dtype_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_swapped_during_scan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_root_at, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_enter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yield, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yield_mid_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_in_place_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_moved_dir_let_go, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
