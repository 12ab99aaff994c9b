// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tool.c: cachefiles-cull's pure parts: the command line (options
 * before and after the command, goals, values, misuse), the size and age
 * parsers it shares with the configuration, volume names, formatting, and
 * its man page against --help (every option and command of the usage text
 * is documented, and the page's option list names no other).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "cull/scan.h"
#include "cull/tool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
parse(struct tool_opts *o, char *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)(uintptr_t)"cachefiles-cull";
	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	return tool_parse_args(argc, argv, o, err, 256);
}

#define A(s) ((char *)(uintptr_t)(s))

static void
test_args_order(void **state)
{
	struct tool_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, A("-d"), A("/c"), A("status"), NULL), TOOL_OK);
	assert_int_equal(o.cmd, CMD_STATUS);
	assert_string_equal(o.dir, "/c");
	assert_int_equal(parse(&o, err, A("list"), A("--json"), A("--dir=/x"), A("-n5"), NULL), TOOL_OK);
	assert_int_equal(o.cmd, CMD_LIST);
	assert_true(o.json && o.count == 5);
	assert_string_equal(o.dir, "/x");
	assert_int_equal(parse(&o, err, A("list"), NULL), TOOL_OK);
	assert_int_equal(o.count, TOOL_LIST_DEFAULT);
	assert_int_equal(parse(&o, err, A("trim"), A("--older-than"), A("2w"), A("--dry-run"),
				A("-f"), A("/etc/x.conf"), A("--device"), A("/tmp/d"), NULL), TOOL_OK);
	assert_int_equal(o.goal.kind, GOAL_OLDER_THAN);
	assert_true(o.goal.value == 14 * 86400);
	assert_true(o.dry_run);
	assert_string_equal(o.conf, "/etc/x.conf");
	assert_string_equal(o.device, "/tmp/d");
	assert_int_equal(parse(&o, err, A("cull"), A("--free"), A("80%"), A("-s"), A("/s"), NULL), TOOL_OK);
	assert_true(o.goal.kind == GOAL_FREE_PCT && o.goal.value == 80);
	assert_string_equal(o.socket, "/s");
	assert_int_equal(parse(&o, err, A("--bytes=1G"), A("cull"), NULL), TOOL_OK);
	assert_true(o.goal.kind == GOAL_BYTES && o.goal.value == 1ull << 30);
	assert_int_equal(parse(&o, err, A("cull"), A("--to-run"), NULL), TOOL_OK);
	assert_int_equal(o.goal.kind, GOAL_RUN_LIMITS);
	assert_int_equal(parse(&o, err, A("--help"), NULL), TOOL_OK);
	assert_true(o.help);
	assert_int_equal(parse(&o, err, A("-V"), NULL), TOOL_OK);
	assert_true(o.version);
}

/* -s takes what connect() can: 107 bytes; "none" belongs to the file. */
static void
test_args_socket(void **state)
{
	struct tool_opts o;
	char err[256], p[200];

	(void)state;
	memset(p, 'a', sizeof(p));
	p[0] = '/';
	p[107] = '\0';
	assert_int_equal(parse(&o, err, A("-s"), p, A("status"), NULL), TOOL_OK);
	assert_string_equal(o.socket, p);
	p[107] = 'a';
	p[108] = '\0';
	assert_int_equal(parse(&o, err, A("-s"), p, A("status"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "longer than 107 bytes"));
	assert_int_equal(parse(&o, err, A("--socket=none"), A("cull"), A("--to-run"), NULL),
			 TOOL_USAGE);
	assert_non_null(strstr(err, "'none'"));
	assert_int_equal(parse(&o, err, A("-s"), A("rel/sock"), A("status"), NULL), TOOL_OK);
}

static void
test_args_misuse(void **state)
{
	struct tool_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "no command"));
	assert_int_equal(parse(&o, err, A("frobnicate"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "unknown command"));
	assert_int_equal(parse(&o, err, A("status"), A("list"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("status"), A("--bogus"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "unknown option"));
	assert_int_equal(parse(&o, err, A("status"), A("-jx"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("cull"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "needs a goal"));
	assert_int_equal(parse(&o, err, A("cull"), A("--to-run"), A("--free"), A("5%"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "one goal"));
	assert_int_equal(parse(&o, err, A("status"), A("--to-run"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "does not go with status"));
	assert_int_equal(parse(&o, err, A("cull"), A("--to-run"), A("--dry-run"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("list"), A("--device"), A("/x"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("status"), A("-n"), A("3"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("list"), A("-n"), A("0"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("list"), A("-n"), A("3x"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("list"), A("-n"), NULL), TOOL_USAGE);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(parse(&o, err, A("status"), A("-d"), A("/a"), A("-d"), A("/b"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("status"), A("--json=1"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("status"), A("--dir="), NULL), TOOL_USAGE);
	/* A name after "--" is a command, never an option. */
	assert_int_equal(parse(&o, err, A("--"), A("--json"), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("--"), A("status"), NULL), TOOL_OK);
}

static void
test_goal_values(void **state)
{
	struct tool_opts o;
	char err[256];
	static const char *const bad_free[] = { "0%", "101%", "80", "%", "8 0%", "-5%", "1000%", "x%" };
	static const char *const bad_bytes[] = { "0", "1T", "1.5G", "G", "-1", "12KB", "" };
	static const char *const bad_age[] = { "0", "0d", "1y", "3651d", "d", "1.5h", "10 d" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_free) / sizeof(bad_free[0]); i++)
		assert_int_equal(parse(&o, err, A("cull"), A("--free"), A(bad_free[i]), NULL), TOOL_USAGE);
	for (i = 0; i < sizeof(bad_bytes) / sizeof(bad_bytes[0]); i++)
		assert_int_equal(parse(&o, err, A("cull"), A("--bytes"), A(bad_bytes[i]), NULL), TOOL_USAGE);
	for (i = 0; i < sizeof(bad_age) / sizeof(bad_age[0]); i++)
		assert_int_equal(parse(&o, err, A("trim"), A("--older-than"), A(bad_age[i]), NULL), TOOL_USAGE);
	assert_int_equal(parse(&o, err, A("cull"), A("--free"), A("100%"), NULL), TOOL_OK);
	assert_int_equal(parse(&o, err, A("cull"), A("--bytes"), A("4096"), NULL), TOOL_OK);
	assert_true(o.goal.value == 4096);
	assert_int_equal(parse(&o, err, A("cull"), A("--bytes"), A("3K"), NULL), TOOL_OK);
	assert_true(o.goal.value == 3072);
	assert_int_equal(parse(&o, err, A("cull"), A("--older-than"), A("90m"), NULL), TOOL_OK);
	assert_true(o.goal.value == 5400);
	assert_int_equal(parse(&o, err, A("cull"), A("--older-than"), A("3650d"), NULL), TOOL_OK);
}

static void
test_config_parsers(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(config_parse_size("2M", 1, UINT64_MAX, &v), 0);
	assert_true(v == 2ull << 20);
	assert_int_equal(config_parse_size("7", 1, UINT64_MAX, &v), 0);
	assert_true(v == 7);
	assert_int_equal(config_parse_size("7X", 1, UINT64_MAX, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(config_parse_size("99999999999999999999G", 1, 1ull << 60, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(config_parse_duration("1w", 1, UINT64_MAX, &v), 0);
	assert_true(v == 7 * 86400);
	assert_int_equal(config_parse_duration("0", 1, 100, &v), -1);
	assert_int_equal(errno, ERANGE);
}

static void
vol(const char *name, const char *fs, const char *desc)
{
	struct tool_volume v;

	tool_volume_decode(name, TOOL_VOL_TEXT, &v);
	assert_string_equal(v.fs, fs);
	assert_string_equal(v.desc, desc);
}

/* For JSON the name's bytes stay as they are: the JSON writer escapes them. */
static void
vol_raw(const char *name, const char *desc)
{
	struct tool_volume v;

	tool_volume_decode(name, TOOL_VOL_RAW, &v);
	assert_string_equal(v.desc, desc);
}

/* nfs_append_int's way: lower-case hex, nothing at all for 0. */
static const char *
key_int(uint32_t x, char *buf, size_t len)
{
	if (x == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%x", x);
	return buf;
}

/*
 * NFS volume keys as this machine's kernel writes them: the port and the
 * address words are network-order bytes read as host integers.
 */
static void
nfs_names(void)
{
	char name[256], p[16], a[4][16];
	uint32_t w4, w6[4];
	uint16_t port = htons(2049);
	int i;

	assert_int_equal(inet_pton(AF_INET, "192.168.1.10", &w4), 1);
	snprintf(name, sizeof(name), "Infs,4.2,2,%s,%s,,1,,,,100000,100000,3,3c,1e,3c,1",
		 key_int(port, p, sizeof(p)), key_int(w4, a[0], sizeof(a[0])));
	vol(name, "nfs", "NFSv4.2 server 192.168.1.10 port 2049 fsid 0.1");
	snprintf(name, sizeof(name), "Infs,4.2,2,%s,%s,,1,,,,100000,100000,3,3c,1e,3c,uniq",
		 key_int(port, p, sizeof(p)), key_int(w4, a[0], sizeof(a[0])));
	vol(name, "nfs", "NFSv4.2 server 192.168.1.10 port 2049 fsid 0.1 fsc=uniq");
	assert_int_equal(inet_pton(AF_INET6, "fd00::1:0:0:1", w6), 1);
	for (i = 0; i < 4; i++)
		key_int(w6[i], a[i], sizeof(a[i]));
	snprintf(name, sizeof(name), "Infs,3.0,a,%s,%s,%s,%s,%s,12,34,,,,,,,,,1",
		 key_int(port, p, sizeof(p)), a[0], a[1], a[2], a[3]);
	vol(name, "nfs", "NFSv3.0 server fd00::1:0:0:1 port 2049 fsid 12.34");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* What 6.1's code writes on x86-64 for 192.168.1.10:2049. */
	vol("Infs,4.2,2,108,a01a8c0,1234,,,4000,,100000,100000,3,3c,1e,3c,1", "nfs",
	    "NFSv4.2 server 192.168.1.10 port 2049 fsid 1234.0");
#endif
}

/* What trim --older-than counts as not looked at: each cause on its own. */
static void
test_unseen(void **state)
{
	struct scan_stats st;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.mounts = 3;		/* other mounts are not this cache's */
	st.vanished = 2;
	assert_true(scan_unseen(&st) == 0);
	st.errors = 1;
	assert_true(scan_unseen(&st) == 1);
	st.errors = 0;
	st.too_deep = 2;
	assert_true(scan_unseen(&st) == 2);
	st.too_deep = 0;
	st.unsendable = 4;
	assert_true(scan_unseen(&st) == 4);
	st.unsendable = 0;
	st.mount_id_unknown = 1;
	assert_true(scan_unseen(&st) > 0);
}

static void
test_volume_names(void **state)
{
	(void)state;
	vol("I9p,host,", "9p", "9p tag host");
	vol("I9p,host,my;tag", "9p", "9p tag host, cachetag my/tag");
	vol("I9p,a;b,", "9p", "9p tag a/b");	/* the tag's slashes too */
	nfs_names();
	vol("Iafs,example.com,20000001", "afs", "AFS cell example.com volume 0x20000001");
	vol("Icifs,192.0.2.1:445,share;sub", "cifs", "SMB //192.0.2.1:445/share/sub");
	vol("Iceph,8a1c-22,fscid", "ceph", "Ceph fsid 8a1c-22 fsc=fscid");
	vol("Ierofs,domain", "erofs", "EROFS domain");
	/* Unknown or malformed: the name as it is, escaped. */
	vol("I03nfs", "", "I03nfs");
	vol("Ixfs,1,2", "", "Ixfs,1,2");
	vol("Infs,4.2", "", "Infs,4.2");
	vol("Infs,4.2,7,801,1,,1,,,,1,1,3,3c,1e,3c,1", "", "Infs,4.2,7,801,1,,1,,,,1,1,3,3c,1e,3c,1");
	/* IPv6: four address words, then 11 fields; one short is malformed. */
	vol("Infs,3.0,a,801,fd,0,1,1,12,34,,,,,,,,1", "", "Infs,3.0,a,801,fd,0,1,1,12,34,,,,,,,,1");
	/* A port or an address word that is no 32-bit hex number. */
	vol("Infs,4.2,2,10000,1,,1,,,,1,1,3,3c,1e,3c,1", "", "Infs,4.2,2,10000,1,,1,,,,1,1,3,3c,1e,3c,1");
	vol("Infs,4.2,2,801,x1,,1,,,,1,1,3,3c,1e,3c,1", "", "Infs,4.2,2,801,x1,,1,,,,1,1,3,3c,1e,3c,1");
	vol("Infs,4.2,2,801,100000000,,1,,,,1,1,3,3c,1e,3c,1", "",
	    "Infs,4.2,2,801,100000000,,1,,,,1,1,3,3c,1e,3c,1");
	vol("I9p,a\033[2J,", "9p", "9p tag a\\033[2J");
	vol("Iweird\n\377", "", "Iweird\\012\\377");
	vol_raw("I9p,caf\303\251,", "9p tag caf\303\251");
	vol_raw("I9p,a\033[2J,", "9p tag a\033[2J");
	vol_raw("Iweird\n\\", "Iweird\n\\");
}

static void
test_formatting(void **state)
{
	char b[TOOL_FMT_MAX];

	(void)state;
	assert_string_equal(fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(fmt_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(fmt_bytes(1024, b, sizeof(b)), "1.0 KiB");
	assert_string_equal(fmt_bytes(1536, b, sizeof(b)), "1.5 KiB");
	assert_string_equal(fmt_bytes(200ull << 20, b, sizeof(b)), "200 MiB");
	/* What rounds to 100 units shows as 100, not 100.0; just below keeps its decimal. */
	assert_string_equal(fmt_bytes(102374, b, sizeof(b)), "100 KiB");
	assert_string_equal(fmt_bytes(102297, b, sizeof(b)), "99.9 KiB");
	assert_string_equal(fmt_bytes(3ull << 30, b, sizeof(b)), "3.0 GiB");
	assert_string_equal(fmt_bytes(UINT64_MAX, b, sizeof(b)), "16.0 EiB");
	assert_string_equal(fmt_age(0, b, sizeof(b)), "0s");
	assert_string_equal(fmt_age(59, b, sizeof(b)), "59s");
	assert_string_equal(fmt_age(60, b, sizeof(b)), "1m 0s");
	assert_string_equal(fmt_age(61, b, sizeof(b)), "1m 1s");
	assert_string_equal(fmt_age(3600, b, sizeof(b)), "1h 0m");
	assert_string_equal(fmt_age(86400, b, sizeof(b)), "1d 0h");
	assert_string_equal(fmt_age(3 * 3600 + 120, b, sizeof(b)), "3h 2m");
	assert_string_equal(fmt_age(3 * 86400 + 4 * 3600 + 59, b, sizeof(b)), "3d 4h");
	assert_string_equal(fmt_time(0, b, sizeof(b)), "1970-01-01T00:00:00Z");
	assert_string_equal(fmt_time(1700000000, b, sizeof(b)), "2023-11-14T22:13:20Z");
	/* Past what a calendar date holds: the number itself, never a wrapped date. */
	assert_string_equal(fmt_time(UINT64_MAX, b, sizeof(b)), "@18446744073709551615");
	assert_string_equal(fmt_pct(1, 3, b, sizeof(b)), "33.3%");
	assert_string_equal(fmt_pct(1, 0, b, sizeof(b)), "-");
}

/* ---- the man page follows --help ---- */

static char *
slurp(const char *rel)
{
	const char *top = getenv("TOP");
	char path[4096];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* Is "-x" or "--long" named by an Fl macro in text? */
static int
man_has_flag(const char *text, const char *flag)
{
	char want[80];
	const char *p;

	if (flag[1] == '-')
		snprintf(want, sizeof(want), "Fl \\-%s", flag + 2);
	else
		snprintf(want, sizeof(want), "Fl %s", flag + 1);
	for (p = text; (p = strstr(p, want)) != NULL; p += strlen(want)) {
		char c = p[strlen(want)];
		if (c == ' ' || c == '\n' || c == ',')
			return 1;
	}
	return 0;
}

static void
test_manpage_matches_help(void **state)
{
	char *page = slurp("man/cachefiles-cull.8"), *usage = NULL, *opts, *end, *p;
	size_t ulen = 0;
	FILE *f = open_memstream(&usage, &ulen);
	int n = 0;

	(void)state;
	tool_usage(f);
	fclose(f);
	/* Every flag of the usage text is in the page. */
	for (p = usage; *p; p++) {
		char flag[64];
		size_t k;
		if (*p != '-' || (p > usage && p[-1] != ' ' && p[-1] != '[' && p[-1] != '|'))
			continue;
		k = strspn(p + 1, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (k == 0 || k >= sizeof(flag) - 1 || (p[1] != '-' && k != 1))
			continue;
		snprintf(flag, sizeof(flag), "%.*s", (int)k + 1, p);
		if (!man_has_flag(page, flag)) {
			print_message("# %s is in --help but not in the man page\n", flag);
			fail();
		}
		n++;
		p += k;
	}
	assert_true(n >= 17);
	/* Every command of the usage text has its entry. */
	for (n = CMD_STATUS; n <= CMD_TRIM; n++) {
		char want[32];
		snprintf(want, sizeof(want), "\n.It Cm %s", tool_cmd_name((enum tool_cmd)n));
		assert_non_null(strstr(page, want));
		snprintf(want, sizeof(want), "\n  %s ", tool_cmd_name((enum tool_cmd)n));
		assert_non_null(strstr(usage, want));
	}
	/* The page's OPTIONS list names no flag --help lacks. */
	opts = strstr(page, "\n.Sh OPTIONS\n");
	assert_non_null(opts);
	end = strstr(opts + 1, "\n.Sh ");
	assert_non_null(end);
	*end = '\0';
	for (p = opts; (p = strstr(p, "\n.It Fl ")) != NULL; p++) {
		char flag[64];
		const char *w = p + 8;
		size_t k = strcspn(w, " \n");
		if (w[0] == '\\')
			snprintf(flag, sizeof(flag), "-%.*s", (int)k - 1, w + 1);
		else
			snprintf(flag, sizeof(flag), "-%.*s", (int)k, w);
		if (strstr(usage, flag) == NULL) {
			print_message("# %s is in the man page but not in --help\n", flag);
			fail();
		}
	}
	free(usage);
	free(page);
}

/* Every key the JSON writers use is documented in the page. */
static void
test_json_keys_documented(void **state)
{
	static const char *const srcs[] = {
		"cull/tool_scan.c", "cull/tool_trim.c", "cull/tool_daemon.c",
	};
	char *page = slurp("man/cachefiles-cull.8");
	size_t i;
	int n = 0;

	(void)state;
	for (i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		char *src = slurp(srcs[i]), *p;
		for (p = src; (p = strstr(p, "jw_")) != NULL; p++) {
			char key[64], want[96];
			char *q = strstr(p, "(&"), *k;
			size_t len;
			if (q == NULL || q - p > 12)
				continue;
			k = strchr(q, ',');
			if (k == NULL || k[1] != ' ' || k[2] != '"')
				continue;
			len = strcspn(k + 3, "\"");
			snprintf(key, sizeof(key), "%.*s", (int)len, k + 3);
			snprintf(want, sizeof(want), "Cm %s", key);
			if (strstr(page, want) == NULL) {
				snprintf(want, sizeof(want), " %s ", key);
				if (strstr(page, want) == NULL) {
					snprintf(want, sizeof(want), " %s\n", key);
					if (strstr(page, want) == NULL) {
						print_message("# JSON key %s (%s) is not in the man page\n",
							      key, srcs[i]);
						fail();
					}
				}
			}
			n++;
		}
		free(src);
	}
	assert_true(n > 40);
	free(page);
}

/* Is the cache with this tag active?  As 6.1 prints /proc/fs/fscache/caches. */
static int
caches_bound(const char *text, const char *tag)
{
	FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	r = tool_caches_bound(f, tag);
	fclose(f);
	return r;
}

static void
test_caches_bound(void **state)
{
	const char *head = "CACHE    REF   VOLS  OBJS  ACCES S NAME\n"
			   "======== ===== ===== ===== ===== = ===============\n";
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%s%s", head, "00000001     3     1    12     1 A mycache\n");
	assert_int_equal(caches_bound(text, "mycache"), 1);
	assert_int_equal(caches_bound(text, "other"), 0);
	assert_int_equal(caches_bound(text, "cache"), 0);
	assert_int_equal(caches_bound(text, ""), 0);
	/* No tag: the kernel's default name. */
	snprintf(text, sizeof(text), "%s%s", head, "00000002     3     1     0     1 A CacheFiles\n");
	assert_int_equal(caches_bound(text, ""), 1);
	/* Withdrawn or preparing: not bound. */
	snprintf(text, sizeof(text), "%s%s", head, "00000002     1     0     0     0 W CacheFiles\n");
	assert_int_equal(caches_bound(text, ""), 0);
	/* A tag with blanks is the whole rest of the line. */
	snprintf(text, sizeof(text), "%s%s", head, "0000000a    12     2   300     4 A my big cache\n");
	assert_int_equal(caches_bound(text, "my big cache"), 1);
	assert_int_equal(caches_bound(text, "cache"), 0);
	assert_int_equal(caches_bound(text, "big cache"), 0);
	/* A name that ends like "A tag" is not the tag. */
	snprintf(text, sizeof(text), "%s%s", head, "0000000b     2     0     0     1 A A x\n");
	assert_int_equal(caches_bound(text, "x"), 0);
	assert_int_equal(caches_bound(text, "A x"), 1);
	/* Only the heading: nothing bound. */
	assert_int_equal(caches_bound(head, "CacheFiles"), 0);
	/* The tail of an over-long line is not a line of its own. */
	{
		char *p = text + snprintf(text, sizeof(text), "%s0000000c     2     0     0     1 A ", head);
		/* fgets takes 511 bytes: the line's first 35 and 476 'z', then the rest. */
		memset(p, 'z', 476);
		snprintf(p + 476, 64, " 00000001     3     1    12     1 A mytag\n");
		assert_int_equal(caches_bound(text, "mytag"), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_order),
		cmocka_unit_test(test_args_misuse),
		cmocka_unit_test(test_goal_values),
		cmocka_unit_test(test_config_parsers),
		cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_args_socket),
		cmocka_unit_test(test_volume_names),
		cmocka_unit_test(test_formatting),
		cmocka_unit_test(test_manpage_matches_help),
		cmocka_unit_test(test_json_keys_documented),
		cmocka_unit_test(test_caches_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
