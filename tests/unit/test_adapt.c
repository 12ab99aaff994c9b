// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_adapt.c: the scan's worker count.  It starts at the CPUs (within
 * the maximum), grows by one per window while the workers are blocked at
 * least as long as they compute, shrinks by one per window while they
 * queue for a CPU at least as long, never leaves [1, max], decides only
 * on whole windows, and gives up measuring (every worker) when the kernel
 * reports no CPU time or there is nothing to measure with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/adapt.h"

#define MS (1000ull * 1000)

static void
test_start(void **state)
{
	struct adapt a;

	(void)state;
	adapt_init(&a, 4, 1, 1);
	assert_int_equal(a.mode, ADAPT_MEASURING);
	assert_int_equal(a.active, 1);
	adapt_init(&a, 4, 16, 1);
	assert_int_equal(a.active, 4);
	adapt_init(&a, 4, 2, 1);
	assert_int_equal(a.active, 2);
	/* Nothing to measure with, or the CPUs unknown: every worker, fixed. */
	adapt_init(&a, 4, 1, 0);
	assert_int_equal(a.mode, ADAPT_FIXED);
	assert_int_equal(a.active, 4);
	assert_int_equal(adapt_sample(&a, 1 * MS, 0, 900 * MS), 0);
	assert_int_equal(a.active, 4);
	adapt_init(&a, 4, 0, 1);
	assert_int_equal(a.mode, ADAPT_FIXED);
	adapt_init(&a, 0, 4, 1);
	assert_int_equal(a.active, 1);
}

/* On a slow disk: one more each window, up to the maximum, then no more. */
static void
test_grows_while_blocked(void **state)
{
	struct adapt a;
	int i;

	(void)state;
	adapt_init(&a, 4, 1, 1);
	/* Half a window decides nothing. */
	assert_int_equal(adapt_sample(&a, 20 * MS, 0, 60 * MS), 0);
	assert_int_equal(a.active, 1);
	assert_int_equal(adapt_sample(&a, 20 * MS, 0, 60 * MS), 0);
	assert_int_equal(a.active, 1);
	/* The window fills: blocked 150 ms against 50 on a CPU. */
	assert_int_equal(adapt_sample(&a, 10 * MS, 0, 30 * MS), 1);
	assert_int_equal(a.active, 2);
	/* Exactly as long blocked as computing is enough. */
	assert_int_equal(adapt_sample(&a, 100 * MS, 0, 100 * MS), 1);
	assert_int_equal(a.active, 3);
	for (i = 0; i < 5; i++)
		adapt_sample(&a, 50 * MS, 10 * MS, 200 * MS);
	assert_int_equal(a.active, 4);
	assert_int_equal(adapt_sample(&a, 50 * MS, 0, 200 * MS), 0);
	assert_int_equal(a.active, 4);
	/* At the maximum, queueing too: still the disk's, no worker goes. */
	assert_int_equal(adapt_sample(&a, 50 * MS, 200 * MS, 200 * MS), 0);
	assert_int_equal(a.active, 4);
}

/* Queueing for CPUs with little disk time: one fewer each window, down to one. */
static void
test_shrinks_while_queueing(void **state)
{
	struct adapt a;
	int i;

	(void)state;
	adapt_init(&a, 8, 4, 1);
	assert_int_equal(adapt_sample(&a, 100 * MS, 100 * MS, 1 * MS), 0);
	assert_int_equal(a.active, 3);
	for (i = 0; i < 5; i++)
		assert_int_equal(adapt_sample(&a, 60 * MS, 150 * MS, 0), 0);
	assert_int_equal(a.active, 1);
	/* Queueing and blocked both: the disk rules, a worker more. */
	assert_int_equal(adapt_sample(&a, 60 * MS, 150 * MS, 70 * MS), 1);
	assert_int_equal(a.active, 2);
}

/* Busy on a CPU, little else: the count stays. */
static void
test_steady_when_computing(void **state)
{
	struct adapt a;
	int i;

	(void)state;
	adapt_init(&a, 4, 2, 1);
	for (i = 0; i < 10; i++)
		assert_int_equal(adapt_sample(&a, 180 * MS, 30 * MS, 20 * MS), 0);
	assert_int_equal(a.active, 2);
	assert_int_equal(a.mode, ADAPT_MEASURING);
}

/* No CPU time in a whole window: the numbers say nothing; every worker. */
static void
test_no_cpu_time_gives_up(void **state)
{
	struct adapt a;

	(void)state;
	adapt_init(&a, 4, 1, 1);
	assert_int_equal(adapt_sample(&a, 0, 0, 300 * MS), 1);
	assert_int_equal(a.mode, ADAPT_FIXED);
	assert_int_equal(a.active, 4);
	assert_int_equal(adapt_sample(&a, 10 * MS, 500 * MS, 0), 0);
	assert_int_equal(a.active, 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start),
		cmocka_unit_test(test_grows_while_blocked),
		cmocka_unit_test(test_shrinks_while_queueing),
		cmocka_unit_test(test_steady_when_computing),
		cmocka_unit_test(test_no_cpu_time_gives_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
