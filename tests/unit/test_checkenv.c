// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_checkenv.c: the -t checks of the cache directory.  Whether a given
 * filesystem takes user.* attributes depends on the kernel, so the tests
 * compare the probe's verdict with an independent setxattr on the same
 * filesystem rather than assume an answer.  Mount-based cases (noatime,
 * read-only, ramfs) run when the test may mount, and are skipped otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/unit/skip.h"

#include "daemon/checkenv.h"
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PROBE "user.cachefilesd.probe"

/* log_warn and log_warnx are wrapped (test_checkenv.wrap): keep the lines. */
static char logged[8][1024];
static int nlogged;
/* log_info too, apart: what -t says about the path it will bind. */
static char said[8][1024];
static int nsaid;

static void
keep_in(char lines[][1024], int *count, const char *fmt, va_list ap, int with_errno)
{
	int saved = errno;
	char *line;
	int n;

	if (*count >= 8)
		return;
	line = lines[(*count)++];
	n = vsnprintf(line, sizeof(logged[0]), fmt, ap);
	if (with_errno && n >= 0 && (size_t)n < sizeof(logged[0]))
		snprintf(line + n, sizeof(logged[0]) - n, ": %s", strerror(saved));
	errno = saved;
}

static void
keep(const char *fmt, va_list ap, int with_errno)
{
	keep_in(logged, &nlogged, fmt, ap, with_errno);
}

void __wrap_log_warn(const char *fmt, ...);
void __wrap_log_warnx(const char *fmt, ...);
void __wrap_log_errx(const char *fmt, ...);
void __wrap_log_info(const char *fmt, ...);

void
__wrap_log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_in(said, &nsaid, fmt, ap, 0);
	va_end(ap);
}

void
__wrap_log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep(fmt, ap, 1);
	va_end(ap);
}

void
__wrap_log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep(fmt, ap, 0);
	va_end(ap);
}

/* A check that fails the start says so at error priority. */
void
__wrap_log_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep(fmt, ap, 0);
	va_end(ap);
}

static char top[] = "/tmp/test_checkenv.XXXXXX";

static int
check(const char *dir)
{
	struct config cfg;

	config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	nlogged = nsaid = 0;
	return checkenv(&cfg);
}

static void
path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", top, name);
}

/* Does dir take a user.* attribute?  0, or the errno of the attempt. */
static int
independent_probe(const char *dir)
{
	char p[256];
	int fd, err = 0;

	snprintf(p, sizeof(p), "%s/independent", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return errno;
	if (fsetxattr(fd, "user.test", "x", 1, 0) == -1)
		err = errno;
	close(fd);
	unlink(p);
	return err;
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(top) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_missing(void **state)
{
	char p[256], want[512];

	(void)state;
	path(p, sizeof(p), "missing");
	assert_int_equal(check(p), 1);
	assert_int_equal(nlogged, 1);
	snprintf(want, sizeof(want), "%s: stat: %s", p, strerror(ENOENT));
	assert_string_equal(logged[0], want);
}

static void
test_not_directory(void **state)
{
	char p[256], want[512];
	int fd;

	(void)state;
	path(p, sizeof(p), "file");
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(check(p), 1);
	assert_int_equal(nlogged, 1);
	snprintf(want, sizeof(want), "%s: not a directory", p);
	assert_string_equal(logged[0], want);
}

/* The verdict on dir agrees with an independent attempt; nothing is left. */
static void
expect_agreement(const char *dir)
{
	int err = independent_probe(dir), r;
	char buf[64];

	r = check(dir);
	if (err == 0) {
		assert_int_equal(r, 0);
	} else {
		assert_int_equal(r, 1);
		if (err == ENOTSUP)
			assert_non_null(strstr(logged[nlogged - 1],
					       "does not support user.* extended attributes"));
	}
	assert_int_equal(getxattr(dir, PROBE, buf, sizeof(buf)), -1);
	assert_true(errno == ENODATA || errno == ENOTSUP);
}

static void
test_directory(void **state)
{
	char p[256], link[256];

	(void)state;
	path(p, sizeof(p), "cache");
	assert_int_equal(mkdir(p, 0700), 0);
	expect_agreement(p);
	/* dir may be a symlink to the directory: the kernel follows it too. */
	path(link, sizeof(link), "link");
	assert_int_equal(symlink(p, link), 0);
	expect_agreement(link);
}

/*
 * The kernel binds the path with every link resolved (kernel_configure):
 * -t says which path that is, whether the link is the last component or
 * one further up, and says nothing of a path without links.
 */
static void
test_links_resolved(void **state)
{
	char real[200], above[200], p[256], link[256], want[1024];
	char *top_real;

	(void)state;
	top_real = realpath(top, NULL);
	assert_non_null(top_real);
	snprintf(real, sizeof(real), "%s/real", top_real);
	assert_int_equal(mkdir(real, 0700), 0);
	snprintf(p, sizeof(p), "%s/cache", real);
	assert_int_equal(mkdir(p, 0700), 0);
	/* A link further up. */
	path(above, sizeof(above), "above");
	assert_int_equal(symlink(real, above), 0);
	snprintf(link, sizeof(link), "%s/cache", above);
	expect_agreement(link);
	snprintf(want, sizeof(want), "%s: the daemon binds %s, its resolved path", link, p);
	assert_int_equal(nsaid, 1);
	assert_string_equal(said[0], want);
	/* The last component a link. */
	path(link, sizeof(link), "last");
	assert_int_equal(symlink(p, link), 0);
	expect_agreement(link);
	snprintf(want, sizeof(want), "%s is a symbolic link: the daemon binds %s", link, p);
	assert_int_equal(nsaid, 1);
	assert_string_equal(said[0], want);
	/* No link at all. */
	expect_agreement(p);
	assert_int_equal(nsaid, 0);
	free(top_real);
}

/* A link to nothing: one line, the cause, not a second one about stat. */
static void
test_dangling_link(void **state)
{
	char p[256], target[256], want[512];

	(void)state;
	path(target, sizeof(target), "nowhere");
	path(p, sizeof(p), "dangling");
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(check(p), 1);
	assert_int_equal(nlogged, 1);
	snprintf(want, sizeof(want), "%s: realpath: %s", p, strerror(ENOENT));
	assert_string_equal(logged[0], want);
}

/* Mount a filesystem on a new directory under top, or skip the test. */
static void
mount_or_skip(char *p, size_t size, const char *name, const char *type,
	      unsigned long flags, const char *data)
{
	path(p, size, name);
	assert_int_equal(mkdir(p, 0700), 0);
	if (mount("none", p, type, flags, data) == -1) {
		skip_why("cannot mount %s: %s", type, strerror(errno));
	}
}

static void
test_noatime(void **state)
{
	char p[256];
	int i, warned = 0;

	(void)state;
	mount_or_skip(p, sizeof(p), "noatime", "tmpfs", MS_NOATIME, "size=1m");
	expect_agreement(p);
	for (i = 0; i < nlogged; i++)
		warned |= strstr(logged[i], "mounted noatime") != NULL;
	umount(p);
	assert_true(warned);

	/* The same filesystem with atimes: no warning. */
	mount_or_skip(p, sizeof(p), "relatime", "tmpfs", MS_RELATIME, "size=1m");
	expect_agreement(p);
	for (i = 0; i < nlogged; i++)
		assert_null(strstr(logged[i], "noatime"));
	umount(p);
}

static void
test_read_only(void **state)
{
	char p[256], want[512];

	(void)state;
	mount_or_skip(p, sizeof(p), "ro", "tmpfs", MS_RDONLY, "size=1m");
	assert_int_equal(check(p), 1);
	umount(p);
	snprintf(want, sizeof(want), "%s: the filesystem is mounted read-only: the "
		 "kernel cannot create the cache there; remount it read-write or, "
		 "under systemd's ProtectSystem=, name it in the unit's "
		 "ReadWritePaths= (systemctl edit cachefilesd)", p);
	assert_int_equal(nlogged, 1);
	assert_string_equal(logged[0], want);
}

/* ramfs has no xattr handlers: the probe must say so and count an error. */
static void
test_no_xattr(void **state)
{
	char p[256], want[512];
	int err;

	(void)state;
	mount_or_skip(p, sizeof(p), "ramfs", "ramfs", 0, NULL);
	err = independent_probe(p);
	expect_agreement(p);
	umount(p);
	if (err != ENOTSUP) {
		skip_why("ramfs took a user xattr here (errno %d)", err);
	}
	snprintf(want, sizeof(want), "%s: the filesystem does not support user.* "
		 "extended attributes, which the kernel needs: bind would fail with "
		 "EOPNOTSUPP", p);
	assert_int_equal(nlogged, 1);
	assert_string_equal(logged[0], want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_not_directory),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_links_resolved),
		cmocka_unit_test(test_dangling_link),
		cmocka_unit_test(test_noatime),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_no_xattr),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
