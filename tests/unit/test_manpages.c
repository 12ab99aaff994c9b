// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_manpages.c: the man pages follow the code.  Every directive of the
 * configuration table has an entry in cachefilesd.conf(5) that states its
 * default, and the page lists no other; every option of the usage text is
 * in the SYNOPSIS and the option list of cachefilesd(8), and the page lists
 * no other.  The pages are read from $TOP/man (TOP is set by tests/run.sh;
 * the current directory otherwise).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "daemon/options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64
#define NAME_MAX_LEN 32

struct names {
	char v[MAX_NAMES][NAME_MAX_LEN];
	int n;
};

static void
add_name(struct names *s, const char *name, size_t len)
{
	int i;

	assert_true(len > 0 && len < NAME_MAX_LEN);
	for (i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], name, len) == 0)
			return;
	assert_true(s->n < MAX_NAMES);
	memcpy(s->v[s->n], name, len);
	s->v[s->n++][len] = '\0';
}

static int
has_name(const struct names *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return 1;
	return 0;
}

static char *
slurp(const char *rel)
{
	const char *top = getenv("TOP");
	char path[4096];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/%s", top != NULL ? top : ".", rel);
	f = fopen(path, "r");
	if (f == NULL) {
		print_message("# cannot open %s\n", path);
		fail();
	}
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The body of section name, up to the next .Sh, NUL-terminated in place. */
static char *
section(char *page, const char *name)
{
	char head[64], *start, *end;

	snprintf(head, sizeof(head), "\n.Sh %s\n", name);
	start = strstr(page, head);
	if (start == NULL) {
		print_message("# no section %s\n", name);
		fail();
	}
	start += strlen(head);
	if ((end = strstr(start, "\n.Sh ")) != NULL)
		end[1] = '\0';
	return start;
}

/* "\-help" -> "--help", "h" -> "-h". */
static void
flag_name(const char *word, size_t len, char *out, size_t size)
{
	if (len >= 2 && word[0] == '\\' && word[1] == '-')
		snprintf(out, size, "--%.*s", (int)(len - 2), word + 2);
	else
		snprintf(out, size, "-%.*s", (int)len, word);
}

/*
 * The flags named on one mdoc line: the word after each "Fl".  With
 * bundle set, "Fl dNnst" stands for -d -N -n -s -t.
 */
static void
line_flags(const char *line, size_t len, int bundle, struct names *out)
{
	const char *p = line, *end = line + len, *w;
	char name[NAME_MAX_LEN];
	size_t wl, i;
	int after_fl = 0;

	while (p < end) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		for (w = p; p < end && !isspace((unsigned char)*p); p++)
			continue;
		wl = p - w;
		if (wl == 0)
			break;
		if (after_fl && isalpha((unsigned char)w[0]) && bundle) {
			for (i = 0; i < wl; i++) {
				flag_name(w + i, 1, name, sizeof(name));
				add_name(out, name, strlen(name));
			}
		} else if (after_fl && (isalpha((unsigned char)w[0]) || w[0] == '\\')) {
			flag_name(w, wl, name, sizeof(name));
			add_name(out, name, strlen(name));
		}
		after_fl = (wl == 2 && memcmp(w, "Fl", 2) == 0) ||
			   (wl == 3 && memcmp(w, ".Fl", 3) == 0);
	}
}

/* Apply line_flags to every line of text that starts with prefix. */
static void
flags_of(const char *text, const char *prefix, int bundle, struct names *out)
{
	const char *p = text, *nl;
	size_t plen = strlen(prefix);

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if ((size_t)(nl - p) >= plen && strncmp(p, prefix, plen) == 0)
			line_flags(p, nl - p, bundle, out);
		p = *nl != '\0' ? nl + 1 : nl;
	}
}

/* The options the usage text mentions: -x, bundles like -dNnst, --long. */
static void
usage_flags(struct names *out)
{
	char *buf = NULL, name[NAME_MAX_LEN];
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	options_usage(f);
	assert_int_equal(fclose(f), 0);
	for (i = 0; i < len; i++) {
		if (buf[i] != '-' || (i > 0 && strchr(" \n[|", buf[i - 1]) == NULL))
			continue;
		if (buf[i + 1] == '-') {
			for (j = i + 2; isalpha((unsigned char)buf[j]); j++)
				continue;
			add_name(out, buf + i, j - i);
		} else {
			for (j = i + 1; isalpha((unsigned char)buf[j]); j++) {
				snprintf(name, sizeof(name), "-%c", buf[j]);
				add_name(out, name, 2);
			}
		}
		i = j - 1;
	}
	free(buf);
}

static void
test_options_documented(void **state)
{
	struct names usage = { .n = 0 }, listed = { .n = 0 }, synopsis = { .n = 0 };
	char *page = slurp("man/cachefilesd.8"), *text;
	int i;

	(void)state;
	usage_flags(&usage);
	/* The options everyone knows must be found, or the parsing is wrong. */
	assert_true(has_name(&usage, "-d") && has_name(&usage, "-f") &&
		    has_name(&usage, "--help") && usage.n >= 11);
	text = strdup(page);
	assert_non_null(text);
	flags_of(section(text, "DESCRIPTION"), ".It Fl", 0, &listed);
	free(text);
	flags_of(section(page, "SYNOPSIS"), ".", 1, &synopsis);
	for (i = 0; i < usage.n; i++) {
		if (!has_name(&listed, usage.v[i]))
			fail_msg("option %s of the usage text is not in the option "
				 "list of cachefilesd.8", usage.v[i]);
		if (!has_name(&synopsis, usage.v[i]))
			fail_msg("option %s of the usage text is not in the SYNOPSIS "
				 "of cachefilesd.8", usage.v[i]);
	}
	for (i = 0; i < listed.n; i++)
		if (!has_name(&usage, listed.v[i]))
			fail_msg("cachefilesd.8 lists %s, which the usage text lacks",
				 listed.v[i]);
	for (i = 0; i < synopsis.n; i++)
		if (!has_name(&usage, synopsis.v[i]))
			fail_msg("the SYNOPSIS has %s, which the usage text lacks",
				 synopsis.v[i]);
	free(page);
}

/* The bundle of flags without argument is the same in both synopses. */
static void
test_synopsis_matches_usage(void **state)
{
	char *page = slurp("man/cachefilesd.8"), *syn, *buf = NULL;
	char bundle[32], want[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	options_usage(f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sscanf(buf, "usage: cachefilesd [-%31[A-Za-z]]", bundle), 1);
	syn = section(page, "SYNOPSIS");
	snprintf(want, sizeof(want), ".Op Fl %s\n", bundle);
	if (strstr(syn, want) == NULL)
		fail_msg("the SYNOPSIS lacks '%s' (usage: [-%s])", want, bundle);
	assert_non_null(strstr(buf, "[-f FILE] [-p PIDFILE]"));
	assert_non_null(strstr(syn, ".Op Fl f Ar file\n.Op Fl p Ar pidfile\n"));
	free(buf);
	free(page);
}

/* The text of the .It entry for name, with mdoc line breaks made blanks. */
static char *
entry(const char *sect, const char *name)
{
	char head[64], *out, *p;
	const char *start, *end;
	size_t len;

	snprintf(head, sizeof(head), "\n.It Ic %s", name);
	start = strstr(sect, head);
	while (start != NULL && !isspace((unsigned char)start[strlen(head)]))
		start = strstr(start + 1, head);
	if (start == NULL)
		return NULL;
	start += strlen(head);
	end = strstr(start, "\n.It ");
	if (end == NULL)
		end = strstr(start, "\n.El");
	assert_non_null(end);
	len = end - start;
	out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, start, len);
	out[len] = '\0';
	for (p = out; (p = strstr(p, "\n.Ql ")) != NULL; )
		memmove(p, p + 4, strlen(p + 4) + 1);
	for (p = out; *p != '\0'; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

static void
test_directives_documented(void **state)
{
	char *page = slurp("man/cachefilesd.conf.5"), *sect, *e, *dump = NULL;
	struct names listed = { .n = 0 };
	const char *p, *nl;
	size_t len = 0;
	int i;

	(void)state;
	sect = section(page, "DIRECTIVES");
	for (p = sect; (p = strstr(p, ".It Ic ")) != NULL; p++) {
		p += strlen(".It Ic ");
		for (nl = p; *nl != '\0' && !isspace((unsigned char)*nl); nl++)
			continue;
		add_name(&listed, p, nl - p);
	}
	for (i = 0; i < config_ndirectives(); i++)
		if (!has_name(&listed, config_directive_name(i)))
			fail_msg("directive %s is not in cachefilesd.conf.5",
				 config_directive_name(i));
	for (i = 0; i < listed.n; i++) {
		int j, found = 0;

		for (j = 0; j < config_ndirectives(); j++)
			found |= strcmp(listed.v[i], config_directive_name(j)) == 0;
		if (!found)
			fail_msg("cachefilesd.conf.5 documents '%s', which the parser "
				 "does not know", listed.v[i]);
	}

	/* Each entry states the default that the canonical dump shows. */
	{
		struct config cfg;
		FILE *f;

		config_defaults(&cfg);
		strcpy(cfg.dir, "/c");
		f = open_memstream(&dump, &len);
		assert_non_null(f);
		config_dump(&cfg, f);
		assert_int_equal(fclose(f), 0);
	}
	for (p = dump; *p != '\0'; p = nl + 1) {
		char name[NAME_MAX_LEN], want[96];
		const char *sp, *hit;

		nl = strchr(p, '\n');
		assert_non_null(nl);
		sp = memchr(p, ' ', nl - p);
		if (p[0] == '#' || sp == NULL || strncmp(p, "dir ", 4) == 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(sp - p), p);
		snprintf(want, sizeof(want), "default is %.*s", (int)(nl - sp - 1), sp + 1);
		e = entry(sect, name);
		assert_non_null(e);
		hit = strstr(e, want);
		if (hit == NULL || isalnum((unsigned char)hit[strlen(want)]))
			fail_msg("the entry of %s in cachefilesd.conf.5 does not say "
				 "'%s'", name, want);
		free(e);
	}
	free(dump);
	free(page);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_documented),
		cmocka_unit_test(test_synopsis_matches_usage),
		cmocka_unit_test(test_directives_documented),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
