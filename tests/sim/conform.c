// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * conform.c: "cfsim conform DEVICE-OR-SOCKET DIR", one fixed sequence of
 * device operations through kernel/channel.c, printed as one normalized line a
 * step ("name: result"), so that the output from the real module (in a VM)
 * and from the simulator can be compared with diff.  Nothing printed depends
 * on paths, times or sizes.  A few framing steps (newlines, NUL bytes, long
 * commands, short reads) need bytes that kernel_cmd() refuses to send on
 * purpose; they go through the transport's own write or read on the same
 * connection.  A socket DEVICE-OR-SOCKET is reached through the simulator's
 * transport, anything else through the device's (kernel/transport.h).
 *
 * DIR must be a directory on a filesystem the module accepts (ext4 with
 * user xattrs); the sequence binds a cache there, culls only entries it
 * creates itself, and removes them again.
 */
#include "tests/sim/sim.h"
#include "tests/sim/simtransport.h"
#include "kernel/channel.h"
#include "kernel/transport.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define BUSY_WAIT_MS 5000

static struct kchan *k;
static const char *device;
static const struct ktransport *real;	/* the device's or the simulator's */
static void *conn;			/* real's connection under k */

static void
result(const char *step, int r)
{
	printf("%s: %s\n", step, r == 0 ? "ok" : errname(r < 0 ? -r : r));
	fflush(stdout);
}

static void
yesno(const char *step, int yes)
{
	printf("%s: %s\n", step, yes ? "yes" : "no");
	fflush(stdout);
}

static void
cmd(const char *step, const char *text)
{
	result(step, kernel_cmd(k, "%s", text));
}

/*
 * The channel runs over a pass-through transport that remembers the
 * connection, so that the raw steps use the very same one.
 */
static const char *
spy_default_path(void)
{
	return real->default_path();
}

static void *
spy_open(const char *path)
{
	return conn = real->open(path);
}

static int
spy_load(const char *path)
{
	return real->load != NULL ? real->load(path) : 0;
}

static int
spy_close(void *c)
{
	conn = NULL;
	return real->close(c);
}

static int
spy_fd(void *c)
{
	return real->fd(c);
}

static int
spy_write(void *c, const char *buf, size_t len)
{
	return real->write(c, buf, len);
}

static ssize_t
spy_read(void *c, char *buf, size_t size)
{
	return real->read(c, buf, size);
}

static const char *
spy_explain_open(int err)
{
	return real->explain_open != NULL ? real->explain_open(err) : NULL;
}

static const struct ktransport spy = {
	.name = "conform",
	.default_path = spy_default_path,
	.open = spy_open,
	.load = spy_load,
	.close = spy_close,
	.fd = spy_fd,
	.write = spy_write,
	.read = spy_read,
	.explain_open = spy_explain_open,
};

/* write() of exactly len bytes, whatever they are: 0 or -errno. */
static int
raw_write(const char *buf, size_t len)
{
	return real->write(conn, buf, len);
}

/* read() with a buffer of size bytes: the length read or -errno. */
static ssize_t
raw_read(char *buf, size_t size)
{
	return real->read(conn, buf, size);
}

/* A second open while the first is held: the errno only. */
static int
second_open(void)
{
	void *c = real->open(device);

	if (c == NULL)
		return -errno;
	real->close(c);
	return 0;
}

/* The state line's keys in order, and the cull flag. */
static void
read_line(const char *step)
{
	char buf[KSTATE_BUF + 1], keys[KSTATE_BUF] = "";
	char *tok, *save = NULL;
	ssize_t n = raw_read(buf, KSTATE_BUF);
	char cull = '?';

	if (n < 0) {
		result(step, (int)n);
		return;
	}
	if (n == 0) {
		printf("%s: EOF\n", step);
		return;
	}
	buf[n] = '\0';
	for (tok = strtok_r(buf, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL)
			continue;
		if (strncmp(tok, "cull=", 5) == 0)
			cull = eq[1];
		*eq = '\0';
		if (keys[0] != '\0')
			strncat(keys, ",", sizeof(keys) - strlen(keys) - 1);
		strncat(keys, tok, sizeof(keys) - strlen(keys) - 1);
	}
	printf("%s: keys=%s cull=%c\n", step, keys, cull);
}

static int
limits_match(const struct kstate *st, const char *dir, const unsigned pct[6])
{
	struct statfs sf;
	uint64_t f, b;

	if (statfs(dir, &sf) < 0)
		return 0;
	f = (uint64_t)sf.f_files / 100;
	b = (uint64_t)sf.f_blocks / 100;
	return st->frun == f * pct[0] && st->fcull == f * pct[1] && st->fstop == f * pct[2] &&
	       st->brun == b * pct[3] && st->bcull == b * pct[4] && st->bstop == b * pct[5];
}

/* Remove what a previous run may have left; only our own names. */
static void
tidy(int cachefd)
{
	unlinkat(cachefd, "conform-file", 0);
	unlinkat(cachefd, "conform-dir/sub/data", 0);
	unlinkat(cachefd, "conform-dir/sub", AT_REMOVEDIR);
	unlinkat(cachefd, "conform-dir", AT_REMOVEDIR);
}

/* The graveyard entry holding our buried "sub/data", removed after the check. */
static int
find_buried(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int found = 0;
	DIR *gd;

	if (snprintf(path, sizeof(path), "%s/graveyard", dir) >= (int)sizeof(path))
		return 0;
	gd = opendir(path);
	if (gd == NULL)
		return 0;
	while ((de = readdir(gd)) != NULL) {
		char sub[PATH_MAX + 300];
		size_t len = strlen(de->d_name);

		if (len != 16 || strspn(de->d_name, "0123456789abcdef") != 16)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/sub/data", path, de->d_name);
		if (access(sub, F_OK) != 0)
			continue;
		found = 1;
		unlink(sub);
		snprintf(sub, sizeof(sub), "%s/%s/sub", path, de->d_name);
		rmdir(sub);
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rmdir(sub);
	}
	closedir(gd);
	return found;
}

static void
before_bind(void)
{
	char big[SIM_CMD_MAX + 2];

	result("second-open", second_open());
	read_line("read-before-bind");
	cmd("bind-no-dir", "bind");
	cmd("cull-before-bind", "cull conform-missing");
	cmd("inuse-before-bind", "inuse conform-missing");
	cmd("cull-slash-before-bind", "cull a/b");
	cmd("unknown-command", "frobnicate 1");
	cmd("leading-space", " debug 0");
	cmd("uppercase-command", "DEBUG 0");
	result("leading-newline", raw_write("\ndebug 0", 8));
	result("nul-byte", raw_write("debug 0\0x", 9));
	result("text-after-newline", raw_write("debug 0\nfrobnicate", 18));
	memset(big, '0', sizeof(big));
	memcpy(big, "debug ", 6);
	result("length-4095", raw_write(big, SIM_CMD_MAX));
	result("length-4096", raw_write(big, SIM_CMD_MAX + 1));
	cmd("brun-no-percent", "brun 10");
	cmd("brun-space-percent", "brun 10 %");
	cmd("brun-trailing", "brun 10%x");
	cmd("brun-negative", "brun -10%");
	cmd("bcull-above-brun", "bcull 50%");
	cmd("fstop-equal-fcull", "fstop 5%");
	cmd("frun-100", "frun 100%");
	cmd("bstop-lone-percent", "bstop %");
	cmd("bstop-1", "bstop 1%");
	cmd("debug-hex", "debug 0x0");
	cmd("debug-octal", "debug 00");
	cmd("debug-0x-alone", "debug 0x");
	cmd("debug-trailing", "debug 1z");
	cmd("debug-none", "debug");
	cmd("dir-empty", "dir");
	cmd("tag-empty", "tag");
	cmd("secctx-empty", "secctx");
}

static void
bind_and_read(const char *dir)
{
	static const unsigned pct[6] = { 20, 10, 5, 20, 10, 5 };
	struct kstate st, st2;
	char buf[32];
	int r;

	result("dir", kernel_cmd(k, "dir %s", dir));
	result("dir-again", kernel_cmd(k, "dir %s", dir));
	cmd("tag", "tag cfconform");
	cmd("tag-again", "tag cfconform");
	cmd("brun-20", "brun 20%");
	cmd("bcull-10", "bcull 10%");
	cmd("bstop-5", "bstop 5%");
	cmd("frun-20", "frun 20%");
	cmd("fcull-10", "fcull 10%");
	cmd("fstop-5", "fstop 5%");
	cmd("bind-with-argument", "bind foo");
	cmd("bind", "bind");
	cmd("bind-again", "bind");
	result("read-16-bytes", (int)raw_read(buf, 16));
	read_line("read");
	r = kernel_read_state(k, &st);
	result("read-state", r);
	if (r == 0) {
		printf("read-state-released: %s\n", st.has_released ? "yes" : "no");
		yesno("limits-match-statfs", limits_match(&st, dir, pct));
	}
	cmd("brun-after-bind", "brun 30%");
	r = kernel_read_state(k, &st2);
	yesno("limits-unchanged", r == 0 && st2.brun == st.brun && st2.frun == st.frun);
	result("dir-after-bind", kernel_cmd(k, "dir %s", dir));
	cmd("tag-after-bind", "tag other");
}

static void
cull_steps(const char *dir)
{
	char cache[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(cache, sizeof(cache), "%s/cache", dir) >= (int)sizeof(cache) ||
	    chdir(cache) < 0) {
		printf("chdir-cache: %s\n", errname(errno));
		return;
	}
	tidy(AT_FDCWD);
	cmd("cull-missing", "cull conform-missing");
	cmd("inuse-missing", "inuse conform-missing");
	cmd("cull-slash", "cull conform-dir/sub");
	cmd("cull-empty", "cull");
	cmd("cull-dot", "cull .");
	cmd("cull-dotdot", "cull ..");
	fd = open("conform-file", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, "conform\n", 8) != 8)
			printf("write-file: %s\n", errname(errno));
		close(fd);
	}
	cmd("inuse-file", "inuse conform-file");
	cmd("cull-file", "cull conform-file");
	yesno("file-gone", lstat("conform-file", &st) < 0 && errno == ENOENT);
	cmd("cull-file-again", "cull conform-file");
	if (mkdir("conform-dir", 0700) == 0 && mkdir("conform-dir/sub", 0700) == 0) {
		fd = open("conform-dir/sub/data", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	cmd("inuse-dir", "inuse conform-dir");
	cmd("cull-dir", "cull conform-dir");
	yesno("dir-gone", lstat("conform-dir", &st) < 0 && errno == ENOENT);
	yesno("dir-in-graveyard", find_buried(dir));
	tidy(AT_FDCWD);
	if (chdir(dir) == 0) {
		cmd("inuse-cache-dir", "inuse cache");
		cmd("inuse-graveyard-dir", "inuse graveyard");
	}
	if (chdir("/") < 0)
		printf("chdir-root: %s\n", errname(errno));
}

int
conform_main(int argc, char **argv)
{
	struct stat st;
	char dir[PATH_MAX];

	if (argc != 3) {
		fprintf(stderr, "usage: cfsim conform DEVICE-OR-SOCKET DIR\n");
		return 2;
	}
	device = argv[1];
	if (realpath(argv[2], dir) == NULL) {
		fprintf(stderr, "cfsim conform: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	real = stat(device, &st) == 0 && S_ISSOCK(st.st_mode) ? &ktransport_sim : &ktransport_device;
	log_init("cfsim-conform", 1, 0);
	k = kernel_open(&spy, device, BUSY_WAIT_MS);
	yesno("open", k != NULL);
	if (k == NULL)
		return 1;
	before_bind();
	bind_and_read(dir);
	cull_steps(dir);
	cmd("debug-reset", "debug 0");
	kernel_close(k);
	k = kernel_open(&spy, device, BUSY_WAIT_MS);
	yesno("reopen", k != NULL);
	if (k == NULL)
		return 1;
	read_line("read-after-reopen");
	kernel_close(k);
	return 0;
}
