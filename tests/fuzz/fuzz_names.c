// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_names.c: the rules about names, and escape_text().
 *
 * kcmd_name_ok(): a name it accepts is 1..NAME_MAX bytes, holds no '/',
 * newline or NUL, is neither "." nor "..", does not start with a blank, and
 * "cull NAME" fits one command.  kcmd_name_len_in(), given the input as a
 * record of exactly its size: what kcmd_name_len() says of the bytes up to
 * the first NUL, or 0 when there is none, reading nothing past the record.  names_kind(): data and directory names are
 * a letter of their kind and at least one byte more, and nothing past the
 * NUL is read.  escape_text(), into a buffer of a size the input picks and
 * exactly that big: no control byte or byte >= 0x7f comes out, the output is
 * NUL-terminated, unescaping it gives back exactly the prefix of the input
 * it claims to represent, it stops only when the next byte does not fit,
 * and it represents everything when given ESCAPE_SIZE() bytes.
 */
#include "tests/fuzz/fuzz.h"
#include "cull/names.h"
#include "lib/escape.h"
#include "lib/kcmd.h"

#include <limits.h>
#include <string.h>

static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void
check_kcmd(const char *name, size_t len)
{
	char cmd[KCMD_MAX + 2];

	if (!kcmd_name_ok(name, len))
		return;
	FUZZ_CHECK(len >= 1 && len <= NAME_MAX, "accepted %zu bytes", len);
	FUZZ_CHECK(memchr(name, '/', len) == NULL, "accepted a '/'");
	FUZZ_CHECK(memchr(name, '\n', len) == NULL, "accepted a newline");
	FUZZ_CHECK(memchr(name, '\0', len) == NULL, "accepted a NUL");
	FUZZ_CHECK(!(len == 1 && name[0] == '.'), "accepted '.'");
	FUZZ_CHECK(!(len == 2 && name[0] == '.' && name[1] == '.'), "accepted '..'");
	FUZZ_CHECK(!blank(name[0]), "accepted a leading blank");
	FUZZ_CHECK(snprintf(cmd, sizeof(cmd), "cull %.*s", (int)len, name) <= KCMD_MAX,
		   "'cull NAME' is longer than %d", KCMD_MAX);
}

static void
check_len_in(const uint8_t *data, size_t size, const char *name)
{
	char *rec = malloc(size ? size : 1);	/* exactly the record, for ASan */
	size_t got, want = memchr(data, '\0', size) ? kcmd_name_len(name) : 0;

	if (rec == NULL)
		abort();
	if (size)
		memcpy(rec, data, size);
	got = kcmd_name_len_in(rec, size);
	FUZZ_CHECK(got == want, "kcmd_name_len_in says %zu, kcmd_name_len %zu", got, want);
	free(rec);
}

static void
check_kind(const char *name)
{
	enum name_kind k = names_kind(name);

	if (k == NAME_DATA)
		FUZZ_CHECK(strchr("DEST", name[0]) != NULL && name[0] && name[1],
			   "'%s' is data", name);
	else if (k == NAME_DIR)
		FUZZ_CHECK(strchr("IJ@+", name[0]) != NULL && name[0] && name[1],
			   "'%s' is a directory", name);
	else
		FUZZ_CHECK(k == NAME_OTHER, "kind %d", (int)k);
	if (name[0] != '\0' && name[1] != '\0' && strchr("DESTIJ@+", name[0]) != NULL)
		FUZZ_CHECK(k != NAME_OTHER, "'%s' is other", name);
}

static int
octal(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/* Width of byte c escaped. */
static size_t
width(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;
}

static void
check_escape(const char *s, size_t size)
{
	char *out = malloc(size);	/* exactly size bytes, for ASan */
	size_t r, o, i, olen, len = strlen(s);

	if (out == NULL)
		abort();
	r = escape_text(s, out, size);
	FUZZ_CHECK(r <= len, "represents %zu of %zu bytes", r, len);
	olen = strnlen(out, size);
	FUZZ_CHECK(olen < size, "no NUL within %zu bytes", size);
	for (o = 0, i = 0; o < olen; i++) {
		unsigned char c = (unsigned char)out[o];

		FUZZ_CHECK(c >= 0x20 && c < 0x7f, "byte 0x%02x in the output", c);
		FUZZ_CHECK(i < r, "more output than the %zu bytes represented", r);
		if (c == '\\') {
			FUZZ_CHECK(o + 3 < olen, "an escape cut in half");
			FUZZ_CHECK(octal(out[o + 1]) >= 0 && octal(out[o + 2]) >= 0 &&
				   octal(out[o + 3]) >= 0, "bad escape");
			c = (unsigned char)(octal(out[o + 1]) << 6 |
					    octal(out[o + 2]) << 3 | octal(out[o + 3]));
			FUZZ_CHECK(octal(out[o + 1]) <= 3, "escape above 0377");
			FUZZ_CHECK(width(c) == 4, "0x%02x escaped needlessly", c);
			o += 4;
		} else {
			o++;
		}
		FUZZ_CHECK(c == (unsigned char)s[i], "byte %zu comes back as 0x%02x, was 0x%02x",
			   i, c, (unsigned char)s[i]);
	}
	FUZZ_CHECK(i == r, "output holds %zu bytes, %zu claimed", i, r);
	if (r < len)
		FUZZ_CHECK(olen + width((unsigned char)s[r]) + 1 > size,
			   "stopped at byte %zu although it fits", r);
	if (size >= ESCAPE_SIZE(len))
		FUZZ_CHECK(r == len, "cut with a full-size buffer");
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name;

	if (size > 2 * KCMD_MAX)
		return -1;
	check_kcmd((const char *)data, size);
	name = malloc(size + 1);	/* the name NUL-terminated, exactly */
	if (name == NULL)
		abort();
	memcpy(name, data, size);
	name[size] = '\0';
	check_kind(name);
	check_len_in(data, size, name);
	/* Buffer sizes: 1, a size the first two bytes pick, and the full one. */
	check_escape(name, 1);
	if (size >= 2)
		check_escape(name, 1 + ((size_t)data[0] << 8 | data[1]) %
			     ESCAPE_SIZE(strlen(name)));
	check_escape(name, ESCAPE_SIZE(strlen(name)));
	free(name);
	return 0;
}
