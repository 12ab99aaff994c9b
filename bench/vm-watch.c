// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-watch.c: the moment a cull round is done, for bench/vm-guest.sh.
 *
 *   vm-watch FS BRUN FRUN PID LIMIT_S MARKER
 *
 * Polls statfs(FS) every 10 ms until f_bavail >= BRUN and f_ffree >= FRUN
 * (the kernel's own condition for leaving the culling state), then writes
 * "vmb reached" to MARKER (the tracing marker the round's other times come
 * from) and exits 0; exits 1 when LIMIT_S seconds pass or process PID is
 * gone first, or a zombie (nothing written), 2 on bad arguments.  The guest script's
 * loop of `stat -f` every half second cost two processes a poll and
 * measured the time back above brun in steps of half a second, an eighth
 * of the target at the VM benchmark's size; a statfs() every 10 ms costs
 * the one vCPU about a thousandth of its time.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS (10 * 1000 * 1000)

static int
number(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' ? 0 : -1;
}

static int
reached(const char *fs, unsigned long long brun, unsigned long long frun)
{
	struct statfs sf;

	return statfs(fs, &sf) == 0 && (unsigned long long)sf.f_bavail >= brun &&
	    (unsigned long long)sf.f_ffree >= frun;
}

/* The daemon dead: no such process, or a zombie its parent has not reaped. */
static int
gone(unsigned long long pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%llu/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

static int
mark(const char *marker)
{
	static const char msg[] = "vmb reached\n";
	int fd = open(marker, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, msg, sizeof(msg) - 1) == (ssize_t)(sizeof(msg) - 1);

	if (!ok)
		fprintf(stderr, "vm-watch: %s: %s\n", marker, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int
main(int argc, char **argv)
{
	const struct timespec tick = { 0, TICK_NS };
	unsigned long long brun, frun, pid, limit, polls;

	if (argc != 7 || number(argv[2], &brun) < 0 || number(argv[3], &frun) < 0 ||
	    number(argv[4], &pid) < 0 || number(argv[5], &limit) < 0 || pid == 0) {
		fprintf(stderr, "usage: vm-watch FS BRUN FRUN PID LIMIT_S MARKER\n");
		return 2;
	}
	for (polls = 0; polls < limit * (1000000000ull / TICK_NS); polls++) {
		if (reached(argv[1], brun, frun))
			return mark(argv[6]) == 0 ? 0 : 2;
		if (polls % 10 == 0 && gone(pid))
			return 1;
		nanosleep(&tick, NULL);
	}
	return 1;
}
