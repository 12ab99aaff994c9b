// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctlserver.c: the daemon's side of the control socket: parsing
 * request lines (every word and limit of docs/control-protocol.md) and the
 * replies to errors and goals, read back with json_get.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/control.h"
#include "daemon/control.h"
#include "lib/json.h"

#include <string.h>

static int
parse(const char *line, struct control_req *req, const char **err)
{
	*err = NULL;
	return control_parse_request(line, strlen(line), req, err);
}

static void
good(const char *line, enum control_verb verb, enum goal_kind kind, uint64_t value)
{
	struct control_req req;
	const char *err;

	if (parse(line, &req, &err) != 0)
		fail_msg("'%s' refused: %s", line, err);
	assert_int_equal(req.verb, verb);
	if (verb == CONTROL_CULL) {
		assert_int_equal(req.goal.kind, kind);
		assert_true(req.goal.value == value);
	}
}

static void
refused(const char *line, size_t len, const char *why)
{
	struct control_req req;
	const char *err = NULL;

	if (control_parse_request(line, len, &req, &err) == 0)
		fail_msg("'%.*s' was accepted", (int)len, line);
	assert_non_null(err);
	if (strstr(err, why) == NULL)
		fail_msg("'%.*s': error '%s' does not mention '%s'", (int)len, line, err, why);
}

static void
test_requests(void **state)
{
	(void)state;
	good("status", CONTROL_STATUS, 0, 0);
	good("rescan", CONTROL_RESCAN, 0, 0);
	good("cull to-run", CONTROL_CULL, GOAL_RUN_LIMITS, 0);
	good("cull free 1", CONTROL_CULL, GOAL_FREE_PCT, 1);
	good("cull free 100", CONTROL_CULL, GOAL_FREE_PCT, 100);
	good("cull bytes 1", CONTROL_CULL, GOAL_BYTES, 1);
	good("cull bytes 9223372036854775807", CONTROL_CULL, GOAL_BYTES, INT64_MAX);
	good("cull older-than 86400", CONTROL_CULL, GOAL_OLDER_THAN, 86400);
	good("cull free 050", CONTROL_CULL, GOAL_FREE_PCT, 50);
}

static void
test_bad_requests(void **state)
{
	char big[CONTROL_REQUEST_MAX + 1];

	(void)state;
	refused("", 0, "empty");
	refused("frobnicate", 10, "unknown request");
	refused("STATUS", 6, "unknown request");
	refused("status now", 10, "no argument");
	refused("status ", 7, "single spaces");
	refused(" status", 7, "single spaces");
	refused("cull  free 5", 12, "single spaces");
	refused("cull", 4, "needs a goal");
	refused("cull free", 9, "wrong number");
	refused("cull to-run 5", 13, "no value");
	refused("cull free 5 6", 13, "wrong number");
	refused("cull free 5 6 7", 15, "too many words");
	refused("cull free 0", 11, "1 to 100");
	refused("cull free 101", 13, "1 to 100");
	refused("cull free 5%", 12, "1 to 100");
	refused("cull free -5", 12, "1 to 100");
	refused("cull free +5", 12, "1 to 100");
	refused("cull free 0x10", 14, "1 to 100");
	refused("cull bytes 0", 12, "bytes");
	refused("cull bytes 9223372036854775808", 30, "bytes");
	refused("cull bytes 99999999999999999999999", 33, "bytes");
	refused("cull older-than 0", 17, "from 1 to 18446744073");
	refused("cull older-than 18446744074", 27, "from 1 to 18446744073");
	refused("cull older-than 1d", 18, "seconds");
	refused("cull younger-than 5", 19, "unknown goal");
	refused("stat\tus", 7, "printable");
	refused("status\r", 7, "printable");
	refused("st\x7f", 3, "printable");
	refused("st\xc3\xa9", 4, "printable");
	refused("stat\0us", 7, "printable");
	memset(big, 'a', sizeof(big));
	refused(big, CONTROL_REQUEST_MAX, "too long");
	/* The longest line that fits: 255 bytes and the newline. */
	refused(big, CONTROL_REQUEST_MAX - 1, "unknown request");
}

static void
test_error_reply(void **state)
{
	char buf[256], v[128];

	(void)state;
	assert_true(control_format_error("a \"quoted\" word", buf, sizeof(buf)) == strlen(buf));
	assert_null(strchr(buf, '\n'));
	assert_int_equal(json_get(buf, "ok", v, sizeof(v)), 0);
	assert_string_equal(v, "false");
	assert_int_equal(json_get(buf, "error", v, sizeof(v)), 0);
	assert_string_equal(v, "a \"quoted\" word");
	/* Too small a buffer: nothing, never a cut object. */
	assert_int_equal(control_format_error("x", buf, 8), 0);
}

static void
test_goal_reply(void **state)
{
	struct engine_goal_report r = { ENGINE_GOAL_MET, 12, 49152, 1500, 3 };
	char buf[256], v[64];
	uint64_t n;

	(void)state;
	assert_true(control_format_goal(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(json_get(buf, "ok", v, sizeof(v)), 0);
	assert_string_equal(v, "true");
	assert_int_equal(json_get(buf, "result", v, sizeof(v)), 0);
	assert_string_equal(v, "met");
	assert_int_equal(json_get_u64(buf, "culled", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(json_get_u64(buf, "bytes", &n), 0);
	assert_int_equal(n, 49152);
	assert_int_equal(json_get_u64(buf, "ms", &n), 0);
	assert_int_equal(n, 1500);
	assert_int_equal(json_get_u64(buf, "unseen", &n), 0);
	assert_int_equal(n, 3);
	r.state = ENGINE_GOAL_EXHAUSTED;
	assert_true(control_format_goal(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(json_get(buf, "result", v, sizeof(v)), 0);
	assert_string_equal(v, "exhausted");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_error_reply),
		cmocka_unit_test(test_goal_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
