// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_graveyard.c: emptying the graveyard on real temporary directories:
 * nested trees, symlinks (removed as links, targets untouched), a symlink
 * planted as the graveyard itself, bounded batches, trees deeper than the
 * walk's stack, inotify, and a mount point inside the graveyard.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/unit/skip.h"

#include "cull/graveyard.h"
#include "lib/log.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[256];
static int rootfd = -1;

#include "tests/unit/old_kernel.h"

static void
mk(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (mkdirat(rootfd, path, 0700) == -1)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

static void
touch(const char *path)
{
	int fd = openat(rootfd, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd == -1)
		fail_msg("create %s: %s", path, strerror(errno));
	(void)!write(fd, "data", 4);
	close(fd);
}

static int
exists(const char *path)
{
	struct stat sb;

	return fstatat(rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0;
}

static int
entries(const char *path)
{
	int fd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (fd == -1 || (d = fdopendir(fd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Run graveyard_work until it says it is done; returns the number of calls. */
static int
drain(struct graveyard *g, unsigned budget)
{
	int calls = 0;

	while (graveyard_work(g, budget)) {
		if (++calls > 100000)
			fail_msg("graveyard_work never finishes");
	}
	return calls + 1;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_graveyard.XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd == -1)
		return -1;
	mk("graveyard");
	mk("outside");
	touch("outside/keep");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_nested(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;

	(void)state;
	mk("graveyard/0000000100000001");
	mk("graveyard/0000000100000001/Infs,4.2");
	mk("graveyard/0000000100000001/Infs,4.2/@00");
	touch("graveyard/0000000100000001/Infs,4.2/@00/Dfile");
	touch("graveyard/0000000100000001/Infs,4.2/@00/Efile");
	mk("graveyard/0000000100000001/Infs,4.2/@01");
	mk("graveyard/empty");
	touch("graveyard/loose");
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	assert_true(exists("graveyard"));	/* the graveyard itself stays */
	assert_true(exists("outside/keep"));
	graveyard_stats(g, &gs);
	assert_int_equal(gs.removed, 8);
	assert_int_equal(gs.failed, 0);
	graveyard_free(g);
}

/*
 * A directory moved out of the graveyard while it is being emptied (an
 * admin rescuing it), another made by its name: what is left of it stays
 * where it went, and the walk starts again from the graveyard as it is.
 */
static void
test_moved_out_mid_walk(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char name[32];
	int i;

	(void)state;
	mk("graveyard/big");
	mk("graveyard/big/sub");
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "graveyard/big/sub/f%d", i);
		touch(name);
	}
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	/* Into big, into sub, one file removed: the walk is inside sub. */
	assert_int_equal(graveyard_work(g, 3), 1);
	assert_int_equal(entries("graveyard/big/sub"), 9);
	assert_int_equal(renameat(rootfd, "graveyard/big", rootfd, "outside/big"), 0);
	mk("graveyard/big");	/* another directory by that name */
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("outside/big/sub"), 9);
	assert_true(exists("outside/keep"));
	assert_int_equal(entries("graveyard"), 0);
	graveyard_stats(g, &gs);
	assert_int_equal(gs.moved_out, 1);
	assert_int_equal(gs.removed, 2);	/* a file before the move, the new big after */
	graveyard_free(g);
}

/*
 * DIR/graveyard moved away and another made in its place: the one moved
 * is not emptied wherever it went, whatever arrives there, and the work
 * stops, lost (graveyard_at, graveyard_lost).
 */
static void
test_graveyard_moved_away(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char path[PATH_MAX];

	(void)state;
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	snprintf(path, sizeof(path), "%s/graveyard", root);
	graveyard_at(g, path);
	assert_int_equal(renameat(rootfd, "graveyard", rootfd, "outside/oldgy"), 0);
	mk("graveyard");
	mk("outside/oldgy/d");
	touch("outside/oldgy/d/f");
	touch("outside/oldgy/precious");
	assert_int_equal(graveyard_lost(g), 0);
	assert_int_equal(graveyard_work(g, GRAVEYARD_BATCH), 0);
	assert_int_equal(graveyard_lost(g), 1);
	assert_int_equal(graveyard_work(g, GRAVEYARD_BATCH), 0);
	assert_int_equal(entries("outside/oldgy"), 2);
	assert_int_equal(entries("outside/oldgy/d"), 1);
	graveyard_stats(g, &gs);
	assert_int_equal(gs.removed, 0);
	graveyard_free(g);
}

/*
 * The directory above the graveyard moved away and a file made by its
 * name: the path now fails with ENOTDIR, which says "not there" as surely
 * as ENOENT: lost, not a check to try again.
 */
static void
test_graveyard_parent_now_file(void **state)
{
	struct graveyard *g;
	char path[PATH_MAX];

	(void)state;
	mk("dir");
	mk("dir/graveyard");
	g = graveyard_open(rootfd, "dir/graveyard");
	assert_non_null(g);
	snprintf(path, sizeof(path), "%s/dir/graveyard", root);
	graveyard_at(g, path);
	assert_int_equal(renameat(rootfd, "dir", rootfd, "outside/olddir"), 0);
	touch("dir");
	touch("outside/olddir/graveyard/precious");
	assert_int_equal(graveyard_work(g, GRAVEYARD_BATCH), 0);
	assert_int_equal(graveyard_lost(g), 1);
	assert_true(exists("outside/olddir/graveyard/precious"));
	graveyard_free(g);
}

/*
 * Its place cannot be checked (a stat error other than "not there": here
 * ELOOP): nothing removed, not taken for lost, and GRAVEYARD_RETRY, so
 * that the daemon tries again later rather than at the next arrival; once
 * the check can be made, the pass empties it.
 */
static void
test_unchecked_retried(void **state)
{
	struct graveyard *g;
	char path[PATH_MAX];

	(void)state;
	mk("graveyard/d");
	touch("graveyard/d/f");
	assert_int_equal(symlinkat("loop", rootfd, "loop"), 0);
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	snprintf(path, sizeof(path), "%s/loop/graveyard", root);
	graveyard_at(g, path);
	assert_int_equal(graveyard_work(g, GRAVEYARD_BATCH), GRAVEYARD_RETRY);
	assert_int_equal(graveyard_lost(g), 0);
	assert_int_equal(entries("graveyard/d"), 1);
	snprintf(path, sizeof(path), "%s/graveyard", root);
	graveyard_at(g, path);
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	graveyard_free(g);
}

/*
 * readdir() hands out entries read ahead, their types as they were then:
 * a directory since replaced by a symlink or a file (another process
 * emptying the graveyard its own way) is removed as what it is now, and
 * a file since replaced by a directory is entered and emptied, neither
 * counted a failure.  One directory is entered and removed first, so that
 * the rest of the graveyard's entries wait in readdir's buffer.
 */
static void
test_dir_replaced_after_readdir(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char name[32];
	int i;

	(void)state;
	for (i = 0; i < 10; i++)
		mk("graveyard/d%d", i);
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	/* Into one directory, and out of it again, removing it. */
	assert_int_equal(graveyard_work(g, 2), 1);
	assert_int_equal(entries("graveyard"), 9);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "graveyard/d%d", i);
		if (!exists(name))
			continue;
		assert_int_equal(unlinkat(rootfd, name, AT_REMOVEDIR), 0);
		if (i % 2)
			assert_int_equal(symlinkat("../outside", rootfd, name), 0);
		else
			touch(name);
	}
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	assert_true(exists("outside/keep"));
	graveyard_stats(g, &gs);
	assert_int_equal(gs.failed, 0);
	assert_int_equal(gs.removed, 10);
	graveyard_free(g);
}

static void
test_file_replaced_after_readdir(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char name[32], inner[48];
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "graveyard/f%d", i);
		touch(name);
	}
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	assert_int_equal(graveyard_work(g, 1), 1);	/* one file removed */
	assert_int_equal(entries("graveyard"), 9);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "graveyard/f%d", i);
		if (!exists(name))
			continue;
		assert_int_equal(unlinkat(rootfd, name, 0), 0);
		mk("%s", name);
		snprintf(inner, sizeof(inner), "%s/inner", name);
		touch(inner);
	}
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	graveyard_stats(g, &gs);
	assert_int_equal(gs.failed, 0);
	assert_int_equal(gs.removed, 1 + 9 * 2);
	graveyard_free(g);
}

static void
test_symlinks_not_followed(void **state)
{
	struct graveyard *g;

	(void)state;
	mk("graveyard/a");
	assert_int_equal(symlinkat("../../outside", rootfd, "graveyard/a/todir"), 0);
	assert_int_equal(symlinkat("../outside/keep", rootfd, "graveyard/tofile"), 0);
	assert_int_equal(symlinkat("/nonexistent", rootfd, "graveyard/dangling"), 0);
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	assert_true(exists("outside/keep"));
	assert_int_equal(entries("outside"), 1);
	graveyard_free(g);
}

static void
test_planted_symlink(void **state)
{
	(void)state;
	/* The graveyard's own name is a symlink to a directory full of files. */
	assert_int_equal(unlinkat(rootfd, "graveyard", AT_REMOVEDIR), 0);
	assert_int_equal(symlinkat("outside", rootfd, "graveyard"), 0);
	assert_null(graveyard_open(rootfd, "graveyard"));
	assert_true(exists("outside/keep"));
}

static void
test_batches(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char name[64];
	int i, calls;

	(void)state;
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "graveyard/f%02d", i);
		touch(name);
	}
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	assert_int_equal(graveyard_work(g, 10), 1);
	graveyard_stats(g, &gs);
	assert_true(gs.removed > 0 && gs.removed <= 10);
	assert_int_equal(entries("graveyard"), 50 - (int)gs.removed);
	calls = drain(g, 10);
	assert_true(calls >= 4);
	assert_int_equal(entries("graveyard"), 0);
	graveyard_stats(g, &gs);
	assert_int_equal(gs.removed, 50);
	/* Nothing left: one call finds that out and says so. */
	assert_int_equal(graveyard_work(g, 10), 0);
	graveyard_free(g);
}

static void
test_deep_tree(void **state)
{
	struct graveyard_stats gs;
	struct graveyard *g;
	char path[PATH_MAX] = "graveyard";
	int i;

	(void)state;
	for (i = 0; i < GRAVEYARD_DEPTH + 20; i++) {
		strcat(path, "/d");
		mk("%s", path);
	}
	strcat(path, "/f");
	touch(path);
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	assert_int_equal(entries("graveyard"), 0);
	graveyard_stats(g, &gs);
	assert_true(gs.moved >= 1);
	assert_int_equal(gs.failed, 0);
	graveyard_free(g);
}

static void
test_inotify(void **state)
{
	struct graveyard *g;

	(void)state;
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	if (graveyard_fd(g) < 0) {
		graveyard_free(g);
		skip_why("no inotify watch on the graveyard here");
	}
	assert_int_equal(graveyard_drain(g), 0);
	mk("graveyard/arrived");
	assert_true(graveyard_drain(g) >= 1);
	assert_int_equal(graveyard_drain(g), 0);
	/* Something arriving elsewhere is not reported. */
	mk("outside/elsewhere");
	assert_int_equal(graveyard_drain(g), 0);
	drain(g, GRAVEYARD_BATCH);
	assert_false(exists("graveyard/arrived"));
	graveyard_free(g);
}

static void
test_mount_point(void **state)
{
	char mnt[PATH_MAX];
	struct graveyard *g;

	(void)state;
	mk("graveyard/m");
	snprintf(mnt, sizeof(mnt), "%s/graveyard/m", root);
	if (mount("none", mnt, "tmpfs", 0, "size=1m") == -1)
		skip_why("cannot mount a tmpfs: %s", strerror(errno));
	touch("graveyard/m/precious");
	touch("graveyard/other");
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	/* Another filesystem inside the graveyard is left alone. */
	assert_true(exists("graveyard/m/precious"));
	assert_false(exists("graveyard/other"));
	graveyard_free(g);
	umount(mnt);
}

static void
test_bind_mount(void **state)
{
	char src[PATH_MAX], mnt[PATH_MAX];
	struct graveyard *g;

	(void)state;
	/* The same filesystem, so the device number cannot tell. */
	mk("graveyard/b");
	snprintf(src, sizeof(src), "%s/outside", root);
	snprintf(mnt, sizeof(mnt), "%s/graveyard/b", root);
	if (mount(src, mnt, NULL, MS_BIND, NULL) == -1)
		skip_why("cannot bind-mount: %s", strerror(errno));
	touch("graveyard/other");
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	assert_true(exists("outside/keep"));
	assert_false(exists("graveyard/other"));
	graveyard_free(g);
	umount(mnt);
}

/* Before 5.8 the mount id comes from file handles: a bind mount is still told apart. */
static void
test_bind_mount_old_kernel(void **state)
{
	char src[PATH_MAX], mnt[PATH_MAX];
	struct graveyard *g;

	(void)state;
	mk("graveyard/b");
	mk("graveyard/plain");
	touch("graveyard/plain/x");
	snprintf(src, sizeof(src), "%s/outside", root);
	snprintf(mnt, sizeof(mnt), "%s/graveyard/b", root);
	if (mount(src, mnt, NULL, MS_BIND, NULL) == -1)
		skip();
	no_statx_mnt = 1;
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	no_statx_mnt = 0;
	assert_true(exists("outside/keep"));
	/* Told apart, not merely refused: an ordinary directory is emptied. */
	assert_false(exists("graveyard/plain"));
	graveyard_free(g);
	umount(mnt);
}

/* No identity at all: no directory is entered, files at the top still go. */
static void
test_no_mount_identity(void **state)
{
	struct graveyard *g;

	(void)state;
	mk("graveyard/d");
	touch("graveyard/d/inner");
	touch("graveyard/top");
	no_statx_mnt = no_handles = 1;
	g = graveyard_open(rootfd, "graveyard");
	assert_non_null(g);
	drain(g, GRAVEYARD_BATCH);
	no_statx_mnt = no_handles = 0;
	assert_false(exists("graveyard/top"));
	assert_true(exists("graveyard/d/inner"));
	graveyard_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nested, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_out_mid_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_graveyard_moved_away, setup, teardown),
		cmocka_unit_test_setup_teardown(test_graveyard_parent_now_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchecked_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_replaced_after_readdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_replaced_after_readdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_point, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_mount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_mount_old_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_mount_identity, setup, teardown),
	};

	log_init("test_graveyard", 1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
