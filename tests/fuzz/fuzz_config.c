// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_config.c: the configuration parser.
 *
 * Any input: every message is "fuzz.conf:LINE: text" with LINE a line of
 * the input (or "fuzz.conf: text" for a file-wide error), printable ASCII
 * only, and the count returned is the number of messages that are not
 * warnings.  A valid input: its canonical dump parses again without a
 * message, and the dump of that parse equals the first dump.
 */
#include "tests/fuzz/fuzz.h"
#include "config/config.h"

#include <string.h>

#define FILE_NAME "fuzz.conf"

struct msgs {
	unsigned lines;		/* lines in the input */
	int errors, warnings;
};

static void
on_message(void *arg, const char *msg)
{
	struct msgs *m = arg;
	const char *p = msg + strlen(FILE_NAME ":");
	unsigned long line = 0;
	const char *c;

	FUZZ_CHECK(strncmp(msg, FILE_NAME ":", strlen(FILE_NAME ":")) == 0,
		   "message without the file name: '%s'", msg);
	for (c = msg; *c != '\0'; c++)
		FUZZ_CHECK((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f,
			   "byte 0x%02x in a message", (unsigned char)*c);
	if (*p >= '0' && *p <= '9') {
		FUZZ_CHECK(*p != '0', "line number with a leading 0: '%s'", msg);
		while (*p >= '0' && *p <= '9' && line <= m->lines)
			line = line * 10 + (unsigned long)(*p++ - '0');
		FUZZ_CHECK(line >= 1 && line <= m->lines,
			   "line %lu of %u: '%s'", line, m->lines, msg);
		FUZZ_CHECK(*p == ':', "no ':' after the line number: '%s'", msg);
		p++;
	}
	FUZZ_CHECK(p[0] == ' ' && p[1] != '\0' && p[1] != ' ',
		   "no message text: '%s'", msg);
	if (strncmp(p, " warning: ", 10) == 0)
		m->warnings++;
	else
		m->errors++;
}

static char *
dump(const struct config *cfg, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		abort();
	config_dump(cfg, f);
	if (fclose(f) != 0)
		abort();
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct msgs m = { 0 }, m2 = { 0 };
	struct config *a, *b;
	char *d1, *d2;
	size_t n1, n2, i;
	int errors;

	if (size > CFG_FILE_MAX)
		return -1;	/* config_load refuses it before parsing */
	for (i = 0; i < size; i++)
		m.lines += text[i] == '\n';
	if (size > 0 && text[size - 1] != '\n')
		m.lines++;
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	if (a == NULL || b == NULL)
		abort();
	errors = config_parse_buffer(a, FILE_NAME, text, size, on_message, &m);
	FUZZ_CHECK(errors == m.errors, "returned %d, reported %d errors",
		   errors, m.errors);
	if (errors == 0) {
		d1 = dump(a, &n1);
		m2.lines = UINT32_MAX;
		errors = config_parse_buffer(b, "fuzz.conf", d1, n1, on_message, &m2);
		FUZZ_CHECK(errors == 0 && m2.warnings == 0,
			   "the dump parses with %d errors, %d warnings:\n%s",
			   m2.errors, m2.warnings, d1);
		d2 = dump(b, &n2);
		FUZZ_CHECK(n1 == n2 && memcmp(d1, d2, n1) == 0,
			   "dumps differ:\n%s---\n%s", d1, d2);
		FUZZ_CHECK(strcmp(a->dir, b->dir) == 0 && strcmp(a->tag, b->tag) == 0 &&
			   strcmp(a->secctx, b->secctx) == 0 &&
			   memcmp(a->limit, b->limit, sizeof(a->limit)) == 0 &&
			   a->debug == b->debug && a->cull_age == b->cull_age &&
			   a->cull_memory == b->cull_memory &&
			   a->scan_threads == b->scan_threads && a->nocull == b->nocull &&
			   a->culltable == b->culltable &&
			   a->resume_blocks == b->resume_blocks &&
			   a->resume_files == b->resume_files,
			   "the parse of the dump holds other values:\n%s", d1);
		free(d1);
		free(d2);
	}
	free(a);
	free(b);
	return 0;
}
