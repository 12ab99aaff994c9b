// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_names.c: which entries are data objects and which directories the
 * walker enters (which names a command can carry: test_kcmd.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/names.h"

static void
test_kinds(void **state)
{
	(void)state;
	assert_int_equal(names_kind("Dabc"), NAME_DATA);
	assert_int_equal(names_kind("E0abc"), NAME_DATA);
	assert_int_equal(names_kind("S1a2b,,ff"), NAME_DATA);
	assert_int_equal(names_kind("T1a2b"), NAME_DATA);
	assert_int_equal(names_kind("Infs,4.2"), NAME_DIR);
	assert_int_equal(names_kind("J0123"), NAME_DIR);
	assert_int_equal(names_kind("@4a"), NAME_DIR);
	assert_int_equal(names_kind("+abc"), NAME_DIR);
	/* A bare letter is no object; unknown letters are never touched. */
	assert_int_equal(names_kind("D"), NAME_OTHER);
	assert_int_equal(names_kind("@"), NAME_OTHER);
	assert_int_equal(names_kind("Xfoo"), NAME_OTHER);
	assert_int_equal(names_kind("dlower"), NAME_OTHER);
	assert_int_equal(names_kind(""), NAME_OTHER);
	assert_int_equal(names_kind(".hidden"), NAME_OTHER);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
