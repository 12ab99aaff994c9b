// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_namememo.c: the name memo keeps the names of wanted objects only,
 * the first name found for each, and no more than NAMEMEMO_MAX objects.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/namememo.h"

#include <stdio.h>

static void
test_wanted_only(void **state)
{
	struct namememo *m = namememo_new();

	(void)state;
	/* Nothing allocated yet: nothing found, offers ignored. */
	namememo_offer(m, 1, 10, "Dearly");
	assert_null(namememo_find(m, 1, 10));
	namememo_want(m, 1, 10);
	namememo_want(m, 2, 10);	/* the same inode number in another directory */
	assert_null(namememo_find(m, 1, 10));
	namememo_offer(m, 1, 11, "Dother");	/* not wanted */
	namememo_offer(m, 3, 10, "Delsewhere");
	assert_null(namememo_find(m, 1, 11));
	assert_null(namememo_find(m, 3, 10));
	namememo_offer(m, 1, 10, "Done");
	namememo_offer(m, 1, 10, "Dsecond");	/* the first name stays */
	assert_string_equal(namememo_find(m, 1, 10), "Done");
	assert_null(namememo_find(m, 2, 10));
	namememo_offer(m, 2, 10, "Dtwo");
	assert_string_equal(namememo_find(m, 2, 10), "Dtwo");
	assert_string_equal(namememo_find(m, 1, 10), "Done");
	/* Wanted again once named: the name stays. */
	namememo_want(m, 1, 10);
	assert_string_equal(namememo_find(m, 1, 10), "Done");
	assert_null(namememo_find(NULL, 1, 10));
	namememo_free(m);
	namememo_free(NULL);
}

/* Bounded: wants past NAMEMEMO_MAX are dropped; the names kept stay right. */
static void
test_bounded(void **state)
{
	struct namememo *m = namememo_new();
	char name[32];
	uint64_t i;

	(void)state;
	for (i = 0; i < NAMEMEMO_MAX + 100; i++)
		namememo_want(m, (uint32_t)(i % 300), i);
	for (i = 0; i < NAMEMEMO_MAX + 100; i++) {
		snprintf(name, sizeof(name), "D%llu", (unsigned long long)i);
		namememo_offer(m, (uint32_t)(i % 300), i, name);
	}
	for (i = 0; i < NAMEMEMO_MAX + 100; i++) {
		const char *nm = namememo_find(m, (uint32_t)(i % 300), i);

		if (i >= NAMEMEMO_MAX) {
			assert_null(nm);
			continue;
		}
		snprintf(name, sizeof(name), "D%llu", (unsigned long long)i);
		assert_non_null(nm);
		assert_string_equal(nm, name);
	}
	namememo_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wanted_only),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
