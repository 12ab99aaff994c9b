// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_json.c: the JSON writer and the flat reader.
 *
 * Writer: the input, as arbitrary bytes, is written as a string value in an
 * object between other values (a number, a nested object and array, a
 * string after them).  The document must be valid JSON (checked here by a
 * strict recursive parser: structure, escapes, no raw control characters,
 * valid UTF-8); json_get() must give back the input with the documented
 * mapping (json.h: valid UTF-8 as is, a backslash doubled, any other byte
 * as \xHH), find the values before and after it, and refuse an output
 * buffer one byte too small; json_get_bytes() must give back the input
 * itself when it holds no NUL.
 * Reader: the input as text goes to json_get() and json_get_u64(); the
 * output stays within its buffer and is NUL-terminated.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/json.h"

#include <string.h>

/* ---- a strict validator (RFC 8259), independent of json.c ---- */

struct v {
	const unsigned char *p, *end;
	int depth;
};

static void
ws(struct v *v)
{
	while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' ||
				 *v->p == '\r'))
		v->p++;
}

static int
lit(struct v *v, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(v->end - v->p) < n || memcmp(v->p, s, n) != 0)
		return -1;
	v->p += n;
	return 0;
}

/* One UTF-8 sequence at p: its length, or 0 if not valid. */
static size_t
utf8(const unsigned char *p, const unsigned char *end)
{
	size_t n, i;
	unsigned long cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, cp = p[0] & 0x1fu;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0fu;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int
hex4(const unsigned char *p)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strchr("0123456789abcdefABCDEF", p[i]) == NULL || p[i] == '\0')
			return -1;
	return 0;
}

static int
string(struct v *v)
{
	size_t n;

	if (v->p >= v->end || *v->p++ != '"')
		return -1;
	while (v->p < v->end && *v->p != '"') {
		if (*v->p < 0x20)
			return -1;
		if (*v->p == '\\') {
			if (v->end - v->p < 2)
				return -1;
			if (v->p[1] == 'u') {
				if (v->end - v->p < 6 || hex4(v->p + 2) < 0)
					return -1;
				v->p += 6;
			} else if (strchr("\"\\/bfnrt", v->p[1]) != NULL && v->p[1] != '\0') {
				v->p += 2;
			} else {
				return -1;
			}
			continue;
		}
		if ((n = utf8(v->p, v->end)) == 0)
			return -1;
		v->p += n;
	}
	if (v->p >= v->end)
		return -1;
	v->p++;
	return 0;
}

static int
digits(struct v *v)
{
	const unsigned char *s = v->p;

	while (v->p < v->end && *v->p >= '0' && *v->p <= '9')
		v->p++;
	return v->p > s ? 0 : -1;
}

static int
number(struct v *v)
{
	if (v->p < v->end && *v->p == '-')
		v->p++;
	if (v->p < v->end && *v->p == '0')
		v->p++;
	else if (digits(v) < 0)
		return -1;
	if (v->p < v->end && *v->p == '.') {
		v->p++;
		if (digits(v) < 0)
			return -1;
	}
	if (v->p < v->end && (*v->p == 'e' || *v->p == 'E')) {
		v->p++;
		if (v->p < v->end && (*v->p == '+' || *v->p == '-'))
			v->p++;
		if (digits(v) < 0)
			return -1;
	}
	return 0;
}

static int value(struct v *v);

static int
members(struct v *v, char close, int keyed)
{
	v->p++;
	ws(v);
	if (v->p < v->end && *v->p == close) {
		v->p++;
		return 0;
	}
	for (;;) {
		ws(v);
		if (keyed) {
			if (string(v) < 0)
				return -1;
			ws(v);
			if (v->p >= v->end || *v->p++ != ':')
				return -1;
		}
		if (value(v) < 0)
			return -1;
		ws(v);
		if (v->p >= v->end)
			return -1;
		if (*v->p == close) {
			v->p++;
			return 0;
		}
		if (*v->p++ != ',')
			return -1;
	}
}

static int
value(struct v *v)
{
	int r;

	ws(v);
	if (v->p >= v->end)
		return -1;
	switch (*v->p) {
	case '{':
	case '[':
		if (++v->depth > 64)
			return -1;
		r = members(v, *v->p == '{' ? '}' : ']', *v->p == '{');
		v->depth--;
		return r;
	case '"':
		return string(v);
	case 't':
		return lit(v, "true");
	case 'f':
		return lit(v, "false");
	case 'n':
		return lit(v, "null");
	default:
		return number(v);
	}
}

static int
valid_json(const char *doc, size_t len)
{
	struct v v = { (const unsigned char *)doc, (const unsigned char *)doc + len, 0 };

	if (value(&v) < 0)
		return 0;
	ws(&v);
	return v.p == v.end;
}

/* ---- the expected decoded string: json.h's mapping ---- */

static size_t
expected(const unsigned char *s, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i = 0, o = 0, k;

	while (i < n) {
		if (s[i] == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
			i++;
		} else if ((k = utf8(s + i, s + n)) == 0) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hx[s[i] >> 4];
			out[o++] = hx[s[i] & 15];
			i++;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		}
	}
	return o;
}

static void
writer(const uint8_t *data, size_t size)
{
	char *doc = NULL, *want, *got, small[8];
	size_t len, wlen;
	struct jw w;
	FILE *f = open_memstream(&doc, &len);

	if (f == NULL)
		abort();
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_u64(&w, "n", 18446744073709551615ULL);
	jw_strn(&w, "s", (const char *)data, size);
	jw_obj_begin(&w, "nest");
	jw_arr_begin(&w, "a");
	jw_strn(&w, NULL, (const char *)data, size);
	jw_i64(&w, NULL, -5);
	jw_null(&w, NULL);
	jw_arr_end(&w);
	jw_double(&w, "d", 0.5, 2);
	jw_obj_end(&w);
	jw_bool(&w, "t", 1);
	jw_str(&w, "after", "ok");
	jw_obj_end(&w);
	if (fclose(f) != 0)
		abort();

	FUZZ_CHECK(strlen(doc) == len, "a NUL in the document");
	FUZZ_CHECK(valid_json(doc, len), "not valid JSON: %s", doc);

	want = malloc(4 * size + 1);
	got = malloc(4 * size + 1);
	if (want == NULL || got == NULL)
		abort();
	wlen = expected(data, size, want);
	FUZZ_CHECK(json_get(doc, "s", got, wlen + 1) == 0, "s not read from %s", doc);
	FUZZ_CHECK(memcmp(got, want, wlen) == 0 && got[wlen] == '\0',
		   "s reads back otherwise from %s", doc);
	{
		char *tight = malloc(wlen);	/* one byte short, exactly */
		if (tight == NULL && wlen > 0)
			abort();
		FUZZ_CHECK(json_get(doc, "s", tight, wlen) == -1,
			   "s fits in %zu bytes", wlen);
		free(tight);
	}
	/* A name without NUL comes back to its bytes (a NUL ends the C string). */
	if (memchr(data, '\0', size) == NULL) {
		FUZZ_CHECK(json_get_bytes(doc, "s", got, wlen + 1) == 0 &&
			   memcmp(got, data, size) == 0 && got[size] == '\0',
			   "s is not read back to its bytes from %s", doc);
	}
	FUZZ_CHECK(json_get(doc, "n", small, sizeof(small)) == -1, "n fits in 8 bytes");
	{
		uint64_t u = 0;
		FUZZ_CHECK(json_get_u64(doc, "n", &u) == 0 && u == UINT64_MAX,
			   "n is not read back from %s", doc);
	}
	FUZZ_CHECK(json_get(doc, "after", small, sizeof(small)) == 0 &&
		   strcmp(small, "ok") == 0, "the value after the input is lost: %s", doc);
	FUZZ_CHECK(json_get(doc, "t", small, sizeof(small)) == 0 &&
		   strcmp(small, "true") == 0, "t is lost: %s", doc);
	FUZZ_CHECK(json_get(doc, "a", small, sizeof(small)) == -1, "a nested key found");
	free(want);
	free(got);
	free(doc);
}

static void
reader(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "a", "s", "n", "", "key" };
	char *text = malloc(size + 1), out[16];
	size_t i;
	uint64_t u;

	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		memset(out, 'x', sizeof(out));
		if (json_get(text, keys[i], out, sizeof(out)) == 0)
			FUZZ_CHECK(memchr(out, '\0', sizeof(out)) != NULL, "no NUL");
		(void)json_get_u64(text, keys[i], &u);
		memset(out, 'x', sizeof(out));
		if (json_get_bytes(text, keys[i], out, sizeof(out)) == 0)
			FUZZ_CHECK(memchr(out, '\0', sizeof(out)) != NULL, "no NUL (bytes)");
	}
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return -1;
	writer(data, size);
	reader(data, size);
	return 0;
}
