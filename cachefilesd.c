// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachefilesd: the userspace daemon of the kernel's CacheFiles module.
 *
 * main() only sets up: it reads the command line and the configuration, then
 * either tests them (-t), prints the version or help, or hands over to the
 * daemon's loop in daemon/daemon.c.
 */
#include "daemon/checkenv.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "lib/log.h"
#include "daemon/options.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Configuration errors always reach the terminal that started us, and the
 * log as well when that is syslog, so that a failed start under an init
 * system leaves a trace.
 */
static void
config_error(void *arg, const char *msg)
{
	const struct options *opt = arg;

	fprintf(stderr, "%s\n", msg);
	if (!opt->to_stderr && opt->action != OPT_TEST)
		log_errx("%s", msg);
}

/* The count after the messages, on the same ways as they went. */
static void
error_count(struct options *opt, int errors)
{
	char msg[PATH_MAX + 64];

	snprintf(msg, sizeof(msg), "%s: configuration has %d error%s", opt->config,
		 errors, errors == 1 ? "" : "s");
	config_error(opt, msg);
}

/* -t: the file was right, the directory it names is not (status 1, not 2). */
static void
problem_count(const struct options *opt, const struct config *cfg, int problems)
{
	fprintf(stderr, "%s: cache directory %s: %d problem%s\n", opt->config, cfg->dir,
		problems, problems == 1 ? "" : "s");
}

/* What was printed reached standard output: 0, or 1 (EXIT_FAILED) with a message. */
static int
stdout_done(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "cachefilesd: standard output: %s\n", strerror(errno));
	return EXIT_FAILED;
}

int
main(int argc, char **argv)
{
	struct options opt;
	struct config cfg;
	int errors;

	/* A closed pipe is an output error (usage 2; -t, -h, -v 1), not a kill. */
	signal(SIGPIPE, SIG_IGN);
	if (options_parse(&opt, argc, argv, stderr) < 0)
		return EXIT_CONFIG;
	switch (opt.action) {
	case OPT_HELP:
		options_usage(stdout);
		return stdout_done();
	case OPT_VERSION:
		printf("cachefilesd version %s\n", VERSION);
		return stdout_done();
	case OPT_TEST:
	case OPT_RUN:
		break;
	}

	/* As the historical daemon: syslog unless -s (or -t, a terminal command). */
	log_init("cachefilesd", opt.to_stderr || opt.action == OPT_TEST, opt.debug);
	errors = config_load(&cfg, opt.config, config_error, &opt);
	if (opt.nocull)
		cfg.nocull = 1;
	if (opt.action == OPT_TEST) {
		/* A mistake in the file is EXIT_CONFIG; the directory's state is not. */
		if (errors) {
			error_count(&opt, errors);
			return EXIT_CONFIG;
		}
		if ((errors = checkenv(&cfg)) != 0) {
			problem_count(&opt, &cfg, errors);
			return EXIT_FAILED;
		}
		config_dump(&cfg, stdout);
		printf("configuration OK\n");
		return stdout_done();
	}
	if (errors) {
		error_count(&opt, errors);
		return EXIT_CONFIG;
	}
	return daemon_run(&opt, &cfg);
}
