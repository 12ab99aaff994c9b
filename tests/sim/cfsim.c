// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cfsim.c: a multi-call test program around a simulator of the CacheFiles
 * kernel module's daemon interface.  See docs/simulator-protocol.md.
 */
#include "tests/sim/sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static FILE *simlogf;

int
sim_log_open(const char *path)
{
	simlogf = fopen(path, "a");
	if (simlogf == NULL) {
		fprintf(stderr, "cfsim: %s: open: %s\n", path, strerror(errno));
		return -1;
	}
	setvbuf(simlogf, NULL, _IOLBF, 0);
	return 0;
}

/* Each line starts with the monotonic time in ms so that tests can order events. */
void
sim_log(const char *fmt, ...)
{
	FILE *out = simlogf != NULL ? simlogf : stderr;
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(out, "%lld.%03ld ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}

/* "EBUSY" for EBUSY, "0" for success. */
const char *
errname(int err)
{
	static char num[16];
	const char *name;

	if (err == 0)
		return "0";
	name = strerrorname_np(err);
	if (name != NULL)
		return name;
	snprintf(num, sizeof(num), "E%d", err);
	return num;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: cfsim serve SOCKET [--control CTLSOCK] [--log FILE] [--estale] [--eperm]\n"
		"                  [--old-kernel] [--xattr-check] [--fail-bind ERRNO]\n"
		"                  [--busy-ms MS] [--withdraw-ms MS] [--cull-delay-ms MS]\n"
		"                  [--fault RULE]...\n"
		"       cfsim ctl CTLSOCK REQUEST...\n"
		"       cfsim notify-listen [-t] SOCKET OUTFILE\n"
		"       cfsim conform DEVICE-OR-SOCKET DIR\n"
		"       cfsim client SOCKET < SCRIPT\n"
		"       cfsim populate DIR N KB [FANOUT [STEP]]\n"
		"       cfsim tree wide DIR N | deep DIR N [NAME] | sock PATH\n"
		"       cfsim bind-as UID DIR TAG SECONDS [NAME...]   (real module, as root)\n");
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} calls[] = {
		{ "serve", serve_main },
		{ "ctl", ctl_main },
		{ "notify-listen", notify_main },
		{ "conform", conform_main },
		{ "client", client_main },
		{ "populate", populate_main },
		{ "tree", tree_main },
		{ "bind-as", bindas_main },
	};

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(argv[1], calls[i].name) == 0)
			return calls[i].fn(argc - 1, argv + 1);
	usage(stderr);
	return 2;
}
