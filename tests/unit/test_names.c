// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_names.c: which entries are data objects, which directories the
 * walker enters, and which names a "cull NAME" command can carry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/names.h"

#include <limits.h>
#include <string.h>

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

static int
ok(const char *s)
{
	return names_sendable(s, strlen(s));
}

static void
test_sendable(void **state)
{
	char big[NAME_MAX + 2];

	(void)state;
	assert_true(ok("Dabc"));
	assert_true(ok("Dtrailing space "));
	assert_false(ok(""));
	assert_false(ok("."));
	assert_false(ok(".."));
	assert_false(ok("D/x"));
	assert_false(ok("Dline\nbreak"));
	assert_false(ok(" Dleading"));
	assert_false(ok("\tDtab"));
	memset(big, 'D', sizeof(big));
	big[NAME_MAX] = '\0';
	assert_true(ok(big));
	big[NAME_MAX] = 'x';
	big[NAME_MAX + 1] = '\0';
	assert_false(ok(big));
	/* An embedded NUL inside the given length is refused too. */
	assert_false(names_sendable("D\0x", 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_sendable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
