// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kcmd.c: the kernel's command length and which names a "cull NAME"
 * command can carry.  Expected values are written out, not computed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/kcmd.h"

#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Both entry points, which must agree on a NUL-terminated name. */
static int
ok(const char *s)
{
	int r = kcmd_name_ok(s, strlen(s));

	assert_int_equal(kcmd_name_len(s), r ? strlen(s) : 0);
	return r;
}

static void
test_limit(void **state)
{
	(void)state;
	/* PAGE_SIZE - 1 on 4 KiB pages. */
	assert_int_equal(KCMD_MAX, 4095);
}

static void
test_good(void **state)
{
	(void)state;
	assert_true(ok("Dabc"));
	assert_true(ok("Dtrailing space "));
	assert_true(ok("D inner\tblank"));
	assert_true(ok("x"));
	assert_true(ok("..."));
	assert_true(ok(".hidden"));
	assert_true(ok("..x"));
	assert_true(ok(".h"));
	assert_true(ok("D."));
	assert_true(ok("D\x01\x7f\xe9"));	/* other bytes are the kernel's business */
	/* Only len bytes count. */
	assert_true(kcmd_name_ok("Dabc/def", 4));
}

static void
test_bad(void **state)
{
	(void)state;
	assert_false(ok(""));
	assert_false(ok("."));
	assert_false(ok(".."));
	assert_false(ok("D/x"));
	assert_false(ok("/"));
	assert_false(ok("Dline\nbreak"));
	assert_false(ok("Dends\n"));
	assert_false(ok(" Dleading"));
	assert_false(ok("\tDtab"));
	assert_false(ok("\nD"));
	assert_false(ok("\vD"));
	assert_false(ok("\fD"));
	assert_false(ok("\rD"));
	/* An embedded NUL inside the given length. */
	assert_false(kcmd_name_ok("D\0x", 3));
	assert_false(kcmd_name_ok("..\0", 3));
	/* "." and ".." as the first len bytes. */
	assert_false(kcmd_name_ok("..", 1));
	assert_false(kcmd_name_ok(".x", 1));
	assert_false(kcmd_name_ok("..x", 2));
}

static void
test_length(void **state)
{
	char big[300];

	(void)state;
	/* NAME_MAX is 255 on Linux: 255 bytes go, 256 do not. */
	memset(big, 'D', sizeof(big));
	big[255] = '\0';
	assert_true(ok(big));
	big[255] = 'x';
	big[256] = '\0';
	assert_false(ok(big));
	assert_false(kcmd_name_ok(big, 4091));
	/* Without a length: the 256th byte is where it stops. */
	big[256] = 'x';
	big[299] = '\0';
	assert_int_equal(kcmd_name_len(big), 0);
	big[255] = '\0';
	assert_int_equal(kcmd_name_len(big), 255);
	assert_int_equal(kcmd_name_len("Dabc"), 4);
	assert_int_equal(kcmd_name_len("Dabc/def"), 0);
}

/*
 * A name too long is refused without reading past NAME_MAX + 1 bytes: the
 * bytes here end at an unreadable page, with no NUL and a length that
 * claims more.
 */
static void
test_no_read_past_limit(void **state)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *name;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + pg, pg, PROT_NONE), 0);
	name = m + pg - (NAME_MAX + 1);
	memset(name, 'D', NAME_MAX + 1);
	assert_int_equal(kcmd_name_len(name), 0);
	assert_false(kcmd_name_ok(name, 4096));
	munmap(m, 2 * pg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_no_read_past_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
