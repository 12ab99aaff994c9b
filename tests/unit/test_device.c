// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_device.c: the device transport's module loading.  execve() is
 * replaced by a stand-in (in the forked child) that records what would
 * have run and fails, so nothing is loaded: modprobe is looked for only
 * at fixed absolute paths, with a fixed PATH, never through the caller's.
 * The warning says why no modprobe ran: not found anywhere, or found and
 * refused (a security policy, NoNewPrivileges), naming the path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/channel.h"
#include "kernel/transport.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char record[64] = "/tmp/test_device.XXXXXX";

/*
 * What the stand-in does at each of the four places, in the order tried:
 * fail with exec_err[i] (0: ENOENT), or, at real_at, run a real shell that
 * exits with status 127, as a modprobe that ran and failed would.  Set
 * before the fork; the child has its own copy.
 */
static int exec_err[4];
static int real_at = -1;
static int exec_calls;
static int recording;	/* the calls go to record (test_modprobe_fixed_paths) */

int __wrap_execve(const char *path, char *const argv[], char *const envp[]);
int __real_execve(const char *path, char *const argv[], char *const envp[]);

int
__wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	static char sh[] = "sh", c[] = "-c", exit127[] = "exit 127";
	char *const shargv[] = { sh, c, exit127, NULL };
	FILE *f = recording ? fopen(record, "a") : NULL;
	int i = exec_calls++;

	if (f != NULL) {
		struct sigaction sa;

		sigaction(SIGPIPE, NULL, &sa);
		fprintf(f, "%s %s %s %s%s\n", path, argv[1], argv[2],
			envp[0] != NULL ? envp[0] : "-",
			sa.sa_handler == SIG_IGN ? " SIGPIPE-ignored" : "");
		fclose(f);
	}
	if (i == real_at)
		return __real_execve("/bin/sh", shargv, envp);
	errno = i < 4 && exec_err[i] != 0 ? exec_err[i] : ENOENT;
	return -1;
}

/* Run the load with the stand-in set up as asked, stderr (the log) caught in buf. */
static void
load_caught(const int err[4], int real, char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO), n;

	assert_non_null(f);
	assert_true(saved >= 0);
	memcpy(exec_err, err, sizeof(exec_err));
	real_at = real;
	exec_calls = 0;
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	log_init("test_device", 1, 0);
	assert_int_equal(ktransport_device.load(KERNEL_DEVICE), 1);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = (int)fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
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
	recording = 1;
	setenv("PATH", "/tmp/evil:/usr/bin", 1);
	/* As in the daemon: modprobe must not inherit an ignored SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(ktransport_device.load(KERNEL_DEVICE), 1);
	signal(SIGPIPE, SIG_DFL);
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
	recording = 0;
}

/* Every place ENOENT: "not found", as before. */
static void
test_modprobe_absent(void **state)
{
	const int err[4] = { 0, 0, 0, 0 };
	char buf[1024];

	(void)state;
	load_caught(err, -1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "modprobe not found in /sbin, /usr/sbin, /bin or /usr/bin"));
}

/*
 * The unit's NoNewPrivileges=yes under SELinux: the exec into kmod_t is
 * refused with EPERM at the first place (and at the others, which on a
 * merged /usr are the same file).  Not "not found": the path and the
 * reason, and what to do.
 */
static void
test_modprobe_refused_nnp(void **state)
{
	const int err[4] = { EPERM, EPERM, ENOENT, EPERM };
	char buf[1024];

	(void)state;
	load_caught(err, -1, buf, sizeof(buf));
	assert_null(strstr(buf, "not found"));
	assert_non_null(strstr(buf, "modprobe: /sbin/modprobe: Operation not permitted "
				    "(a security policy or NoNewPrivileges may forbid it); "
				    "load the module with modprobe cachefiles"));
}

/* A policy (AppArmor, SELinux without NNP) refusing with EACCES at the second place. */
static void
test_modprobe_refused_policy(void **state)
{
	const int err[4] = { ENOENT, EACCES, ENOENT, ENOENT };
	char buf[1024];

	(void)state;
	load_caught(err, -1, buf, sizeof(buf));
	assert_null(strstr(buf, "not found"));
	assert_non_null(strstr(buf, "modprobe: /usr/sbin/modprobe: Permission denied "
				    "(a security policy or NoNewPrivileges may forbid it)"));
}

/* Another reason (a broken binary): named as it is, without the policy hint. */
static void
test_modprobe_other_error(void **state)
{
	const int err[4] = { ENOEXEC, 0, 0, 0 };
	char buf[1024];

	(void)state;
	load_caught(err, -1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "modprobe: /sbin/modprobe: Exec format error; "
				    "load the module with modprobe cachefiles"));
	assert_null(strstr(buf, "security policy"));
	assert_null(strstr(buf, "not found"));
}

/*
 * Refused at the first place, run at the second, and that modprobe exits
 * with 127 itself: its status is reported, not the refusal an exec that
 * succeeded made moot.
 */
static void
test_modprobe_ran_after_refusal(void **state)
{
	const int err[4] = { EACCES, 0, 0, 0 };
	char buf[1024];

	(void)state;
	load_caught(err, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "modprobe cachefiles exited with status 127"));
	assert_null(strstr(buf, "Permission denied"));
	assert_null(strstr(buf, "not found"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modprobe_fixed_paths),
		cmocka_unit_test(test_modprobe_absent),
		cmocka_unit_test(test_modprobe_refused_nnp),
		cmocka_unit_test(test_modprobe_refused_policy),
		cmocka_unit_test(test_modprobe_other_error),
		cmocka_unit_test(test_modprobe_ran_after_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
