// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * device.c: the transport to /dev/cachefiles (kernel/transport.h).
 *
 * One write() a command, one read() a state line, the device's descriptor
 * to poll: the kernel's own readiness (POLLIN while its state-changed flag
 * is set) needs no help.  When the device node is missing, "modprobe
 * cachefiles" is run once (from kernel_open()'s retry) to load the module.
 */
#include "kernel/channel.h"
#include "kernel/transport.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct devconn {
	int fd;
};

static const char *
dev_default_path(void)
{
	return KERNEL_DEVICE;
}

static void *
dev_open(const char *path)
{
	struct devconn *c;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd == -1)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	return c;
}

static const char *const modprobe_paths[] = {
	"/sbin/modprobe", "/usr/sbin/modprobe", "/bin/modprobe", "/usr/bin/modprobe",
};
static char modprobe_path_env[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
static char *const modprobe_env[] = { modprobe_path_env, NULL };

/*
 * Why no modprobe ran, from the child to the parent: the first place where
 * one was found but could not be run, and the errno.  Exit status 127 alone
 * would say "not found" when a security policy or NoNewPrivileges (the
 * unit's: the exec into modprobe's SELinux domain is then refused with
 * EPERM) forbade it, and send the admin looking for a binary that is there.
 */
struct exec_failure {
	int path;	/* index in modprobe_paths, -1: none at any of them */
	int err;
};

/* In the child: try each place; on failure report through fd (close-on-exec) and exit 127. */
static void __attribute__((noreturn))
exec_modprobe(int fd)
{
	static char arg0[] = "modprobe", arg1[] = "-q", arg2[] = "cachefiles";
	char *const argv[] = { arg0, arg1, arg2, NULL };	/* execve() wants char * */
	struct exec_failure f = { -1, ENOENT };
	sigset_t none;

	/*
	 * The daemon holds some signals until its loop runs, and ignores
	 * SIGPIPE; an ignored signal stays ignored across execve, and modprobe
	 * (and the install commands it runs) must get neither.
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Fixed places and a fixed PATH: never whatever the caller's PATH finds first. */
	for (size_t i = 0; i < ARRAY_SIZE(modprobe_paths); i++) {
		execve(modprobe_paths[i], argv, modprobe_env);
		/* Absent here is no news (one of four is enough); anything else is the story. */
		if (f.path == -1 && errno != ENOENT && errno != ENOTDIR) {
			f.path = (int)i;
			f.err = errno;
		}
	}
	/* Written only now: an exec that succeeds after a refusal must leave nothing to read. */
	if (fd != -1 && write(fd, &f, sizeof(f)) < 0)
		_exit(127);	/* unread, the parent says "not found", as it always did */
	_exit(127);
}

/*
 * In the parent, the child gone: what its exit status 127 meant.  The pipe
 * does not block: a write end some other fork still holds must not hang the
 * start (nothing to read is taken as "not found", as before the pipe).
 */
static void
report_127(int fd)
{
	struct exec_failure f;
	ssize_t n = -1;

	if (fd != -1)
		do
			n = read(fd, &f, sizeof(f));
		while (n == -1 && errno == EINTR);
	if (n == 0)	/* the exec succeeded: modprobe itself said 127 */
		log_warnx("modprobe cachefiles exited with status 127");
	else if (n != (ssize_t)sizeof(f) || f.path < 0 || (size_t)f.path >= ARRAY_SIZE(modprobe_paths))
		log_warnx("modprobe not found in /sbin, /usr/sbin, /bin or /usr/bin");
	else if (f.err == EACCES || f.err == EPERM)
		log_warnx("modprobe: %s: %s (a security policy or NoNewPrivileges may forbid it); "
			  "load the module with modprobe cachefiles", modprobe_paths[f.path],
			  strerror(f.err));
	else
		log_warnx("modprobe: %s: %s; load the module with modprobe cachefiles",
			  modprobe_paths[f.path], strerror(f.err));
}

/* Run "modprobe cachefiles" once and wait for it; its result only matters through the retry. */
static int
dev_load(const char *path)
{
	int status, p[2] = { -1, -1 };
	pid_t pid;

	if (strcmp(path, KERNEL_DEVICE) != 0)
		return 0;
	log_info("%s is missing: running modprobe cachefiles", KERNEL_DEVICE);
	/* Without the pipe the child still runs modprobe; only the reason for a 127 is lost. */
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == -1)
		p[0] = p[1] = -1;
	pid = fork();
	if (pid == -1) {
		log_warn("modprobe: fork");
		if (p[0] != -1) {
			close(p[0]);
			close(p[1]);
		}
		return 1;
	}
	if (pid == 0) {
		if (p[0] != -1)
			close(p[0]);
		exec_modprobe(p[1]);
	}
	if (p[1] != -1)
		close(p[1]);	/* else a successful exec never reads as end of file */
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			log_warn("modprobe: waitpid");
			if (p[0] != -1)
				close(p[0]);
			return 1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		report_127(p[0]);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		log_warnx("modprobe cachefiles exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_warnx("modprobe cachefiles killed by signal %d", WTERMSIG(status));
	if (p[0] != -1)
		close(p[0]);
	return 1;
}

static int
dev_close(void *conn)
{
	struct devconn *c = conn;
	int r = close(c->fd) == -1 ? -errno : 0;

	free(c);
	return r;
}

static int
dev_fd(void *conn)
{
	return ((struct devconn *)conn)->fd;
}

static int
dev_write(void *conn, const char *buf, size_t len)
{
	struct devconn *c = conn;
	ssize_t n;

	do
		n = write(c->fd, buf, len);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

static ssize_t
dev_read(void *conn, char *buf, size_t size)
{
	struct devconn *c = conn;
	ssize_t n;

	do
		n = read(c->fd, buf, size);
	while (n == -1 && errno == EINTR);
	return n == -1 ? -errno : n;
}

const struct ktransport ktransport_device = {
	.name = "device",
	.default_path = dev_default_path,
	.open = dev_open,
	.load = dev_load,
	.close = dev_close,
	.fd = dev_fd,
	.write = dev_write,
	.read = dev_read,
	.explain_open = NULL,
};
