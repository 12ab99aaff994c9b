// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_options.c: the command line: each option, repeats, the order of
 * actions, and every usage error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "daemon/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 16

static char *err_text;

/* Parse the NULL-terminated arguments after "cachefilesd". */
static int
run(struct options *o, ...)
{
	static char prog[] = "cachefilesd";
	char *argv[MAX_ARGS + 2];
	size_t len = 0;
	va_list ap;
	FILE *err;
	int argc = 0, r;

	argv[argc++] = prog;
	va_start(ap, o);
	while (argc <= MAX_ARGS && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	free(err_text);
	err_text = NULL;
	err = open_memstream(&err_text, &len);
	assert_non_null(err);
	r = options_parse(o, argc, argv, err);
	assert_int_equal(fclose(err), 0);
	return r;
}

static char *
usage_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	options_usage(f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The error is one line, then the usage text, and nothing else. */
static void
expect_usage_error(int r, const char *line)
{
	char *usage = usage_text();
	size_t n = strlen(line);

	assert_int_equal(r, -1);
	assert_non_null(err_text);
	if (strncmp(err_text, line, n) != 0 || err_text[n] != '\n') {
		print_message("expected '%s', got '%s'\n", line, err_text);
		fail();
	}
	assert_string_equal(err_text + n + 1, usage);
	free(usage);
}

static void
test_defaults(void **state)
{
	struct options o;

	(void)state;
	memset(&o, 0x5a, sizeof(o));
	assert_int_equal(run(&o, NULL), 0);
	assert_int_equal(o.action, OPT_RUN);
	assert_int_equal(o.debug, 0);
	assert_int_equal(o.to_stderr, 0);
	assert_int_equal(o.foreground, 0);
	assert_int_equal(o.nocull, 0);
	assert_string_equal(o.config, "/etc/cachefilesd.conf");
	assert_string_equal(o.pidfile, "/run/cachefilesd.pid");
	assert_int_equal(o.pidfile_set, 0);
	assert_string_equal(err_text, "");
}

static void
test_flags(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(run(&o, "-s", NULL), 0);
	assert_int_equal(o.to_stderr, 1);
	assert_int_equal(o.foreground, 0);
	assert_int_equal(run(&o, "-n", NULL), 0);
	assert_int_equal(o.foreground, 1);
	assert_int_equal(o.to_stderr, 0);
	assert_int_equal(run(&o, "-N", NULL), 0);
	assert_int_equal(o.nocull, 1);
	assert_int_equal(o.foreground, 0);
	assert_int_equal(run(&o, "-d", NULL), 0);
	assert_int_equal(o.debug, 1);
	assert_int_equal(o.action, OPT_RUN);
	/* Bundled, as the systemd unit and init scripts may write them. */
	assert_int_equal(run(&o, "-dnsN", NULL), 0);
	assert_int_equal(o.debug, 1);
	assert_int_equal(o.foreground, 1);
	assert_int_equal(o.to_stderr, 1);
	assert_int_equal(o.nocull, 1);
	assert_string_equal(err_text, "");
}

static void
test_debug_repeats(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(run(&o, "-d", "-d", "-ddd", NULL), 0);
	assert_int_equal(o.debug, 5);
	assert_int_equal(run(&o, "-ndd", NULL), 0);
	assert_int_equal(o.debug, 2);
	/* A fresh parse starts again from zero. */
	assert_int_equal(run(&o, NULL), 0);
	assert_int_equal(o.debug, 0);
}

static void
test_files(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(run(&o, "-f", "/tmp/a.conf", "-p", "/tmp/a.pid", NULL), 0);
	assert_string_equal(o.config, "/tmp/a.conf");
	assert_string_equal(o.pidfile, "/tmp/a.pid");
	assert_int_equal(o.pidfile_set, 1);
	/* Naming the default file explicitly still counts as given. */
	assert_int_equal(run(&o, "-p", DEFAULT_PIDFILE, NULL), 0);
	assert_int_equal(o.pidfile_set, 1);
	assert_int_equal(run(&o, "-fx.conf", "-py.pid", NULL), 0);
	assert_string_equal(o.config, "x.conf");
	assert_string_equal(o.pidfile, "y.pid");
	/* The last one counts. */
	assert_int_equal(run(&o, "-f", "a", "-f", "b", NULL), 0);
	assert_string_equal(o.config, "b");
	/* An option-looking file name after -f is the file name. */
	assert_int_equal(run(&o, "-f", "-d", NULL), 0);
	assert_string_equal(o.config, "-d");
	assert_int_equal(o.debug, 0);
	assert_int_equal(run(&o, "-nf", "c.conf", NULL), 0);
	assert_string_equal(o.config, "c.conf");
	assert_int_equal(o.foreground, 1);
}

static void
test_actions(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(run(&o, "-t", NULL), 0);
	assert_int_equal(o.action, OPT_TEST);
	assert_int_equal(run(&o, "-t", "-f", "x", NULL), 0);
	assert_int_equal(o.action, OPT_TEST);
	assert_string_equal(o.config, "x");
	assert_int_equal(run(&o, "-v", NULL), 0);
	assert_int_equal(o.action, OPT_VERSION);
	assert_int_equal(run(&o, "--version", NULL), 0);
	assert_int_equal(o.action, OPT_VERSION);
	assert_int_equal(run(&o, "-h", NULL), 0);
	assert_int_equal(o.action, OPT_HELP);
	assert_int_equal(run(&o, "--help", NULL), 0);
	assert_int_equal(o.action, OPT_HELP);
	/* The action that does least wins, whatever the order. */
	assert_int_equal(run(&o, "-t", "-h", NULL), 0);
	assert_int_equal(o.action, OPT_HELP);
	assert_int_equal(run(&o, "-h", "-t", NULL), 0);
	assert_int_equal(o.action, OPT_HELP);
	assert_int_equal(run(&o, "-v", "-t", NULL), 0);
	assert_int_equal(o.action, OPT_VERSION);
	assert_int_equal(run(&o, "-t", "--version", NULL), 0);
	assert_int_equal(o.action, OPT_VERSION);
	assert_int_equal(run(&o, "--version", "--help", NULL), 0);
	assert_int_equal(o.action, OPT_HELP);
	assert_string_equal(err_text, "");
}

static void
test_errors(void **state)
{
	struct options o;

	(void)state;
	expect_usage_error(run(&o, "-x", NULL), "cachefilesd: unknown option -x");
	expect_usage_error(run(&o, "-dz", NULL), "cachefilesd: unknown option -z");
	expect_usage_error(run(&o, "--bogus", NULL),
			   "cachefilesd: unknown option --bogus");
	expect_usage_error(run(&o, "--bogus=1", NULL),
			   "cachefilesd: unknown option --bogus");
	/* A known long option with a value it does not take: named as typed, not as -h. */
	expect_usage_error(run(&o, "--help=foo", NULL),
			   "cachefilesd: option --help takes no argument");
	expect_usage_error(run(&o, "-n", "--version=1", NULL),
			   "cachefilesd: option --version takes no argument");
	/* A bad letter inside a group after a long option is that letter. */
	expect_usage_error(run(&o, "--help", "-xn", NULL), "cachefilesd: unknown option -x");
	expect_usage_error(run(&o, "--version", "-nX", NULL), "cachefilesd: unknown option -X");
	expect_usage_error(run(&o, "-f", NULL),
			   "cachefilesd: option -f needs an argument");
	expect_usage_error(run(&o, "-n", "-p", NULL),
			   "cachefilesd: option -p needs an argument");
	expect_usage_error(run(&o, "-f", "", NULL),
			   "cachefilesd: option -f needs a file name");
	expect_usage_error(run(&o, "-p", "", NULL),
			   "cachefilesd: option -p needs a file name");
	expect_usage_error(run(&o, "stray", NULL),
			   "cachefilesd: unexpected argument 'stray'");
	expect_usage_error(run(&o, "-n", "a.conf", NULL),
			   "cachefilesd: unexpected argument 'a.conf'");
	expect_usage_error(run(&o, "--", "-n", NULL),
			   "cachefilesd: unexpected argument '-n'");
	/* The historical daemon took --help only alone; extra words are errors. */
	expect_usage_error(run(&o, "--help", "me", NULL),
			   "cachefilesd: unexpected argument 'me'");
}

/* Every option the parser takes is in the usage text, and no other. */
static void
test_usage_lists_options(void **state)
{
	static const char *const accepted[] = {
		"-d", "-s", "-n", "-N", "-t", "-f FILE", "-p PIDFILE", "-v",
		"--version", "-h", "--help",
	};
	static const char *const rejected[] = { "-a", "-c", "-q", "-V", "-D" };
	char *usage = usage_text();
	struct options o;
	char opt[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		snprintf(opt, sizeof(opt), "  %s ", accepted[i]);
		if (strstr(usage, opt) == NULL &&
		    strstr(usage, opt + 1) == NULL) {
			print_message("usage lacks '%s'\n", accepted[i]);
			fail();
		}
	}
	for (i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
		assert_int_equal(run(&o, rejected[i], NULL), -1);
		snprintf(opt, sizeof(opt), "%s ", rejected[i]);
		assert_null(strstr(usage, opt));
	}
	assert_non_null(strstr(usage, "(default " CFG_DEFAULT_PATH ")"));
	assert_non_null(strstr(usage, "(default " DEFAULT_PIDFILE ")"));
	free(usage);
}

static int
teardown(void **state)
{
	(void)state;
	free(err_text);
	err_text = NULL;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_debug_repeats),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_usage_lists_options),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
