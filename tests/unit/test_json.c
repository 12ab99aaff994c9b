// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_json.c: the JSON writer against documents written out by hand, names
 * that are not UTF-8, and the flat reader on what the writer makes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[4096];

static FILE *
mem(void)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	return f;
}

static void
test_document(void **state)
{
	struct jw w;
	FILE *f = mem();

	(void)state;
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "dir", "/var/cache/fscache");
	jw_bool(&w, "bound", 1);
	jw_u64(&w, "objects", 18446744073709551615ull);
	jw_i64(&w, "delta", -3);
	jw_double(&w, "free_blocks_pct", 12.345, 1);
	jw_null(&w, "daemon");
	jw_obj_begin(&w, "limits");
	jw_u64(&w, "brun", 10);
	jw_obj_end(&w);
	jw_arr_begin(&w, "list");
	jw_obj_begin(&w, NULL);
	jw_str(&w, "path", "Ia/@00/Db");
	jw_obj_end(&w);
	jw_u64(&w, NULL, 7);
	jw_arr_end(&w);
	jw_obj_end(&w);
	fclose(f);
	assert_string_equal(buf, "{\"dir\":\"/var/cache/fscache\",\"bound\":true,"
			    "\"objects\":18446744073709551615,\"delta\":-3,"
			    "\"free_blocks_pct\":12.3,\"daemon\":null,\"limits\":{\"brun\":10},"
			    "\"list\":[{\"path\":\"Ia/@00/Db\"},7]}");
}

static void
test_strings(void **state)
{
	struct jw w;
	FILE *f = mem();

	(void)state;
	jw_init(&w, f);
	jw_arr_begin(&w, NULL);
	jw_str(&w, NULL, "caf\xc3\xa9 \xe2\x82\xac");	/* valid UTF-8 passes */
	jw_str(&w, NULL, "a\"b\\c\nd\te\x01");
	jw_str(&w, NULL, "bad\xff\xc3(");		/* not UTF-8: \xHH */
	jw_str(&w, NULL, "\xed\xa0\x80");		/* a surrogate is not UTF-8 */
	jw_str(&w, NULL, "\xc0\xaf");			/* nor an overlong form */
	jw_str(&w, NULL, "\xe0\x80\xaf");		/* of three bytes either */
	jw_str(&w, NULL, "\xf4\x90\x80\x80");		/* nor past U+10FFFF */
	jw_str(&w, NULL, "\xf4\x8f\xbf\xbf");		/* U+10FFFF itself passes */
	jw_double(&w, NULL, 1.0 / 0.0, 2);
	jw_arr_end(&w);
	fclose(f);
	assert_string_equal(buf, "[\"caf\xc3\xa9 \xe2\x82\xac\","
			    "\"a\\\"b\\\\\\\\c\\nd\\te\\u0001\","
			    "\"bad\\\\xff\\\\xc3(\","
			    "\"\\\\xed\\\\xa0\\\\x80\","
			    "\"\\\\xc0\\\\xaf\","
			    "\"\\\\xe0\\\\x80\\\\xaf\","
			    "\"\\\\xf4\\\\x90\\\\x80\\\\x80\","
			    "\"\xf4\x8f\xbf\xbf\",null]");
}

static void
test_reader(void **state)
{
	const char *obj = "{\"ok\":true, \"state\":\"culling\",\"culled\":42,"
			  "\"nested\":{\"a\":[1,{\"b\":\"}\"}]},\"name\":\"x\\\\\\\\y\\nz\","
			  "\"big\":18446744073709551615,\"neg\":-1,\"huge\":18446744073709551616,"
			  "\"frac\":5.5}";
	char out[64];
	uint64_t v;

	(void)state;
	assert_int_equal(json_get(obj, "state", out, sizeof(out)), 0);
	assert_string_equal(out, "culling");
	assert_int_equal(json_get(obj, "ok", out, sizeof(out)), 0);
	assert_string_equal(out, "true");
	assert_int_equal(json_get_u64(obj, "culled", &v), 0);
	assert_int_equal(v, 42);
	/* Nested values are stepped over, brackets inside strings included. */
	assert_int_equal(json_get(obj, "name", out, sizeof(out)), 0);
	assert_string_equal(out, "x\\\\y\nz");
	assert_int_equal(json_get_u64(obj, "big", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(json_get_u64(obj, "neg", &v), -1);
	/* 2^64 is refused, not read as 2^64 - 1; a fraction is no count. */
	v = 7;
	assert_int_equal(json_get_u64(obj, "huge", &v), -1);
	assert_int_equal(v, 7);
	assert_int_equal(json_get_u64(obj, "frac", &v), -1);
	assert_int_equal(json_get(obj, "missing", out, sizeof(out)), -1);
	assert_int_equal(json_get(obj, "state", out, 4), -1);	/* does not fit */
	assert_int_equal(json_get("[1,2]", "a", out, sizeof(out)), -1);
	assert_int_equal(json_get("{\"a\":\"unterminated", "a", out, sizeof(out)), -1);
	assert_int_equal(json_get("{\"a\" 1}", "a", out, sizeof(out)), -1);
	/* A key is matched whole: "busy" is not "busy_kept". */
	assert_int_equal(json_get("{\"busy_kept\":1,\"busy\":2}", "busy", out, sizeof(out)), 0);
	assert_string_equal(out, "2");
	assert_int_equal(json_get("{\"ab\":1}", "a", out, sizeof(out)), -1);
}

/*
 * A document that fills the buffer exactly leaves no room for its NUL: it
 * is refused whole (0), never cut or written past the end.
 */
static void
test_mem_exact_fit(void **state)
{
	char doc[9];
	FILE *f;

	(void)state;
	memset(doc, 'x', sizeof(doc));
	assert_non_null(f = jw_mem_open(doc, 8));
	fputs("{\"a\":12}", f);			/* 8 bytes */
	assert_int_equal(jw_mem_close(f, doc, 8), 0);
	assert_string_equal(doc, "");
	assert_int_equal(doc[8], 'x');
	assert_non_null(f = jw_mem_open(doc, 9));
	fputs("{\"a\":12}", f);
	assert_int_equal(jw_mem_close(f, doc, 9), 8);
	assert_string_equal(doc, "{\"a\":12}");
}

/*
 * An empty string does not fit in a buffer of 0 bytes: nothing is written
 * there (found by tests/fuzz/fuzz_json.c).
 */
static void
test_reader_empty_into_nothing(void **state)
{
	char out[2] = { 'x', 'x' };

	(void)state;
	assert_int_equal(json_get("{\"e\":\"\"}", "e", out, 0), -1);
	assert_int_equal(out[0], 'x');
	assert_int_equal(json_get("{\"e\":1}", "e", out, 0), -1);
	assert_int_equal(out[0], 'x');
	assert_int_equal(json_get("{\"e\":\"\"}", "e", out, 1), 0);
	assert_int_equal(out[0], '\0');
	assert_int_equal(out[1], 'x');
}

/*
 * A path read back to its bytes: the writer's doubled backslash and \xHH
 * undone (the writer's own output, round trip), an escape it never makes
 * refused.
 */
static void
test_reader_bytes(void **state)
{
	static const char raw[] = "/var/a\\b\x8a\xc3(\x01\x7fz";
	char doc[256], out[64];
	FILE *f;
	struct jw w;

	(void)state;
	assert_non_null(f = jw_mem_open(doc, sizeof(doc)));
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "dir", raw);
	jw_obj_end(&w);
	assert_true(jw_mem_close(f, doc, sizeof(doc)) > 0);
	assert_int_equal(json_get_bytes(doc, "dir", out, sizeof(out)), 0);
	assert_string_equal(out, raw);
	assert_int_equal(json_get_bytes("{\"d\":\"a\\\\\\\\\\\\\\\\b\"}", "d", out, sizeof(out)), 0);
	assert_string_equal(out, "a\\\\b");
	assert_int_equal(json_get_bytes("{\"d\":\"x\\\\x4Ay\"}", "d", out, sizeof(out)), 0);
	assert_string_equal(out, "xJy");
	/* Escapes the writer never makes. */
	assert_int_equal(json_get_bytes("{\"d\":\"a\\\\qb\"}", "d", out, sizeof(out)), -1);
	assert_int_equal(json_get_bytes("{\"d\":\"a\\\\x4\"}", "d", out, sizeof(out)), -1);
	assert_int_equal(json_get_bytes("{\"d\":\"a\\\\\"}", "d", out, sizeof(out)), -1);
	assert_int_equal(json_get_bytes("{\"d\":\"a\\\\x00b\"}", "d", out, sizeof(out)), -1);
	assert_int_equal(json_get_bytes("{\"d\":1}", "e", out, sizeof(out)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_mem_exact_fit),
		cmocka_unit_test(test_reader_empty_into_nothing),
		cmocka_unit_test(test_reader_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
