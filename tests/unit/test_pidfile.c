// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pidfile.c: the locked pidfile: creation and content, a second
 * instance refused with the holder's pid, the lock surviving fork, removal
 * only of our own file and through the directory it was created in, and a
 * symlink, a hard link, a fifo or another owner's file planted at its name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/log.h"
#include "daemon/pidfile.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];
static char path[300];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_pidfile.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/test.pid", dir);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static long
file_pid(const char *p)
{
	char buf[32] = "";
	FILE *f = fopen(p, "r");

	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 10);
}

static void
test_write_and_remove(void **state)
{
	struct pidfile *pf;
	pid_t holder;

	(void)state;
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(pidfile_write(pf), 0);
	assert_int_equal(file_pid(path), (long)getpid());
	/* Written twice: still one pid, no leftovers. */
	assert_int_equal(pidfile_write(pf), 0);
	assert_int_equal(file_pid(path), (long)getpid());
	pidfile_remove(pf);
	assert_int_equal(access(path, F_OK), -1);
}

static void
test_second_instance(void **state)
{
	struct pidfile *pf, *pf2;
	pid_t holder = -1;

	(void)state;
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	assert_int_equal(pidfile_write(pf), 0);
	/* flock locks belong to open file descriptions: even we cannot lock it twice. */
	pf2 = pidfile_open(path, &holder);
	assert_null(pf2);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(holder, getpid());
	/* The refused attempt left the file alone. */
	assert_int_equal(file_pid(path), (long)getpid());
	pidfile_remove(pf);
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	pidfile_remove(pf);
}

static void
test_lock_survives_fork(void **state)
{
	struct pidfile *pf;
	pid_t child, holder;
	int p[2], status;
	char c;

	(void)state;
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* The child keeps the lock and writes its own pid, as the daemon does. */
		close(p[0]);
		pidfile_write(pf);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	pidfile_close(pf);	/* the parent lets go of its copy */
	assert_null(pidfile_open(path, &holder));
	assert_int_equal(holder, child);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	/* The holder is gone: the stale file is taken over. */
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	pidfile_remove(pf);
}

static void
test_remove_only_ours(void **state)
{
	struct pidfile *pf;
	char other[320];
	pid_t holder;

	(void)state;
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	/* Someone replaced the file: it is not ours to remove. */
	snprintf(other, sizeof(other), "%s.new", path);
	assert_int_equal(close(open(other, O_WRONLY | O_CREAT, 0644)), 0);
	assert_int_equal(rename(other, path), 0);
	pidfile_remove(pf);
	assert_int_equal(access(path, F_OK), 0);
}

static void
test_relative_path(void **state)
{
	struct pidfile *pf;
	char cwd[PATH_MAX], elsewhere[300];
	pid_t holder;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	pf = pidfile_open("rel.pid", &holder);
	assert_non_null(pf);
	/* The daemon moves into DIR/cache, where a file of the same name must survive. */
	snprintf(elsewhere, sizeof(elsewhere), "%s/sub", dir);
	assert_int_equal(mkdir(elsewhere, 0700), 0);
	assert_int_equal(chdir(elsewhere), 0);
	assert_int_equal(close(open("rel.pid", O_WRONLY | O_CREAT, 0644)), 0);
	pidfile_remove(pf);
	assert_int_equal(access("rel.pid", F_OK), 0);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(access("rel.pid", F_OK), -1);
	assert_int_equal(chdir(cwd), 0);
}

static void
test_planted_symlink(void **state)
{
	char target[320];
	pid_t holder;
	struct stat sb;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", dir);
	assert_int_equal(close(open(target, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_null(pidfile_open(path, &holder));
	assert_int_equal(stat(target, &sb), 0);
	assert_int_equal(sb.st_size, 0);
}

/* A hard link planted at the name: its target is neither truncated nor written. */
static void
test_planted_hard_link(void **state)
{
	char target[320];
	pid_t holder;
	struct stat sb;
	int fd;

	(void)state;
	snprintf(target, sizeof(target), "%s/precious", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	assert_int_equal(write(fd, "keep me\n", 8), 8);
	close(fd);
	assert_int_equal(link(target, path), 0);
	assert_null(pidfile_open(path, &holder));
	assert_int_equal(stat(target, &sb), 0);
	assert_int_equal(sb.st_size, 8);
	assert_int_equal(sb.st_nlink, 2);
}

/* A file of another owner, or one that is not a regular file, is refused too. */
static void
test_foreign_or_special_file(void **state)
{
	pid_t holder;
	struct pidfile *pf;

	(void)state;
	assert_int_equal(close(open(path, O_WRONLY | O_CREAT, 0644)), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_null(pidfile_open(path, &holder));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_null(pidfile_open(path, &holder));
	assert_int_equal(unlink(path), 0);
	/* Our own leftover file from a crash is fine. */
	assert_int_equal(close(open(path, O_WRONLY | O_CREAT, 0644)), 0);
	pf = pidfile_open(path, &holder);
	assert_non_null(pf);
	pidfile_remove(pf);
}

static void
test_missing_directory(void **state)
{
	char p[320];
	pid_t holder;

	(void)state;
	snprintf(p, sizeof(p), "%s/no/such/dir.pid", dir);
	assert_null(pidfile_open(p, &holder));
	assert_null(pidfile_open("", &holder));
	snprintf(p, sizeof(p), "%s/", dir);
	assert_null(pidfile_open(p, &holder));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_and_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_survives_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_only_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_hard_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_or_special_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
	};

	log_init("test_pidfile", 1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
