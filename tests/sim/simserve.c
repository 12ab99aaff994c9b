// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simserve.c: "cfsim serve", the device socket and the control socket.
 *
 * One poll loop, one client at a time as the device allows one open file
 * description: a second client is told E16 (EBUSY) and closed.  Every write
 * and read of the client is one SOCK_SEQPACKET message; the writer's pid
 * comes with each message (SO_PASSCRED), since cull and inuse act in the
 * working directory of the process that writes, which may be a child of the
 * one that connected (a daemon that forks after opening the device).
 */
#include "tests/sim/sim.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CTL_CONNS 16
#define MSG_BUF 65536
#define FAULTS_MAX 16		/* --fault options */

struct simopts simopt;

static volatile sig_atomic_t quit;
static int devfd = -1, clientfd = -1, ctlfd = -1;
static int ctlconns[CTL_CONNS];
static pid_t client_pid;
static uint64_t refuse_until;	/* ms: opens get EBUSY before this (withdrawal) */
static unsigned long refused;

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static int
listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "cfsim: %s: socket path too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		fprintf(stderr, "cfsim: %s: listen: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void
send_msg(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
send_msg(int fd, const char *fmt, ...)
{
	char buf[SIM_CTL_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		sim_log("send: %s", strerror(errno));
}

static void
flush_notify(void)
{
	if (dev_take_notify() && clientfd >= 0) {
		sim_log("notify: N");
		send_msg(clientfd, "N");
	}
}

static pid_t
peer_pid(int fd)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return 0;
	return uc.pid;
}

static void
accept_client(void)
{
	int fd = accept4(devfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
	pid_t pid;

	if (fd < 0)
		return;
	pid = peer_pid(fd);
	if (simopt.eperm || clientfd >= 0 || mono_ms() < refuse_until) {
		int err = simopt.eperm ? EPERM : EBUSY;

		refused++;
		sim_log("open: pid %ld refused: %s", (long)pid, errname(err));
		send_msg(fd, "E%d", err);
		close(fd);
		return;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		sim_log("SO_PASSCRED: %s", strerror(errno));
	clientfd = fd;
	client_pid = pid;
	dev_open(pid);
	send_msg(fd, "E0");
}

static void
drop_client(void)
{
	close(clientfd);
	clientfd = -1;
	dev_close();
	refuse_until = mono_ms() + simopt.withdraw_ms;
}

/* The pid that sent this message, from SCM_CREDENTIALS. */
static pid_t
msg_pid(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			return uc.pid;
		}
	return client_pid;
}

static void
client_message(void)
{
	static char buf[MSG_BUF];
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(clientfd, &mh, MSG_CMSG_CLOEXEC);

	if (n <= 0) {
		if (n < 0)
			sim_log("client: recv: %s", strerror(errno));
		drop_client();
		return;
	}
	if (mh.msg_flags & MSG_TRUNC) {
		sim_log("client: message longer than %d bytes", MSG_BUF);
		send_msg(clientfd, "E%d", EOPNOTSUPP);
	} else if (buf[0] == 'W') {
		send_msg(clientfd, "E%d", dev_write(buf + 1, (size_t)n - 1, msg_pid(&mh)));
	} else if (buf[0] == 'R') {
		char line[SIM_LINE_MAX + 1];
		unsigned long size = 0;
		size_t len;
		int err;

		buf[n < MSG_BUF ? n : MSG_BUF - 1] = '\0';
		if (sscanf(buf + 1, "%lu", &size) != 1) {
			sim_log("client: bad read request \"%s\"", buf);
			send_msg(clientfd, "E%d", EINVAL);
			return;
		}
		err = dev_read(size, line + 1, sizeof(line) - 1, &len);
		if (err) {
			send_msg(clientfd, "E%d", err);
		} else {
			line[0] = 'D';
			if (send(clientfd, line, len + 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				sim_log("send: %s", strerror(errno));
		}
	} else {
		sim_log("client: unknown message type '%c'", buf[0]);
		send_msg(clientfd, "E%d", EINVAL);
	}
	flush_notify();
}

static void
ctl_message(int i)
{
	char req[SIM_CTL_MAX], rep[SIM_CTL_MAX];
	ssize_t n = recv(ctlconns[i], req, sizeof(req) - 1, 0);

	if (n <= 0) {
		close(ctlconns[i]);
		ctlconns[i] = -1;
		return;
	}
	req[n] = '\0';
	req[strcspn(req, "\n")] = '\0';
	if (strcmp(req, "stop") == 0) {
		sim_log("ctl: stop");
		snprintf(rep, sizeof(rep), "ok stopping");
		quit = 1;
	} else if (strcmp(req, "refused") == 0) {
		snprintf(rep, sizeof(rep), "ok refused=%lu", refused);
	} else {
		dev_control(req, rep, sizeof(rep));
		if (strncmp(req, "state", 5) == 0) {
			size_t len = strlen(rep);

			snprintf(rep + len, sizeof(rep) - len, " refused=%lu pid=%ld", refused,
				 (long)(clientfd >= 0 ? client_pid : 0));
		}
	}
	send_msg(ctlconns[i], "%s", rep);
	flush_notify();
}

static void
accept_ctl(void)
{
	int fd = accept4(ctlfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (int i = 0; i < CTL_CONNS; i++)
		if (ctlconns[i] < 0) {
			ctlconns[i] = fd;
			return;
		}
	close(fd);
}

static int
parse_errno(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s != '\0' && *end == '\0' && v > 0 && v < 4096)
		return (int)v;
	for (int e = 1; e < 200; e++) {
		const char *name = strerrorname_np(e);

		if (name != NULL && strcmp(name, s) == 0)
			return e;
	}
	return -1;
}

static int
parse_args(int argc, char **argv, const char **sock, const char **ctl)
{
	const char *logpath = NULL, *faults[FAULTS_MAX];
	int nfaults = 0;
	char why[160];

	*sock = *ctl = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--estale") == 0)
			simopt.estale = 1;
		else if (strcmp(a, "--eperm") == 0)
			simopt.eperm = 1;
		else if (strcmp(a, "--old-kernel") == 0)
			simopt.old_kernel = 1;
		else if (strcmp(a, "--xattr-check") == 0)
			simopt.xattr_check = 1;
		else if (next != NULL && strcmp(a, "--control") == 0)
			*ctl = argv[++i];
		else if (next != NULL && strcmp(a, "--log") == 0)
			logpath = argv[++i];
		else if (next != NULL && strcmp(a, "--fail-bind") == 0) {
			if ((simopt.fail_bind = parse_errno(argv[++i])) < 0)
				return -1;
		} else if (next != NULL && strcmp(a, "--busy-ms") == 0)
			simopt.busy_ms = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (next != NULL && strcmp(a, "--withdraw-ms") == 0)
			simopt.withdraw_ms = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (next != NULL && strcmp(a, "--fault") == 0 && nfaults < FAULTS_MAX)
			faults[nfaults++] = argv[++i];
		else if (next != NULL && strcmp(a, "--cull-delay-ms") == 0)
			simopt.cull_delay_ms = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (a[0] != '-' && *sock == NULL)
			*sock = a;
		else {
			fprintf(stderr, "cfsim serve: bad argument %s\n", a);
			return -1;
		}
	}
	if (*sock == NULL) {
		fprintf(stderr, "usage: cfsim serve SOCKET [--control CTLSOCK] [--log FILE] ...\n");
		return -1;
	}
	if (logpath != NULL && sim_log_open(logpath) < 0)
		return -1;
	/* after the log is open, so that the rules are logged in it */
	for (int i = 0; i < nfaults; i++)
		if (fault_add(faults[i], why, sizeof(why)) < 0) {
			fprintf(stderr, "cfsim serve: --fault %s: %s\n", faults[i], why);
			return -1;
		}
	return 0;
}

static void
loop(sigset_t *unblocked)
{
	while (!quit) {
		struct pollfd pfd[3 + CTL_CONNS];
		int map[3 + CTL_CONNS];
		nfds_t n = 0;

		pfd[n] = (struct pollfd){ devfd, POLLIN, 0 };
		map[n++] = -1;
		if (ctlfd >= 0) {
			pfd[n] = (struct pollfd){ ctlfd, POLLIN, 0 };
			map[n++] = -2;
		}
		if (clientfd >= 0) {
			pfd[n] = (struct pollfd){ clientfd, POLLIN, 0 };
			map[n++] = -3;
		}
		for (int i = 0; i < CTL_CONNS; i++)
			if (ctlconns[i] >= 0) {
				pfd[n] = (struct pollfd){ ctlconns[i], POLLIN, 0 };
				map[n++] = i;
			}
		if (ppoll(pfd, n, NULL, unblocked) < 0) {
			if (errno != EINTR)
				sim_log("poll: %s", strerror(errno));
			continue;
		}
		for (nfds_t j = 0; j < n && !quit; j++) {
			if (pfd[j].revents == 0)
				continue;
			if (map[j] == -1)
				accept_client();
			else if (map[j] == -2)
				accept_ctl();
			else if (map[j] == -3 && clientfd >= 0)
				client_message();
			else if (map[j] >= 0 && ctlconns[map[j]] >= 0)
				ctl_message(map[j]);
		}
	}
}

int
serve_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	const char *sock, *ctl;

	if (parse_args(argc, argv, &sock, &ctl) < 0)
		return 2;
	for (int i = 0; i < CTL_CONNS; i++)
		ctlconns[i] = -1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* the device first, so that a control socket that answers means ready */
	devfd = listen_on(sock);
	if (devfd < 0)
		return 1;
	if (ctl != NULL && (ctlfd = listen_on(ctl)) < 0)
		return 1;
	refuse_until = mono_ms() + simopt.busy_ms;
	sim_log("serve: device %s control %s pid %ld%s%s%s", sock, ctl ? ctl : "-",
		(long)getpid(), simopt.old_kernel ? " old-kernel" : "",
		simopt.estale ? " estale" : "", simopt.eperm ? " eperm" : "");
	loop(&old);
	if (clientfd >= 0)
		drop_client();
	unlink(sock);
	if (ctl != NULL)
		unlink(ctl);
	sim_log("serve: exit");
	return 0;
}
