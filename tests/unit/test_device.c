// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_device.c: the device transport's module loading.  execve() is
 * replaced by a stand-in (in the forked child) that records what would
 * have run and fails, so nothing is loaded: modprobe is looked for only
 * at fixed absolute paths, with a fixed PATH, never through the caller's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/channel.h"
#include "kernel/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char record[64] = "/tmp/test_device.XXXXXX";

int __wrap_execve(const char *path, char *const argv[], char *const envp[]);

int
__wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	FILE *f = fopen(record, "a");

	if (f != NULL) {
		fprintf(f, "%s %s %s %s\n", path, argv[1], argv[2],
			envp[0] != NULL ? envp[0] : "-");
		fclose(f);
	}
	errno = ENOENT;
	return -1;
}

static void
test_modprobe_fixed_paths(void **state)
{
	char line[512];
	const char *want[] = { "/sbin/modprobe", "/usr/sbin/modprobe", "/bin/modprobe",
			       "/usr/bin/modprobe" };
	FILE *f;
	int fd, n = 0;

	(void)state;
	fd = mkstemp(record);
	assert_true(fd >= 0);
	close(fd);
	setenv("PATH", "/tmp/evil:/usr/bin", 1);
	assert_int_equal(ktransport_device.load(KERNEL_DEVICE), 1);
	f = fopen(record, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char expect[256];

		assert_true(n < 4);
		snprintf(expect, sizeof(expect), "%s -q cachefiles PATH=/usr/sbin:/usr/bin:/sbin:/bin\n",
			 want[n]);
		assert_string_equal(line, expect);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 4);
	/* Another path is not the device: nothing is run at all. */
	assert_int_equal(truncate(record, 0), 0);
	assert_int_equal(ktransport_device.load("/tmp/not-the-device"), 0);
	f = fopen(record, "r");
	assert_non_null(f);
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(record);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modprobe_fixed_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
