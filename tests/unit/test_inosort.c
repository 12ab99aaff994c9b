// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_inosort.c: the scan's inode-order sort sorts by inode number, keeps
 * equal numbers in their order, and loses no record, whatever bytes of the
 * keys vary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/inosort.h"

#include <stdlib.h>

static uint64_t seed = 2026;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* The reference: by inode number, then by position in (stability). */
static int
ref_cmp(const void *a, const void *b)
{
	const struct inoent *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* n records, inode numbers base + (random & mask); off = position. */
static void
check(size_t n, uint64_t base, uint64_t mask)
{
	struct inoent *v = calloc(n + 1, sizeof(*v)), *tmp = calloc(n + 1, sizeof(*tmp));
	struct inoent *ref = calloc(n + 1, sizeof(*ref));
	size_t i;

	assert_non_null(v);
	assert_non_null(tmp);
	assert_non_null(ref);
	for (i = 0; i < n; i++) {
		v[i].ino = base + (rnd() & mask);
		v[i].off = (uint32_t)i;
		ref[i] = v[i];
	}
	qsort(ref, n, sizeof(*ref), ref_cmp);
	inosort(v, tmp, n);
	for (i = 0; i < n; i++) {
		assert_true(v[i].ino == ref[i].ino);
		assert_int_equal(v[i].off, ref[i].off);
	}
	free(v);
	free(tmp);
	free(ref);
}

static void
test_small(void **state)
{
	(void)state;
	check(0, 0, 0);
	check(1, 7, 0xff);
	check(2, 0, 0xffff);
	check(31, 1000, 0xfff);
	check(32, 1000, 0xfff);
	check(33, 1000, 0xfff);
	check(24, 5, 0x3);	/* equal numbers below the radix sort's threshold */
}

/* A fan-out directory: numbers close together, two or three bytes vary. */
static void
test_directory_like(void **state)
{
	(void)state;
	check(780, 5000000, 0xfffff);
	check(21845, 123456789, 0xffffff);
}

/* Every byte varies, including the top one (a 64-bit inode space). */
static void
test_all_bytes(void **state)
{
	(void)state;
	check(5000, 0, UINT64_MAX);
	check(64, UINT64_MAX - 300, 0xff);
}

/* Many equal numbers: order among them is the input's. */
static void
test_stable(void **state)
{
	(void)state;
	check(4000, 42, 0x3);
	check(4000, 1ull << 40, 0x100000000ull | 0x1);
	check(500, 99, 0);
}

/* Only a high byte varies: the low bytes' constant passes are skipped. */
static void
test_high_byte_only(void **state)
{
	(void)state;
	check(3000, 0x1234, 0xff00000000000000ull);
	check(3000, 0, 0x0000ff0000ff0000ull);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_directory_like),
		cmocka_unit_test(test_all_bytes),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_high_byte_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
