// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config.c: parse and validate /etc/cachefilesd.conf.
 *
 * The grammar is the historical one: one directive a line, "#" comment
 * lines, blank lines.  Unlike the historical daemon, surrounding whitespace
 * is ignored (trailing blanks used to reach the kernel and fail there), and
 * every value is checked here, so that nothing the kernel would refuse is
 * ever sent to it.  The table below is the only list of directives.
 */
#include "config/config.h"
#include "lib/escape.h"
#include "lib/kcmd.h"
#include "lib/util.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum kind {
	K_PATH,		/* absolute path, into a char array */
	K_FILE,		/* absolute path of a file (no trailing '/'), into a char array */
	K_TEXT,		/* free text up to the end of the line, into a char array */
	K_PERCENT,	/* N% (unsigned) */
	K_UINT,		/* decimal number (unsigned) */
	K_MASK,		/* C number: 0x.. hex, 0.. octal or decimal (uint64_t) */
	K_DURATION,	/* N[s|m|h|d|w], kept in seconds (uint64_t) */
	K_SIZE,		/* N[K|M|G], kept in bytes (uint64_t) */
	K_FLAG,		/* no argument (int) */
	K_BOOL,		/* yes or no (int) */
	K_RESUME,	/* two values, each a positive number or "-" */
	K_SOCKET,	/* absolute path or "none" (kept as ""), into a char array */
};

struct directive {
	const char *name;
	enum kind kind;
	size_t off;		/* the field in struct config */
	size_t size;		/* size of a K_PATH or K_TEXT field */
	uint64_t min, max, def;
	const char *args;	/* argument synopsis */
	const char *unset;	/* dump comment when an optional text is absent */
	const char *help;
};

#define F(field) offsetof(struct config, field)
#define FSIZE(field) sizeof(((struct config *)0)->field)
#define KIB 1024ULL
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)
#define DAY (24 * 3600ULL)

static const struct directive table[] = {
	{ "dir", K_PATH, F(dir), CFG_DIR_MAX, 0, 0, 0, "PATH", NULL,
	  "absolute path of the cache directory (required)" },
	{ "tag", K_TEXT, F(tag), FSIZE(tag), 0, 0, 0, "NAME",
	  "the kernel names the cache CacheFiles",
	  "name of the cache in FS-Cache" },
	{ "secctx", K_TEXT, F(secctx), FSIZE(secctx), 0, 0, 0, "CONTEXT",
	  "the kernel uses the daemon's own security context",
	  "security context the kernel acts as in the cache" },
	{ "brun", K_PERCENT, F(limit[LIM_BRUN]), 0, 0, 99, 7, "N%", NULL,
	  "culling stops when free blocks are back to N% of all blocks" },
	{ "bcull", K_PERCENT, F(limit[LIM_BCULL]), 0, 0, 99, 5, "N%", NULL,
	  "culling starts when free blocks fall below N% of all blocks" },
	{ "bstop", K_PERCENT, F(limit[LIM_BSTOP]), 0, 0, 99, 1, "N%", NULL,
	  "no new cache objects while free blocks are below N%" },
	{ "frun", K_PERCENT, F(limit[LIM_FRUN]), 0, 0, 99, 7, "N%", NULL,
	  "culling stops when free files are back to N% of all files" },
	{ "fcull", K_PERCENT, F(limit[LIM_FCULL]), 0, 0, 99, 5, "N%", NULL,
	  "culling starts when free files fall below N% of all files" },
	{ "fstop", K_PERCENT, F(limit[LIM_FSTOP]), 0, 0, 99, 1, "N%", NULL,
	  "no new cache objects while free files are below N%" },
	{ "culltable", K_UINT, F(culltable), 0, 12, 20, 12, "N", NULL,
	  "accepted for compatibility; no effect" },
	{ "nocull", K_FLAG, F(nocull), 0, 0, 1, 0, "", "culling is enabled",
	  "bind the cache but never cull (as -N)" },
	{ "resume_thresholds", K_RESUME, 0, 0, 1, INT64_MAX, 0,
	  "BLOCKS|- FILES|-", NULL, "accepted for compatibility; no effect" },
	{ "debug", K_MASK, F(debug), 0, 0, UINT32_MAX, 0, "MASK", NULL,
	  "kernel debug mask (1 entry, 2 exit, 4 debug points)" },
	{ "cull_age", K_DURATION, F(cull_age), 0, 0, CFG_CULL_AGE_MAX, 0,
	  "N[s|m|h|d|w]", NULL,
	  "also cull objects unused for longer than this (0: off)" },
	{ "cull_memory", K_SIZE, F(cull_memory), 0, MIB, 64 * GIB, 256 * MIB,
	  "N[K|M|G]", NULL, "memory the table of cull candidates may use" },
	{ "scan_threads", K_UINT, F(scan_threads), 0, 1, 64, 4, "N", NULL,
	  "parallel stat threads a scan uses" },
	{ "cull_early", K_BOOL, F(cull_early), 0, 0, 1, 1, "yes|no", NULL,
	  "cull objects certainly among the oldest before a scan ends" },
	{ "state_file", K_BOOL, F(state_file), 0, 0, 1, 1, "yes|no", NULL,
	  "keep what a scan learned in DIR/cachefilesd.state for the next start" },
	{ "control_socket", K_SOCKET, F(control_socket), FSIZE(control_socket), 0, 0, 0,
	  "PATH|none", NULL, "Unix socket cachefiles-cull talks to the daemon on" },
	{ "metrics_file", K_FILE, F(metrics_file), FSIZE(metrics_file), 0, 0, 0, "PATH",
	  "no metrics file",
	  "file the daemon keeps metrics in, in Prometheus text format" },
};
#define NDIRECTIVES ((int)ARRAY_SIZE(table))

_Static_assert(ARRAY_SIZE(table) <= 64, "struct config.given has 64 bits");

/* Historical defaults of resume_thresholds: blocks off, 5 files. */
#define RESUME_BLOCKS_DEF (-1)
#define RESUME_FILES_DEF 5

#define MSG_MAX (PATH_MAX + 512)
#define SHOW_MAX 48		/* bytes of a bad value quoted in a message */

struct parse {
	struct config *cfg;
	const char *file;
	config_error_fn fn;
	void *arg;
	int errors;
	unsigned line[ARRAY_SIZE(table)];	/* where given; 0 = not */
	uint64_t bad;				/* given with a bad value */
};

/* Unit letters, smallest first, and what each multiplies by. */
struct units {
	const char *letters;
	uint64_t mult[5];
};
static const struct units percent_unit = { "%", { 1 } };
static const struct units time_units = { "smhdw", { 1, 60, 3600, DAY, 7 * DAY } };
static const struct units size_units = { "KMG", { KIB, MIB, GIB } };

static void
emit(config_error_fn fn, void *arg, const char *msg)
{
	if (fn != NULL)
		fn(arg, msg);
	else
		fprintf(stderr, "%s\n", msg);
}

/* Report "FILE:LINE: message", or "FILE: message" when line is 0. */
static void __attribute__((format(printf, 3, 4)))
error_at(struct parse *p, unsigned line, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;
	int n;

	if (line > 0)
		n = snprintf(msg, sizeof(msg), "%s:%u: ", p->file, line);
	else
		n = snprintf(msg, sizeof(msg), "%s: ", p->file);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	p->errors++;
	emit(p->fn, p->arg, msg);
}

/*
 * "FILE:LINE: warning: message": reported through the same callback, not
 * counted as an error.
 */
static void __attribute__((format(printf, 3, 4)))
warn_at(struct parse *p, unsigned line, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "%s:%u: warning: ", p->file, line);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	emit(p->fn, p->arg, msg);
}

/*
 * A value quoted in a message: escaped, since it comes from the file and
 * goes to a terminal or the journal, and cut after SHOW_MAX bytes, marked
 * "...".  buf holds at least 4 bytes.
 */
static const char *
show(const char *s, char *buf, size_t size)
{
	size_t room = size - 3 < SHOW_MAX + 1 ? size - 3 : SHOW_MAX + 1;

	if (s[escape_text(s, buf, room)] != '\0')
		strcat(buf, "...");
	return buf;
}

/* A number with the largest unit that divides it exactly. */
static void
format_units(char *buf, size_t size, uint64_t v, const struct units *u)
{
	size_t i = strlen(u->letters);

	while (v > 0 && i-- > 0) {
		if (v % u->mult[i] == 0) {
			snprintf(buf, size, "%" PRIu64 "%c", v / u->mult[i],
				 u->letters[i]);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64, v);
}

/* A value of a numeric kind, written as the file would give it. */
static const char *
format_value(const struct directive *d, uint64_t v, char *buf, size_t size)
{
	switch (d->kind) {
	case K_PERCENT:
		snprintf(buf, size, "%" PRIu64 "%%", v);
		break;
	case K_MASK:
		snprintf(buf, size, "0x%" PRIx64, v);
		break;
	case K_DURATION:
		format_units(buf, size, v, &time_units);
		break;
	case K_SIZE:
		format_units(buf, size, v, &size_units);
		break;
	default:
		snprintf(buf, size, "%" PRIu64, v);
		break;
	}
	return buf;
}

static const struct directive *
lookup(const char *name)
{
	int i;

	for (i = 0; i < NDIRECTIVES; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

static void *
field(struct config *cfg, const struct directive *d)
{
	return (char *)cfg + d->off;
}

static const void *
cfield(const struct config *cfg, const struct directive *d)
{
	return (const char *)cfg + d->off;
}

/* Read the numeric field of d as a uint64_t. */
static uint64_t
get_number(const struct config *cfg, const struct directive *d)
{
	switch (d->kind) {
	case K_PERCENT:
	case K_UINT:
		return *(const unsigned *)cfield(cfg, d);
	case K_FLAG:
	case K_BOOL:
		return *(const int *)cfield(cfg, d) != 0;
	default:
		return *(const uint64_t *)cfield(cfg, d);
	}
}

static void
set_number(struct config *cfg, const struct directive *d, uint64_t v)
{
	switch (d->kind) {
	case K_PERCENT:
	case K_UINT:
		*(unsigned *)field(cfg, d) = (unsigned)v;
		break;
	case K_FLAG:
	case K_BOOL:
		*(int *)field(cfg, d) = v != 0;
		break;
	default:
		*(uint64_t *)field(cfg, d) = v;
		break;
	}
}

void
config_defaults(struct config *cfg)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < NDIRECTIVES; i++) {
		switch (table[i].kind) {
		case K_PATH:
		case K_FILE:
		case K_TEXT:
			break;
		case K_SOCKET:
			/* The only socket: control_socket. */
			snprintf(field(cfg, &table[i]), table[i].size, "%s", CFG_SOCKET_DEFAULT);
			break;
		case K_RESUME:
			cfg->resume_blocks = RESUME_BLOCKS_DEF;
			cfg->resume_files = RESUME_FILES_DEF;
			break;
		default:
			set_number(cfg, &table[i], table[i].def);
			break;
		}
	}
}

/* The value of the n decimal digits at s, saturated at UINT64_MAX. */
static uint64_t
digits_value(const char *s, size_t n)
{
	uint64_t v = 0, d;
	size_t i;

	for (i = 0; i < n; i++) {
		d = s[i] - '0';
		if (v > (UINT64_MAX - d) / 10)
			return UINT64_MAX;
		v = v * 10 + d;
	}
	return v;
}

/*
 * Digits, then exactly one of the suffixes in units (required when need is
 * set, else optional); the result is in [min, max] of d.  0, or -1 with
 * errno EINVAL (syntax) or ERANGE.
 */
static int
parse_suffixed(const struct directive *d, const char *s, const struct units *un,
	       int need, uint64_t *v)
{
	size_t len = strlen(s), k = strspn(s, "0123456789");
	const char *u;
	uint64_t m = 1, x;

	if (k == 0 || len - k > 1 || (need && len == k))
		return errno = EINVAL, -1;
	if (len > k) {
		if ((u = strchr(un->letters, s[k])) == NULL)
			return errno = EINVAL, -1;
		m = un->mult[u - un->letters];
	}
	x = digits_value(s, k);
	if (x > d->max / m || x * m < d->min)
		return errno = ERANGE, -1;
	*v = x * m;
	return 0;
}

/* Parse one numeric value of directive d: 0, or -1 with errno set. */
static int
parse_number(const struct directive *d, const char *s, uint64_t *v)
{
	switch (d->kind) {
	case K_PERCENT:
		/* The kernel's form: decimal digits, then '%' and nothing else. */
		return parse_suffixed(d, s, &percent_unit, 1, v);
	case K_UINT:
		return parse_u64(s, 10, d->min, d->max, v);
	case K_MASK:
		return parse_u64(s, 0, d->min, d->max, v);
	case K_DURATION:
		return parse_suffixed(d, s, &time_units, 0, v);
	case K_SIZE:
		return parse_suffixed(d, s, &size_units, 0, v);
	default:
		return errno = EINVAL, -1;
	}
}

int
config_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	struct directive d = { .kind = K_DURATION, .min = min, .max = max };

	return parse_suffixed(&d, s, &time_units, 0, v);
}

int
config_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	struct directive d = { .kind = K_SIZE, .min = min, .max = max };

	return parse_suffixed(&d, s, &size_units, 0, v);
}

static const char *
number_form(const struct directive *d)
{
	switch (d->kind) {
	case K_PERCENT:
		return "a percentage: a whole number followed by %";
	case K_MASK:
		return "a number (decimal, 0x hexadecimal or 0 octal)";
	case K_DURATION:
		return "a duration: a whole number followed by s, m, h, d or w";
	case K_SIZE:
		return "a size: a whole number followed by K, M or G";
	default:
		return "a whole decimal number";
	}
}

static int
set_numeric(struct parse *p, unsigned line, const struct directive *d,
	    const char *arg)
{
	char q[SHOW_MAX + 8], lo[32], hi[32];
	uint64_t v;

	if (parse_number(d, arg, &v) == 0) {
		set_number(p->cfg, d, v);
		return 0;
	}
	if (errno == ERANGE)
		error_at(p, line, "%s: '%s' is out of range (%s to %s)", d->name,
			 show(arg, q, sizeof(q)),
			 format_value(d, d->min, lo, sizeof(lo)),
			 format_value(d, d->max, hi, sizeof(hi)));
	else
		error_at(p, line, "%s: '%s' is not %s", d->name,
			 show(arg, q, sizeof(q)), number_form(d));
	return -1;
}

static int
set_text(struct parse *p, unsigned line, const struct directive *d,
	 const char *arg)
{
	char q[SHOW_MAX + 8];
	const char *c;

	/* They reach the kernel, the log and the -t dump: printable text only. */
	for (c = arg; *c != '\0'; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			break;
	if (*c != '\0') {
		error_at(p, line, "%s: control character 0x%02x in '%s'", d->name,
			 (unsigned char)*c, show(arg, q, sizeof(q)));
		return -1;
	}
	if ((d->kind == K_PATH || d->kind == K_FILE || d->kind == K_SOCKET) && arg[0] != '/') {
		error_at(p, line, "%s: '%s' is not an absolute path", d->name,
			 show(arg, q, sizeof(q)));
		return -1;
	}
	if (strlcpy_checked(field(p->cfg, d), arg, d->size) < 0) {
		error_at(p, line, "%s: longer than %zu bytes", d->name, d->size - 1);
		return -1;
	}
	return 0;
}

/* One resume_thresholds value: a positive number, or "-" (off) as -1. */
static int
resume_value(struct parse *p, unsigned line, const struct directive *d,
	     const char *what, const char *s, int64_t *out)
{
	char q[SHOW_MAX + 8];
	uint64_t v;

	if (strcmp(s, "-") == 0) {
		*out = -1;
		return 0;
	}
	if (parse_u64(s, 10, 0, d->max, &v) == 0) {
		if (v > 0) {
			*out = (int64_t)v;
			return 0;
		}
		error_at(p, line, "%s: %s threshold 0 is not allowed; use '-' "
			 "to turn it off", d->name, what);
	} else if (errno == ERANGE) {
		error_at(p, line, "%s: %s threshold '%s' is out of range (1 to %"
			 PRIu64 ")", d->name, what, show(s, q, sizeof(q)), d->max);
	} else {
		error_at(p, line, "%s: %s threshold '%s' is not a positive "
			 "number or '-'", d->name, what, show(s, q, sizeof(q)));
	}
	return -1;
}

static int
set_resume(struct parse *p, unsigned line, const struct directive *d, char *arg)
{
	const char *blank = " \t\r\v\f";
	char *blocks, *files, *rest;
	int64_t b, f;
	int bad = 0;

	blocks = arg;
	files = blocks + strcspn(blocks, blank);
	if (*files != '\0')
		*files++ = '\0';
	files += strspn(files, blank);
	rest = files + strcspn(files, blank);
	if (*files == '\0' || *rest != '\0') {
		error_at(p, line, "%s: expected two values: %s %s", d->name,
			 d->name, d->args);
		return -1;
	}
	bad |= resume_value(p, line, d, "blocks", blocks, &b) < 0;
	bad |= resume_value(p, line, d, "files", files, &f) < 0;
	if (bad)
		return -1;
	p->cfg->resume_blocks = b;
	p->cfg->resume_files = f;
	return 0;
}

/* A socket path: absolute, short enough for sun_path, or "none". */
static int
set_socket(struct parse *p, unsigned line, const struct directive *d, const char *arg)
{
	char q[SHOW_MAX + 8];
	size_t len = strlen(arg);

	if (strcmp(arg, "none") == 0) {
		*(char *)field(p->cfg, d) = '\0';
		return 0;
	}
	if (len > 0 && arg[len - 1] == '/') {
		error_at(p, line, "%s: '%s' names a directory, not a socket", d->name,
			 show(arg, q, sizeof(q)));
		return -1;
	}
	return set_text(p, line, d, arg);
}

/* A path naming a file: one ending in '/' can only be a directory. */
static int
set_file(struct parse *p, unsigned line, const struct directive *d, const char *arg)
{
	char q[SHOW_MAX + 8];
	size_t len = strlen(arg);

	if (len > 0 && arg[len - 1] == '/') {
		error_at(p, line, "%s: '%s' names a directory, not a file", d->name,
			 show(arg, q, sizeof(q)));
		return -1;
	}
	return set_text(p, line, d, arg);
}

static int
set_value(struct parse *p, unsigned line, const struct directive *d, char *arg)
{
	char q[SHOW_MAX + 8];

	switch (d->kind) {
	case K_PATH:
	case K_TEXT:
		return set_text(p, line, d, arg);
	case K_FILE:
		return set_file(p, line, d, arg);
	case K_SOCKET:
		return set_socket(p, line, d, arg);
	case K_RESUME:
		return set_resume(p, line, d, arg);
	case K_FLAG:
		set_number(p->cfg, d, 1);
		return 0;
	case K_BOOL:
		if (strcmp(arg, "yes") == 0 || strcmp(arg, "no") == 0) {
			set_number(p->cfg, d, arg[0] == 'y');
			return 0;
		}
		error_at(p, line, "%s: '%s' is neither yes nor no", d->name,
			 show(arg, q, sizeof(q)));
		return -1;
	default:
		return set_numeric(p, line, d, arg);
	}
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* One directive line, already checked for length and NUL bytes, trimmed. */
static void
parse_directive(struct parse *p, unsigned line, char *word)
{
	char zero[] = "0";	/* a bare debug's mask */
	const struct directive *d;
	char q[SHOW_MAX + 8];
	char *arg;
	int i;

	for (arg = word; *arg != '\0' && !is_blank(*arg); arg++)
		continue;
	if (*arg != '\0')
		*arg++ = '\0';
	while (is_blank(*arg))
		arg++;

	if ((d = lookup(word)) == NULL) {
		if (strcmp(word, "bind") == 0)
			error_at(p, line, "'bind' is not allowed in the configuration:"
				 " cachefilesd binds the cache itself");
		else
			error_at(p, line, "unknown directive '%s'",
				 show(word, q, sizeof(q)));
		return;
	}
	i = d - table;
	if (p->line[i] != 0 && (d->kind == K_PATH || d->kind == K_FILE || d->kind == K_TEXT ||
	    d->kind == K_SOCKET)) {
		/* The kernel refuses a second dir, tag or secctx; one path each. */
		error_at(p, line, "'%s' already given at line %u", d->name,
			 p->line[i]);
		return;
	}
	if (p->line[i] != 0)
		/* 0.10.10 sent each line to the kernel: the last value won. */
		warn_at(p, line, "'%s' already given at line %u; this value replaces it",
			d->name, p->line[i]);
	p->line[i] = line;
	if (d->kind == K_MASK && *arg == '\0') {
		/* 0.10.10 sent a bare "debug" as it was, and the kernel read mask 0. */
		warn_at(p, line, "'%s' without a mask is taken as '%s 0', as the kernel took it",
			d->name, d->name);
		arg = zero;
	}
	if (d->kind == K_FLAG && *arg != '\0') {
		error_at(p, line, "'%s' takes no argument", d->name);
	} else if (d->kind != K_FLAG && *arg == '\0') {
		error_at(p, line, "'%s' needs an argument: %s %s", d->name,
			 d->name, d->args);
	} else if (set_value(p, line, d, arg) == 0) {
		/* A good value replacing a bad one: the order checks see it. */
		p->cfg->given |= UINT64_C(1) << i;
		p->bad &= ~(UINT64_C(1) << i);
		return;
	}
	p->bad |= UINT64_C(1) << i;
}

static void
parse_line(struct parse *p, unsigned line, const char *s, size_t n)
{
	char buf[KCMD_MAX + 1];	/* a line becomes at most one command */
	char *start, *end;

	/* A CRLF file's carriage return is not part of the line's length. */
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n > KCMD_MAX) {
		error_at(p, line, "line is longer than %d bytes", KCMD_MAX);
		return;
	}
	if (memchr(s, '\0', n) != NULL) {
		error_at(p, line, "line contains a NUL byte");
		return;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (start = buf; is_blank(*start); start++)
		continue;
	for (end = buf + n; end > start && is_blank(end[-1]); end--)
		continue;
	*end = '\0';
	if (*start == '\0' || *start == '#')
		return;
	parse_directive(p, line, start);
}

static int
table_index(const struct directive *d)
{
	return d - table;
}

/* The table entry of limit i. */
static const struct directive *
limit_directive(int i)
{
	int j;

	for (j = 0; j < NDIRECTIVES; j++)
		if (table[j].kind == K_PERCENT &&
		    table[j].off == F(limit) + i * sizeof(unsigned))
			return &table[j];
	abort();
}

/*
 * lo must be below hi.  The error goes to the line of the later of the two
 * directives, the one that made the pair wrong; a default is said so.
 */
static void
check_pair(struct parse *p, int lo, int hi, const char *rule)
{
	const struct directive *dl = limit_directive(lo), *dh = limit_directive(hi);
	unsigned ll = p->line[table_index(dl)], lh = p->line[table_index(dh)];
	unsigned vl = p->cfg->limit[lo], vh = p->cfg->limit[hi];

	if (vl < vh)
		return;
	error_at(p, ll > lh ? ll : lh, "%s %u%%%s must be less than %s %u%%%s:"
		 " the rule is %s", dl->name, vl, ll ? "" : " (default)", dh->name,
		 vh, lh ? "" : " (default)", rule);
}

/* 0 <= stop < cull < run < 100 on the final values, unless the last of one was bad. */
static void
check_limits(struct parse *p, int run, int cull, int stop, const char *rule)
{
	int i;

	for (i = 0; i < NDIRECTIVES; i++) {
		if (!(p->bad & (UINT64_C(1) << i)))
			continue;
		if (&table[i] == limit_directive(run) ||
		    &table[i] == limit_directive(cull) ||
		    &table[i] == limit_directive(stop))
			return;
	}
	check_pair(p, stop, cull, rule);
	check_pair(p, cull, run, rule);
}

/* need_dir: a file without a dir directive is an error (not for the tool's -d). */
static int
parse_buffer(struct config *cfg, const char *file, const char *buf, size_t len,
	     int need_dir, config_error_fn fn, void *arg)
{
	struct parse p;
	size_t pos = 0, end;
	const char *nl;
	unsigned line = 0;

	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.file = file;
	p.fn = fn;
	p.arg = arg;
	config_defaults(cfg);
	while (pos < len) {
		nl = memchr(buf + pos, '\n', len - pos);
		end = nl != NULL ? (size_t)(nl - buf) : len;
		parse_line(&p, ++line, buf + pos, end - pos);
		pos = end + 1;
	}
	check_limits(&p, LIM_BRUN, LIM_BCULL, LIM_BSTOP,
		     "0 <= bstop < bcull < brun < 100");
	check_limits(&p, LIM_FRUN, LIM_FCULL, LIM_FSTOP,
		     "0 <= fstop < fcull < frun < 100");
	if (need_dir && p.line[table_index(lookup("dir"))] == 0)
		error_at(&p, 0, "no 'dir' directive: the cache directory must "
			 "be given");
	return p.errors;
}

int
config_parse_buffer(struct config *cfg, const char *file, const char *buf,
		    size_t len, config_error_fn fn, void *arg)
{
	return parse_buffer(cfg, file, buf, len, 1, fn, arg);
}

static int
load_error(const char *path, config_error_fn fn, void *arg, const char *what,
	   int err)
{
	char msg[MSG_MAX];

	if (err != 0)
		snprintf(msg, sizeof(msg), "%s: %s: %s", path, what, strerror(err));
	else
		snprintf(msg, sizeof(msg), "%s: %s", path, what);
	emit(fn, arg, msg);
	return 1;
}

static int
load(struct config *cfg, const char *path, int need_dir, config_error_fn fn, void *arg)
{
	size_t len = 0;
	struct stat sb;
	ssize_t n;
	char *buf;
	int fd, errors;

	config_defaults(cfg);
	/*
	 * A FIFO with no writer would hold open() (and the start, or -t) for
	 * good: opened without waiting, then read as usual, it reads as empty.
	 * One with a writer (-f <(...)) reads what is written.
	 */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) == -1)
		return load_error(path, fn, arg, "open", errno);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
		errors = load_error(path, fn, arg, "fcntl", errno);
		close(fd);
		return errors;
	}
	/* One byte more than allowed, to tell a full file from a too long one. */
	buf = xmalloc(CFG_FILE_MAX + 1);
	while (len <= CFG_FILE_MAX) {
		n = read(fd, buf + len, CFG_FILE_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			errors = load_error(path, fn, arg, "read", errno);
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (len > CFG_FILE_MAX)
		errors = load_error(path, fn, arg, "file is larger than "
				    CFG_FILE_MAX_TEXT, 0);
	else if (len == 0 && fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode))
		errors = load_error(path, fn, arg, "a FIFO that nothing was written to", 0);
	else
		errors = parse_buffer(cfg, path, buf, len, need_dir, fn, arg);
out:
	free(buf);
	close(fd);
	return errors;
}

int
config_load(struct config *cfg, const char *path, config_error_fn fn, void *arg)
{
	return load(cfg, path, 1, fn, arg);
}

int
config_load_nodir(struct config *cfg, const char *path, config_error_fn fn, void *arg)
{
	return load(cfg, path, 0, fn, arg);
}

static void
dump_one(const struct config *cfg, const struct directive *d, FILE *out)
{
	char v[32];
	const char *s;

	switch (d->kind) {
	case K_PATH:
	case K_FILE:
	case K_TEXT:
		s = cfield(cfg, d);
		if (*s != '\0')
			fprintf(out, "%s %s\n", d->name, s);
		else
			fprintf(out, "# %s not set: %s\n", d->name,
				d->unset != NULL ? d->unset : "no value");
		break;
	case K_SOCKET:
		s = cfield(cfg, d);
		fprintf(out, "%s %s\n", d->name, *s != '\0' ? s : "none");
		break;
	case K_FLAG:
		if (get_number(cfg, d))
			fprintf(out, "%s\n", d->name);
		else
			fprintf(out, "# %s not set: %s\n", d->name, d->unset);
		break;
	case K_BOOL:
		fprintf(out, "%s %s\n", d->name, get_number(cfg, d) ? "yes" : "no");
		break;
	case K_RESUME:
		fprintf(out, "%s ", d->name);
		if (cfg->resume_blocks < 0)
			fputs("-", out);
		else
			fprintf(out, "%" PRId64, cfg->resume_blocks);
		if (cfg->resume_files < 0)
			fputs(" -\n", out);
		else
			fprintf(out, " %" PRId64 "\n", cfg->resume_files);
		break;
	default:
		fprintf(out, "%s %s\n", d->name,
			format_value(d, get_number(cfg, d), v, sizeof(v)));
		break;
	}
}

void
config_dump(const struct config *cfg, FILE *out)
{
	int i;

	for (i = 0; i < NDIRECTIVES; i++)
		dump_one(cfg, &table[i], out);
}

int
config_given(const struct config *cfg, const char *name)
{
	const struct directive *d = lookup(name);

	return d != NULL && (cfg->given & (UINT64_C(1) << table_index(d))) != 0;
}

/*
 * The kernel checks each limit against the values in force, starting from
 * whatever is set.  Opening the range first (run 99%, stop 0%) makes any
 * valid cull value acceptable; then run and stop can take their places.
 */
int
config_limit_commands(const struct config *cfg, char cmds[][CFG_LIMIT_CMD_MAX],
		      int max)
{
	static const int groups[2][3] = {
		{ LIM_BRUN, LIM_BCULL, LIM_BSTOP },
		{ LIM_FRUN, LIM_FCULL, LIM_FSTOP },
	};
	int g, n = 0;

	for (g = 0; g < 2; g++) {
		const int *l = groups[g];
		const struct { int lim; unsigned val; } seq[5] = {
			{ l[0], 99 }, { l[2], 0 }, { l[1], cfg->limit[l[1]] },
			{ l[0], cfg->limit[l[0]] }, { l[2], cfg->limit[l[2]] },
		};
		int i;

		for (i = 0; i < 5 && n < max; i++)
			snprintf(cmds[n++], CFG_LIMIT_CMD_MAX, "%s %u%%",
				 limit_directive(seq[i].lim)->name, seq[i].val);
	}
	return n;
}

int
config_ndirectives(void)
{
	return NDIRECTIVES;
}

const char *
config_limit_name(enum cfg_limit l)
{
	static const char *const names[LIM_COUNT] = {
		"brun", "bcull", "bstop", "frun", "fcull", "fstop",
	};

	return (unsigned)l < LIM_COUNT ? names[l] : "?";
}

const char *
config_directive_name(int i)
{
	return i >= 0 && i < NDIRECTIVES ? table[i].name : NULL;
}

const char *
config_directive_help(int i)
{
	return i >= 0 && i < NDIRECTIVES ? table[i].help : NULL;
}

const char *
config_directive_args(int i)
{
	return i >= 0 && i < NDIRECTIVES ? table[i].args : NULL;
}
