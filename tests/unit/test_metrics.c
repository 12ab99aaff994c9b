// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_metrics.c: the metrics file's text: label escaping, metric names
 * that follow Prometheus conventions, and one HELP and TYPE per metric.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/metrics.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void
test_label_escaping(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(metrics_label("Inetfs,abc", out, sizeof(out)), "Inetfs,abc");
	assert_string_equal(metrics_label("a\"b", out, sizeof(out)), "a\\\"b");
	/* A backslash is doubled in the value, then each again in the file. */
	assert_string_equal(metrics_label("a\\b", out, sizeof(out)), "a\\\\\\\\b");
	/* The text \x01 and byte 1 are two labels; a newline is a control byte. */
	assert_string_equal(metrics_label("a\\x01", out, sizeof(out)), "a\\\\\\\\x01");
	assert_string_equal(metrics_label("a\x01", out, sizeof(out)), "a\\\\x01");
	assert_string_equal(metrics_label("a\nb", out, sizeof(out)), "a\\\\x0ab");
	/* Control bytes and bytes that are not UTF-8: an escaped backslash, xHH. */
	assert_string_equal(metrics_label("a\tb", out, sizeof(out)), "a\\\\x09b");
	assert_string_equal(metrics_label("a\xff", out, sizeof(out)), "a\\\\xff");
	assert_string_equal(metrics_label("\xc3(", out, sizeof(out)), "\\\\xc3(");
	assert_string_equal(metrics_label("\x7f", out, sizeof(out)), "\\\\x7f");
	/* Valid UTF-8 passes. */
	assert_string_equal(metrics_label("caf\xc3\xa9", out, sizeof(out)), "caf\xc3\xa9");
	/* Truncation never cuts an escape. */
	assert_string_equal(metrics_label("ab\"c", out, 4), "ab");
	assert_string_equal(metrics_label("\xff", out, 5), "");
}

static char *
format(const struct status *s, const struct engine_vol *v, size_t nv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	metrics_format(f, s, v, nv);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The value of the sample line that starts with prefix (a name and labels). */
static const char *
sample(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, n) == 0 && p[n] == ' ')
			return p + n + 1;
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	fail_msg("no sample %s in:\n%s", prefix, text);
	return NULL;
}

static void
test_names_and_values(void **state)
{
	struct engine_vol vols[2] = {
		{ "Inetfs,one", 10, 40960 },
		{ "I\"odd\"\n", 1, 4096 },
	};
	struct status s;
	char *text, *p, *line;
	int helps = 0, types = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.dir = "/var/cache/fscache";
	s.tag = "";
	s.culling_enabled = 1;
	s.uptime_ms = 10000;
	s.start_s = 1699999990;		/* read once at start, not now less the uptime */
	s.limit_pct[LIM_BRUN] = 7;
	s.fs.blocks = 100;
	s.fs.bavail = 10;
	s.fs.bsize = 4096;
	s.eng.state = EFSM_CULLING;
	s.eng.culled = 5;
	s.eng.culled_bytes = 20480;
	s.eng.busy = 2;
	s.eng.last_ms = 1500;
	s.eng.last_oldest_ns = 1600000000999999999ULL;
	/* Every figure distinct, so that one shown for another shows. */
	s.limit_pct[LIM_BCULL] = 5;
	s.limit_pct[LIM_BSTOP] = 1;
	s.limit_pct[LIM_FRUN] = 12;
	s.limit_pct[LIM_FCULL] = 8;
	s.limit_pct[LIM_FSTOP] = 3;
	s.fs.files = 300;
	s.fs.ffree = 299;
	s.eng.vanished = 4;
	s.eng.moved = 6;
	s.eng.backoff_ms = 60500;
	text = format(&s, vols, 2);
	assert_int_equal(atoi(sample(text, "cachefilesd_fs_size_bytes")), 409600);
	assert_int_equal(atoi(sample(text, "cachefilesd_fs_files")), 300);
	assert_int_equal(atoi(sample(text, "cachefilesd_fs_files_free")), 299);
	assert_int_equal(atoi(sample(text, "cachefilesd_vanished_total")), 4);
	assert_int_equal(atoi(sample(text, "cachefilesd_backoff_seconds")), 60);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"bcull\"}"), "0.05\n", 5), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"bstop\"}"), "0.01\n", 5), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"frun\"}"), "0.12\n", 5), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"fcull\"}"), "0.08\n", 5), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"fstop\"}"), "0.03\n", 5), 0);
	assert_string_equal(strtok(strdup(sample(text, "cachefilesd_culled_objects_total")), "\n"), "5");
	assert_int_equal(atoi(sample(text, "cachefilesd_culled_bytes_total")), 20480);
	assert_int_equal(atoi(sample(text, "cachefilesd_busy_skips_total")), 2);
	assert_int_equal(atoi(sample(text, "cachefilesd_fs_avail_bytes")), 40960);
	assert_int_equal(atoi(sample(text, "cachefilesd_start_time_seconds")), 1699999990);
	assert_int_equal(strncmp(sample(text, "cachefilesd_up"), "1\n", 2), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_scan_duration_seconds"), "1.500\n", 6), 0);
	assert_int_equal(atoll(sample(text, "cachefilesd_oldest_atime_seconds")), 1600000000LL);
	assert_int_equal(atoi(sample(text, "cachefilesd_state{state=\"culling\"}")), 1);
	assert_int_equal(atoi(sample(text, "cachefilesd_state{state=\"idle\"}")), 0);
	assert_int_equal(strncmp(sample(text, "cachefilesd_limit_ratio{limit=\"brun\"}"), "0.07\n", 5), 0);
	assert_int_equal(atoi(sample(text, "cachefilesd_volume_objects{volume=\"Inetfs,one\"}")), 10);
	assert_int_equal(atoi(sample(text, "cachefilesd_volume_bytes{volume=\"I\\\"odd\\\"\\\\x0a\"}")), 4096);
	assert_non_null(sample(text, "cachefilesd_info{version=\"" VERSION "\",tag=\"CacheFiles\",dir=\"/var/cache/fscache\"}"));
	/* Conventions: every sample's name has its HELP and TYPE; counters end in _total. */
	for (p = text; (line = strsep(&p, "\n")) != NULL && *line != '\0'; ) {
		char name[128], type[32];

		if (sscanf(line, "# TYPE %127s %31s", name, type) == 2) {
			types++;
			assert_int_equal(strncmp(name, "cachefilesd_", 12), 0);
			if (strcmp(type, "counter") == 0)
				assert_string_equal(name + strlen(name) - 6, "_total");
			else
				assert_string_equal(type, "gauge");
			continue;
		}
		if (strncmp(line, "# HELP ", 7) == 0) {
			helps++;
			continue;
		}
		assert_true(strncmp(line, "cachefilesd_", 12) == 0);
		for (; *line != ' ' && *line != '{'; line++)
			assert_true(islower((unsigned char)*line) || *line == '_');
	}
	assert_int_equal(helps, types);
	assert_true(types >= 20);
	free(text);
}

static void
test_no_volumes_no_volume_metrics(void **state)
{
	struct status s;
	char *text;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.dir = "/c";
	s.tag = "t";
	text = format(&s, NULL, 0);
	assert_null(strstr(text, "cachefilesd_volume_"));
	assert_int_equal(atoi(sample(text, "cachefilesd_state{state=\"stopped\"}")), 1);
	free(text);
}

/* Two volumes whose names differ only at the end stay two series, however escaped. */
static void
test_long_labels_stay_apart(void **state)
{
	static struct engine_vol vols[2];
	struct status s;
	char *text, *a, *b;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.dir = "/c";
	s.tag = "t";
	memset(vols[0].name, '\\', ENGINE_VOL_NAME_MAX - 2);
	memset(vols[1].name, '\x01', ENGINE_VOL_NAME_MAX - 2);
	memcpy(vols[1].name + ENGINE_VOL_NAME_MAX - 2, "b", 2);
	vols[0].name[ENGINE_VOL_NAME_MAX - 2] = 'a';
	text = format(&s, vols, 2);
	a = strstr(text, "\\\\\\\\a\"} ");
	b = strstr(text, "\\\\x01b\"} ");
	assert_non_null(a);
	assert_non_null(b);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_names_and_values),
		cmocka_unit_test(test_no_volumes_no_volume_metrics),
		cmocka_unit_test(test_long_labels_stay_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
