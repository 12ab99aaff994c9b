// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_util.c: the leaf helpers whose edge cases matter elsewhere: access
 * times saturate rather than wrap (an atime after 2554 must not sort as the
 * oldest object in the cache).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/util.h"

#include <time.h>

static uint64_t
ns(int64_t s, long nsec)
{
	struct timespec ts = { (time_t)s, nsec };

	return timespec_ns(&ts);
}

static void
test_timespec_ns(void **state)
{
	(void)state;
	assert_int_equal(ns(0, 5), 5);
	assert_int_equal(ns(1, 0), 1000000000ull);
	assert_int_equal(ns(1700000000, 123), 1700000000000000123ull);
	/* Before the epoch: the oldest possible. */
	assert_int_equal(ns(-1, 999999999), 0);
	/* The last representable instant, in 2554, and just past it. */
	assert_int_equal(ns(18446744073, 709551615), UINT64_MAX);
	assert_int_equal(ns(18446744073, 0), 18446744073000000000ull);
	assert_int_equal(ns(18446744073, 709551616), UINT64_MAX);
	/* Year 2603 (tmpfs stores it): newest, never wrapped to "long ago". */
	assert_int_equal(ns(20000000000, 0), UINT64_MAX);
	assert_true(ns(20000000000, 0) > ns(1700000000, 0));
}

static void
test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_u64("42", 10, 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_u64("101", 10, 0, 100, &v), -1);
	assert_int_equal(parse_u64("4x", 10, 0, 100, &v), -1);
	assert_int_equal(parse_u64("", 10, 0, 100, &v), -1);
	assert_int_equal(parse_u64("0x10", 0, 0, 100, &v), 0);
	assert_int_equal(v, 16);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timespec_ns),
		cmocka_unit_test(test_parse_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
