// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simtools.c: the small clients for shell scripts: "cfsim ctl" sends one
 * control request to a running simulator and prints the reply, and
 * "cfsim notify-listen" stands in for systemd's NOTIFY_SOCKET.
 */
#include "tests/sim/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CTL_TIMEOUT_S 10
#define NOTIFY_MAX 8192

static int
unix_addr(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (n == 0 || n >= sizeof(sa->sun_path)) {
		fprintf(stderr, "cfsim: %s: bad socket path\n", path);
		return -1;
	}
	memcpy(sa->sun_path, path, n);
	if (path[0] == '@')		/* abstract namespace, as systemd allows */
		sa->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] != '@'));
	return 0;
}

int
ctl_main(int argc, char **argv)
{
	char req[SIM_CTL_MAX], rep[SIM_CTL_MAX];
	struct timeval tv = { CTL_TIMEOUT_S, 0 };
	struct sockaddr_un sa;
	socklen_t salen;
	size_t len = 0;
	ssize_t n;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: cfsim ctl CTLSOCK REQUEST...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int w = snprintf(req + len, sizeof(req) - len, "%s%s", i > 2 ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(req) - len) {
			fprintf(stderr, "cfsim ctl: request too long\n");
			return 2;
		}
		len += (size_t)w;
	}
	if (unix_addr(argv[1], &sa, &salen) < 0)
		return 1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		fprintf(stderr, "cfsim ctl: %s: connect: %s\n", argv[1], strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, req, len, MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "cfsim ctl: %s: send: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = recv(fd, rep, sizeof(rep) - 1, 0);
	if (n <= 0) {
		fprintf(stderr, "cfsim ctl: %s: no reply: %s\n", argv[1],
			n == 0 ? "connection closed" : strerror(errno));
		return 1;
	}
	rep[n] = '\0';
	close(fd);
	printf("%s\n", rep);
	return strncmp(rep, "ok", 2) == 0 ? 0 : 1;
}

static const char *notify_path;

static void
notify_quit(int sig)
{
	(void)sig;
	if (notify_path != NULL && notify_path[0] != '@')
		unlink(notify_path);
	_exit(0);
}

int
notify_main(int argc, char **argv)
{
	char buf[NOTIFY_MAX + 1];
	struct sockaddr_un sa;
	socklen_t salen;
	int fd, stamp = 0;
	FILE *out;

	if (argc == 4 && strcmp(argv[1], "-t") == 0) {
		stamp = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: cfsim notify-listen [-t] SOCKET OUTFILE\n");
		return 2;
	}
	out = fopen(argv[2], "a");
	if (out == NULL) {
		fprintf(stderr, "cfsim: %s: open: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (unix_addr(argv[1], &sa, &salen) < 0)
		return 1;
	if (argv[1][0] != '@')
		unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, salen) < 0) {
		fprintf(stderr, "cfsim: %s: bind: %s\n", argv[1], strerror(errno));
		return 1;
	}
	notify_path = argv[1];
	signal(SIGTERM, notify_quit);
	signal(SIGINT, notify_quit);
	for (;;) {
		ssize_t n = recv(fd, buf, NOTIFY_MAX, 0);
		char *line, *save = NULL;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "cfsim: %s: recv: %s\n", argv[1], strerror(errno));
			return 1;
		}
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
			if (stamp) {
				struct timespec ts;

				/* the same clock and format as the simulator's log */
				clock_gettime(CLOCK_MONOTONIC, &ts);
				fprintf(out, "%lld.%03ld ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
			}
			fprintf(out, "%s\n", line);
		}
		fflush(out);
	}
}

/* --- "cfsim client SOCKET": a scripted device user for the simulator's own tests --- */

static int
client_reply(int fd, char *buf, size_t size, int *saw_n)
{
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, size - 1, 0);
		if (n <= 0)
			return -1;
		buf[n] = '\0';
		if (n == 1 && buf[0] == 'N') {
			*saw_n = 1;
			continue;
		}
		return (int)n;
	}
}

/* Wait up to ms for an "N" that is already queued or arrives; consumes it. */
static int
client_wait_n(int fd, int ms, int *saw_n)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c[8];

	if (*saw_n) {
		*saw_n = 0;
		return 1;
	}
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (recv(fd, c, sizeof(c), MSG_PEEK) == 1 && c[0] == 'N') {
		recv(fd, c, sizeof(c), 0);
		return 1;
	}
	return 0;
}

static void
client_step(int fd, char *line, int *saw_n)
{
	char msg[SIM_CMD_MAX + 2], rep[SIM_CTL_MAX];
	size_t len = strlen(line);

	if (len >= 2 && line[0] == 'w' && line[1] == ' ') {
		msg[0] = 'W';
		memcpy(msg + 1, line + 2, len - 2);
		if (send(fd, msg, len - 1, MSG_NOSIGNAL) < 0 || client_reply(fd, rep, sizeof(rep), saw_n) < 0)
			printf("%s: disconnected\n", line);
		else
			printf("%s: %s\n", line, atoi(rep + 1) == 0 ? "ok" : errname(atoi(rep + 1)));
	} else if (line[0] == 'r') {
		int n = snprintf(msg, sizeof(msg), "R%d", len > 2 ? atoi(line + 2) : 512);

		if (send(fd, msg, (size_t)n, MSG_NOSIGNAL) < 0 || client_reply(fd, rep, sizeof(rep), saw_n) < 0)
			printf("r: disconnected\n");
		else if (rep[0] == 'E')
			printf("r: %s\n", errname(atoi(rep + 1)));
		else
			printf("r: %s\n", rep[1] == '\0' ? "EOF" : rep + 1);
	} else if (line[0] == 'n') {
		printf("n: %s\n", client_wait_n(fd, len > 2 ? atoi(line + 2) : 1000, saw_n) ? "yes" : "no");
	} else if (strncmp(line, "cd ", 3) == 0) {
		if (chdir(line + 3) < 0)
			printf("cd: %s\n", errname(errno));
	} else if (strncmp(line, "x ", 2) == 0) {
		fflush(stdout);
		if (system(line + 2) != 0)
			printf("x: failed: %s\n", line + 2);
	} else if (line[0] != '\0' && line[0] != '#') {
		printf("?: %s\n", line);
	}
	fflush(stdout);
}

int
client_main(int argc, char **argv)
{
	char line[SIM_CMD_MAX + 2], rep[32];
	struct sockaddr_un sa;
	socklen_t salen;
	int fd, saw_n = 0;
	ssize_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: cfsim client SOCKET < SCRIPT\n");
		return 2;
	}
	if (unix_addr(argv[1], &sa, &salen) < 0)
		return 1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		printf("open: %s\n", errname(errno));
		return 1;
	}
	n = recv(fd, rep, sizeof(rep) - 1, 0);
	rep[n > 0 ? n : 0] = '\0';
	printf("open: %s\n", n < 2 ? "disconnected" : atoi(rep + 1) == 0 ? "ok" : errname(atoi(rep + 1)));
	fflush(stdout);
	if (n < 2 || atoi(rep + 1) != 0)
		return 1;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		client_step(fd, line, &saw_n);
	}
	close(fd);
	return 0;
}

/*
 * "cfsim populate DIR N KB [FANOUT [STEP]]": N cache-like files DIR/@xx/D<i>
 * of KB KiB (written, so that they take blocks), object i in fan-out
 * directory i % FANOUT (default 4, at most 256), their atimes one minute
 * apart from a day ago (ten days with a FANOUT given), oldest first; with
 * STEP, STEP seconds apart and all of them more than ten days ago.
 * Quicker than a shell loop for hundreds of files.
 */
int
populate_main(int argc, char **argv)
{
	static char block[1024];
	time_t base = time(NULL) - (argc >= 5 ? 10 : 1) * 86400;
	long n, kb, fan = 4, step = 60;

	if (argc < 4 || argc > 6 || (n = strtol(argv[2], NULL, 10)) < 0 ||
	    (kb = strtol(argv[3], NULL, 10)) < 0 ||
	    (argc >= 5 && ((fan = strtol(argv[4], NULL, 10)) < 1 || fan > 256)) ||
	    (argc == 6 && ((step = strtol(argv[5], NULL, 10)) < 0 || step > 86400))) {
		fprintf(stderr, "usage: cfsim populate DIR N KB [FANOUT [STEP]]\n");
		return 2;
	}
	if (argc == 6)
		base -= (time_t)(n * step);
	for (long i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct timespec ts[2];
		int fd;

		int tries = 0;

		/*
		 * A running daemon's scan removes the empty directories it finds
		 * (the real kernel's, in use, it may not): make the volume and
		 * the fan-out again until the object is in it.
		 */
		do {
			if (snprintf(path, sizeof(path), "%s/@%02lx", argv[1], i % fan) >=
			    (int)sizeof(path))
				return 1;
			if ((mkdir(argv[1], 0700) < 0 && errno != EEXIST) ||
			    (mkdir(path, 0700) < 0 && errno != EEXIST)) {
				fprintf(stderr, "cfsim: %s: mkdir: %s\n", path, strerror(errno));
				return 1;
			}
			if (snprintf(path, sizeof(path), "%s/@%02lx/D%ld", argv[1], i % fan, i) >=
			    (int)sizeof(path))
				return 1;
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		} while (fd < 0 && errno == ENOENT && ++tries < 20);
		if (fd < 0) {
			fprintf(stderr, "cfsim: %s: open: %s\n", path, strerror(errno));
			return 1;
		}
		for (long j = 0; j < kb; j++)
			if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) {
				fprintf(stderr, "cfsim: %s: write: %s\n", path, strerror(errno));
				close(fd);
				return 1;
			}
		ts[0].tv_sec = base + i * step;
		ts[0].tv_nsec = 0;
		ts[1].tv_nsec = UTIME_OMIT;
		ts[1].tv_sec = 0;
		if (futimens(fd, ts) < 0)
			fprintf(stderr, "cfsim: %s: futimens: %s\n", path, strerror(errno));
		close(fd);
	}
	return 0;
}

/*
 * "cfsim tree wide DIR N": N empty files DIR/D0..D<N-1> (cheap: no data, one
 * directory); "cfsim tree deep DIR N [NAME]": N nested directories
 * DIR/NAME/NAME/... (NAME defaults to "+d", a name the scanner enters) made
 * relative to each other, so that no path length limits the depth, with an
 * empty file Ddeep at the bottom; "cfsim tree sock PATH": a
 * listening-less AF_UNIX socket node at PATH.  For the hostile-tree tests.
 */
int
tree_main(int argc, char **argv)
{
	long n = argc >= 4 ? strtol(argv[3], NULL, 10) : -1;
	const char *dname = argc == 5 ? argv[4] : "+d";
	int fd, dfd;

	if (argc == 3 && strcmp(argv[1], "sock") == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(argv[2]) >= sizeof(sa.sun_path))
			return 1;
		strcpy(sa.sun_path, argv[2]);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			fprintf(stderr, "cfsim: %s: bind: %s\n", argv[2], strerror(errno));
			return 1;
		}
		close(fd);
		return 0;
	}
	if ((argc != 4 && !(argc == 5 && argv[1][0] == 'd')) || n < 0 ||
	    (strcmp(argv[1], "wide") != 0 && strcmp(argv[1], "deep") != 0)) {
		fprintf(stderr, "usage: cfsim tree wide DIR N | deep DIR N [NAME] | sock PATH\n");
		return 2;
	}
	dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "cfsim: %s: open: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		char name[32];

		if (argv[1][0] == 'w') {
			snprintf(name, sizeof(name), "D%ld", i);
			fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd < 0) {
				fprintf(stderr, "cfsim: %s/%s: %s\n", argv[2], name, strerror(errno));
				return 1;
			}
			close(fd);
			continue;
		}
		if (mkdirat(dfd, dname, 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "cfsim: mkdir at depth %ld: %s\n", i, strerror(errno));
			return 1;
		}
		fd = openat(dfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return 1;
		close(dfd);
		dfd = fd;
	}
	if (argv[1][0] == 'd') {
		fd = openat(dfd, "Ddeep", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	return 0;
}
