// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simtransport.c: the kernel channel's transport to the kernel simulator
 * (docs/simulator-protocol.md), for test programs only.
 *
 * Each device operation is one request message and one reply on an AF_UNIX
 * SOCK_SEQPACKET socket: "W<bytes>" -> "E<errno>", "R<size>" -> "D<data>" or
 * "E<errno>".  The simulator also sends "N" when its state-changed flag goes
 * from clear to set.  This file hides those notices from the channel, so
 * that the descriptor the daemon polls behaves like the device's:
 *
 *   - an "N" still queued on the socket makes the socket readable;
 *   - an "N" met (and swallowed) while waiting for a reply signals an
 *     eventfd, which stays readable until the next state read drains it;
 *   - the descriptor handed out is an epoll instance over both, readable
 *     when either is: from a state change until the state is read.
 *
 * With no path given, the path is $CACHEFILESD_DEVICE.
 */
#include "tests/sim/simtransport.h"
#include "lib/util.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIMT_MSG_MAX 8192	/* a request's payload: room for over-long test commands */
#define SIMT_REPLY_MAX 1024	/* a reply: a state line (< 256 bytes) or E<errno> */

struct simconn {
	int sock;		/* the simulator's socket */
	int ev;			/* eventfd: an "N" was swallowed, not yet read */
	int ep;			/* epoll over sock and ev: what the loop polls */
	int pending;		/* ev is signalled */
};

/* Parse an "E<errno>" message; returns the errno, or -1 if malformed. */
static int
parse_errno_msg(const char *msg, size_t len)
{
	char num[16];
	uint64_t v;

	if (len < 2 || len - 1 >= sizeof(num) || msg[0] != 'E')
		return -1;
	memcpy(num, msg + 1, len - 1);
	num[len - 1] = '\0';
	if (parse_u64(num, 10, 0, 4095, &v) == -1)
		return -1;
	return (int)v;
}

static const char *
sim_default_path(void)
{
	const char *env = getenv(SIM_DEVICE_ENV);

	return env != NULL && env[0] != '\0' ? env : NULL;
}

/* Connect; returns the socket, or -1 with errno set (the simulated open()'s errno). */
static int
sim_connect(const char *path)
{
	struct sockaddr_un sun;
	char msg[32];
	ssize_t n;
	int fd, err;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy_checked(sun.sun_path, path, sizeof(sun.sun_path)) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		goto fail;
	n = recv(fd, msg, sizeof(msg), 0);
	if (n <= 0) {
		if (n == 0)
			errno = ECONNRESET;
		goto fail;
	}
	err = parse_errno_msg(msg, (size_t)n);
	if (err < 0) {
		errno = EPROTO;
		goto fail;
	}
	if (err > 0) {
		errno = err;
		goto fail;
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static int
watch(int ep, int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
}

static void
close_all(struct simconn *c)
{
	int err = errno;

	if (c->ep >= 0)
		close(c->ep);
	if (c->ev >= 0)
		close(c->ev);
	if (c->sock >= 0)
		close(c->sock);
	free(c);
	errno = err;
}

static void *
sim_open(const char *path)
{
	struct simconn *c = xcalloc(1, sizeof(*c));

	c->ev = c->ep = -1;
	if ((c->sock = sim_connect(path)) == -1 ||
	    (c->ev = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1 ||
	    (c->ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    watch(c->ep, c->sock) == -1 || watch(c->ep, c->ev) == -1) {
		close_all(c);
		return NULL;
	}
	return c;
}

static int
sim_close(void *conn)
{
	struct simconn *c = conn;
	int r = close(c->sock) == -1 ? -errno : 0;

	c->sock = -1;
	close_all(c);
	return r;
}

static int
sim_fd(void *conn)
{
	return ((struct simconn *)conn)->ep;
}

/* A state change arrived while the caller waited for a reply: keep it visible. */
static void
set_pending(struct simconn *c)
{
	uint64_t one = 1;

	if (c->pending)
		return;
	if (write(c->ev, &one, sizeof(one)) == (ssize_t)sizeof(one))
		c->pending = 1;
}

/* A state read happened: the device's flag is clear again. */
static void
clear_pending(struct simconn *c)
{
	uint64_t v;

	if (!c->pending)
		return;
	while (read(c->ev, &v, sizeof(v)) == -1 && errno == EINTR)
		;
	c->pending = 0;
}

/* Receive the reply to a request, swallowing "N" messages into the eventfd. */
static ssize_t
recv_reply(struct simconn *c, char *buf, size_t size)
{
	ssize_t n;

	for (;;) {
		n = recv(c->sock, buf, size, MSG_TRUNC);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		if ((size_t)n > size)
			return -EPROTO;
		if (n == 1 && buf[0] == 'N') {
			set_pending(c);
			continue;
		}
		return n;
	}
}

static int
send_req(struct simconn *c, char op, const char *data, size_t len)
{
	static char msg[SIMT_MSG_MAX + 1];
	ssize_t n;

	if (len > SIMT_MSG_MAX)
		return -E2BIG;
	msg[0] = op;
	memcpy(msg + 1, data, len);
	do
		n = send(c->sock, msg, len + 1, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -errno;
	return 0;
}

static int
sim_write(void *conn, const char *buf, size_t len)
{
	struct simconn *c = conn;
	char reply[32];
	ssize_t n;
	int r, err;

	if ((r = send_req(c, 'W', buf, len)) < 0)
		return r;
	if ((n = recv_reply(c, reply, sizeof(reply))) < 0)
		return (int)n;
	if ((err = parse_errno_msg(reply, (size_t)n)) < 0)
		return -EPROTO;
	return -err;
}

static ssize_t
sim_read(void *conn, char *buf, size_t size)
{
	struct simconn *c = conn;
	char reply[SIMT_REPLY_MAX];
	char req[24];
	ssize_t n;
	int r, err;

	r = snprintf(req, sizeof(req), "%zu", size);
	if ((r = send_req(c, 'R', req, (size_t)r)) < 0)
		return r;
	if ((n = recv_reply(c, reply, sizeof(reply))) < 0)
		return n;
	if (reply[0] == 'E') {
		if ((err = parse_errno_msg(reply, (size_t)n)) <= 0)
			return -EPROTO;
		/* EMSGSIZE: as the kernel, the simulator cleared its flag first */
		clear_pending(c);
		return -err;
	}
	if (reply[0] != 'D' || (size_t)n - 1 > size)
		return -EPROTO;
	memcpy(buf, reply + 1, (size_t)n - 1);
	clear_pending(c);	/* a read clears the kernel's state-changed flag */
	return n - 1;
}

static const char *
sim_explain_open(int err)
{
	if (err == ECONNREFUSED)
		return "nothing listens on the simulator socket";
	return NULL;
}

const struct ktransport ktransport_sim = {
	.name = "simulator",
	.default_path = sim_default_path,
	.open = sim_open,
	.load = NULL,
	.close = sim_close,
	.fd = sim_fd,
	.write = sim_write,
	.read = sim_read,
	.explain_open = sim_explain_open,
};
