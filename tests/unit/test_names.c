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

static void
test_escape(void **state)
{
	char out[64];

	(void)state;
	names_escape("Dplain-name,1", out, sizeof(out));
	assert_string_equal(out, "Dplain-name,1");
	names_escape("Dx\ncachefilesd: FORGED", out, sizeof(out));
	assert_string_equal(out, "Dx\\012cachefilesd: FORGED");
	names_escape("a\\b\tc\x7f\xe9", out, sizeof(out));
	assert_string_equal(out, "a\\134b\\011c\\177\\351");
	/* Truncated, never cut inside an escape, always terminated. */
	names_escape("abc\ndef", out, 6);
	assert_string_equal(out, "abc");
	names_escape("abcdefgh", out, 4);
	assert_string_equal(out, "abc");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_sendable),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
