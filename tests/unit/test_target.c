// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_target.c: deficit arithmetic and the size of the candidate table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/heap.h"
#include "cull/target.h"

#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static struct target
limits(uint64_t brun, uint64_t frun)
{
	struct target st;

	memset(&st, 0, sizeof(st));
	st.bavail = brun;
	st.ffree = frun;
	return st;
}

static struct fsfree
fs(uint64_t blocks, uint64_t bavail, uint64_t files, uint64_t ffree)
{
	struct fsfree f = { blocks, bavail, files, ffree, 4096 };

	return f;
}

static void
test_deficit(void **state)
{
	struct target st = limits(1000, 500);
	struct fsfree f = fs(10000, 600, 5000, 450);
	struct deficit d;

	(void)state;
	target_deficit(&st, &f, &d);
	assert_int_equal(d.blocks, 400);
	assert_int_equal(d.files, 50);
	assert_false(target_met(&st, &f));
	/* Both must be met: blocks alone is not enough. */
	f.bavail = 1000;
	assert_false(target_met(&st, &f));
	f.ffree = 500;
	assert_true(target_met(&st, &f));
	f.bavail = 999;
	assert_false(target_met(&st, &f));
	f.bavail = 5000;
	f.ffree = 4000;
	target_deficit(&st, &f, &d);
	assert_int_equal(d.blocks, 0);
	assert_int_equal(d.files, 0);
}

static void
test_floor(void **state)
{
	struct target st = limits(100, 100);
	struct fsfree f = fs(1000000, 900000, 1000000, 900000);

	(void)state;
	/* Nothing to free: the floor. */
	assert_int_equal(target_candidates(&st, &f, 1 << 20, 1000, 0), TARGET_FLOOR);
}

static void
test_blocks_deficit(void **state)
{
	/* 100,000 blocks of 4 KiB short = 400 MiB; objects of 1 MiB: 400 of them. */
	struct target st = limits(200000, 10);
	struct fsfree f = fs(10000000, 100000, 1000000, 900000);
	size_t k;

	(void)state;
	k = target_candidates(&st, &f, 1 << 20, 10000, 0);
	/* need 401, +25 %, +1 % of 10,000 objects, then the floor */
	assert_int_equal(k, TARGET_FLOOR);
	k = target_candidates(&st, &f, 4096, 10000, 0);
	/* 100,001 objects of 4 KiB: 100,001 + 25,000 + 100 */
	assert_int_equal(k, 100001 + 25000 + 100);
}

static void
test_files_deficit(void **state)
{
	struct target st = limits(10, 600000);
	struct fsfree f = fs(10000000, 9000000, 1000000, 100000);

	(void)state;
	/* 500,000 files short dominate a small block deficit. */
	assert_int_equal(target_candidates(&st, &f, 1 << 20, 0, 0),
			 500000 + 125000 + 9000);
}

static void
test_memory_cap(void **state)
{
	struct target st = limits(10, 600000);
	struct fsfree f = fs(10000000, 9000000, 1000000, 100000);

	(void)state;
	assert_int_equal(target_candidates(&st, &f, 1 << 20, 0, 1 << 20),
			 (1 << 20) / sizeof(struct cand));
	/* A cap below the floor wins: memory is the harder limit. */
	assert_int_equal(target_candidates(&st, &f, 1 << 20, 0, 1000),
			 1000 / sizeof(struct cand));
}

static void
test_mean_from_usage(void **state)
{
	/* Used: 1,000,000 blocks over 1,000 files = 1,000 blocks a file. */
	struct target st = limits(1100000, 10);
	struct fsfree f = fs(2000000, 1000000, 100000, 99000);

	(void)state;
	/* 100,000 blocks short / 1,000 blocks per object = 101 (rounded up). */
	assert_int_equal(target_candidates(&st, &f, 0, 0, 0), TARGET_FLOOR);
	st.bavail = 1000000 + 5000 * 1000;
	f.blocks = 100000000;
	f.bavail = f.blocks - 1000000;
	st.bavail = f.bavail + 10000000;
	/* 10,000,000 blocks short / 1,000 per object = 10,001, +2,500, +10 */
	assert_int_equal(target_candidates(&st, &f, 0, 0, 0), 10001 + 2500 + 10);
}

static void
test_no_overflow(void **state)
{
	struct target st = limits(UINT64_MAX, UINT64_MAX);
	struct fsfree f = fs(UINT64_MAX, 0, UINT64_MAX, 0);

	(void)state;
	f.bsize = UINT64_MAX / 2;
	assert_int_equal(target_candidates(&st, &f, 1, UINT64_MAX, 64ull << 20),
			 (64ull << 20) / sizeof(struct cand));
}

static void
test_fsfree(void **state)
{
	struct fsfree f;
	struct statvfs sv;
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(target_fsfree(fd, &f), 0);
	assert_int_equal(fstatvfs(fd, &sv), 0);
	assert_true(f.blocks == sv.f_blocks);
	assert_true(f.files == sv.f_files);
	assert_true(f.bsize > 0);
	close(fd);
	assert_int_equal(target_fsfree(-1, &f), -1);
}

/* The rank below which a sample's objects certainly must go. */
static void
test_early_rank(void **state)
{
	struct fsfree f = { .blocks = 1000000, .bavail = 500000, .files = 200000,
			    .ffree = 100000, .bsize = 4096 };
	struct deficit d = { 0, 10000 };	/* a tenth of the used files */
	uint64_t r;

	(void)state;
	assert_int_equal(target_early_rank(&d, &f, TARGET_EARLY_MIN_SAMPLE - 1, NULL), 0);
	/* q = 0.1, n = 10000: 1000 less sqrt(ln(200) / 2 * 10000) = 162.8 */
	r = target_early_rank(&d, &f, 10000, NULL);
	assert_in_range(r, 836, 838);
	/* A small sample says nothing sure: 25.6 less a margin of 26. */
	assert_int_equal(target_early_rank(&d, &f, 256, NULL), 0);
	/* The blocks deficit is a larger share: it rules. */
	d.blocks = 100000;	/* a fifth of the used blocks */
	r = target_early_rank(&d, &f, 10000, NULL);
	assert_in_range(r, 1836, 1838);
	assert_int_equal(target_early_rank(&d, &f, 300, NULL), 31);
	/* Nothing wanted, nothing certain. */
	d.blocks = d.files = 0;
	assert_int_equal(target_early_rank(&d, &f, 10000, NULL), 0);
	/* No inode counts (some filesystems): the blocks alone. */
	f.files = f.ffree = 0;
	d.files = 5;
	assert_int_equal(target_early_rank(&d, &f, 10000, NULL), 0);
	/* Everything must go: the whole sample less the margin. */
	f.files = 200000;
	f.ffree = 100000;
	d.files = 200000;
	r = target_early_rank(&d, &f, 10000, NULL);
	assert_in_range(r, 9836, 9838);
}

/*
 * The naming rank: 2 q n + eps n + 64, at least the certain rank, never
 * past the sample; nothing for a small sample or when nothing must go.
 */
static void
test_early_names(void **state)
{
	struct fsfree f = { .blocks = 1000000, .bavail = 500000, .files = 200000,
			    .ffree = 100000, .bsize = 4096 };
	struct deficit d = { 0, 10000 };	/* q = 0.1 */

	(void)state;
	assert_int_equal(target_early_names(&d, &f, TARGET_EARLY_MIN_SAMPLE - 1, NULL), 0);
	/* 2000 + 162.8 + 64 */
	assert_in_range(target_early_names(&d, &f, 10000, NULL), 2225, 2227);
	/* A small sample: 51.2 + 26.0 + 64, where the certain rank is 0. */
	assert_in_range(target_early_names(&d, &f, 256, NULL), 140, 142);
	/* The blocks deficit rules when larger, as for the certain rank. */
	d.blocks = 100000;
	assert_in_range(target_early_names(&d, &f, 10000, NULL), 4225, 4227);
	assert_true(target_early_names(&d, &f, 10000, NULL) >= target_early_rank(&d, &f, 10000, NULL));
	/* Never past the sample. */
	d.files = 150000;
	assert_int_equal(target_early_names(&d, &f, 10000, NULL), 10000);
	/* Nothing wanted: nothing to name. */
	d.blocks = d.files = 0;
	assert_int_equal(target_early_names(&d, &f, 10000, NULL), 0);
}

/*
 * The bound holds: uniform samples of a cache of N objects whose atimes
 * are their ranks; the objects each sample marks as certain must all be
 * older than the true cut-off in at least 99 % of the trials (DKW: 1 %).
 */
static void
test_early_rank_is_a_lower_bound(void **state)
{
	enum { N = 20000, TRIALS = 400 };
	static uint32_t pop[N];
	struct fsfree f = { .blocks = 1, .bavail = 1, .files = N, .ffree = 0, .bsize = 4096 };
	uint64_t x = 88172645463325252ull;
	unsigned trial, wrong = 0, useful = 0;
	size_t i;

	(void)state;
	for (trial = 0; trial < TRIALS; trial++) {
		size_t n = 500 + trial * 10, k = N / 10 + trial * 20, below = 0;
		struct deficit d = { 0, k };
		uint64_t r;

		for (i = 0; i < N; i++)
			pop[i] = (uint32_t)i;
		/* A uniform sample without replacement: the first n of a shuffle. */
		for (i = 0; i < n; i++) {
			size_t j;
			uint32_t t;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			j = i + (size_t)(x % (N - i));
			t = pop[i];
			pop[i] = pop[j];
			pop[j] = t;
		}
		r = target_early_rank(&d, &f, n, NULL);
		/* The sample's r oldest are those of rank < r; all must be under k. */
		for (i = 0; i < n; i++)
			below += pop[i] < k;
		useful += r > 0;
		if (r > below)
			wrong++;
	}
	assert_true(wrong <= TRIALS / 100);
	assert_true(useful > TRIALS / 2);
}

/* The cache's size bounded from a sample of its directories. */
static void
test_sample_max(void **state)
{
	/* 64 of 256 directories, 10 objects each: no spread, so 2560 exactly. */
	struct dir_sample s = { .dirs = 64, .known = 256, .n = 640, .n2 = 6400 };
	double b;

	(void)state;
	b = target_sample_max(&s, s.n, s.n2);
	assert_true(b > 2559.9 && b < 2560.1);
	/* Too few directories read: no bound. */
	s.dirs = TARGET_SAMPLE_MIN_DIRS - 1;
	s.n = 630;
	s.n2 = 6300;
	assert_true(target_sample_max(&s, s.n, s.n2) == 0);
	assert_true(target_sample_max(NULL, 1, 1) == 0);
	/* More read than known cannot be: no bound. */
	s.dirs = 257;
	assert_true(target_sample_max(&s, 2570, 25700) == 0);
	/*
	 * A spread: half the directories hold 0 objects, half 20 (mean 10,
	 * s = 10.08 over 64).  The bound is 256 * (10 + 4 * 10.08 / 8 *
	 * sqrt(1 - 64 / 256)) = 256 * 14.365 = 3677.
	 */
	s.dirs = 64;
	s.n = 640;
	s.n2 = 32 * 400;
	b = target_sample_max(&s, s.n, s.n2);
	assert_true(b > 3676 && b < 3679);
	/* Every directory read: the finite population leaves no doubt. */
	s.known = 64;
	b = target_sample_max(&s, s.n, s.n2);
	assert_true(b > 639.9 && b < 640.1);
}

/*
 * A filesystem that holds more than the cache: the sample's bound of the
 * cache's size certifies more of the sample than the used counts do, and
 * a bound above the used counts changes nothing.
 */
static void
test_early_rank_with_sample(void **state)
{
	/* 100,000 used files of which 10,000 are the cache's. */
	struct fsfree f = { .blocks = 1000000, .bavail = 500000, .files = 200000,
			    .ffree = 100000, .bsize = 4096 };
	struct deficit d = { 0, 1000 };
	struct dir_sample s = { .dirs = 64, .known = 256, .n = 2500, .n2 = 64 * 39.0625 * 39.0625 };
	uint64_t used_only, sampled;

	(void)state;
	used_only = target_early_rank(&d, &f, 2500, NULL);
	sampled = target_early_rank(&d, &f, 2500, &s);
	/* q = 1 % of the used files: 25 less a margin of 81, nothing. */
	assert_int_equal(used_only, 0);
	/* q = 10 % of the sample's 10,000: 250 less 81 = 169. */
	assert_in_range(sampled, 168, 170);
	/* Blocks: 40,000 bytes a directory, 16 MiB in all, a deficit of 400 blocks. */
	d.files = 0;
	d.blocks = 400;
	s.b = 64 * 40000.0 * 1024;
	s.b2 = 64 * (40000.0 * 1024) * (40000.0 * 1024);
	assert_int_equal(target_early_rank(&d, &f, 2500, NULL), 0);
	sampled = target_early_rank(&d, &f, 2500, &s);
	/* the cache: 256 * 40,000 KiB = 2,500,000 blocks, above the used 500,000 */
	assert_int_equal(sampled, 0);
	s.b = 64 * 4000.0 * 4096;
	s.b2 = 64 * (4000.0 * 4096) * (4000.0 * 4096);
	/* 1,024,000 blocks in 256 directories: no, 256 * 4000 = 1,024,000 > 500,000 used */
	assert_int_equal(target_early_rank(&d, &f, 2500, &s), 0);
	s.b = 64 * 100.0 * 4096;
	s.b2 = 64 * (100.0 * 4096) * (100.0 * 4096);
	/* 25,600 blocks: q = 400 / 25,600 = 1.56 %, 39 less 81: still nothing; more sample */
	assert_int_equal(target_early_rank(&d, &f, 2500, &s), 0);
	d.blocks = 4000;	/* q = 15.6 %: 390.6 less 81 = 309 */
	assert_in_range(target_early_rank(&d, &f, 2500, &s), 308, 310);
	assert_in_range(target_early_rank(&d, &f, 2500, NULL), 0, 0);
}

/*
 * The bound holds: directories of uneven sizes (a mix of small and large),
 * a random sample of them; the bound must be at least the true total in
 * nearly every trial (z = 4: the normal tail is 3e-5; the skewed sizes
 * make it worse, so allow 1 %).
 */
static void
test_sample_max_is_an_upper_bound(void **state)
{
	enum { M = 512, TRIALS = 1000 };
	static double size[M];
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned trial, below = 0, i;
	double total = 0;

	(void)state;
	for (i = 0; i < M; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* most directories hold about 400, one in 16 about 4,000 */
		size[i] = (double)(x % 16 == 0 ? 3000 + x % 2000 : 300 + x % 200);
		total += size[i];
	}
	for (trial = 0; trial < TRIALS; trial++) {
		struct dir_sample s = { .dirs = TARGET_SAMPLE_MIN_DIRS + trial % 400, .known = M };
		static unsigned idx[M];

		for (i = 0; i < M; i++)
			idx[i] = i;
		for (i = 0; i < s.dirs; i++) {
			unsigned j, t;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			j = i + (unsigned)(x % (M - i));
			t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
			s.n += size[idx[i]];
			s.n2 += size[idx[i]] * size[idx[i]];
		}
		if (target_sample_max(&s, s.n, s.n2) < total)
			below++;
	}
	print_message("bound below the total in %u of %u trials\n", below, TRIALS);
	assert_true(below <= TRIALS / 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deficit),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_blocks_deficit),
		cmocka_unit_test(test_files_deficit),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_mean_from_usage),
		cmocka_unit_test(test_no_overflow),
		cmocka_unit_test(test_fsfree),
		cmocka_unit_test(test_early_rank),
		cmocka_unit_test(test_early_names),
		cmocka_unit_test(test_early_rank_is_a_lower_bound),
		cmocka_unit_test(test_sample_max),
		cmocka_unit_test(test_early_rank_with_sample),
		cmocka_unit_test(test_sample_max_is_an_upper_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
