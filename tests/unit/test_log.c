// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_log.c: debug levels.  A message of level N appears when the daemon
 * runs with at least N -d, and never with fewer.  A control byte in a
 * line (a path from the configuration) is written escaped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run log_debug(level) with the daemon at debug, stderr caught; 1 if it was printed. */
static int
printed(int debug, int level)
{
	char buf[256] = "";
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO), n;

	assert_non_null(f);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	log_init("test_log", 1, debug);
	log_debug(level, "message at level %d", level);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, "message at level") != NULL;
}

static void
test_debug_levels(void **state)
{
	(void)state;
	assert_int_equal(printed(0, 1), 0);
	assert_int_equal(printed(1, 1), 1);
	assert_int_equal(printed(1, 2), 0);
	assert_int_equal(printed(2, 2), 1);
	assert_int_equal(printed(2, 3), 0);
	assert_int_equal(printed(3, 1), 1);
	assert_int_equal(log_get_debug(), 3);
}

/* log_info(fmt, arg) with stderr caught, into buf. */
static void
caught(const char *arg, char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO), n;

	assert_non_null(f);
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	log_init("test_log", 1, 0);
	log_info("on %s.", arg);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = (int)fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
}

static void
test_controls_escaped(void **state)
{
	char buf[256];

	(void)state;
	caught("/srv/a\nb\tc\033[2J\x7f", buf, sizeof(buf));
	assert_string_equal(buf, "test_log: on /srv/a\\012b\\011c\\033[2J\\177.\n");
	/* Escaped already, or UTF-8: as it is. */
	caught("/srv/\\012 \xc3\xbc", buf, sizeof(buf));
	assert_string_equal(buf, "test_log: on /srv/\\012 \xc3\xbc.\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_levels),
		cmocka_unit_test(test_controls_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
