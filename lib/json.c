// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c: a small JSON writer and a flat-object reader (json.h).  No
 * allocation: the writer streams, the reader scans the text in place.
 */
#include "lib/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void
jw_init(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->first[0] = 1;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static void
put_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"') {
			fputs("\\\"", f);
		} else if (c == '\\') {
			fputs("\\\\\\\\", f);	/* decoded: two backslashes */
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if ((k = utf8_len(s + i, n - i)) == 0) {
			fprintf(f, "\\\\x%02x", c);	/* decoded: \xHH */
		} else {
			fwrite(s + i, 1, k, f);
			i += k;
			continue;
		}
		i++;
	}
	fputc('"', f);
}

/* The comma and key before a value. */
static void
prefix(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = 0;
	if (key != NULL) {
		put_string(w->f, key, strlen(key));
		fputc(':', w->f);
	}
}

static void
open_(struct jw *w, const char *key, char c)
{
	prefix(w, key);
	fputc(c, w->f);
	if (w->depth + 1 < JSON_DEPTH_MAX)
		w->depth++;
	w->first[w->depth] = 1;
}

static void
close_(struct jw *w, char c)
{
	fputc(c, w->f);
	if (w->depth > 0)
		w->depth--;
}

void
jw_obj_begin(struct jw *w, const char *key)
{
	open_(w, key, '{');
}

void
jw_obj_end(struct jw *w)
{
	close_(w, '}');
}

void
jw_arr_begin(struct jw *w, const char *key)
{
	open_(w, key, '[');
}

void
jw_arr_end(struct jw *w)
{
	close_(w, ']');
}

void
jw_strn(struct jw *w, const char *key, const char *s, size_t len)
{
	prefix(w, key);
	put_string(w->f, s, len);
}

void
jw_str(struct jw *w, const char *key, const char *s)
{
	jw_strn(w, key, s, strlen(s));
}

void
jw_u64(struct jw *w, const char *key, uint64_t v)
{
	prefix(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void
jw_i64(struct jw *w, const char *key, int64_t v)
{
	prefix(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void
jw_double(struct jw *w, const char *key, double v, int decimals)
{
	prefix(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.*f", decimals, v);
	else
		fputs("null", w->f);	/* JSON has no NaN or infinity */
}

void
jw_bool(struct jw *w, const char *key, int v)
{
	prefix(w, key);
	fputs(v ? "true" : "false", w->f);
}

void
jw_null(struct jw *w, const char *key)
{
	prefix(w, key);
	fputs("null", w->f);
}

FILE *
jw_mem_open(char *buf, size_t size)
{
	return size > 0 ? fmemopen(buf, size, "w") : NULL;
}

size_t
jw_mem_close(FILE *f, char *buf, size_t size)
{
	long n;

	if (fflush(f) != 0 || ferror(f) || (n = ftell(f)) < 0 || (size_t)n >= size) {
		fclose(f);
		buf[0] = '\0';
		return 0;
	}
	fclose(f);
	buf[n] = '\0';
	return (size_t)n;
}

/* ---- reading ---- */

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The end of the string starting at p (on its opening quote), or NULL. */
static const char *
string_end(const char *p)
{
	for (p++; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* The end of the value at p, nested ones included, or NULL. */
static const char *
value_end(const char *p)
{
	int depth = 0;

	if (*p == '"')
		return string_end(p);
	for (; *p != '\0'; p++) {
		if (*p == '"') {
			if ((p = string_end(p)) == NULL)
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
		} else if (*p == ',' && depth == 0) {
			return p;
		}
	}
	return depth == 0 ? p : NULL;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Copy the string value at p (opening quote) unescaped into out. */
static int
copy_string(const char *p, const char *end, char *out, size_t size)
{
	size_t n = 0;

	for (p++; p < end - 1; p++) {
		char c = *p;

		if (c == '\\') {
			p++;
			switch (*p) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				/* Only the escapes the writer makes: \u00XX. */
				if (end - p < 5 || p[1] != '0' || p[2] != '0' ||
				    hexval(p[3]) < 0 || hexval(p[4]) < 0)
					return -1;
				c = (char)(hexval(p[3]) << 4 | hexval(p[4]));
				p += 4;
				break;
			default: c = *p; break;
			}
		}
		if (n + 1 >= size)
			return -1;
		out[n++] = c;
	}
	if (n >= size)		/* size 0: not even room for the NUL */
		return -1;
	out[n] = '\0';
	return 0;
}

int
json_get(const char *obj, const char *key, char *out, size_t size)
{
	const char *p = skip_ws(obj), *k, *kend, *v, *vend;
	size_t klen = strlen(key);

	if (*p++ != '{')
		return -1;
	for (;;) {
		p = skip_ws(p);
		if (*p != '"' || (kend = string_end(p)) == NULL)
			return -1;
		k = p + 1;
		v = skip_ws(kend);
		if (*v++ != ':')
			return -1;
		v = skip_ws(v);
		if ((vend = value_end(v)) == NULL)
			return -1;
		if ((size_t)(kend - k - 1) == klen && memcmp(k, key, klen) == 0) {
			if (*v == '"')
				return copy_string(v, vend, out, size);
			while (vend > v && (vend[-1] == ' ' || vend[-1] == '\n'))
				vend--;
			if ((size_t)(vend - v) + 1 > size)
				return -1;
			memcpy(out, v, (size_t)(vend - v));
			out[vend - v] = '\0';
			return 0;
		}
		p = skip_ws(vend);
		if (*p != ',')
			return -1;
		p++;
	}
}

int
json_get_bytes(const char *obj, const char *key, char *out, size_t size)
{
	char *r, *w;
	int hi, lo;

	if (json_get(obj, key, out, size) < 0)
		return -1;
	/* In place: every escape is longer than the byte it stands for. */
	for (r = w = out; *r != '\0'; r++) {
		if (*r != '\\') {
			*w++ = *r;
		} else if (r[1] == '\\') {
			*w++ = '\\';
			r++;
		} else if (r[1] == 'x' && (hi = hexval(r[2])) >= 0 && (lo = hexval(r[3])) >= 0 &&
			   (hi | lo) != 0) {
			*w++ = (char)(hi << 4 | lo);
			r += 3;
		} else {
			return -1;
		}
	}
	*w = '\0';
	return 0;
}

int
json_get_u64(const char *obj, const char *key, uint64_t *v)
{
	char buf[32], *end;
	unsigned long long x;

	if (json_get(obj, key, buf, sizeof(buf)) < 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (*end != '\0' || errno == ERANGE)	/* past 2^64 - 1: not a figure to trust */
		return -1;
	*v = x;
	return 0;
}
