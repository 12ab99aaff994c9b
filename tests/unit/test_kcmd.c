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

/*
 * kcmd_name_len_in() against kcmd_name_len() on a name put in a record of
 * room bytes, the bytes after its NUL filled with fill.
 */
static void
agree(const char *name, size_t room, char fill)
{
	char rec[NAME_MAX + 64];
	size_t len = strlen(name);

	assert_true(room <= sizeof(rec));
	memset(rec, fill, sizeof(rec));
	memcpy(rec, name, len < room ? len + 1 : room);
	if (len < room)
		assert_int_equal(kcmd_name_len_in(rec, room), kcmd_name_len(name));
	else	/* no end within room */
		assert_int_equal(kcmd_name_len_in(rec, room), 0);
}

static void
test_len_in_agrees(void **state)
{
	static const char *const names[] = {
		"Dabc", "x", "...", ".h", "..x", "D.", "D\x01\x7f\xe9", "Dtrailing space ",
		"", ".", "..", "D/x", "/", "Dline\nbreak", "Dends\n", " Dleading", "\tDtab",
		"\nD", "\rD", "D1234567", "D12345678", "D123456/", "D1234567\n",
	};
	char name[NAME_MAX + 2];
	size_t i, len, at, room;
	const char bad[] = { '/', '\n' };

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (room = 0; room <= strlen(names[i]) + 17; room++) {
			agree(names[i], room, 'x');
			agree(names[i], room, '\n');
		}
	/* Every length up to NAME_MAX + 1, and a bad byte at every place. */
	for (len = 1; len <= NAME_MAX + 1; len++) {
		memset(name, 'D', len);
		name[len] = '\0';
		agree(name, len + 1 + len % 9, '/');
		for (at = 1; at < len; at++)
			for (i = 0; i < sizeof(bad); i++) {
				name[at] = bad[i];
				agree(name, len + 1, 'x');
				name[at] = 'D';
			}
	}
}

/* Nothing at or past room is read, even when no NUL comes before it. */
static void
test_len_in_room(void **state)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), room;
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + pg, pg, PROT_NONE), 0);
	end = m + pg;
	for (room = 0; room <= 40; room++) {
		memset(end - room, 'D', room);
		assert_int_equal(kcmd_name_len_in(end - room, room), 0);
		if (room > 1) {
			end[-1] = '\0';
			assert_int_equal(kcmd_name_len_in(end - room, room), room - 1);
		}
	}
	/* A room claiming more than NAME_MAX + 1 bytes: no more are read. */
	memset(end - (NAME_MAX + 1), 'D', NAME_MAX + 1);
	assert_int_equal(kcmd_name_len_in(end - (NAME_MAX + 1), 4096), 0);
	end[-1] = '\0';
	assert_int_equal(kcmd_name_len_in(end - (NAME_MAX + 1), 4096), NAME_MAX);
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
		cmocka_unit_test(test_len_in_agrees),
		cmocka_unit_test(test_len_in_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
