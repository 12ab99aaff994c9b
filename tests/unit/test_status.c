// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_status.c: the status snapshot as the control socket's flat JSON
 * object: every key of docs/control-protocol.md, read back with json_get.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/control.h"
#include "daemon/status.h"
#include "lib/json.h"

#include <string.h>

static const char *const keys[] = {
	"ok", "version", "uptime_s", "dir", "tag", "culling_enabled", "kernel_cull",
	"state", "goals", "free_blocks_pct", "free_files_pct", "brun_pct", "bcull_pct",
	"bstop_pct", "frun_pct", "fcull_pct", "fstop_pct", "blocks", "blocks_free",
	"files", "files_free", "block_size", "scanning", "scan_objects", "scans",
	"last_scan_objects", "last_scan_bytes", "last_scan_ms", "oldest_atime",
	"newest_atime", "candidates_left", "busy_kept", "culled", "culled_bytes", "busy",
	"vanished", "moved", "backoff_s", "age_limit_s",
};

static void
sample(struct status *s)
{
	static const unsigned lim[LIM_COUNT] = { 10, 7, 3, 12, 8, 2 };

	memset(s, 0, sizeof(*s));
	s->uptime_ms = 61999;
	s->dir = "/var/cache/\"odd\\dir\"";
	s->tag = "";
	s->culling_enabled = 1;
	s->kernel_cull = 1;
	memcpy(s->limit_pct, lim, sizeof(lim));
	s->fs.blocks = 1000;
	s->fs.bavail = 123;
	s->fs.files = 300;
	s->fs.ffree = 299;
	s->fs.bsize = 4096;
	s->eng.state = EFSM_BACKING_OFF;
	s->eng.goals = 2;
	s->eng.scans = 3;
	s->eng.last_objects = 50;
	s->eng.last_bytes = 204800;
	s->eng.last_ms = 17;
	s->eng.last_oldest_ns = 1700000000123456789ULL;
	s->eng.last_newest_ns = 1700000100999999999ULL;
	s->eng.left = 5;
	s->eng.kept = 1;
	s->eng.culled = 45;
	s->eng.culled_bytes = UINT64_MAX;
	s->eng.busy = 4;
	s->eng.vanished = 2;
	s->eng.moved = 1;
	s->eng.backoff_ms = 60500;
	s->eng.age_limit_s = 86400;
}

static void
expect(const char *obj, const char *key, const char *want)
{
	char v[256];

	if (json_get(obj, key, v, sizeof(v)) != 0)
		fail_msg("key %s missing from %s", key, obj);
	if (strcmp(v, want) != 0)
		fail_msg("key %s is '%s', want '%s'", key, v, want);
}

static void
test_every_key_and_value(void **state)
{
	char buf[CONTROL_REPLY_MAX];
	struct status s;
	size_t n, i;
	uint64_t v;

	(void)state;
	sample(&s);
	n = status_format_json(&s, buf, sizeof(buf));
	assert_true(n > 0 && n == strlen(buf));
	assert_null(strchr(buf, '\n'));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char tmp[256];

		if (json_get(buf, keys[i], tmp, sizeof(tmp)) != 0)
			fail_msg("key %s missing from %s", keys[i], buf);
	}
	expect(buf, "ok", "true");
	expect(buf, "version", VERSION);
	expect(buf, "uptime_s", "61");
	expect(buf, "dir", "/var/cache/\"odd\\\\dir\"");
	expect(buf, "tag", "");
	expect(buf, "culling_enabled", "true");
	expect(buf, "kernel_cull", "true");
	expect(buf, "state", "backing off");
	expect(buf, "goals", "2");
	expect(buf, "free_blocks_pct", "12.3");
	expect(buf, "free_files_pct", "99.7");
	expect(buf, "brun_pct", "10");
	expect(buf, "fstop_pct", "2");
	expect(buf, "block_size", "4096");
	expect(buf, "scanning", "false");
	expect(buf, "oldest_atime", "1700000000");
	expect(buf, "newest_atime", "1700000100");
	expect(buf, "backoff_s", "60");
	expect(buf, "age_limit_s", "86400");
	expect(buf, "files", "300");
	expect(buf, "files_free", "299");
	expect(buf, "busy", "4");
	expect(buf, "vanished", "2");
	expect(buf, "moved", "1");
	assert_int_equal(json_get_u64(buf, "culled_bytes", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(json_get_u64(buf, "last_scan_bytes", &v), 0);
	assert_int_equal(v, 204800);
}

static void
test_culling_disabled_is_stopped(void **state)
{
	char buf[CONTROL_REPLY_MAX];
	struct status s;

	(void)state;
	sample(&s);
	s.culling_enabled = 0;
	assert_true(status_format_json(&s, buf, sizeof(buf)) > 0);
	expect(buf, "state", "stopped");
	expect(buf, "culling_enabled", "false");
}

/* btrfs reports no inode counts: no free share of files, not 0 % free. */
static void
test_no_inode_counts_is_null(void **state)
{
	char buf[CONTROL_REPLY_MAX], line[512];
	struct status s;

	(void)state;
	sample(&s);
	s.fs.files = s.fs.ffree = 0;
	assert_true(status_format_json(&s, buf, sizeof(buf)) > 0);
	expect(buf, "free_files_pct", "null");
	expect(buf, "free_blocks_pct", "12.3");
	status_format_line(&s, line, sizeof(line));
	assert_non_null(strstr(line, "free files - (cull below 8%"));
	s.fs.files = 300;
	status_format_line(&s, line, sizeof(line));
	assert_non_null(strstr(line, "free files 0.0% (cull below 8%"));
}

/* The STATUS= line: each limit in its place, and the scan's rate per second. */
static void
test_status_line(void **state)
{
	char line[512];
	struct status s;

	(void)state;
	sample(&s);
	s.tag = "web";
	s.dir = "/var/cache/fscache";
	status_format_line(&s, line, sizeof(line));
	assert_string_equal(line, "bound tag web on /var/cache/fscache; free blocks 12.3% "
			    "(cull below 7%, run 10%), free files 99.7% (cull below 8%, run 12%); "
			    "culling; 50 objects, 5 candidates left; culled 45, busy 4; backing off");
	s.eng.scanning = 1;
	s.eng.scan_objects = 5000;
	s.eng.scan_ms = 2000;
	status_format_line(&s, line, sizeof(line));
	assert_non_null(strstr(line, "; scanning: 5000 objects (2500/s); culled 45, busy 4"));
}

static void
test_too_small_a_buffer_fails_cleanly(void **state)
{
	char buf[64];
	struct status s;

	(void)state;
	sample(&s);
	assert_int_equal(status_format_json(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_and_value),
		cmocka_unit_test(test_culling_disabled_is_stopped),
		cmocka_unit_test(test_no_inode_counts_is_null),
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_too_small_a_buffer_fails_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
