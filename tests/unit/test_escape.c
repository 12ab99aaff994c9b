// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_escape.c: the one helper that makes outside text fit for the log.
 * Expected strings are written out by hand, not computed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/escape.h"

#include <string.h>

static void
test_plain(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(escape_text("Dplain-name,1 ~", out, sizeof(out)), 15);
	assert_string_equal(out, "Dplain-name,1 ~");
	assert_int_equal(escape_text("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void
test_escapes(void **state)
{
	char out[64];

	(void)state;
	/* A newline cannot start a forged line. */
	assert_string_equal(escaped("Dx\ncachefilesd: FORGED", out, sizeof(out)),
			    "Dx\\012cachefilesd: FORGED");
	/* Backslash, tab, DEL, a byte above 0x7f, ESC, the first and last control bytes. */
	assert_string_equal(escaped("a\\b\tc\x7f\xe9", out, sizeof(out)),
			    "a\\134b\\011c\\177\\351");
	assert_string_equal(escaped("\x1b[0m\x01\x1f\xff", out, sizeof(out)),
			    "\\033[0m\\001\\037\\377");
	/* Space and tilde are the ends of what passes as is. */
	assert_string_equal(escaped(" ~", out, sizeof(out)), " ~");
}

static void
test_truncation(void **state)
{
	char out[64];

	(void)state;
	/* Never cut inside an escape, always terminated, and says where it stopped. */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(escape_text("abc\ndef", out, 6), 3);
	assert_string_equal(out, "abc");
	memset(out, 'Z', sizeof(out));
	assert_int_equal(escape_text("abc\ndef", out, 8), 4);
	assert_string_equal(out, "abc\\012");
	/* One byte short of an escape and its NUL: nothing written past size. */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(escape_text("abc\n", out, 7), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(out[7], 'Z');
	memset(out, 'Z', sizeof(out));
	assert_int_equal(escape_text("abcdefgh", out, 4), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(escape_text("abc", out, 4), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(escape_text("x", out, 1), 0);
	assert_string_equal(out, "");
	/* ESCAPE_SIZE(n) holds n bytes that all need escaping. */
	assert_int_equal(ESCAPE_SIZE(3), 13);
	assert_int_equal(escape_text("\n\n\n", out, ESCAPE_SIZE(3)), 3);
	assert_string_equal(out, "\\012\\012\\012");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
