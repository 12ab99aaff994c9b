// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics.c: the Prometheus text exposition format (version 0.0.4) of the
 * status snapshot.  Each metric gets # HELP and # TYPE lines; gauges that
 * describe a state use one sample per state with a "state" label, the
 * usual enum pattern.
 */
#include "daemon/metrics.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

const char *
metrics_label(const char *in, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, n;
	char esc[8];

	if (size == 0)
		return out;
	while (*s != '\0') {
		n = utf8_len(s);
		/*
		 * The label's value doubles a backslash, as the control
		 * socket's layer does, so that a name holding the text
		 * "\x01" and one holding byte 1 stay two series; then the
		 * exposition format's own escaping doubles each again.
		 */
		if (*s == '\\') {
			snprintf(esc, sizeof(esc), "\\\\\\\\");
			n = 1;
		} else if (*s == '"') {
			snprintf(esc, sizeof(esc), "\\\"");
			n = 1;
		} else if (n == 0 || *s < 0x20 || *s == 0x7f) {
			snprintf(esc, sizeof(esc), "\\\\x%02x", *s);
			n = 1;
		} else {
			memcpy(esc, s, n);
			esc[n] = '\0';
		}
		if (o + strlen(esc) >= size)
			break;
		memcpy(out + o, esc, strlen(esc));
		o += strlen(esc);
		s += n;
	}
	out[o] = '\0';
	return out;
}

static void
head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
one(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	head(f, name, type, help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

static void
oned(FILE *f, const char *name, const char *type, const char *help, double v)
{
	head(f, name, type, help);
	fprintf(f, "%s %.3f\n", name, v);
}

void
metrics_format(FILE *f, const struct status *s, const struct engine_vol *vols,
	       size_t nvol)
{
	const struct engine_snap *e = &s->eng;
	char tag[METRICS_LABEL_SIZE(CFG_TAG_MAX)], dir[METRICS_LABEL_SIZE(PATH_MAX)];
	char v[METRICS_LABEL_SIZE(ENGINE_VOL_NAME_MAX)];
	size_t i;
	int k;

	head(f, "cachefilesd_info", "gauge", "The cache this daemon manages (always 1).");
	fprintf(f, "cachefilesd_info{version=\"%s\",tag=\"%s\",dir=\"%s\"} 1\n", VERSION,
		metrics_label(s->tag[0] ? s->tag : "CacheFiles", tag, sizeof(tag)),
		metrics_label(s->dir, dir, sizeof(dir)));
	/*
	 * An idle daemon leaves the file alone, so its age cannot tell a
	 * stopped daemon from an idle one; the last write can.
	 */
	one(f, "cachefilesd_up", "gauge",
	    "1 while the daemon runs; 0 in its last write, as it stops or its cache dies.",
	    (uint64_t)!s->ending);
	one(f, "cachefilesd_start_time_seconds", "gauge",
	    "When the daemon started, in seconds since the epoch.", s->start_s);
	one(f, "cachefilesd_fs_size_bytes", "gauge",
	    "Size of the cache filesystem.", s->fs.blocks * s->fs.bsize);
	one(f, "cachefilesd_fs_avail_bytes", "gauge",
	    "Space available on the cache filesystem (as the kernel counts it).",
	    s->fs.bavail * s->fs.bsize);
	one(f, "cachefilesd_fs_files", "gauge",
	    "Files (inodes) of the cache filesystem.", s->fs.files);
	one(f, "cachefilesd_fs_files_free", "gauge",
	    "Free files (inodes) of the cache filesystem.", s->fs.ffree);
	head(f, "cachefilesd_limit_ratio", "gauge",
	     "The configured limits, as a fraction of the blocks or files.");
	for (k = 0; k < LIM_COUNT; k++)
		fprintf(f, "cachefilesd_limit_ratio{limit=\"%s\"} %.2f\n", config_limit_name(k),
			s->limit_pct[k] / 100.0);
	one(f, "cachefilesd_culling_enabled", "gauge",
	    "1 when the daemon may cull, 0 with nocull or -N.", (uint64_t)s->culling_enabled);
	one(f, "cachefilesd_kernel_cull", "gauge",
	    "1 while the kernel asks for culling.", (uint64_t)s->kernel_cull);
	head(f, "cachefilesd_state", "gauge", "The cull engine's state (1 for the current one).");
	for (k = 0; k < EFSM_NSTATES; k++) {
		const char *name = efsm_state_name((enum efsm_state)k);

		fprintf(f, "cachefilesd_state{state=\"%s\"} %d\n", name,
			strcmp(name, status_state(s)) == 0);
	}
	one(f, "cachefilesd_goals", "gauge",
	    "Goals asked over the control socket and pending.", e->goals);
	one(f, "cachefilesd_culled_objects_total", "counter",
	    "Objects culled since the daemon started.", e->culled);
	one(f, "cachefilesd_culled_bytes_total", "counter",
	    "Space allocated to the objects culled since the daemon started.", e->culled_bytes);
	one(f, "cachefilesd_busy_skips_total", "counter",
	    "Cull attempts that left the object in place: in use, the kernel short of "
	    "memory, or its directory not entered.", e->busy);
	one(f, "cachefilesd_vanished_total", "counter",
	    "Candidates that were gone when their turn came.", e->vanished);
	one(f, "cachefilesd_scans_total", "counter", "Finished scans of the cache.", e->scans);
	one(f, "cachefilesd_scanning", "gauge", "1 while a scan runs.", (uint64_t)e->scanning);
	oned(f, "cachefilesd_scan_duration_seconds", "gauge",
	     "How long the last finished scan took.", e->last_ms / 1000.0);
	one(f, "cachefilesd_scan_objects", "gauge",
	    "Data objects the last finished scan found.", e->last_objects);
	one(f, "cachefilesd_scan_bytes", "gauge",
	    "Space allocated to the objects the last finished scan found.", e->last_bytes);
	one(f, "cachefilesd_oldest_atime_seconds", "gauge",
	    "Oldest access time the last scan found, in seconds since the epoch (0: none).",
	    e->last_oldest_ns / 1000000000u);
	one(f, "cachefilesd_candidates_left", "gauge",
	    "Cull candidates left from the last scan.", e->left);
	one(f, "cachefilesd_backoff_seconds", "gauge",
	    "The current back-off while nothing is cullable (0: none).", e->backoff_ms / 1000);
	if (nvol == 0)
		return;
	head(f, "cachefilesd_volume_objects", "gauge",
	     "Data objects per volume, from the last finished scan.");
	for (i = 0; i < nvol; i++)
		fprintf(f, "cachefilesd_volume_objects{volume=\"%s\"} %llu\n",
			metrics_label(vols[i].name, v, sizeof(v)),
			(unsigned long long)vols[i].objects);
	head(f, "cachefilesd_volume_bytes", "gauge",
	     "Space allocated per volume, from the last finished scan.");
	for (i = 0; i < nvol; i++)
		fprintf(f, "cachefilesd_volume_bytes{volume=\"%s\"} %llu\n",
			metrics_label(vols[i].name, v, sizeof(v)),
			(unsigned long long)vols[i].bytes);
}

static int last_errno;

static int
failed(const char *path, const char *what)
{
	if (errno != last_errno)
		log_warn("metrics file %s: %s", path, what);
	last_errno = errno;
	return -1;
}

int
metrics_write(const char *path, const struct status *s,
	      const struct engine_vol *vols, size_t nvol)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	/* A name the collector's *.prom glob does not match. */
	if (snprintf_checked(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) < 0) {
		errno = ENAMETOOLONG;
		return failed(path, "temporary name");
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return failed(path, "create a temporary file");
	if (fchmod(fd, 0644) == -1 || (f = fdopen(fd, "w")) == NULL) {
		int err = errno;

		close(fd);
		unlink(tmp);
		errno = err;
		return failed(path, "fchmod");
	}
	metrics_format(f, s, vols, nvol);
	if (fflush(f) != 0 || ferror(f)) {
		int err = errno ? errno : EIO;

		fclose(f);
		unlink(tmp);
		errno = err;
		return failed(path, "write");
	}
	if (fclose(f) != 0 || rename(tmp, path) == -1) {
		int err = errno;

		unlink(tmp);
		errno = err;
		return failed(path, "rename");
	}
	if (last_errno != 0)
		log_info("metrics file %s: written again", path);
	last_errno = 0;
	return 0;
}
