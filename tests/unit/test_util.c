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

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

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

/* TERM and INT held, as during the daemon's start; none pending. */
static void
hold_stop_signals(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
}

static void
test_nap_sleeps(void **state)
{
	uint64_t t0;

	(void)state;
	hold_stop_signals();
	t0 = now_ms();
	assert_int_equal(nap_unless_stopped(120), 0);
	assert_true(now_ms() - t0 >= 120);
	assert_false(stop_pending());
}

static void
test_nap_stop_already_pending(void **state)
{
	uint64_t t0;

	(void)state;
	hold_stop_signals();
	raise(SIGTERM);
	assert_true(stop_pending());
	t0 = now_ms();
	assert_int_equal(nap_unless_stopped(5000), -1);
	assert_true(now_ms() - t0 < 1000);
	/* Left pending for the exit path to see. */
	assert_true(stop_pending());
	hold_stop_signals();
	assert_false(stop_pending());
}

static void *
interrupt_later(void *arg)
{
	struct timespec ts = { 0, 150 * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	kill(getpid(), SIGINT);
	return NULL;
}

static void
test_nap_stop_arrives(void **state)
{
	pthread_t t;
	uint64_t t0, took;

	(void)state;
	hold_stop_signals();
	t0 = now_ms();
	assert_int_equal(pthread_create(&t, NULL, interrupt_later, NULL), 0);
	assert_int_equal(nap_unless_stopped(5000), -1);
	took = now_ms() - t0;
	pthread_join(t, NULL);
	assert_true(took >= 100 && took < 2000);
	assert_true(stop_pending());
	hold_stop_signals();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timespec_ns),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_nap_sleeps),
		cmocka_unit_test(test_nap_stop_already_pending),
		cmocka_unit_test(test_nap_stop_arrives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
