// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mountid.c: the mount identity, checked against the first field of
 * /proc/self/mountinfo, which the kernel computes independently, and the
 * older kernels' way (file handles) against statx's answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/unit/skip.h"

#include "lib/mountid.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/old_kernel.h"

/* The id of the last (topmost) mount on mount point dir, or 0. */
static uint64_t
mountinfo_id(const char *dir)
{
	char line[4096], point[4096];
	uint64_t id, found = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%" SCNu64 " %*u %*s %*s %4095s", &id, point) == 2 &&
		    strcmp(point, dir) == 0)
			found = id;
	fclose(f);
	return found;
}

/* Does this kernel answer STATX_MNT_ID at all? */
static int
kernel_knows(void)
{
	struct statx stx;

	return statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID);
}

static void
test_known(void **state)
{
	uint64_t want = mountinfo_id("/proc"), root = mountinfo_id("/"), id = 7;
	int fd, rootfd;

	(void)state;
	if (want == 0 || root == 0)
		skip_why("no /proc here");
	if (!kernel_knows())
		skip_why("the kernel does not report mount ids (older than 5.8)");
	fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(mount_id(fd, &id), 1);
	assert_int_equal(id, want);
	/* A final symbolic link is not followed: /proc/self/root, a link to "/". */
	id = 7;
	assert_int_equal(mount_id_at(fd, "self/root", &id), 1);
	assert_int_equal(id, want);
	/* The same mount through a name beneath the root, and the root's own. */
	rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	id = 7;
	assert_int_equal(mount_id_at(rootfd, "proc", &id), 1);
	assert_int_equal(id, want);
	id = 7;
	assert_int_equal(mount_id_at(rootfd, "", &id), 1);
	assert_int_equal(id, root);
	assert_true(root != want);
	close(rootfd);
	close(fd);
}

/*
 * Before 5.8 (old_kernel.h) the id comes from a file handle: the same id
 * statx gives, and a final symbolic link is not followed there either
 * (the link here leads to /proc, another mount, which has no handles).
 */
static void
test_handle_fallback(void **state)
{
	char dir[] = "/tmp/test_mountid.XXXXXX";
	uint64_t want = 0, id = 7, link_id = 7;
	int fd, r, link_r;

	(void)state;
	if (!kernel_knows())
		skip_why("the kernel does not report mount ids (older than 5.8)");
	assert_non_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(symlinkat("/proc", fd, "link"), 0);
	assert_int_equal(mount_id(fd, &want), 1);
	no_statx_mnt = 1;
	r = mount_id(fd, &id);
	link_r = mount_id_at(fd, "link", &link_id);
	no_statx_mnt = 0;
	unlinkat(fd, "link", 0);
	close(fd);
	rmdir(dir);
	if (r == 0)
		skip_why("no file handles on %s", dir);
	assert_int_equal(id, want);
	assert_int_equal(link_r, 1);
	assert_int_equal(link_id, want);
}

static void
test_unknown(void **state)
{
	uint64_t id = 7;
	int fd;

	(void)state;
	assert_int_equal(mount_id(-1, &id), 0);
	assert_int_equal(id, 0);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	id = 7;
	assert_int_equal(mount_id_at(fd, "no such entry, surely", &id), 0);
	assert_int_equal(id, 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_handle_fallback),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
