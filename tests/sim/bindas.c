// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bindas.c: "cfsim bind-as UID DIR TAG SECONDS [NAME...]", an experiment
 * on the real module: may a cache be bound by a user other than root, who
 * then owns what the kernel creates, and may that user cull with no
 * capability left?
 *
 * As root: open /dev/cachefiles (the open needs CAP_SYS_ADMIN and the
 * node's mode), switch to UID keeping only CAP_SYS_ADMIN, send dir, tag
 * and bind, then drop every capability, wait SECONDS (for the test to read
 * files through the netfs), and try "cull NAME" for each NAME, a path
 * relative to DIR/cache, from inside its directory.  Prints one line a
 * step; exit 0 when every step worked.
 */
#include "tests/sim/sim.h"

#include <sys/capability.h>
#include <sys/prctl.h>

#include <grp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
cmd(int fd, const char *word, const char *arg)
{
	char buf[PATH_MAX + 16];
	int n = snprintf(buf, sizeof(buf), "%s%s%s", word, arg[0] ? " " : "", arg);
	ssize_t w = write(fd, buf, (size_t)n);
	int err = w == n ? 0 : errno;

	printf("%s: %s\n", buf, err ? strerror(err) : "ok");
	return err ? -1 : 0;
}

/* Keep exactly the capabilities named (none when n is 0) in every set. */
static int
caps_only(const cap_value_t *v, int n)
{
	cap_t c = cap_init();
	int r;

	if (c == NULL)
		return -1;
	if (n > 0 && (cap_set_flag(c, CAP_EFFECTIVE, n, v, CAP_SET) == -1 ||
		      cap_set_flag(c, CAP_PERMITTED, n, v, CAP_SET) == -1)) {
		cap_free(c);
		return -1;
	}
	r = cap_set_proc(c);
	cap_free(c);
	return r;
}

/* Cull rel (a path beneath cache) from inside its directory. */
static int
cull(int fd, const char *cache, const char *rel)
{
	char dir[PATH_MAX], *slash;

	if (snprintf(dir, sizeof(dir), "%s/%s", cache, rel) >= (int)sizeof(dir) ||
	    (slash = strrchr(dir, '/')) == NULL)
		return -1;
	*slash = '\0';
	if (chdir(dir) == -1) {
		printf("chdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return cmd(fd, "cull", slash + 1);
}

int
bindas_main(int argc, char **argv)
{
	static const cap_value_t admin[] = { CAP_SYS_ADMIN };
	char cache[PATH_MAX];
	uid_t uid;
	int fd, bad = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: cfsim bind-as UID DIR TAG SECONDS [NAME...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	fd = open("/dev/cachefiles", O_RDWR | O_CLOEXEC);
	printf("open as uid %ld: %s\n", (long)getuid(), fd == -1 ? strerror(errno) : "ok");
	if (fd == -1)
		return 1;
	if (prctl(PR_SET_KEEPCAPS, 1) == -1 || setgroups(0, NULL) == -1 ||
	    setresgid(uid, uid, uid) == -1 || setresuid(uid, uid, uid) == -1 ||
	    caps_only(admin, 1) == -1) {
		printf("switch to uid %ld keeping CAP_SYS_ADMIN: %s\n", (long)uid, strerror(errno));
		return 1;
	}
	printf("now uid %ld with CAP_SYS_ADMIN only\n", (long)getuid());
	if (cmd(fd, "dir", argv[2]) == -1 || cmd(fd, "tag", argv[3]) == -1 ||
	    cmd(fd, "bind", "") == -1)
		return 1;
	bad += caps_only(NULL, 0) == -1;
	printf("capabilities dropped: %s\n", bad ? strerror(errno) : "ok");
	fflush(stdout);
	sleep((unsigned)atoi(argv[4]));
	snprintf(cache, sizeof(cache), "%s/cache", argv[2]);
	for (int i = 5; i < argc; i++)
		bad += cull(fd, cache, argv[i]) == -1;
	close(fd);
	return bad ? 1 : 0;
}
