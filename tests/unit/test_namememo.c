// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_namememo.c: the name memo keeps the first name given for each
 * (directory, inode), tells the same inode number in two directories
 * apart, never hands out a name that does not fit, stays within
 * NAMEMEMO_MAX objects and NAMEMEMO_BYTES of names, finds keys whose
 * probe runs past the table's last slot, and takes names from several
 * threads at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/namememo.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void
test_first_name_kept(void **state)
{
	struct namememo *m = namememo_new();
	char buf[64];

	(void)state;
	/* A new memo names nothing, and wants nothing named. */
	assert_int_equal(namememo_below(m), 0);
	assert_int_equal(namememo_get(m, 1, 10, buf, sizeof(buf)), 0);
	namememo_set_below(m, 12345);
	assert_int_equal(namememo_below(m), 12345);
	namememo_add(m, 1, 10, "Done");
	namememo_add(m, 1, 10, "Dsecond");	/* the first name stays */
	namememo_add(m, 2, 10, "Dtwo");		/* same inode number, another directory */
	assert_int_equal(namememo_get(m, 1, 10, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "Done");
	assert_int_equal(namememo_get(m, 2, 10, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "Dtwo");
	assert_int_equal(namememo_get(m, 1, 11, buf, sizeof(buf)), 0);
	assert_int_equal(namememo_get(m, 3, 10, buf, sizeof(buf)), 0);
	assert_int_equal(namememo_count(m), 2);
	/* A buffer too small gets nothing, not a truncated name. */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(namememo_get(m, 1, 10, buf, 4), 0);
	assert_int_equal(buf[0], 'x');
	assert_int_equal(namememo_get(m, 1, 10, buf, 5), 1);
	assert_string_equal(buf, "Done");
	assert_int_equal(namememo_get(NULL, 1, 10, buf, sizeof(buf)), 0);
	namememo_free(m);
	namememo_free(NULL);
}

/* Bounded in objects: adds past NAMEMEMO_MAX are dropped; the names kept stay right. */
static void
test_bounded_objects(void **state)
{
	struct namememo *m = namememo_new();
	char name[32], buf[32];
	uint64_t i;

	(void)state;
	for (i = 0; i < NAMEMEMO_MAX + 100; i++) {
		snprintf(name, sizeof(name), "D%llu", (unsigned long long)i);
		namememo_add(m, (uint32_t)(i % 300), i, name);
	}
	assert_int_equal(namememo_count(m), NAMEMEMO_MAX);
	for (i = 0; i < NAMEMEMO_MAX + 100; i++) {
		int got = namememo_get(m, (uint32_t)(i % 300), i, buf, sizeof(buf));

		if (i >= NAMEMEMO_MAX) {
			assert_int_equal(got, 0);
			continue;
		}
		snprintf(name, sizeof(name), "D%llu", (unsigned long long)i);
		assert_int_equal(got, 1);
		assert_string_equal(buf, name);
	}
	namememo_free(m);
}

/* Bounded in bytes: long names stop at NAMEMEMO_BYTES, well before NAMEMEMO_MAX objects. */
static void
test_bounded_bytes(void **state)
{
	struct namememo *m = namememo_new();
	char name[255], buf[256];	/* 255 bytes with the NUL: 64 left at the end */
	size_t fit = NAMEMEMO_BYTES / sizeof(name), i;

	(void)state;
	memset(name, 'E', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < fit + 50; i++)
		namememo_add(m, 7, i, name);
	assert_int_equal(namememo_count(m), fit);
	assert_int_equal(namememo_get(m, 7, fit - 1, buf, sizeof(buf)), 1);
	assert_string_equal(buf, name);
	assert_int_equal(namememo_get(m, 7, fit, buf, sizeof(buf)), 0);
	/* A short name still fits where a long one did not. */
	namememo_add(m, 8, 1, "D");
	assert_int_equal(namememo_get(m, 8, 1, buf, sizeof(buf)), 1);
	namememo_free(m);
}

/* Names of exactly NAMEMEMO_BYTES all fit; then not one byte more. */
static void
test_bytes_exactly(void **state)
{
	struct namememo *m = namememo_new();
	char name[256], buf[256];	/* 256 bytes with the NUL: a divisor of the bound */
	size_t fit = NAMEMEMO_BYTES / sizeof(name), i;

	(void)state;
	assert_int_equal(fit * sizeof(name), NAMEMEMO_BYTES);
	memset(name, 'E', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < fit; i++)
		namememo_add(m, 7, i, name);
	assert_int_equal(namememo_count(m), fit);
	assert_int_equal(namememo_get(m, 7, fit - 1, buf, sizeof(buf)), 1);
	assert_string_equal(buf, name);
	namememo_add(m, 8, 1, "");	/* one byte, its NUL */
	assert_int_equal(namememo_count(m), fit);
	assert_int_equal(namememo_get(m, 8, 1, buf, sizeof(buf)), 0);
	namememo_free(m);
}

/*
 * The home slot of a key, as namememo.c computes it (white box: the keys
 * below must collide at the table's last slot for the probe to wrap).
 */
static size_t
home_of(uint32_t dir, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)dir << 40) ^ dir) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (2 * NAMEMEMO_MAX - 1);
}

/* The n-th inode number from 'from' on whose key (dir, ino) homes at slot. */
static uint64_t
ino_homed_at(uint32_t dir, size_t slot, uint64_t from)
{
	uint64_t ino;

	for (ino = from;; ino++)
		if (home_of(dir, ino) == slot)
			return ino;
}

/*
 * Three keys homed at the last slot take it and then slots 0 and 1; a key
 * homed at slot 0 then probes past both wrapped ones.  Each is found under
 * its own name, and one never added is not (its probe crosses the end too).
 * Under ASan a probe that ran off the end would be a heap overflow.
 */
static void
test_probe_wraps(void **state)
{
	const size_t last = 2 * NAMEMEMO_MAX - 1;
	struct namememo *m = namememo_new();
	uint64_t ino[5];
	char name[32], buf[32];
	int i;

	(void)state;
	ino[0] = ino_homed_at(3, last, 1);
	ino[1] = ino_homed_at(3, last, ino[0] + 1);
	ino[2] = ino_homed_at(3, last, ino[1] + 1);
	ino[3] = ino_homed_at(3, 0, 1);
	ino[4] = ino_homed_at(3, last, ino[2] + 1);	/* never added */
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "Dwrap%d", i);
		namememo_add(m, 3, ino[i], name);
	}
	assert_int_equal(namememo_count(m), 4);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "Dwrap%d", i);
		assert_int_equal(namememo_get(m, 3, ino[i], buf, sizeof(buf)), 1);
		assert_string_equal(buf, name);
	}
	assert_int_equal(namememo_get(m, 3, ino[4], buf, sizeof(buf)), 0);
	/* The first name stays for a wrapped key too. */
	namememo_add(m, 3, ino[2], "Dother");
	assert_int_equal(namememo_get(m, 3, ino[2], buf, sizeof(buf)), 1);
	assert_string_equal(buf, "Dwrap2");
	assert_int_equal(namememo_count(m), 4);
	namememo_free(m);
}

struct adder {
	struct namememo *m;
	uint32_t dir;
};

static void *
add_many(void *arg)
{
	const struct adder *a = arg;
	char name[32];
	uint64_t i;

	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "D%u-%llu", a->dir, (unsigned long long)i);
		namememo_add(a->m, a->dir, i, name);
	}
	return NULL;
}

/* Four workers add while this thread reads: every name lands, each under its own key. */
static void
test_threads(void **state)
{
	struct namememo *m = namememo_new();
	struct adder a[4];
	pthread_t t[4];
	char name[32], buf[32];
	uint64_t i;
	unsigned w;

	(void)state;
	for (w = 0; w < 4; w++) {
		a[w].m = m;
		a[w].dir = w;
		assert_int_equal(pthread_create(&t[w], NULL, add_many, &a[w]), 0);
	}
	for (i = 0; i < 5000; i++)
		(void)namememo_get(m, (uint32_t)(i % 4), i, buf, sizeof(buf));
	for (w = 0; w < 4; w++)
		pthread_join(t[w], NULL);
	assert_int_equal(namememo_count(m), 20000);
	for (w = 0; w < 4; w++)
		for (i = 0; i < 5000; i += 499) {
			snprintf(name, sizeof(name), "D%u-%llu", w, (unsigned long long)i);
			assert_int_equal(namememo_get(m, w, i, buf, sizeof(buf)), 1);
			assert_string_equal(buf, name);
		}
	namememo_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_name_kept),
		cmocka_unit_test(test_bounded_objects),
		cmocka_unit_test(test_bounded_bytes),
		cmocka_unit_test(test_bytes_exactly),
		cmocka_unit_test(test_probe_wraps),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
