// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_config.c: the configuration parser: every directive, every error
 * message, the canonical dump and the order of the limit commands.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "lib/kcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ERRS 64

static char errs[MAX_ERRS][PATH_MAX + 600];
static int nerrs;
static char warns[MAX_ERRS][PATH_MAX + 600];
static int nwarns;

static void
collect(void *arg, const char *msg)
{
	(void)arg;
	if (strstr(msg, ": warning: ") != NULL) {
		if (nwarns < MAX_ERRS)
			snprintf(warns[nwarns], sizeof(warns[0]), "%s", msg);
		nwarns++;
		return;
	}
	if (nerrs < MAX_ERRS)
		snprintf(errs[nerrs], sizeof(errs[0]), "%s", msg);
	nerrs++;
}

/* Parse text as "t.conf"; returns the error count the parser reported. */
static int
parse(struct config *cfg, const char *text)
{
	int n;

	nerrs = nwarns = 0;
	n = config_parse_buffer(cfg, "t.conf", text, strlen(text), collect, NULL);
	assert_int_equal(n, nerrs);
	return n;
}

/* Exactly one error, and it is msg. */
static void
expect_error(const char *text, const char *msg)
{
	struct config cfg;

	if (parse(&cfg, text) != 1 || strcmp(errs[0], msg) != 0) {
		int i;

		print_message("input:\n%s\nexpected: %s\ngot %d:\n", text, msg, nerrs);
		for (i = 0; i < nerrs && i < MAX_ERRS; i++)
			print_message("  %s\n", errs[i]);
		fail();
	}
}

static void
expect_ok(struct config *cfg, const char *text)
{
	if (parse(cfg, text) != 0) {
		print_message("input:\n%s\nfirst error: %s\n", text, errs[0]);
		fail();
	}
}

static void
test_defaults(void **state)
{
	struct config cfg;

	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg));
	config_defaults(&cfg);
	assert_string_equal(cfg.dir, "");
	assert_string_equal(cfg.tag, "");
	assert_string_equal(cfg.secctx, "");
	/* The kernel's own defaults, so that an unset limit changes nothing. */
	assert_int_equal(cfg.limit[LIM_BRUN], 7);
	assert_int_equal(cfg.limit[LIM_BCULL], 5);
	assert_int_equal(cfg.limit[LIM_BSTOP], 1);
	assert_int_equal(cfg.limit[LIM_FRUN], 7);
	assert_int_equal(cfg.limit[LIM_FCULL], 5);
	assert_int_equal(cfg.limit[LIM_FSTOP], 1);
	assert_int_equal(cfg.culltable, 12);
	assert_int_equal(cfg.nocull, 0);
	assert_int_equal(cfg.resume_blocks, -1);
	assert_int_equal(cfg.resume_files, 5);
	assert_int_equal(cfg.debug, 0);
	assert_int_equal(cfg.cull_age, 0);
	assert_int_equal(cfg.cull_memory, 256ULL << 20);
	assert_int_equal(cfg.scan_threads, 4);
	assert_int_equal(cfg.cull_early, 1);
	assert_int_equal(cfg.state_file, 1);
	assert_int_equal(cfg.given, 0);
}

static void
test_minimal(void **state)
{
	struct config cfg;

	(void)state;
	expect_ok(&cfg, "dir /var/cache/fscache\n");
	assert_string_equal(cfg.dir, "/var/cache/fscache");
	assert_true(config_given(&cfg, "dir"));
	assert_false(config_given(&cfg, "tag"));
	assert_false(config_given(&cfg, "brun"));
	assert_false(config_given(&cfg, "no_such_directive"));
	assert_int_equal(cfg.limit[LIM_BRUN], 7);
}

static void
test_every_directive(void **state)
{
	struct config cfg;
	int i;

	(void)state;
	expect_ok(&cfg,
		  "dir /srv/cache dir\n"
		  "tag my cache\n"
		  "secctx system_u:system_r:cachefiles_kernel_t:s0\n"
		  "brun 30%\n"
		  "bcull 20%\n"
		  "bstop 10%\n"
		  "frun 40%\n"
		  "fcull 25%\n"
		  "fstop 0%\n"
		  "culltable 20\n"
		  "nocull\n"
		  "resume_thresholds 1000 -\n"
		  "debug 0x7\n"
		  "cull_age 2h\n"
		  "cull_memory 1G\n"
		  "scan_threads 64\n"
		  "cull_early no\n"
		  "state_file no\n"
		  "control_socket /run/cfd/ctl\n"
		  "metrics_file /var/lib/m.prom\n");
	assert_string_equal(cfg.dir, "/srv/cache dir");
	assert_string_equal(cfg.tag, "my cache");
	assert_string_equal(cfg.secctx, "system_u:system_r:cachefiles_kernel_t:s0");
	assert_int_equal(cfg.limit[LIM_BRUN], 30);
	assert_int_equal(cfg.limit[LIM_BCULL], 20);
	assert_int_equal(cfg.limit[LIM_BSTOP], 10);
	assert_int_equal(cfg.limit[LIM_FRUN], 40);
	assert_int_equal(cfg.limit[LIM_FCULL], 25);
	assert_int_equal(cfg.limit[LIM_FSTOP], 0);
	assert_int_equal(cfg.culltable, 20);
	assert_int_equal(cfg.nocull, 1);
	assert_int_equal(cfg.resume_blocks, 1000);
	assert_int_equal(cfg.resume_files, -1);
	assert_int_equal(cfg.debug, 7);
	assert_int_equal(cfg.cull_age, 7200);
	assert_int_equal(cfg.cull_memory, 1ULL << 30);
	assert_int_equal(cfg.scan_threads, 64);
	assert_int_equal(cfg.cull_early, 0);
	assert_int_equal(cfg.state_file, 0);
	assert_string_equal(cfg.control_socket, "/run/cfd/ctl");
	assert_string_equal(cfg.metrics_file, "/var/lib/m.prom");
	for (i = 0; i < config_ndirectives(); i++)
		assert_true(config_given(&cfg, config_directive_name(i)));
	/* Any run of blanks between the two values, as between a name and its value. */
	expect_ok(&cfg, "dir /c\nresume_thresholds 4096 \t -\n");
	assert_int_equal(cfg.resume_blocks, 4096);
	assert_int_equal(cfg.resume_files, -1);
}

/* The forms each numeric directive accepts, and what they mean. */
static void
test_number_forms(void **state)
{
	static const struct {
		const char *line;
		size_t off;
		int is64;
		uint64_t want;
	} cases[] = {
#define U(f) offsetof(struct config, f), 0
#define W(f) offsetof(struct config, f), 1
		{ "bstop 0%", U(limit[LIM_BSTOP]), 0 },
		{ "brun 99%", U(limit[LIM_BRUN]), 99 },
		{ "fstop 004%", U(limit[LIM_FSTOP]), 4 },
		{ "culltable 12", U(culltable), 12 },
		{ "culltable 20", U(culltable), 20 },
		{ "scan_threads 1", U(scan_threads), 1 },
		{ "debug 0", W(debug), 0 },
		{ "debug 4294967295", W(debug), 4294967295ULL },
		{ "debug 0xffffffff", W(debug), 4294967295ULL },
		{ "debug 017", W(debug), 15 },
		{ "cull_age 0", W(cull_age), 0 },
		{ "cull_age 45", W(cull_age), 45 },
		{ "cull_age 45s", W(cull_age), 45 },
		{ "cull_age 5m", W(cull_age), 300 },
		{ "cull_age 3h", W(cull_age), 10800 },
		{ "cull_age 2d", W(cull_age), 172800 },
		{ "cull_age 1w", W(cull_age), 604800 },
		{ "cull_age 3650d", W(cull_age), 3650ULL * 86400 },
		{ "cull_memory 1M", W(cull_memory), 1ULL << 20 },
		{ "cull_memory 1024K", W(cull_memory), 1ULL << 20 },
		{ "cull_memory 1048577", W(cull_memory), (1ULL << 20) + 1 },
		{ "cull_memory 64G", W(cull_memory), 64ULL << 30 },
#undef U
#undef W
	};
	char text[128];
	struct config cfg;
	size_t i;
	uint64_t got;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "dir /c\n%s\n", cases[i].line);
		expect_ok(&cfg, text);
		if (cases[i].is64)
			memcpy(&got, (char *)&cfg + cases[i].off, sizeof(got));
		else
			got = *(unsigned *)((char *)&cfg + cases[i].off);
		if (got != cases[i].want) {
			print_message("%s: got %llu\n", cases[i].line,
				      (unsigned long long)got);
			fail();
		}
	}
}

static void
test_layout(void **state)
{
	struct config cfg;

	(void)state;
	/* Comments, blank lines, blanks around everything, CRLF, no final newline. */
	expect_ok(&cfg,
		  "# a comment\n"
		  "\n"
		  "   \t\n"
		  "   # an indented comment with brun 200%\n"
		  "\t dir \t /c  \t\r\n"
		  "tag  t   \n"
		  "brun\t\t8%");
	assert_string_equal(cfg.dir, "/c");
	assert_string_equal(cfg.tag, "t");
	assert_int_equal(cfg.limit[LIM_BRUN], 8);
	/* No trailing comments: the rest of the line is the value. */
	expect_ok(&cfg, "dir /c\ntag a # b\n");
	assert_string_equal(cfg.tag, "a # b");
	/* A tab inside a value is kept. */
	expect_ok(&cfg, "dir /c\ntag a\tb\n");
	assert_string_equal(cfg.tag, "a\tb");
	/* Empty buffers and a lone newline parse, and only lack dir. */
	assert_int_equal(parse(&cfg, ""), 1);
	assert_int_equal(parse(&cfg, "\n"), 1);
}

/* Every message a single mistake can give, with its line number. */
static void
test_error_messages(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "dir /c\nfoo 1\n", "t.conf:2: unknown directive 'foo'" },
		{ "dir /c\nBRUN 10%\n", "t.conf:2: unknown directive 'BRUN'" },
		{ "dir /c\nfoo\x01\n", "t.conf:2: unknown directive 'foo\\001'" },
		{ "dir /c\nbind\n", "t.conf:2: 'bind' is not allowed in the "
		  "configuration: cachefilesd binds the cache itself" },
		{ "dir /c\ntag a\n\ntag b\n", "t.conf:4: 'tag' already given at line 2" },
		{ "dir /c\ndir /d\n", "t.conf:2: 'dir' already given at line 1" },
		{ "dir /c\nnocull 1\n", "t.conf:2: 'nocull' takes no argument" },
		{ "dir\n", "t.conf:1: 'dir' needs an argument: dir PATH" },
		{ "dir /c\ntag  \n", "t.conf:2: 'tag' needs an argument: tag NAME" },
		{ "dir /c\nsecctx\n", "t.conf:2: 'secctx' needs an argument: secctx CONTEXT" },
		{ "dir /c\nbrun\n", "t.conf:2: 'brun' needs an argument: brun N%" },
		{ "dir /c\nresume_thresholds\n", "t.conf:2: 'resume_thresholds' needs "
		  "an argument: resume_thresholds BLOCKS|- FILES|-" },
		{ "dir var/cache\n", "t.conf:1: dir: 'var/cache' is not an absolute path" },
		{ "dir /a\rb\n", "t.conf:1: dir: control character 0x0d in '/a\\015b'" },
		{ "dir /c\ntag a\x1b[0m\n", "t.conf:2: tag: control character 0x1b in "
		  "'a\\033[0m'" },
		{ "dir /c\nsecctx x\x7f\n", "t.conf:2: secctx: control character 0x7f "
		  "in 'x\\177'" },
		{ "dir /c\nbrun 10\n", "t.conf:2: brun: '10' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nbcull %\n", "t.conf:2: bcull: '%' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nbstop 1 %\n", "t.conf:2: bstop: '1 %' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nfrun 10%x\n", "t.conf:2: frun: '10%x' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nfcull -1%\n", "t.conf:2: fcull: '-1%' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nfstop 1.5%\n", "t.conf:2: fstop: '1.5%' is not a percentage: a "
		  "whole number followed by %" },
		{ "dir /c\nbrun 100%\n", "t.conf:2: brun: '100%' is out of range (0% to 99%)" },
		{ "dir /c\nbrun 99999999999999999999999%\n", "t.conf:2: brun: "
		  "'99999999999999999999999%' is out of range (0% to 99%)" },
		{ "dir /c\nculltable 11\n", "t.conf:2: culltable: '11' is out of range (12 to 20)" },
		{ "dir /c\nculltable 21\n", "t.conf:2: culltable: '21' is out of range (12 to 20)" },
		{ "dir /c\nculltable 0x10\n", "t.conf:2: culltable: '0x10' is not a whole "
		  "decimal number" },
		{ "dir /c\nscan_threads 0\n", "t.conf:2: scan_threads: '0' is out of range (1 to 64)" },
		{ "dir /c\nscan_threads 65\n", "t.conf:2: scan_threads: '65' is out of range (1 to 64)" },
		{ "dir /c\nscan_threads four\n", "t.conf:2: scan_threads: 'four' is not a "
		  "whole decimal number" },
		{ "dir /c\ncull_early 1\n", "t.conf:2: cull_early: '1' is neither yes nor no" },
		{ "dir /c\ncull_early\n", "t.conf:2: 'cull_early' needs an argument: cull_early yes|no" },
		{ "dir /c\ndebug 0x100000000\n", "t.conf:2: debug: '0x100000000' is out of "
		  "range (0x0 to 0xffffffff)" },
		{ "dir /c\ndebug -1\n", "t.conf:2: debug: '-1' is not a number (decimal, 0x "
		  "hexadecimal or 0 octal)" },
		{ "dir /c\ndebug 08\n", "t.conf:2: debug: '08' is not a number (decimal, 0x "
		  "hexadecimal or 0 octal)" },
		{ "dir /c\ncull_age 1y\n", "t.conf:2: cull_age: '1y' is not a duration: a "
		  "whole number followed by s, m, h, d or w" },
		{ "dir /c\ncull_age 1M\n", "t.conf:2: cull_age: '1M' is not a duration: a "
		  "whole number followed by s, m, h, d or w" },
		{ "dir /c\ncull_age h\n", "t.conf:2: cull_age: 'h' is not a duration: a "
		  "whole number followed by s, m, h, d or w" },
		{ "dir /c\ncull_age 1hh\n", "t.conf:2: cull_age: '1hh' is not a duration: a "
		  "whole number followed by s, m, h, d or w" },
		{ "dir /c\ncull_age 3651d\n", "t.conf:2: cull_age: '3651d' is out of range "
		  "(0 to 3650d)" },
		{ "dir /c\ncull_age 99999999999999999999w\n", "t.conf:2: cull_age: "
		  "'99999999999999999999w' is out of range (0 to 3650d)" },
		{ "dir /c\ncull_memory 1023K\n", "t.conf:2: cull_memory: '1023K' is out of "
		  "range (1M to 64G)" },
		{ "dir /c\ncull_memory 65G\n", "t.conf:2: cull_memory: '65G' is out of "
		  "range (1M to 64G)" },
		{ "dir /c\ncull_memory 1g\n", "t.conf:2: cull_memory: '1g' is not a size: a "
		  "whole number followed by K, M or G" },
		{ "dir /c\ncull_memory 1T\n", "t.conf:2: cull_memory: '1T' is not a size: a "
		  "whole number followed by K, M or G" },
		{ "dir /c\nresume_thresholds 5\n", "t.conf:2: resume_thresholds: expected "
		  "two values: resume_thresholds BLOCKS|- FILES|-" },
		{ "dir /c\nresume_thresholds 5 5 5\n", "t.conf:2: resume_thresholds: "
		  "expected two values: resume_thresholds BLOCKS|- FILES|-" },
		{ "dir /c\nresume_thresholds 0 5\n", "t.conf:2: resume_thresholds: blocks "
		  "threshold 0 is not allowed; use '-' to turn it off" },
		{ "dir /c\nresume_thresholds - 0\n", "t.conf:2: resume_thresholds: files "
		  "threshold 0 is not allowed; use '-' to turn it off" },
		{ "dir /c\nresume_thresholds x -\n", "t.conf:2: resume_thresholds: blocks "
		  "threshold 'x' is not a positive number or '-'" },
		{ "dir /c\nresume_thresholds - 99999999999999999999\n", "t.conf:2: "
		  "resume_thresholds: files threshold '99999999999999999999' is out of "
		  "range (1 to 9223372036854775807)" },
		/* 2^64 + 5 must not wrap to 5. */
		{ "dir /c\nbrun 18446744073709551621%\n", "t.conf:2: brun: "
		  "'18446744073709551621%' is out of range (0% to 99%)" },
		{ "dir /c\ncull_age 18446744073709551617\n", "t.conf:2: cull_age: "
		  "'18446744073709551617' is out of range (0 to 3650d)" },
		{ "dir /c\nresume_thresholds 9223372036854775808 -\n", "t.conf:2: "
		  "resume_thresholds: blocks threshold '9223372036854775808' is out of "
		  "range (1 to 9223372036854775807)" },
		{ "dir /c\nbcull 7%\n", "t.conf:2: bcull 7% must be less than brun 7% "
		  "(default): the rule is 0 <= bstop < bcull < brun < 100" },
		{ "dir /c\nfstop 5%\n", "t.conf:2: fstop 5% must be less than fcull 5% "
		  "(default): the rule is 0 <= fstop < fcull < frun < 100" },
		{ "dir /c\nbrun 5%\n", "t.conf:2: bcull 5% (default) must be less than "
		  "brun 5%: the rule is 0 <= bstop < bcull < brun < 100" },
		{ "dir /c\nfcull 20%\nfrun 10%\n", "t.conf:3: fcull 20% must be less than "
		  "frun 10%: the rule is 0 <= fstop < fcull < frun < 100" },
		{ "dir /c\nfrun 10%\nfcull 20%\n", "t.conf:3: fcull 20% must be less than "
		  "frun 10%: the rule is 0 <= fstop < fcull < frun < 100" },
		{ "# nothing\n", "t.conf: no 'dir' directive: the cache directory must be given" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(cases[i].text, cases[i].msg);
}

static void
test_nul_byte(void **state)
{
	static const char text[] = "dir /c\ntag a\0b\nbrun 9%\n";
	struct config cfg;
	int n;

	(void)state;
	nerrs = 0;
	n = config_parse_buffer(&cfg, "t.conf", text, sizeof(text) - 1, collect, NULL);
	assert_int_equal(n, 1);
	assert_string_equal(errs[0], "t.conf:2: line contains a NUL byte");
	/* The lines after it are still read. */
	assert_int_equal(cfg.limit[LIM_BRUN], 9);
	assert_false(config_given(&cfg, "tag"));
}

/* The parser reads len bytes and no more (ASan checks the exact buffer). */
static void
test_unterminated_buffer(void **state)
{
	static const char text[] = "dir /c\nbrun 12%";
	char *buf = malloc(sizeof(text) - 1);
	struct config cfg;

	(void)state;
	assert_non_null(buf);
	memcpy(buf, text, sizeof(text) - 1);
	nerrs = 0;
	assert_int_equal(config_parse_buffer(&cfg, "t.conf", buf, sizeof(text) - 1,
					     collect, NULL), 0);
	assert_int_equal(cfg.limit[LIM_BRUN], 12);
	/* Cut in the middle of the number: "brun 1" is not a percentage. */
	assert_int_equal(config_parse_buffer(&cfg, "t.conf", buf, sizeof(text) - 3,
					     collect, NULL), 1);
	assert_string_equal(errs[0], "t.conf:2: brun: '1' is not a percentage: a "
			    "whole number followed by %");
	free(buf);
}

/* Quoted values are cut at 48 bytes, so one bad line cannot flood the log. */
static void
test_long_value_quoted(void **state)
{
	char text[200], want[200];

	(void)state;
	snprintf(text, sizeof(text), "dir /c\n%s\n",
		 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789");
	snprintf(want, sizeof(want), "t.conf:2: unknown directive '%s...'",
		 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv");
	expect_error(text, want);
}

static void
test_lengths(void **state)
{
	size_t size = 3 * KCMD_MAX + PATH_MAX + 64;
	char *text = malloc(size), *p, want[64];
	struct config cfg;

	(void)state;
	assert_non_null(text);
	/* A line of exactly KCMD_MAX bytes is fine, one more is not. */
	p = text + sprintf(text, "dir /c\n#");
	memset(p, 'x', KCMD_MAX - 1);
	strcpy(p + KCMD_MAX - 1, "\n#");
	p += KCMD_MAX + 1;
	memset(p, 'y', KCMD_MAX);
	strcpy(p + KCMD_MAX, "\nbrun 8%\n");
	assert_int_equal(parse(&cfg, text), 1);
	assert_string_equal(errs[0], "t.conf:3: line is longer than 4095 bytes");
	assert_int_equal(cfg.limit[LIM_BRUN], 8);
	/* In a CRLF file the carriage return does not count. */
	p = text + sprintf(text, "dir /c\r\n#");
	memset(p, 'x', KCMD_MAX - 1);
	strcpy(p + KCMD_MAX - 1, "\r\nbrun 9%\r\n");
	expect_ok(&cfg, text);
	assert_int_equal(cfg.limit[LIM_BRUN], 9);

	/* dir: shorter than PATH_MAX - 10. */
	p = text + sprintf(text, "dir /");
	memset(p, 'd', CFG_DIR_MAX - 2);
	strcpy(p + CFG_DIR_MAX - 2, "\n");
	expect_ok(&cfg, text);
	assert_int_equal(strlen(cfg.dir), CFG_DIR_MAX - 1);
	p[CFG_DIR_MAX - 2] = 'd';
	strcpy(p + CFG_DIR_MAX - 1, "\n");
	snprintf(want, sizeof(want), "t.conf:1: dir: longer than %d bytes",
		 CFG_DIR_MAX - 1);
	expect_error(text, want);

	/* tag and secctx: their buffers, less the NUL. */
	p = text + sprintf(text, "dir /c\ntag ");
	memset(p, 't', CFG_TAG_MAX - 1);
	strcpy(p + CFG_TAG_MAX - 1, "\n");
	expect_ok(&cfg, text);
	assert_int_equal(strlen(cfg.tag), CFG_TAG_MAX - 1);
	strcpy(p + CFG_TAG_MAX - 1, "t\n");
	expect_error(text, "t.conf:2: tag: longer than 255 bytes");
	p = text + sprintf(text, "dir /c\nsecctx ");
	memset(p, 's', CFG_SECCTX_MAX);
	strcpy(p + CFG_SECCTX_MAX, "\n");
	expect_error(text, "t.conf:2: secctx: longer than 1023 bytes");
	free(text);
}

/*
 * dir, tag or secctx given twice is an error (the kernel refuses a second);
 * any other directive given twice is a warning and the last value wins, as
 * with 0.10.10, which sent every line to the kernel.
 */
static void
test_every_duplicate(void **state)
{
	static const char *const good[] = {
		"dir /c", "tag t", "secctx s", "brun 8%", "bcull 4%", "bstop 2%",
		"frun 8%", "fcull 4%", "fstop 2%", "culltable 13", "nocull",
		"resume_thresholds - -", "debug 1", "cull_age 1d",
		"cull_memory 2M", "scan_threads 2", "cull_early no", "state_file no",
		"control_socket /s",
		"metrics_file /m",
	};
	struct config cfg;
	char text[256], want[128];
	int i, j, found;

	(void)state;
	assert_int_equal(config_ndirectives(), sizeof(good) / sizeof(good[0]));
	for (i = 0; i < config_ndirectives(); i++) {
		const char *name = config_directive_name(i);
		size_t len = strlen(name);

		for (found = -1, j = 0; j < config_ndirectives(); j++)
			if (strncmp(good[j], name, len) == 0 &&
			    (good[j][len] == ' ' || good[j][len] == '\0'))
				found = j;
		assert_true(found >= 0);
		snprintf(text, sizeof(text), "%s\n%s\n%s\n", strcmp(name, "dir") ?
			 "dir /c" : "# dir below", good[found], good[found]);
		if (strcmp(name, "dir") == 0 || strcmp(name, "tag") == 0 ||
		    strcmp(name, "secctx") == 0 || strcmp(name, "control_socket") == 0 ||
		    strcmp(name, "metrics_file") == 0) {
			snprintf(want, sizeof(want),
				 "t.conf:3: '%s' already given at line 2", name);
			expect_error(text, want);
			continue;
		}
		expect_ok(&cfg, text);
		snprintf(want, sizeof(want), "t.conf:3: warning: '%s' already "
			 "given at line 2; this value replaces it", name);
		assert_int_equal(nwarns, 1);
		assert_string_equal(warns[0], want);
	}
	/* The last value is the one used. */
	expect_ok(&cfg, "dir /c\nbrun 10%\nbcull 7%\nbstop 3%\nbrun 12%\n");
	assert_int_equal(cfg.limit[LIM_BRUN], 12);
	assert_int_equal(nwarns, 1);
}

/* control_socket: an absolute path that fits sun_path, or none. */
static void
test_control_socket(void **state)
{
	struct config cfg;
	char text[512], *p;

	(void)state;
	expect_ok(&cfg, "dir /c\n");
	assert_string_equal(cfg.control_socket, CFG_SOCKET_DEFAULT);
	expect_ok(&cfg, "dir /c\ncontrol_socket none\n");
	assert_string_equal(cfg.control_socket, "");
	expect_ok(&cfg, "dir /c\ncontrol_socket /run/x/ctl\n");
	assert_string_equal(cfg.control_socket, "/run/x/ctl");
	expect_error("dir /c\ncontrol_socket run/ctl\n",
		     "t.conf:2: control_socket: 'run/ctl' is not an absolute path");
	expect_error("dir /c\ncontrol_socket /run/\n",
		     "t.conf:2: control_socket: '/run/' names a directory, not a socket");
	expect_error("dir /c\ncontrol_socket\n",
		     "t.conf:2: 'control_socket' needs an argument: control_socket PATH|none");
	p = text + sprintf(text, "dir /c\ncontrol_socket /");
	memset(p, 's', CFG_SOCKET_MAX - 2);
	strcpy(p + CFG_SOCKET_MAX - 2, "\n");
	expect_ok(&cfg, text);
	assert_int_equal(strlen(cfg.control_socket), CFG_SOCKET_MAX - 1);
	strcpy(p + CFG_SOCKET_MAX - 2, "s\n");
	expect_error(text, "t.conf:2: control_socket: longer than 107 bytes");
	expect_error("dir /c\nmetrics_file m.prom\n",
		     "t.conf:2: metrics_file: 'm.prom' is not an absolute path");
}

/* Limits are checked on their final values, whatever order the file has. */
static void
test_limit_order(void **state)
{
	struct config cfg;

	(void)state;
	/* The kernel would refuse these one by one, in this order. */
	expect_ok(&cfg, "bstop 5%\nbcull 10%\nbrun 20%\nfstop 5%\nfcull 10%\n"
		  "frun 20%\ndir /c\n");
	assert_int_equal(cfg.limit[LIM_BSTOP], 5);
	assert_int_equal(cfg.limit[LIM_BCULL], 10);
	assert_int_equal(cfg.limit[LIM_BRUN], 20);
	expect_ok(&cfg, "dir /c\nbrun 3%\nbcull 2%\nbstop 0%\n");
	expect_ok(&cfg, "dir /c\nfrun 99%\nfcull 98%\nfstop 97%\n");

	/* Both pairs wrong: two errors; the files group separately. */
	assert_int_equal(parse(&cfg, "dir /c\nbstop 9%\nbcull 9%\nbrun 9%\n"
			       "fstop 1%\n"), 2);
	assert_string_equal(errs[0], "t.conf:3: bstop 9% must be less than bcull 9%: "
			    "the rule is 0 <= bstop < bcull < brun < 100");
	assert_string_equal(errs[1], "t.conf:4: bcull 9% must be less than brun 9%: "
			    "the rule is 0 <= bstop < bcull < brun < 100");

	/* A limit with a bad value is not compared: one error only. */
	expect_error("dir /c\nbrun 5\nbcull 10%\n",
		     "t.conf:2: brun: '5' is not a percentage: a whole number followed by %");
}

/* A file with several mistakes: each reported once, at its line. */
static void
test_many_errors(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(parse(&cfg,
			       "tag a\n"
			       "tag b\n"
			       "brun 200%\n"
			       "bogus\n"
			       "bind\n"
			       "fcull 9%\n"
			       "debug x\n"), 7);
	assert_string_equal(errs[0], "t.conf:2: 'tag' already given at line 1");
	assert_string_equal(errs[1], "t.conf:3: brun: '200%' is out of range (0% to 99%)");
	assert_string_equal(errs[2], "t.conf:4: unknown directive 'bogus'");
	assert_true(strncmp(errs[3], "t.conf:5: 'bind'", 16) == 0);
	assert_string_equal(errs[4], "t.conf:7: debug: 'x' is not a number (decimal, "
			    "0x hexadecimal or 0 octal)");
	assert_string_equal(errs[5], "t.conf:6: fcull 9% must be less than frun 7% "
			    "(default): the rule is 0 <= fstop < fcull < frun < 100");
	assert_string_equal(errs[6], "t.conf: no 'dir' directive: the cache "
			    "directory must be given");
	assert_string_equal(cfg.tag, "a");
	/* Without a callback, errors still count (they go to stderr). */
	assert_int_equal(config_parse_buffer(&cfg, "t.conf", "bogus\n", 6, NULL, NULL), 2);
}

static char *
dump(const struct config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	config_dump(cfg, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void
test_dump_defaults(void **state)
{
	struct config cfg;
	char *d;

	(void)state;
	expect_ok(&cfg, "dir /var/cache/fscache\n");
	d = dump(&cfg);
	assert_string_equal(d,
		"dir /var/cache/fscache\n"
		"# tag not set: the kernel names the cache CacheFiles\n"
		"# secctx not set: the kernel uses the daemon's own security context\n"
		"brun 7%\n"
		"bcull 5%\n"
		"bstop 1%\n"
		"frun 7%\n"
		"fcull 5%\n"
		"fstop 1%\n"
		"culltable 12\n"
		"# nocull not set: culling is enabled\n"
		"resume_thresholds - 5\n"
		"debug 0x0\n"
		"cull_age 0\n"
		"cull_memory 256M\n"
		"scan_threads 4\n"
		"cull_early yes\n"
		"state_file yes\n"
		"control_socket /run/cachefilesd/control\n"
		"# metrics_file not set: no metrics file\n");
	free(d);
}

/* The dump, parsed again, gives the same configuration and the same dump. */
static void
test_dump_round_trip(void **state)
{
	static const char *const inputs[] = {
		"dir /c\n",
		"dir /a b\ntag t\nsecctx x:y\nbrun 30%\nbcull 20%\nbstop 0%\n"
		"frun 99%\nfcull 98%\nfstop 97%\nculltable 17\nnocull\n"
		"resume_thresholds 12 -\ndebug 255\ncull_age 90m\n"
		"cull_memory 1048577\nscan_threads 1\ncull_early no\nstate_file no\ncontrol_socket none\n"
		"metrics_file /m/x.prom\n",
		"dir /c\ncull_age 1440m\ncull_memory 2048K\nresume_thresholds 3 4\n",
		"dir /c\ncull_age 14d\ncull_memory 64G\n",
		"dir /c\ncull_age 3601\ncull_memory 3072M\n",
	};
	struct config a, b;
	char *da, *db;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		expect_ok(&a, inputs[i]);
		da = dump(&a);
		expect_ok(&b, da);
		db = dump(&b);
		assert_string_equal(da, db);
		b.given = a.given;
		assert_memory_equal(&a, &b, sizeof(a));
		free(da);
		free(db);
	}
	/* The units chosen: the largest that divides exactly. */
	expect_ok(&a, inputs[2]);
	da = dump(&a);
	assert_non_null(strstr(da, "\ncull_age 1d\n"));
	assert_non_null(strstr(da, "\ncull_memory 2M\n"));
	assert_non_null(strstr(da, "\nresume_thresholds 3 4\n"));
	free(da);
	expect_ok(&a, inputs[3]);
	da = dump(&a);
	assert_non_null(strstr(da, "\ncull_age 2w\n"));
	assert_non_null(strstr(da, "\ncull_memory 64G\n"));
	free(da);
	expect_ok(&a, inputs[4]);
	da = dump(&a);
	assert_non_null(strstr(da, "\ncull_age 3601s\n"));
	assert_non_null(strstr(da, "\ncull_memory 3G\n"));
	free(da);
	expect_ok(&a, inputs[1]);
	da = dump(&a);
	assert_non_null(strstr(da, "\ntag t\nsecctx x:y\n"));
	assert_non_null(strstr(da, "\nnocull\n"));
	assert_non_null(strstr(da, "\ndebug 0xff\n"));
	assert_non_null(strstr(da, "\ncull_age 90m\n"));
	assert_non_null(strstr(da, "\ncull_memory 1048577\n"));
	free(da);
}

static char tmpdir[] = "/tmp/test_config.XXXXXX";

static void
write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
test_load(void **state)
{
	char path[sizeof(tmpdir) + 16], want[PATH_MAX + 100];
	struct config cfg;
	char *big;

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/a.conf", tmpdir);

	nerrs = 0;
	assert_int_equal(config_load(&cfg, path, collect, NULL), 1);
	snprintf(want, sizeof(want), "%s: open: %s", path, strerror(ENOENT));
	assert_string_equal(errs[0], want);

	write_file(path, "dir /c\nbrun 9%", 14);
	nerrs = 0;
	assert_int_equal(config_load(&cfg, path, collect, NULL), 0);
	assert_int_equal(cfg.limit[LIM_BRUN], 9);

	write_file(path, "tag\n", 4);
	nerrs = 0;
	assert_int_equal(config_load(&cfg, path, collect, NULL), 2);
	snprintf(want, sizeof(want), "%s:1: 'tag' needs an argument: tag NAME", path);
	assert_string_equal(errs[0], want);

	/* The size limit: exactly CFG_FILE_MAX is read, one byte more is not. */
	big = malloc(CFG_FILE_MAX + 1);
	assert_non_null(big);
	memset(big, '\n', CFG_FILE_MAX + 1);
	memcpy(big, "dir /c", 6);
	write_file(path, big, CFG_FILE_MAX);
	nerrs = 0;
	assert_int_equal(config_load(&cfg, path, collect, NULL), 0);
	write_file(path, big, CFG_FILE_MAX + 1);
	nerrs = 0;
	assert_int_equal(config_load(&cfg, path, collect, NULL), 1);
	snprintf(want, sizeof(want), "%s: file is larger than 1 MiB", path);
	assert_string_equal(errs[0], want);
	free(big);

	/* A directory cannot be read. */
	nerrs = 0;
	assert_int_equal(config_load(&cfg, tmpdir, collect, NULL), 1);
	snprintf(want, sizeof(want), "%s: read: %s", tmpdir, strerror(EISDIR));
	assert_string_equal(errs[0], want);
	unlink(path);
	rmdir(tmpdir);
}

static void
test_table(void **state)
{
	int i, j, n = config_ndirectives();

	(void)state;
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		assert_non_null(config_directive_name(i));
		assert_true(strlen(config_directive_help(i)) > 10);
		assert_non_null(config_directive_args(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(config_directive_name(i),
						config_directive_name(j));
	}
	assert_null(config_directive_name(n));
	assert_null(config_directive_name(-1));
	assert_null(config_directive_help(n));
	assert_null(config_directive_args(n));
}

/* One limit command, decoded: group 0 blocks / 1 files, which 0 run 1 cull 2 stop. */
struct limit_cmd {
	int group, which;
	unsigned value;
};

static int
decode_limit(const char *cmd, struct limit_cmd *lc)
{
	static const char *const names[3] = { "run", "cull", "stop" };
	char what[8], pct;
	int i;

	if (sscanf(cmd, "%7[a-z] %u%c", what, &lc->value, &pct) != 3 || pct != '%')
		return -1;
	lc->group = what[0] == 'b' ? 0 : what[0] == 'f' ? 1 : -1;
	for (i = 0; i < 3 && strcmp(what + 1, names[i]) != 0; i++)
		continue;
	lc->which = i;
	return lc->group < 0 || i == 3 ? -1 : 0;
}

/*
 * The kernel's check of one limit command against the values in force
 * (kernel-interface.md 2.3).  lim[g][0..2] = run, cull, stop of group g.
 */
static int
kernel_limit(unsigned lim[2][3], const struct limit_cmd *lc)
{
	unsigned *l = lim[lc->group], n = lc->value;

	switch (lc->which) {
	case 0:
		if (!(l[1] < n && n < 100))
			return -1;
		break;
	case 1:
		if (!(l[2] < n && n < l[0]))
			return -1;
		break;
	default:
		if (!(n < l[1]))
			return -1;
		break;
	}
	l[lc->which] = n;
	return 0;
}

static int
kernel_limit_text(unsigned lim[2][3], const char *cmd)
{
	struct limit_cmd lc;

	if (decode_limit(cmd, &lc) < 0)
		return -2;
	return kernel_limit(lim, &lc);
}

static int
apply_all(unsigned lim[2][3], const struct limit_cmd *lc, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (kernel_limit(lim, &lc[i]) < 0)
			return -1;
	return 0;
}

/* From several starting states, every valid target is reached. */
static void
test_limit_commands(void **state)
{
	static const unsigned starts[][3] = {
		{ 7, 5, 1 }, { 2, 1, 0 }, { 99, 98, 97 }, { 99, 1, 0 },
		{ 99, 98, 0 }, { 3, 2, 1 }, { 60, 50, 40 }, { 10, 7, 3 },
	};
	char cmds[CFG_LIMIT_CMDS + 1][CFG_LIMIT_CMD_MAX];
	struct limit_cmd lc[CFG_LIMIT_CMDS];
	unsigned lim[2][3];
	int i;
	struct config cfg;
	const unsigned nstarts = sizeof(starts) / sizeof(starts[0]);
	unsigned r, c, s, k;
	int n;
	long tried = 0;

	(void)state;
	config_defaults(&cfg);
	for (r = 2; r < 100; r++)
	for (c = 1; c < r; c++)
	for (s = 0; s < c; s++) {
		cfg.limit[LIM_BRUN] = r;
		cfg.limit[LIM_BCULL] = c;
		cfg.limit[LIM_BSTOP] = s;
		/* The mirror image for files, to keep the groups apart. */
		cfg.limit[LIM_FRUN] = 99 - s;
		cfg.limit[LIM_FCULL] = 99 - c;
		cfg.limit[LIM_FSTOP] = 99 - r;
		n = config_limit_commands(&cfg, cmds, CFG_LIMIT_CMDS + 1);
		assert_int_equal(n, CFG_LIMIT_CMDS);
		for (i = 0; i < n; i++)
			assert_int_equal(decode_limit(cmds[i], &lc[i]), 0);
		for (k = 0; k < nstarts; k++) {
			memcpy(lim[0], starts[k], sizeof(lim[0]));
			memcpy(lim[1], starts[(k + 3) % nstarts], sizeof(lim[1]));
			if (apply_all(lim, lc, n) < 0 ||
			    lim[0][0] != r || lim[0][1] != c || lim[0][2] != s ||
			    lim[1][0] != cfg.limit[LIM_FRUN] ||
			    lim[1][1] != cfg.limit[LIM_FCULL] ||
			    lim[1][2] != cfg.limit[LIM_FSTOP]) {
				print_message("target b %u/%u/%u f %u/%u/%u from start %u\n",
					      r, c, s, cfg.limit[LIM_FRUN],
					      cfg.limit[LIM_FCULL],
					      cfg.limit[LIM_FSTOP], k);
				fail();
			}
			tried++;
		}
	}
	assert_int_equal(tried, 161700L * nstarts);

	/* The file's own order would not do: the simulation does refuse. */
	memcpy(lim[0], starts[0], sizeof(lim[0]));
	assert_int_equal(kernel_limit_text(lim, "bcull 10%"), -1);
	assert_int_equal(kernel_limit_text(lim, "brun 4%"), -1);
	assert_int_equal(kernel_limit_text(lim, "bstop 5%"), -1);
	assert_int_equal(kernel_limit_text(lim, "brun 100%"), -1);
	assert_int_equal(kernel_limit_text(lim, "brun 20%"), 0);
	assert_int_equal(kernel_limit_text(lim, "bcull 10%"), 0);

	/* The exact sequence, and a short buffer. */
	expect_ok(&cfg, "dir /c\nbrun 20%\nbcull 10%\nbstop 5%\n");
	n = config_limit_commands(&cfg, cmds, CFG_LIMIT_CMDS);
	assert_int_equal(n, 10);
	assert_string_equal(cmds[0], "brun 99%");
	assert_string_equal(cmds[1], "bstop 0%");
	assert_string_equal(cmds[2], "bcull 10%");
	assert_string_equal(cmds[3], "brun 20%");
	assert_string_equal(cmds[4], "bstop 5%");
	assert_string_equal(cmds[5], "frun 99%");
	assert_string_equal(cmds[9], "fstop 1%");
	assert_int_equal(config_limit_commands(&cfg, cmds, 3), 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_every_directive),
		cmocka_unit_test(test_number_forms),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_unterminated_buffer),
		cmocka_unit_test(test_long_value_quoted),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_every_duplicate),
		cmocka_unit_test(test_control_socket),
		cmocka_unit_test(test_limit_order),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_dump_defaults),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_limit_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
