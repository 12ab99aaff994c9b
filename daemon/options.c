// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c: the command line.  The letters are those of cachefilesd
 * 0.10.10, so that existing unit files and init scripts keep working; -t,
 * -h and the long --help/--version are new.
 */
#include "daemon/options.h"
#include "config/config.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

static const char optstring[] = ":dsnNf:p:vth";

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

void
options_usage(FILE *out)
{
	fprintf(out,
"usage: cachefilesd [-dNnst] [-f FILE] [-p PIDFILE]\n"
"       cachefilesd -v | --version\n"
"       cachefilesd -h | --help\n"
"  -d          more debug messages (repeat for more, up to -ddd)\n"
"  -s          log to stderr instead of syslog\n"
"  -n          stay in the foreground: do not fork\n"
"  -N          never cull (as the nocull directive)\n"
"  -t          check the configuration and the cache directory, print the\n"
"              configuration in canonical form and exit\n"
"  -f FILE     configuration file (default " CFG_DEFAULT_PATH ")\n"
"  -p PIDFILE  pid file (default " DEFAULT_PIDFILE ")\n"
"  -v, --version  print the version and exit\n"
"  -h, --help     print this help and exit\n");
}

static int __attribute__((format(printf, 2, 3)))
usage_error(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fputs("cachefilesd: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
	options_usage(err);
	return -1;
}

/*
 * Was the option getopt just refused given in its long form (--name)?  A
 * long option always moves optind on (from before, its value before the
 * call); a refused letter inside a group (-xn) does not, and then
 * argv[optind - 1] is the argument before it.
 */
static int
was_long(char **argv, int before)
{
	return optind > before && optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0;
}

/* The option as the user typed it, for messages. */
static const char *
typed(char **argv, int before, int c, char *buf, size_t size)
{
	if (was_long(argv, before)) {
		const char *a = argv[optind - 1];
		snprintf(buf, size, "%.*s", (int)strcspn(a, "="), a);
		return buf;
	}
	snprintf(buf, size, "-%c", c);
	return buf;
}

/*
 * Several actions may be asked for; the one that does least wins (help,
 * then version, then test), whatever the order on the command line.
 */
static void
set_action(struct options *o, enum options_action a)
{
	static const enum options_action rank[] = {
		[OPT_RUN] = 0, [OPT_TEST] = 1, [OPT_VERSION] = 2, [OPT_HELP] = 3,
	};

	if (rank[a] > rank[o->action])
		o->action = a;
}

int
options_parse(struct options *o, int argc, char **argv, FILE *err)
{
	char buf[64];	/* an option as typed, cut at 63 bytes */
	int c, before;

	memset(o, 0, sizeof(*o));
	o->action = OPT_RUN;
	o->config = CFG_DEFAULT_PATH;
	o->pidfile = DEFAULT_PIDFILE;
	optind = 0;	/* GNU: start afresh, so that tests can parse again */
	opterr = 0;
	while ((before = optind, c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->debug++;
			break;
		case 's':
			o->to_stderr = 1;
			break;
		case 'n':
			o->foreground = 1;
			break;
		case 'N':
			o->nocull = 1;
			break;
		case 'f':
		case 'p':
			if (optarg[0] == '\0')
				return usage_error(err, "option %s needs a file name",
						   typed(argv, before, c, buf, sizeof(buf)));
			if (c == 'f')
				o->config = optarg;
			else {
				o->pidfile = optarg;
				o->pidfile_set = 1;
			}
			break;
		case 'v':
			set_action(o, OPT_VERSION);
			break;
		case 't':
			set_action(o, OPT_TEST);
			break;
		case 'h':
			set_action(o, OPT_HELP);
			break;
		case ':':
			return usage_error(err, "option %s needs an argument",
					   typed(argv, before, optopt, buf, sizeof(buf)));
		default:
			/* A known long option given "=value" it does not take: optopt names it. */
			if (optopt != 0 && was_long(argv, before))
				return usage_error(err, "option %s takes no argument",
						   typed(argv, before, optopt, buf, sizeof(buf)));
			return usage_error(err, "unknown option %s",
					   typed(argv, before, optopt, buf, sizeof(buf)));
		}
	}
	if (optind < argc)
		return usage_error(err, "unexpected argument '%s'", argv[optind]);
	return 0;
}
