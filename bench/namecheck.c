// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * namecheck: the price of checking that a cache name can be sent in a cull
 * command, the way the scan did it before 6cd78d8 (strlen(), then
 * kcmd_name_ok() with three memchr()), against kcmd_name_len() (one plain
 * loop over the bytes) and kcmd_name_len_in() (eight bytes a step within a
 * record's room, the way the scan does it now).  Prints one line for each:
 *
 *   bench=namecheck way=strlen+memchr names=N passes=P ns_per_name=T
 *   bench=namecheck way=one-pass names=N passes=P ns_per_name=T
 *   bench=namecheck way=words names=N passes=P ns_per_name=T
 *
 * The VM benchmark's CPU is emulated (QEMU TCG, qemu64), where glibc's SSE2
 * string functions cost far more than on the host.  Run it natively, then
 * under user-mode emulation with that CPU (Debian package qemu-user):
 *
 *   build/bench/namecheck
 *   qemu-x86_64 -cpu qemu64 build/bench/namecheck
 */
#include "bench/gen.h"
#include "lib/kcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NAMES 200000
#define NAME_LEN 96
#define PASSES 5

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One way over every name PASSES times; the count keeps the calls alive. */
enum way { STRLEN_MEMCHR, ONE_PASS, WORDS };

static size_t
check(enum way how, const char *name)
{
	switch (how) {
	case STRLEN_MEMCHR:
		return (size_t)kcmd_name_ok(name, strlen(name));
	case ONE_PASS:
		return kcmd_name_len(name) != 0;
	default:
		return kcmd_name_len_in(name, NAME_LEN) != 0;
	}
}

static void
run(const char *way, const char (*names)[NAME_LEN], enum way how)
{
	double t0 = now_s(), t;
	unsigned long ok = 0;
	int p, i;

	for (p = 0; p < PASSES; p++)
		for (i = 0; i < NAMES; i++)
			ok += check(how, names[i]);
	t = now_s() - t0;
	if (ok != (unsigned long)NAMES * PASSES) {
		fprintf(stderr, "namecheck: %s: a generated name was refused\n", way);
		exit(1);
	}
	printf("bench=namecheck way=%s names=%d passes=%d ns_per_name=%.1f\n",
	       way, NAMES, PASSES, t * 1e9 / ((double)NAMES * PASSES));
}

int
main(void)
{
	char (*names)[NAME_LEN] = calloc(NAMES, NAME_LEN);
	int i;

	if (names == NULL)
		gen_die("namecheck", "calloc", "names");
	for (i = 0; i < NAMES; i++)
		make_name(names[i], NAME_LEN, (uint64_t)i * 7919);
	run("strlen+memchr", (const char (*)[NAME_LEN])names, STRLEN_MEMCHR);
	run("one-pass", (const char (*)[NAME_LEN])names, ONE_PASS);
	run("words", (const char (*)[NAME_LEN])names, WORDS);
	free(names);
	return 0;
}
