// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_heap.c: the bounded candidate heap keeps exactly the oldest records
 * (atime, then inode) and sorts them oldest first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/heap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t seed = 12345;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/*
 * The order the heap must keep, written here rather than taken from heap.c
 * (cand_cmp is what is under test): older atime first, then the smaller
 * inode, then the smaller directory index.
 */
static int
ref_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	uint64_t ax = cand_atime(x), ay = cand_atime(y);
	uint64_t ix = cand_ino(x), iy = cand_ino(y);

	if (ax != ay)
		return ax < ay ? -1 : 1;
	if (ix != iy)
		return ix < iy ? -1 : 1;
	return (x->dir > y->dir) - (x->dir < y->dir);
}

static void
assert_same_cand(const struct cand *a, const struct cand *b)
{
	assert_true(cand_atime(a) == cand_atime(b));
	assert_true(cand_ino(a) == cand_ino(b));
	assert_int_equal(a->dir, b->dir);
}

/* Offer n random records to a heap of cap; compare with a sorted reference. */
static void
check_against_sort(size_t n, size_t cap, uint64_t atime_range)
{
	struct cand *all = calloc(n ? n : 1, sizeof(*all));
	struct heap h;
	size_t i, keep = n < cap ? n : cap;

	heap_init(&h, cap);
	for (i = 0; i < n; i++) {
		cand_set(&all[i], rnd() % atime_range, rnd() % 1000000, (uint32_t)(rnd() % 300));
		heap_offer(&h, &all[i]);
	}
	assert_int_equal(h.n, keep);
	heap_sort_oldest_first(&h);
	qsort(all, n, sizeof(*all), ref_cmp);
	for (i = 0; i < keep; i++)
		assert_same_cand(&h.v[i], &all[i]);
	heap_free(&h);
	free(all);
}

static void
test_keeps_oldest(void **state)
{
	(void)state;
	check_against_sort(10000, 100, 1000000000);
	check_against_sort(10000, 4096, 1000000000);
	check_against_sort(50, 4096, 1000000000);
	check_against_sort(1, 1, 10);
	check_against_sort(0, 10, 10);
}

static void
test_ties(void **state)
{
	(void)state;
	/* Few distinct atimes: the inode number decides. */
	check_against_sort(20000, 500, 7);
}

/* Sorting adversarial orders: ascending, descending, all equal. */
static void
test_sort_orders(void **state)
{
	struct heap h;
	struct cand c;
	size_t i, n = 20000;
	int pass;

	(void)state;
	for (pass = 0; pass < 3; pass++) {
		heap_init(&h, n);
		for (i = 0; i < n; i++) {
			uint64_t at = pass == 0 ? i : pass == 1 ? n - i : 42;
			cand_set(&c, at, pass == 2 ? 7 : i % 13, 0);
			h.v[h.n++] = c;	/* raw order, not a heap: the sort must not care */
		}
		heap_sort_oldest_first(&h);
		for (i = 1; i < n; i++)
			assert_true(ref_cmp(&h.v[i - 1], &h.v[i]) <= 0);
		heap_free(&h);
	}
}

/*
 * Only the k oldest to the front (what an early snapshot's taker asks):
 * they come sorted and are exactly the k first of a full sort; the rest
 * follow in any order but none of them is older.  Random records with many
 * ties, and the orders that break a naive quickselect.
 */
static void
check_select(size_t n, size_t k, int order)
{
	struct cand *all = calloc(n ? n : 1, sizeof(*all));
	struct heap h;
	size_t i, want = k < n ? k : n;

	heap_init(&h, n ? n : 1);
	for (i = 0; i < n; i++) {
		uint64_t at = order == 0 ? rnd() % 5000 : order == 1 ? i : n - i;
		cand_set(&all[i], at, rnd() % 50, (uint32_t)(rnd() % 7));
		h.v[h.n++] = all[i];
	}
	heap_sort_oldest(&h, k);
	qsort(all, n, sizeof(*all), ref_cmp);
	for (i = 0; i < want; i++)
		assert_same_cand(&h.v[i], &all[i]);
	for (i = want; want > 0 && i < n; i++)
		assert_true(ref_cmp(&h.v[i], &h.v[want - 1]) >= 0);
	/* Nothing lost or duplicated: the whole, sorted, is the reference. */
	heap_sort_oldest_first(&h);
	for (i = 0; i < n; i++)
		assert_same_cand(&h.v[i], &all[i]);
	heap_free(&h);
	free(all);
}

static void
test_select_oldest(void **state)
{
	static const size_t ks[] = { 0, 1, 2, 16, 17, 100, 4999, 5000, 9999, 10000, 20000 };
	size_t i;
	int order;

	(void)state;
	for (order = 0; order < 3; order++)
		for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			check_select(10000, ks[i], order);
	check_select(10, 3, 0);
	check_select(0, 3, 0);
}

/*
 * A cut-off by rank (what an early table's name bound asks), and a sort
 * that reuses what is known: v[0..from) already the oldest in order, and
 * v[0..within) known to hold the oldest.  The record of rank i lands at i,
 * nothing before it is younger and nothing after it older; the known
 * sorted front is not moved; the sort past it agrees with a full sort.
 */
static void
check_rank(size_t n, size_t from, size_t i, size_t k, int order)
{
	struct cand *all = calloc(n, sizeof(*all)), *v = calloc(n, sizeof(*v));
	size_t j, within = i + 1;

	for (j = 0; j < n; j++) {
		uint64_t at = order == 0 ? rnd() % 3000 : order == 1 ? j : n - j;
		cand_set(&all[j], at, rnd() % 40, (uint32_t)(rnd() % 5));
	}
	memcpy(v, all, n * sizeof(*v));
	qsort(all, n, sizeof(*all), ref_cmp);
	/* The sorted front as a caller leaves it: the from oldest, in order. */
	if (from > 0) {
		struct heap h = { v, n, n };

		heap_sort_oldest(&h, from);
	}
	cands_select_rank(v, n, from, i);
	assert_same_cand(&v[i], &all[i]);
	for (j = 0; j < from; j++)
		assert_same_cand(&v[j], &all[j]);
	for (j = 0; j < i; j++)
		assert_true(ref_cmp(&v[j], &v[i]) <= 0);
	for (j = i + 1; j < n; j++)
		assert_true(ref_cmp(&v[j], &v[i]) >= 0);
	/* Now only v[0..i + 1) need be looked at for the k <= i + 1 oldest. */
	cands_sort_oldest(v, within, from, k);
	for (j = 0; j < k; j++)
		assert_same_cand(&v[j], &all[j]);
	/* Nothing lost or duplicated. */
	qsort(v, n, sizeof(*v), ref_cmp);
	for (j = 0; j < n; j++)
		assert_same_cand(&v[j], &all[j]);
	free(v);
	free(all);
}

static void
test_select_rank(void **state)
{
	size_t i;
	int order;

	(void)state;
	for (order = 0; order < 3; order++) {
		check_rank(5000, 0, 0, 1, order);
		check_rank(5000, 0, 4999, 100, order);
		check_rank(5000, 0, 2000, 900, order);
		check_rank(5000, 300, 2000, 900, order);
		check_rank(5000, 300, 2000, 2001, order);
		check_rank(5000, 1000, 1000, 1001, order);
		check_rank(20, 3, 7, 5, order);
		check_rank(1, 0, 0, 1, order);
	}
	/* Every rank of a small array, where a pivot often lands next to it. */
	for (i = 0; i < 300; i++)
		check_rank(300, i / 3, i, i / 2 + 1, 0);
}

/* A small case with the expected result written out: ties on atime and inode. */
static void
test_hand_order(void **state)
{
	static const struct { uint64_t at, ino; uint32_t dir; } in[] = {
		{ 50, 3, 0 }, { 10, 9, 1 }, { 10, 2, 2 }, { 70, 1, 0 },
		{ 30, 5, 3 }, { 10, 2, 1 }, { 90, 4, 0 }, { 30, 4, 0 },
	}, want[] = {
		{ 10, 2, 1 }, { 10, 2, 2 }, { 10, 9, 1 }, { 30, 4, 0 }, { 30, 5, 3 },
	};
	struct heap h;
	struct cand c;
	size_t i;

	(void)state;
	heap_init(&h, 5);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		cand_set(&c, in[i].at, in[i].ino, in[i].dir);
		heap_offer(&h, &c);
	}
	assert_int_equal(h.n, 5);
	/* The root of the max-heap is the youngest kept: (30, 5, 3). */
	assert_true(cand_atime(&h.v[0]) == 30 && cand_ino(&h.v[0]) == 5);
	/* Younger than the root: refused; older: taken. */
	assert_int_equal(heap_wants(&h, 30, 6), 0);
	assert_int_equal(heap_wants(&h, 30, 4), 1);
	heap_sort_oldest_first(&h);
	for (i = 0; i < 5; i++) {
		assert_true(cand_atime(&h.v[i]) == want[i].at);
		assert_true(cand_ino(&h.v[i]) == want[i].ino);
		assert_int_equal(h.v[i].dir, want[i].dir);
	}
	heap_free(&h);
}

static void
test_cap_zero(void **state)
{
	struct heap h;
	struct cand c;

	(void)state;
	heap_init(&h, 0);
	cand_set(&c, 1, 1, 0);
	assert_int_equal(heap_offer(&h, &c), 0);
	assert_int_equal(heap_wants(&h, 0, 0), 0);
	assert_int_equal(h.n, 0);
	heap_free(&h);
}

static void
test_wants_matches_offer(void **state)
{
	struct heap h;
	struct cand c;
	int i;

	(void)state;
	heap_init(&h, 64);
	for (i = 0; i < 5000; i++) {
		uint64_t at = rnd() % 100000, ino = rnd() % 50;
		int w = heap_wants(&h, at, ino);
		cand_set(&c, at, ino, 0);
		assert_int_equal(heap_offer(&h, &c), w);
	}
	heap_free(&h);
}

/*
 * After every offer, each record is no older than its children, for caps
 * whose last parent has one child and two: a replaced root climbs back to
 * its place, and the root stays the youngest kept.
 */
static void
test_heap_property(void **state)
{
	static const size_t caps[] = { 1, 2, 3, 4, 255, 256 };
	struct heap h;
	struct cand c;
	size_t k, i, j;

	(void)state;
	for (k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		heap_init(&h, caps[k]);
		for (i = 0; i < 4000; i++) {
			cand_set(&c, rnd() % 100000, rnd() % 50, (uint32_t)(rnd() % 7));
			heap_offer(&h, &c);
			for (j = 1; j < h.n; j++)
				assert_true(ref_cmp(&h.v[(j - 1) / 2], &h.v[j]) >= 0);
		}
		heap_free(&h);
	}
}

static void
test_record_size(void **state)
{
	struct cand c;

	(void)state;
	/* The whole point: well under 32 bytes, names not included. */
	assert_true(sizeof(struct cand) <= 20);
	cand_set(&c, 0xfedcba9876543210ull, 0x0123456789abcdefull, 77);
	assert_true(cand_atime(&c) == 0xfedcba9876543210ull);
	assert_true(cand_ino(&c) == 0x0123456789abcdefull);
	assert_int_equal(c.dir, 77);
}

/*
 * Records culled elsewhere come out of a sorted table, matched by atime and
 * inode: the keys in any order (a busy object culled on a retry, after
 * younger ones), one not in the table, one with a reused inode number but
 * another atime (a younger object: it stays), and a table of which only
 * the front is touched (the rest moved down whole, in order).
 */
static void
test_drop_keys(void **state)
{
	struct cand v[200];
	struct cand_key keys[] = {
		{ 1005, 5 }, { 1001, 1 }, { 1003, 3 },	/* out of order */
		{ 1000, 999 },				/* not in the table */
		{ 1007, 150 },				/* inode 150, another atime */
		{ 1000, 0 },
	};
	size_t i, n;

	(void)state;
	for (i = 0; i < 200; i++)
		cand_set(&v[i], 1000 + i, i, (uint32_t)i % 7);
	n = cands_drop_keys(v, 200, keys, sizeof(keys) / sizeof(keys[0]));
	assert_int_equal(n, 196);
	/* Left: 2, 4, 6, 7, ... 199, in order. */
	assert_int_equal(cand_ino(&v[0]), 2);
	assert_int_equal(cand_ino(&v[1]), 4);
	for (i = 2; i < n; i++) {
		assert_int_equal(cand_ino(&v[i]), i + 4);
		assert_int_equal(cand_atime(&v[i]), 1004 + i);
		assert_int_equal(v[i].dir, (i + 4) % 7);
	}
	/* The keys are sorted now. */
	for (i = 1; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(keys[i - 1].atime_ns <= keys[i].atime_ns);
	/* No key, nothing taken. */
	assert_int_equal(cands_drop_keys(v, n, keys, 0), n);
	assert_int_equal(cand_ino(&v[0]), 2);
	/* Keys newest first: sorted too. */
	{
		struct cand_key rev[] = { { 1010, 10 }, { 1008, 8 } };

		assert_int_equal(cands_drop_keys(v, n, rev, 2), n - 2);
		assert_int_equal(cand_ino(&v[2]), 6);
		assert_int_equal(cand_ino(&v[3]), 7);
		assert_int_equal(cand_ino(&v[4]), 9);
		assert_int_equal(cand_ino(&v[5]), 11);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_oldest),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_sort_orders),
		cmocka_unit_test(test_select_oldest),
		cmocka_unit_test(test_select_rank),
		cmocka_unit_test(test_hand_order),
		cmocka_unit_test(test_cap_zero),
		cmocka_unit_test(test_wants_matches_offer),
		cmocka_unit_test(test_heap_property),
		cmocka_unit_test(test_record_size),
		cmocka_unit_test(test_drop_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
