// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_log.c: debug levels.  A message of level N appears when the daemon
 * runs with at least N -d, and never with fewer.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
