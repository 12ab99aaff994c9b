// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control.c: the client side of the control socket: one request, one reply.
 */
#include "cull/control.h"
#include "lib/util.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
fail(int fd, int err)
{
	close(fd);
	errno = err;
	return -1;
}

/*
 * How long a connect() may wait for room in the daemon's listen queue when
 * the call itself has no limit (a cull).  A daemon whose queue stays full
 * that long is stopped or hung: a blocking connect() would wait for ever.
 */
#define CONNECT_WAIT_MS 10000
#define CONNECT_RETRY_MS 20

/*
 * Non-blocking, so that a full listen queue (EAGAIN on a Unix socket) is
 * retried until the deadline instead of blocking in connect() for ever;
 * blocking again once connected.
 */
static int
connect_to(const char *path, uint64_t deadline)
{
	const struct timespec pause = { 0, CONNECT_RETRY_MS * 1000 * 1000 };
	struct sockaddr_un sun;
	int fd, r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy_checked(sun.sun_path, path, sizeof(sun.sun_path)) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		return -1;
	if (deadline == 0)
		deadline = now_ms() + CONNECT_WAIT_MS;
	while ((r = connect(fd, (struct sockaddr *)&sun, sizeof(sun))) == -1 &&
	       (errno == EAGAIN || errno == EINTR) && now_ms() < deadline)
		if (errno == EAGAIN)
			nanosleep(&pause, NULL);
	if (r == -1)
		return fail(fd, errno == EAGAIN ? ETIMEDOUT : errno);
	if (fcntl(fd, F_SETFL, 0) == -1)
		return fail(fd, errno);
	return fd;
}

/* Wait for fd to become readable within the deadline; 0, or -1 (ETIMEDOUT, ...). */
static int
wait_readable(int fd, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ms = -1, r;

	if (deadline != 0) {
		uint64_t now = now_ms();
		ms = now >= deadline ? 0 : (int)(deadline - now > INT32_MAX ? INT32_MAX : deadline - now);
	}
	while ((r = poll(&p, 1, ms)) == -1 && errno == EINTR)
		;
	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : -1;
}

int
control_call(const char *path, const char *request, char *reply, size_t size,
	     int timeout_ms)
{
	char line[CONTROL_REQUEST_MAX + 1];	/* the daemon takes MAX bytes with the newline */
	uint64_t deadline = timeout_ms > 0 ? now_ms() + (uint64_t)timeout_ms : 0;
	size_t len = 0;
	int fd, n;

	n = snprintf(line, sizeof(line), "%s\n", request);
	if (n < 0 || (size_t)n >= sizeof(line) || strchr(request, '\n') != NULL || size == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = connect_to(path, deadline)) == -1)
		return -1;
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != n)
		return fail(fd, errno ? errno : EPROTO);
	for (;;) {
		ssize_t r;
		char *nl;

		if (wait_readable(fd, deadline) == -1)
			return fail(fd, errno);
		r = read(fd, reply + len, size - 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail(fd, r == 0 ? EPROTO : errno);
		len += (size_t)r;
		reply[len] = '\0';
		if ((nl = memchr(reply, '\n', len)) != NULL) {
			*nl = '\0';
			close(fd);
			return 0;
		}
		if (len + 1 >= size)
			return fail(fd, EPROTO);
	}
}
