// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_priv.c: the capability drop, run in a child process so that the test
 * keeps its own privileges: nothing kept for a cache tree we own, the DAC
 * pair kept when the root, cache, graveyard or a top-level directory is
 * someone else's, CAP_DAC_READ_SEARCH alone when only a directory above the
 * tree is, the bounding set shrunk, no_new_privs set.  The kept set
 * is read back from /proc/self/status as a user would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/unit/skip.h"

#include "lib/log.h"
#include "daemon/priv.h"

#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP_BIT(c) (1ULL << (c))
#define DAC_PAIR (CAP_BIT(1) | CAP_BIT(2))	/* CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH */

static char root[256];
static int lose_override;	/* the child starts without CAP_DAC_OVERRIDE (a container's lot) */
static char top[200];	/* what teardown removes, when not root */

struct caps {
	unsigned long long eff, prm, inh, bnd, amb;
	int nnp;
};

static unsigned long long
status_hex(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p != NULL ? strtoull(p + strlen(key), NULL, 16) : ~0ULL;
}

/* Run priv_drop on root/cache and root/graveyard in a child; read its sets back. */
static int
drop_in_child(struct caps *out)
{
	char status[8192], path[300];
	int p[2], st, cachefd, gravefd;
	ssize_t n, len = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd, r;

		close(p[0]);
		if (lose_override) {
			cap_value_t v = CAP_DAC_OVERRIDE;
			cap_t c = cap_get_proc();

			if (c == NULL || cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR) == -1 ||
			    cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_CLEAR) == -1 ||
			    cap_set_proc(c) == -1)
				_exit(3);
			cap_free(c);
		}
		snprintf(path, sizeof(path), "%s/cache", root);
		cachefd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		snprintf(path, sizeof(path), "%s/graveyard", root);
		gravefd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		r = priv_drop(cachefd, gravefd, root);
		fd = open("/proc/self/status", O_RDONLY);
		while ((n = read(fd, status, sizeof(status))) > 0)
			(void)!write(p[1], status, (size_t)n);
		/* What is kept must still let the daemon check DIR/cache by path. */
		snprintf(path, sizeof(path), "%s/cache", root);
		if (r == 0 && access(path, F_OK) == -1)
			r = 2;
		_exit(r);
	}
	close(p[1]);
	while ((n = read(p[0], status + len, sizeof(status) - 1 - (size_t)len)) > 0)
		len += n;
	status[len] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	out->eff = status_hex(status, "CapEff:");
	out->prm = status_hex(status, "CapPrm:");
	out->inh = status_hex(status, "CapInh:");
	out->bnd = status_hex(status, "CapBnd:");
	out->amb = status_hex(status, "CapAmb:");
	out->nnp = (int)status_hex(status, "NoNewPrivs:");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* root/cache and root/graveyard, as the kernel makes them. */
static int
make_dirs(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/cache", root);
	if (mkdir(path, 0700) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/graveyard", root);
	return mkdir(path, 0700);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_priv.XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	return make_dirs();
}

/*
 * root below a 0700 directory of another user: root without the DAC pair
 * cannot reach it by path.
 */
static int
setup_locked(void **state)
{
	char path[300];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_priv.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/locked", top);
	if (mkdir(path, 0700) == -1 || chown(path, 4242, 4242) == -1)
		return -1;
	snprintf(root, sizeof(root), "%s/locked/dir", top);
	if (mkdir(root, 0755) == -1)
		return -1;
	return make_dirs();
}

static int
teardown(void **state)
{
	char cmd[300];

	(void)state;
	lose_override = 0;	/* also when a test failed before resetting it */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top[0] ? top : root);
	top[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

/* The test needs root with the DAC pair to see anything kept or dropped. */
static void
need_root(void)
{
	char status[8192];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || geteuid() != 0)
		skip_why("not root, or /proc/self/status unreadable");
	status[n] = '\0';
	if ((status_hex(status, "CapEff:") & DAC_PAIR) != DAC_PAIR)
		skip_why("the DAC capabilities are not in the effective set");
}

static void
test_own_tree_keeps_nothing(void **state)
{
	struct caps c;

	(void)state;
	need_root();
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == 0);
	assert_true(c.prm == 0);
	assert_true(c.inh == 0);
	assert_true(c.amb == 0);
	assert_int_equal(c.nnp, 1);
	/* With CAP_SETPCAP the bounding set goes too. */
	assert_true(c.bnd == 0);
}

static void
check_keeps_dac(const char *chown_what)
{
	char path[300];
	struct caps c;

	snprintf(path, sizeof(path), "%s%s", root, chown_what);
	assert_int_equal(chown(path, 4242, 4242), 0);
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == DAC_PAIR);
	assert_true(c.prm == DAC_PAIR);
	assert_true(c.inh == 0);
	assert_true(c.bnd == DAC_PAIR);
	assert_int_equal(c.nnp, 1);
}

static void
test_foreign_root(void **state)
{
	(void)state;
	need_root();
	check_keeps_dac("");
}

static void
test_foreign_cache(void **state)
{
	(void)state;
	need_root();
	check_keeps_dac("/cache");
}

static void
test_foreign_volume(void **state)
{
	char path[300];

	(void)state;
	need_root();
	snprintf(path, sizeof(path), "%s/cache/Infs,old", root);
	assert_int_equal(mkdir(path, 0700), 0);
	check_keeps_dac("/cache/Infs,old");
}

static void
test_foreign_buried(void **state)
{
	char path[300];

	(void)state;
	need_root();
	snprintf(path, sizeof(path), "%s/graveyard/0000000100000001", root);
	assert_int_equal(mkdir(path, 0700), 0);
	check_keeps_dac("/graveyard/0000000100000001");
}

static void
test_foreign_graveyard(void **state)
{
	(void)state;
	need_root();
	check_keeps_dac("/graveyard");
}

/* levels nested directories of our own below DIR/cache. */
static void
own_levels(int levels)
{
	char path[300];
	int i;

	snprintf(path, sizeof(path), "%s/cache", root);
	for (i = 0; i < levels; i++) {
		strncat(path, "/d", sizeof(path) - strlen(path) - 1);
		assert_int_equal(mkdir(path, 0700), 0);
	}
}

/* The owners are checked to 17 levels below DIR/cache (cachefilesd.8): all ours, nothing kept. */
static void
test_own_17_levels_checked(void **state)
{
	struct caps c;

	(void)state;
	need_root();
	own_levels(17);
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == 0);
}

/* One level more cannot be checked: taken as not all ours, the DAC pair kept. */
static void
test_18_levels_unchecked(void **state)
{
	struct caps c;

	(void)state;
	need_root();
	own_levels(18);
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == DAC_PAIR);
	assert_true(c.prm == DAC_PAIR);
}

/*
 * A foreign tree in a process that never had CAP_DAC_OVERRIDE (a container,
 * a unit's CapabilityBoundingSet=): what it has of the pair is kept, and
 * the drop does not fail asking for what it lacks.
 */
static void
test_foreign_without_override(void **state)
{
	struct caps c;

	(void)state;
	need_root();
	assert_int_equal(chown(root, 4242, 4242), 0);
	lose_override = 1;
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == CAP_BIT(CAP_DAC_READ_SEARCH));
	assert_true(c.prm == CAP_BIT(CAP_DAC_READ_SEARCH));
	assert_int_equal(c.nnp, 1);
}

/* A fan-out directory deep in a volume that is ours. */
static void
test_foreign_fanout(void **state)
{
	char path[300];
	int i;

	(void)state;
	need_root();
	snprintf(path, sizeof(path), "%s/cache/Ivol", root);
	assert_int_equal(mkdir(path, 0700), 0);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/cache/Ivol/@%02x", root, i);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	check_keeps_dac("/cache/Ivol/@02");
}

/* A deep tree that is all ours: nothing kept. */
static void
test_own_deep_tree(void **state)
{
	char path[300];
	struct caps c;
	int i;

	(void)state;
	need_root();
	snprintf(path, sizeof(path), "%s/graveyard/0000000100000001", root);
	for (i = 0; i < 10; i++) {
		assert_int_equal(mkdir(path, 0700), 0);
		strncat(path, "/d", sizeof(path) - strlen(path) - 1);
	}
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == 0);
}

static void
test_foreign_file_is_fine(void **state)
{
	char path[300];
	struct caps c;

	(void)state;
	need_root();
	/* A file needs no rights of its own to be stat'ed or culled. */
	snprintf(path, sizeof(path), "%s/graveyard/stray", root);
	assert_int_equal(close(open(path, O_WRONLY | O_CREAT, 0)), 0);
	assert_int_equal(chown(path, 4242, 4242), 0);
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == 0);
}

/*
 * The tree is ours, but a directory above it is not searchable without the
 * DAC pair: CAP_DAC_READ_SEARCH alone is kept, and DIR/cache is still
 * reached by path (drop_in_child checks).
 */
static void
test_locked_parent_keeps_search(void **state)
{
	struct caps c;

	(void)state;
	need_root();
	assert_int_equal(drop_in_child(&c), 0);
	assert_true(c.eff == CAP_BIT(2));
	assert_true(c.prm == CAP_BIT(2));
	assert_true(c.bnd == CAP_BIT(2));
	assert_true(c.inh == 0);
	assert_int_equal(c.nnp, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_tree_keeps_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_volume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_buried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_fanout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_deep_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_graveyard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_without_override, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_17_levels_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_18_levels_unchecked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_file_is_fine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locked_parent_keeps_search, setup_locked, teardown),
	};

	log_init("test_priv", 1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
