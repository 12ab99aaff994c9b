// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool_fmt.c: how cachefiles-cull writes numbers for people: sizes in
 * binary units, ages in the two largest units, times in ISO 8601 UTC, and
 * volume directory names decoded as far as the key formats are known.
 */
#include "cull/tool.h"
#include "lib/escape.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *
fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	/* One decimal below 100 units; a rounding to 1024.0 shows as such. */
	if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	return buf;
}

const char *
fmt_age(uint64_t s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "m %" PRIu64 "s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%" PRIu64 "h %" PRIu64 "m", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
	return buf;
}

const char *
fmt_time(uint64_t epoch_s, char *buf, size_t len)
{
	time_t t = epoch_s > (uint64_t)INT64_MAX ? (time_t)INT64_MAX : (time_t)epoch_s;
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "@%" PRIu64, epoch_s);
	return buf;
}

const char *
fmt_pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	if (whole == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", (double)part * 100.0 / (double)whole);
	return buf;
}

const char *
plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ---- volume names ---- */

#define FIELDS_MAX 32

/* Split key at commas in place; returns the number of fields. */
static int
split(char *key, char *f[FIELDS_MAX])
{
	int n = 0;
	char *p = key;

	for (;;) {
		char *c = strchr(p, ',');
		if (n == FIELDS_MAX)
			return n;
		f[n++] = p;
		if (c == NULL)
			return n;
		*c = '\0';
		p = c + 1;
	}
}

/* netfs code writes '/' as ';' in keys: give the slashes back. */
static void
slashes(char *s)
{
	for (; *s; s++)
		if (*s == ';')
			*s = '/';
}

/* Append text from the name to v->desc, escaped for a terminal if asked. */
static void
put(struct tool_volume *v, const char *text)
{
	size_t used = strlen(v->desc);

	if (used + 1 >= sizeof(v->desc))
		return;
	if (v->mode == TOOL_VOL_TEXT)
		escape_text(text, v->desc + used, sizeof(v->desc) - used);
	else
		snprintf(v->desc + used, sizeof(v->desc) - used, "%s", text);
}

/* Append literal (our own) text to v->desc. */
static void
lit(struct tool_volume *v, const char *text)
{
	size_t used = strlen(v->desc);

	snprintf(v->desc + used, sizeof(v->desc) - used, "%s", text);
}

/* A field of an NFS key: hex, at most 32 bits; empty means 0 (nfs_append_int). */
static int
hex_u32(const char *s, uint32_t *v)
{
	size_t n = strspn(s, "0123456789abcdef");

	if (s[n] != '\0' || n > 8)
		return -1;
	*v = n ? (uint32_t)strtoul(s, NULL, 16) : 0;
	return 0;
}

/*
 * The port and the address words are the socket address's own network
 * order bytes read as host integers (Linux since 5.17 passes sin_port and
 * s_addr to nfs_append_int as they are), so on a little-endian machine
 * port 2049 is written 108.  The cache is read on the machine that wrote
 * it: the same host order turns them back into bytes.
 */
static int
decode_nfs(char **f, int n, struct tool_volume *v)
{
	uint32_t fam, port, w[4];
	uint16_t port16;
	int words, i;
	char num[INET6_ADDRSTRLEN + 32], addr[INET6_ADDRSTRLEN];

	/* nfs, ver.minor, family, port, address words, 11 fields, [uniquifier] */
	if (n < 4 + 1 + 11 || hex_u32(f[2], &fam) < 0)
		return -1;
	words = fam == AF_INET ? 1 : fam == AF_INET6 ? 4 : -1;
	if (words < 0 || n < 4 + words + 11 || hex_u32(f[3], &port) < 0 || port > UINT16_MAX)
		return -1;
	for (i = 0; i < words; i++)
		if (hex_u32(f[4 + i], &w[i]) < 0)
			return -1;
	if (inet_ntop(fam == AF_INET ? AF_INET : AF_INET6, w, addr, sizeof(addr)) == NULL)
		return -1;
	port16 = (uint16_t)port;
	lit(v, "NFSv");
	put(v, f[1]);
	snprintf(num, sizeof(num), " server %s port %u", addr, (unsigned)ntohs(port16));
	lit(v, num);
	lit(v, " fsid ");
	put(v, f[4 + words][0] ? f[4 + words] : "0");
	lit(v, ".");
	put(v, f[5 + words][0] ? f[5 + words] : "0");
	/*
	 * The uniquifier is free text after the fixed fields, which are all
	 * hex: claim one only when the extra field cannot be a number.
	 */
	if (n == 4 + words + 11 + 1 &&
	    f[n - 1][strspn(f[n - 1], "0123456789abcdef")] != '\0') {
		lit(v, " fsc=");
		put(v, f[4 + words + 11]);
	}
	return 0;
}

void
tool_volume_decode(const char *dirname, enum tool_vol_for mode, struct tool_volume *v)
{
	char key[NAME_MAX + 1], *f[FIELDS_MAX];
	int n, ok = -1;

	memset(v, 0, sizeof(*v));
	v->mode = mode;
	if (dirname[0] != 'I' || strlen(dirname + 1) > NAME_MAX || strchr(dirname, ',') == NULL)
		goto raw;
	snprintf(key, sizeof(key), "%s", dirname + 1);
	n = split(key, f);
	if (strcmp(f[0], "9p") == 0 && (n == 2 || n == 3)) {
		slashes(f[1]);
		lit(v, "9p tag ");
		put(v, f[1]);
		if (n == 3 && f[2][0]) {
			slashes(f[2]);
			lit(v, ", cachetag ");
			put(v, f[2]);
		}
		ok = 0;
	} else if (strcmp(f[0], "nfs") == 0) {
		ok = decode_nfs(f, n, v);
	} else if (strcmp(f[0], "afs") == 0 && n == 3) {
		lit(v, "AFS cell ");
		put(v, f[1]);
		lit(v, " volume 0x");
		put(v, f[2]);
		ok = 0;
	} else if (strcmp(f[0], "cifs") == 0 && n == 3) {
		slashes(f[1]);
		slashes(f[2]);
		lit(v, "SMB //");
		put(v, f[1]);
		lit(v, "/");
		put(v, f[2]);
		ok = 0;
	} else if (strcmp(f[0], "ceph") == 0 && (n == 2 || n == 3)) {
		lit(v, "Ceph fsid ");
		put(v, f[1]);
		if (n == 3) {
			lit(v, " fsc=");
			put(v, f[2]);
		}
		ok = 0;
	} else if (strcmp(f[0], "erofs") == 0 && n == 2) {
		lit(v, "EROFS ");
		put(v, f[1]);
		ok = 0;
	}
	if (ok == 0) {
		snprintf(v->fs, sizeof(v->fs), "%s", f[0]);
		return;
	}
raw:
	memset(v, 0, sizeof(*v));
	v->mode = mode;
	put(v, dirname);
}
