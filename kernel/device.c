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

/* Run "modprobe cachefiles" once and wait for it; its result only matters through the retry. */
static int
dev_load(const char *path)
{
	static char arg0[] = "modprobe", arg1[] = "-q", arg2[] = "cachefiles";
	char *const argv[] = { arg0, arg1, arg2, NULL };	/* execve() wants char * */
	int status;
	pid_t pid;

	if (strcmp(path, KERNEL_DEVICE) != 0)
		return 0;
	log_info("%s is missing: running modprobe cachefiles", KERNEL_DEVICE);
	pid = fork();
	if (pid == -1) {
		log_warn("modprobe: fork");
		return 1;
	}
	if (pid == 0) {
		sigset_t none;

		/* The daemon holds some signals until its loop runs; modprobe must not. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Fixed places and a fixed PATH: never whatever the caller's PATH finds first. */
		for (size_t i = 0; i < ARRAY_SIZE(modprobe_paths); i++)
			execve(modprobe_paths[i], argv, modprobe_env);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			log_warn("modprobe: waitpid");
			return 1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		log_warnx("modprobe not found in /sbin, /usr/sbin, /bin or /usr/bin");
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		log_warnx("modprobe cachefiles exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_warnx("modprobe cachefiles killed by signal %d", WTERMSIG(status));
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
