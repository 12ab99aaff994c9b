// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_samefile.c: a path still names the file held, or says why not:
 * another file there (errno 0), none (stat's errno), a symbolic link to it
 * (not followed: another file).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/samefile.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct tree {
	char dir[64];
	int dirfd;
	int fd;			/* "a", held open */
};

static int
setup(void **state)
{
	static struct tree t;

	snprintf(t.dir, sizeof(t.dir), "/tmp/test_samefile.XXXXXX");
	if (mkdtemp(t.dir) == NULL)
		return -1;
	t.dirfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t.fd = openat(t.dirfd, "a", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (t.dirfd < 0 || t.fd < 0)
		return -1;
	*state = &t;
	return 0;
}

static int
teardown(void **state)
{
	struct tree *t = *state;

	close(t->fd);
	unlinkat(t->dirfd, "a", 0);
	unlinkat(t->dirfd, "b", 0);
	unlinkat(t->dirfd, "link", 0);
	close(t->dirfd);
	rmdir(t->dir);
	return 0;
}

static void
test_same(void **state)
{
	struct tree *t = *state;
	struct stat sb;

	assert_int_equal(name_is_fd(t->dirfd, "a", t->fd), 1);
	assert_int_equal(fstat(t->fd, &sb), 0);
	assert_int_equal(name_is(t->dirfd, "a", sb.st_dev, sb.st_ino), 1);
}

/* Renamed away and another file put at the name: same device, not the same inode. */
static void
test_replaced(void **state)
{
	struct tree *t = *state;
	int other;

	assert_int_equal(renameat(t->dirfd, "a", t->dirfd, "b"), 0);
	other = openat(t->dirfd, "a", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(other >= 0);
	errno = EIO;
	assert_int_equal(name_is_fd(t->dirfd, "a", t->fd), 0);
	assert_int_equal(errno, 0);
	assert_int_equal(name_is_fd(t->dirfd, "b", t->fd), 1);
	close(other);
	assert_int_equal(unlinkat(t->dirfd, "a", 0), 0);
	assert_int_equal(renameat(t->dirfd, "b", t->dirfd, "a"), 0);
}

static void
test_gone(void **state)
{
	struct tree *t = *state;

	assert_int_equal(name_is_fd(t->dirfd, "missing", t->fd), 0);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(name_is_fd(t->dirfd, "a", -1), 0);
	assert_int_equal(errno, EBADF);
}

/* A symbolic link to the very file is another file: the last name is not followed. */
static void
test_link_not_followed(void **state)
{
	struct tree *t = *state;

	assert_int_equal(symlinkat("a", t->dirfd, "link"), 0);
	assert_int_equal(name_is_fd(t->dirfd, "link", t->fd), 0);
	assert_int_equal(errno, 0);
	assert_int_equal(unlinkat(t->dirfd, "link", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_replaced),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_link_not_followed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
