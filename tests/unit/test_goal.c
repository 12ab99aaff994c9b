// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_goal.c: goals resolved into free counts and cut-offs, with expected
 * values worked out by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/goal.h"

#include <string.h>

#define S 1000000000ull		/* ns per second */

static const struct fsfree fs = {
	.blocks = 1050, .bavail = 100, .files = 500, .ffree = 40, .bsize = 4096,
};
static const struct target run = { 210, 75 };

static void
test_resolve(void **state)
{
	struct goal g;
	struct goal_active a;

	(void)state;
	g.kind = GOAL_RUN_LIMITS;
	g.value = 0;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 210);
	assert_int_equal(a.t.ffree, 75);
	assert_int_equal(a.since_ms, 7);
	/* 10 % of 1050 blocks is 105; 33 % is 346.5, rounded up. */
	g.kind = GOAL_FREE_PCT;
	g.value = 10;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 105);
	assert_int_equal(a.t.ffree, 0);
	g.value = 33;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 347);
	g.value = 100;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 1050);
	/* 10000 bytes more is three 4 KiB blocks beyond the 100 free now. */
	g.kind = GOAL_BYTES;
	g.value = 10000;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 103);
	g.value = 8192;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.t.bavail, 102);
	/* Older than 100 s at 1000 s: used before 900 s. */
	g.kind = GOAL_OLDER_THAN;
	g.value = 100;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.before_ns, 900 * S);
	/* Older than the epoch itself: nothing qualifies. */
	g.value = 2000;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 7, &a), 0);
	assert_int_equal(a.before_ns, 0);
}

static void
test_invalid(void **state)
{
	struct goal g = { GOAL_FREE_PCT, 101 };
	struct goal_active a;

	(void)state;
	assert_int_equal(goal_resolve(&g, &fs, &run, S, 0, &a), -1);
	g.value = 0;
	assert_int_equal(goal_resolve(&g, &fs, &run, S, 0, &a), -1);
	g.kind = GOAL_BYTES;
	assert_int_equal(goal_resolve(&g, &fs, &run, S, 0, &a), -1);
	g.kind = GOAL_OLDER_THAN;
	assert_int_equal(goal_resolve(&g, &fs, &run, S, 0, &a), -1);
	g.kind = (enum goal_kind)42;
	g.value = 1;
	assert_int_equal(goal_resolve(&g, &fs, &run, S, 0, &a), -1);
}

static void
test_met_and_accepts(void **state)
{
	struct goal g = { GOAL_BYTES, 4096 };
	struct goal_active a;
	struct fsfree f = fs;

	(void)state;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 0, &a), 0);
	assert_false(goal_met(&a, &f, 0));
	f.bavail = 101;
	assert_true(goal_met(&a, &f, 0));
	/* A size goal takes any object, oldest first, until it is met. */
	assert_true(goal_wants(&a, &fs, 999 * S));
	assert_false(goal_wants(&a, &f, 1 * S));
	/* Free files count too when the target names them. */
	g.kind = GOAL_RUN_LIMITS;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 0, &a), 0);
	f.bavail = 210;
	f.ffree = 74;
	assert_false(goal_met(&a, &f, 0));
	f.ffree = 75;
	assert_true(goal_met(&a, &f, 0));
	/* An age goal: met when the oldest left is young enough, or none is left. */
	g.kind = GOAL_OLDER_THAN;
	g.value = 100;
	assert_int_equal(goal_resolve(&g, &fs, &run, 1000 * S, 0, &a), 0);
	assert_false(goal_met(&a, &fs, 899 * S));
	assert_true(goal_met(&a, &fs, 900 * S));
	assert_true(goal_met(&a, &fs, 0));
	assert_true(goal_wants(&a, &fs, 899 * S));
	assert_false(goal_wants(&a, &fs, 900 * S));
}

static void
test_describe(void **state)
{
	struct goal g = { GOAL_FREE_PCT, 80 };
	char buf[64];

	(void)state;
	assert_string_equal(goal_describe(&g, buf, sizeof(buf)), "free 80%");
	g.kind = GOAL_OLDER_THAN;
	g.value = 86400;
	assert_string_equal(goal_describe(&g, buf, sizeof(buf)), "older-than 86400s");
	g.kind = GOAL_RUN_LIMITS;
	assert_string_equal(goal_describe(&g, buf, sizeof(buf)), "to-run");
	g.kind = GOAL_BYTES;
	g.value = 1024;
	assert_string_equal(goal_describe(&g, buf, sizeof(buf)), "bytes 1024");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_met_and_accepts),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
