// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cfctl.c: a test client for the daemon's control socket.
 *
 *   cfctl PATH REQUEST [TIMEOUT_MS]   one request through control_call(); the reply
 *   cfctl -r PATH [SECS]              send stdin as it is (no newline added), then
 *                                     print what comes back until EOF
 *   cfctl -i PATH SECS                connect, send nothing, print what comes back
 *   cfctl -q PATH REQUEST SECS        send REQUEST, hang up after SECS without reading
 *
 * Exit status: 0 a reply was printed, 1 usage, 2 the call failed (errno shown),
 * 3 a reply was printed but the connection then failed instead of ending
 * (-r and -i; a reset, say: errno shown).
 */
#include "cull/control.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
connect_to(const char *path)
{
	struct sockaddr_un sun;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd == -1 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "cfctl: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

/* Print what the socket sends until EOF or secs; 0 when something came (3 above). */
static int
drain(int fd, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while (poll(&p, 1, secs * 1000) > 0) {
		if ((n = read(fd, buf, sizeof(buf))) < 0) {
			fprintf(stderr, "cfctl: read: %s\n", strerror(errno));
			return total > 0 ? 3 : 2;
		}
		if (n == 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
		total += (size_t)n;
	}
	return total > 0 ? 0 : 2;
}

int
main(int argc, char **argv)
{
	char reply[CONTROL_REPLY_MAX], in[65536];
	size_t len;
	int fd;

	if (argc >= 3 && strcmp(argv[1], "-r") == 0) {
		fd = connect_to(argv[2]);
		len = fread(in, 1, sizeof(in), stdin);
		if (len > 0 && send(fd, in, len, MSG_NOSIGNAL) < 0)
			fprintf(stderr, "cfctl: send: %s\n", strerror(errno));
		shutdown(fd, SHUT_WR);	/* the daemon sees the end of the request */
		return drain(fd, argc > 3 ? atoi(argv[3]) : 10);
	}
	if (argc == 4 && strcmp(argv[1], "-i") == 0)
		return drain(connect_to(argv[2]), atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "-q") == 0) {
		fd = connect_to(argv[2]);
		if (dprintf(fd, "%s\n", argv[3]) < 0)
			return 2;
		sleep((unsigned)atoi(argv[4]));
		close(fd);
		return 0;
	}
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: cfctl PATH REQUEST [TIMEOUT_MS] | -r PATH [SECS] | "
			"-i PATH SECS | -q PATH REQUEST SECS\n");
		return 1;
	}
	if (control_call(argv[1], argv[2], reply, sizeof(reply),
			 argc == 4 ? atoi(argv[3]) : 0) == -1) {
		fprintf(stderr, "cfctl: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	printf("%s\n", reply);
	return 0;
}
