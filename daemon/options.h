/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h: the command line, compatible with cachefilesd 0.10.10
 * (-d -s -n -N -f -p -v) plus -t (test the configuration) and -h/--help.
 */
#ifndef CFD_OPTIONS_H
#define CFD_OPTIONS_H

#include <stdio.h>

#define DEFAULT_PIDFILE "/run/cachefilesd.pid"

/*
 * Exit statuses (cachefilesd(8) EXIT STATUS).  2 is what 0.10.10 used for
 * both a usage error and a configuration error; neither is mended by
 * starting again, so the unit's RestartPreventExitStatus= names it.
 */
#define EXIT_FAILED 1	/* a run-time failure: device, kernel, dead cache */
#define EXIT_CONFIG 2	/* usage, configuration, a read-only cache directory */

enum options_action { OPT_RUN, OPT_TEST, OPT_VERSION, OPT_HELP };

struct options {
	enum options_action action;
	int debug;		/* -d count */
	int to_stderr;		/* -s */
	int foreground;		/* -n */
	int nocull;		/* -N */
	const char *config;	/* -f */
	const char *pidfile;	/* -p */
	int pidfile_set;	/* -p was given (pidfile is the default otherwise) */
};

/* Returns 0, or -1 after writing a usage error to err (exit status 2). */
int options_parse(struct options *o, int argc, char **argv, FILE *err);
void options_usage(FILE *out);

#endif
