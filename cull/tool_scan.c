// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool_scan.c: the offline views of cachefiles-cull, status, report and
 * list, each one scan of DIR/cache with the daemon's scanner.  list takes
 * its objects through the victims iterator, as the daemon does, so what it
 * prints is what the daemon would cull next, in that order.
 */
#include "cull/tool.h"
#include "cull/scan.h"
#include "cull/target.h"
#include "cull/victims.h"
#include "lib/escape.h"
#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER_MS 1000
#define PROGRESS_EVERY_MS 250
#define BAR 40

/* ---- a scan, with progress on a terminal ---- */

struct progress {
	struct scan_progress p;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, shown;
};

static void
deadline(struct timespec *ts, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *
progress_main(void *arg)
{
	struct progress *pr = arg;
	struct timespec ts;
	uint64_t wait = PROGRESS_AFTER_MS;

	pthread_mutex_lock(&pr->lock);
	for (;;) {
		deadline(&ts, wait);
		while (!pr->done && pthread_cond_timedwait(&pr->cond, &pr->lock, &ts) == 0)
			;
		if (pr->done)
			break;
		uint64_t o = __atomic_load_n(&pr->p.objects, __ATOMIC_RELAXED);
		uint64_t n = __atomic_load_n(&pr->p.dirs, __ATOMIC_RELAXED);

		fprintf(stderr, "\rscanning: %" PRIu64 " %s in %" PRIu64 " %s ", o,
			plural(o, "object", "objects"), n, plural(n, "directory", "directories"));
		pr->shown = 1;
		wait = PROGRESS_EVERY_MS;
	}
	if (pr->shown)
		fputs("\r\033[K", stderr);
	pthread_mutex_unlock(&pr->lock);
	return NULL;
}

struct scan_result *
tool_scan(struct tool_ctx *c, size_t max_candidates, const struct cand_key *after)
{
	struct scan_opts opt;
	struct progress pr;
	struct scan_result *r;
	pthread_t tid;
	int show = isatty(STDERR_FILENO);

	memset(&opt, 0, sizeof(opt));
	opt.max_candidates = max_candidates;
	opt.after = after;
	opt.threads = c->cfg.scan_threads ? c->cfg.scan_threads : 1;
	memset(&pr, 0, sizeof(pr));
	pthread_mutex_init(&pr.lock, NULL);
	pthread_cond_init(&pr.cond, NULL);
	if (show && pthread_create(&tid, NULL, progress_main, &pr) != 0)
		show = 0;
	r = scan_run(c->cachefd, &opt, &pr.p);
	if (show) {
		pthread_mutex_lock(&pr.lock);
		pr.done = 1;
		pthread_cond_signal(&pr.cond);
		pthread_mutex_unlock(&pr.lock);
		pthread_join(tid, NULL);
	}
	pthread_cond_destroy(&pr.cond);
	pthread_mutex_destroy(&pr.lock);
	if (r == NULL) {
		char e[ESCAPE_SIZE(256)];

		fprintf(stderr, "cachefiles-cull: %s/cache: scan: %s\n",
			escaped(c->dir, e, sizeof(e)), strerror(errno));
	} else if (scan_stats(r)->errors > 0) {
		uint64_t n = scan_stats(r)->errors;

		fprintf(stderr, "cachefiles-cull: %" PRIu64 " %s could not be read; "
			"figures are short by %s\n", n, plural(n, "entry", "entries"),
			plural(n, "it", "them"));
	}
	if (r != NULL && scan_stats(r)->too_deep + scan_stats(r)->unsendable > 0) {
		uint64_t n = scan_stats(r)->too_deep + scan_stats(r)->unsendable;

		fprintf(stderr, "cachefiles-cull: %" PRIu64 " %s not looked at "
			"(deeper than the scan goes, or a name no cull command can carry); "
			"figures are short by %s\n", n,
			plural(n, "entry was", "entries were"), plural(n, "it", "them"));
	}
	return r;
}

static uint64_t
now_s(void)
{
	return (uint64_t)time(NULL);
}

uint64_t
tool_kernel_limit(uint64_t total, unsigned pct)
{
	return total / 100 * pct;
}

/* ---- status ---- */

/* The scan's figures, as status and report give them in JSON. */
static void
json_scan_figures(struct jw *w, const struct scan_stats *st)
{
	jw_u64(w, "objects", st->objects);
	jw_u64(w, "bytes", st->bytes);
	jw_u64(w, "oldest_atime", st->oldest_ns / 1000000000u);
	jw_u64(w, "newest_atime", st->newest_ns / 1000000000u);
	jw_u64(w, "unknown", st->unknown);
	/* The text's "figures are short" warning, for a script. */
	jw_u64(w, "errors", st->errors);
	jw_u64(w, "unseen", scan_unseen(st));
}

static const char *
zone(uint64_t free, uint64_t total, const unsigned *lim)
{
	if (total == 0)
		return "";
	if (free < tool_kernel_limit(total, lim[2]))
		return "below stop: nothing new is cached";
	if (free < tool_kernel_limit(total, lim[1]))
		return "below cull: culling wanted";
	if (free < tool_kernel_limit(total, lim[0]))
		return "below run";
	return "above run";
}

/* A free share in percent; null where the filesystem keeps no such count (btrfs: files). */
static void
free_pct(struct jw *w, const char *key, uint64_t free, uint64_t total)
{
	if (total != 0)
		jw_double(w, key, (double)free * 100 / (double)total, 1);
	else
		jw_null(w, key);
}

static const char *const daemon_nums[] = {
	"goals", "uptime_s", "scans", "culled", "culled_bytes", "busy", "vanished", "moved",
	"candidates_left", "backoff_s",
};

/*
 * A count from the daemon's reply and its noun, "3 scans"; "? scans" where
 * the figure is missing or unreadable (not 0).  buf: 40 bytes.
 */
static const char *
daemon_fig(const char *reply, const char *key, const char *one, const char *many,
	   char buf[40])
{
	uint64_t v;

	if (json_get_u64(reply, key, &v) < 0)
		snprintf(buf, 40, "? %s", many);
	else
		snprintf(buf, 40, "%" PRIu64 " %s", v, plural(v, one, many));
	return buf;
}

/*
 * The tag and limits the kernel bound are the daemon's, not the file's: a
 * reload changes the file's at once and the kernel's only at the next
 * start.  Taken from its status when it answers for this cache.
 */
static void
in_force(const struct tool_daemon *d, struct config *cfg)
{
	char key[16], tag[sizeof(cfg->tag)];
	uint64_t v;
	size_t i;

	if (!d->answers)
		return;
	if (json_get_bytes(d->reply, "tag", tag, sizeof(tag)) == 0)
		memcpy(cfg->tag, tag, sizeof(cfg->tag));
	for (i = 0; i < LIM_COUNT; i++) {
		snprintf(key, sizeof(key), "%s_pct", config_limit_name(i));
		if (json_get_u64(d->reply, key, &v) == 0 && v < 100)
			cfg->limit[i] = (unsigned)v;
	}
}

int
tool_status(struct tool_ctx *c)
{
	struct tool_daemon d;
	struct scan_result *r;
	const struct scan_stats *st;
	struct fsfree f;
	uint64_t cookies = 0, vols = 0, now = now_s();
	int proc, have_cookies, bound;
	const char *how;
	char state[64], b1[TOOL_FMT_MAX], b2[TOOL_FMT_MAX], b3[TOOL_FMT_MAX];
	char dir[ESCAPE_SIZE(256)], tag[ESCAPE_SIZE(64)], sock[ESCAPE_SIZE(128)];
	size_t i;

	tool_daemon_status(c->socket, c->dirfd, &d);
	in_force(&d, &c->cfg);
	proc = tool_proc_bound(c->cfg.tag);
	have_cookies = tool_proc_cookies(&cookies, &vols) == 0;
	/*
	 * The device admits one opener: when the daemon on the socket serves
	 * another directory, the cache /proc lists under this tag is that
	 * daemon's, not this one.
	 */
	bound = d.answers || (proc == 1 && !d.other);
	how = d.answers || d.other ? "daemon" : proc >= 0 ? "proc" : "unknown";
	if (target_fsfree(c->cachefd, &f) < 0) {
		char e[ESCAPE_SIZE(256)];

		fprintf(stderr, "cachefiles-cull: %s/cache: statvfs: %s\n",
			escaped(c->dir, e, sizeof(e)), strerror(errno));
		return TOOL_ERR;
	}
	if ((r = tool_scan(c, 0, NULL)) == NULL)
		return TOOL_ERR;
	st = scan_stats(r);
	if (!d.answers || json_get(d.reply, "state", state, sizeof(state)) < 0)
		state[0] = '\0';
	if (c->o->json) {
		struct jw w;
		jw_init(&w, stdout);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "dir", c->dir);
		jw_str(&w, "tag", c->cfg.tag[0] ? c->cfg.tag : "CacheFiles");
		if (strcmp(how, "unknown") == 0)
			jw_null(&w, "bound");	/* as the text's "unknown", not false */
		else
			jw_bool(&w, "bound", bound);
		jw_str(&w, "bound_from", how);
		if (c->socket[0] != '\0')
			jw_str(&w, "socket", c->socket);
		else
			jw_null(&w, "socket");	/* control_socket none */
		jw_bool(&w, "daemon_answers", d.answers);
		if (d.other)
			jw_str(&w, "daemon_serves", d.dir);
		else
			jw_null(&w, "daemon_serves");
		if (have_cookies) {
			jw_bool(&w, "in_use", cookies > 0);
			jw_u64(&w, "cookies", cookies);
			jw_u64(&w, "volumes_acquired", vols);
		} else {
			jw_null(&w, "in_use");
			jw_null(&w, "cookies");
			jw_null(&w, "volumes_acquired");
		}
		free_pct(&w, "free_blocks_pct", f.bavail, f.blocks);
		free_pct(&w, "free_files_pct", f.ffree, f.files);
		jw_obj_begin(&w, "limits");
		for (i = 0; i < LIM_COUNT; i++)
			jw_u64(&w, config_limit_name(i), c->cfg.limit[i]);
		jw_obj_end(&w);
		jw_u64(&w, "blocks", f.blocks);
		jw_u64(&w, "blocks_free", f.bavail);
		jw_u64(&w, "block_size", f.bsize);
		jw_u64(&w, "files", f.files);
		jw_u64(&w, "files_free", f.ffree);
		json_scan_figures(&w, st);
		jw_u64(&w, "scan_ms", st->ms);
		if (d.answers) {
			jw_obj_begin(&w, "daemon");
			if (state[0] != '\0')
				jw_str(&w, "state", state);
			else
				jw_null(&w, "state");	/* missing from the reply */
			for (i = 0; i < ARRAY_SIZE(daemon_nums); i++) {
				uint64_t v;
				if (json_get_u64(d.reply, daemon_nums[i], &v) == 0)
					jw_u64(&w, daemon_nums[i], v);
				else
					jw_null(&w, daemon_nums[i]);
			}
			jw_obj_end(&w);
		} else {
			jw_null(&w, "daemon");
		}
		jw_obj_end(&w);
		fputc('\n', stdout);
		scan_free(r);
		return TOOL_OK;
	}
	escape_text(c->dir, dir, sizeof(dir));
	escape_text(c->cfg.tag[0] ? c->cfg.tag : "CacheFiles", tag, sizeof(tag));
	escape_text(c->socket, sock, sizeof(sock));
	printf("%-12s %s (tag %s)\n", "cache", dir, tag);
	printf("%-12s %s\n", "bound", d.answers ? "yes (the daemon answers)" :
	       d.other ? "no (the bound cache is the other daemon's)" :
	       proc == 1 ? "yes (" "/proc/fs/fscache/caches" ")" :
	       proc == 0 ? "no" : d.refused[0] != '\0' ?
	       "unknown (the daemon refused to answer; /proc/fs/fscache/caches unreadable)" :
	       "unknown (no daemon answers; /proc/fs/fscache/caches unreadable)");
	if (d.answers) {
		char g[40], s[40], n[40];
		uint64_t cb;

		escape_text(state[0] != '\0' ? state : "?", b3, sizeof(b3));
		printf("%-12s %s, %s; %s, culled %s (%s)\n", "daemon", b3,
		       daemon_fig(d.reply, "goals", "goal", "goals", g),
		       daemon_fig(d.reply, "scans", "scan", "scans", s),
		       daemon_fig(d.reply, "culled", "object", "objects", n),
		       json_get_u64(d.reply, "culled_bytes", &cb) == 0 ?
		       fmt_bytes(cb, b1, sizeof(b1)) : "?");
	} else if (d.other) {
		escape_text(d.dir, b3, sizeof(b3));
		printf("%-12s the one on %s serves another cache, %s\n", "daemon", sock, b3);
	} else if (c->socket[0] == '\0') {
		printf("%-12s no control socket (control_socket none)\n", "daemon");
	} else if (d.refused[0] != '\0') {
		escape_text(d.refused, b3, sizeof(b3));
		printf("%-12s the one on %s refused to answer: %s\n", "daemon", sock, b3);
	} else {
		printf("%-12s not answering on %s (%s)\n", "daemon", sock, strerror(d.err));
	}
	printf("%-12s %7s  brun %u%%  bcull %u%%  bstop %u%%  %s\n", "free blocks",
	       fmt_pct(f.bavail, f.blocks, b1, sizeof(b1)), c->cfg.limit[LIM_BRUN],
	       c->cfg.limit[LIM_BCULL], c->cfg.limit[LIM_BSTOP],
	       zone(f.bavail, f.blocks, &c->cfg.limit[LIM_BRUN]));
	printf("%-12s %7s  frun %u%%  fcull %u%%  fstop %u%%  %s\n", "free files",
	       fmt_pct(f.ffree, f.files, b1, sizeof(b1)), c->cfg.limit[LIM_FRUN],
	       c->cfg.limit[LIM_FCULL], c->cfg.limit[LIM_FSTOP],
	       zone(f.ffree, f.files, &c->cfg.limit[LIM_FRUN]));
	printf("%-12s %" PRIu64 " (%s) in %zu %s", "objects", st->objects,
	       fmt_bytes(st->bytes, b1, sizeof(b1)), scan_nvols(r),
	       plural(scan_nvols(r), "volume", "volumes"));
	if (st->unknown)
		printf("; %" PRIu64 " other %s left alone", st->unknown,
		       plural(st->unknown, "entry", "entries"));
	printf("\n");
	if (st->objects) {
		uint64_t o = st->oldest_ns / 1000000000u, n = st->newest_ns / 1000000000u;
		printf("%-12s %s (%s ago)\n", "oldest", fmt_time(o, b1, sizeof(b1)),
		       fmt_age(now > o ? now - o : 0, b2, sizeof(b2)));
		printf("%-12s %s (%s ago)\n", "newest", fmt_time(n, b1, sizeof(b1)),
		       fmt_age(now > n ? now - n : 0, b2, sizeof(b2)));
	}
	if (have_cookies)
		printf("%-12s %s (%" PRIu64 " %s, %" PRIu64 " %s in FS-Cache)\n",
		       "in use", cookies ? "yes" : "no", cookies, plural(cookies, "cookie", "cookies"),
		       vols, plural(vols, "volume", "volumes"));
	else
		printf("%-12s unknown (/proc/fs/fscache/stats unreadable)\n", "in use");
	scan_free(r);
	return TOOL_OK;
}

/* ---- report ---- */

static void
bar(uint64_t v, uint64_t max, char *buf)
{
	size_t n = max ? (size_t)((v * BAR + max - 1) / max) : 0, i;

	for (i = 0; i < n && i < BAR; i++)
		buf[i] = '#';
	buf[i] = '\0';
}

/* Days ago of the median object of a histogram, to the day. */
static unsigned
median_day(const uint64_t *hist, uint64_t objects)
{
	uint64_t sum = 0, half = (objects + 1) / 2;
	unsigned i;

	for (i = 0; i < SCAN_HIST_DAYS; i++) {
		sum += hist[i];
		if (sum >= half)
			return i;
	}
	return SCAN_HIST_DAYS - 1;
}

static void
hist_row(const char *label, uint64_t v, uint64_t max, uint64_t total)
{
	char b[BAR + 1], p[16];

	bar(v, max, b);
	printf("  %-12s %10" PRIu64 " %6s  %s\n", label, v, fmt_pct(v, total, p, sizeof(p)), b);
}

static void
size_label(unsigned i, char *buf, size_t len)
{
	char b[TOOL_FMT_MAX];

	if (i == 0)
		snprintf(buf, len, "0 B");
	else if (i == SCAN_SIZE_BUCKETS - 1)
		snprintf(buf, len, "> %s", fmt_bytes(scan_size_bucket_max(i - 1), b, sizeof(b)));
	else
		snprintf(buf, len, "<= %s", fmt_bytes(scan_size_bucket_max(i), b, sizeof(b)));
}

/* A volume of the report, with the name it is shown and ordered by. */
struct report_vol {
	const struct scan_vol *sv;
	char *name;
};

/* Largest first, then by name: the same tree gives the same report. */
static int
report_vol_cmp(const void *a, const void *b)
{
	const struct report_vol *x = a, *y = b;

	if (x->sv->bytes != y->sv->bytes)
		return x->sv->bytes > y->sv->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The volumes whose path can be told, in the report's order; *n of them. */
static struct report_vol *
report_vols(const struct scan_result *r, size_t *n)
{
	struct report_vol *rv = xcalloc(scan_nvols(r) + 1, sizeof(*rv));
	char name[PATH_MAX];
	size_t v;

	*n = 0;
	for (v = 0; v < scan_nvols(r); v++) {
		const struct scan_vol *sv = scan_vol(r, v);

		if (scan_dir_path(r, sv->dir, name, sizeof(name)) < 0)
			continue;
		rv[*n].sv = sv;
		rv[(*n)++].name = xstrdup(name);
	}
	qsort(rv, *n, sizeof(*rv), report_vol_cmp);
	return rv;
}

static void
report_json(const struct tool_ctx *c, const struct scan_stats *st,
	    const struct report_vol *rv, size_t n)
{
	struct jw w;
	unsigned i;
	size_t v;

	jw_init(&w, stdout);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "dir", c->dir);
	json_scan_figures(&w, st);
	jw_arr_begin(&w, "volumes");
	for (v = 0; v < n; v++) {
		const struct scan_vol *sv = rv[v].sv;
		struct tool_volume tv;

		tool_volume_decode(rv[v].name, TOOL_VOL_RAW, &tv);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "volume", rv[v].name);
		jw_str(&w, "fs", tv.fs);
		jw_str(&w, "desc", tv.desc);
		jw_u64(&w, "objects", sv->objects);
		jw_u64(&w, "bytes", sv->bytes);
		jw_double(&w, "share_pct", st->bytes ? (double)sv->bytes * 100 / (double)st->bytes : 0, 1);
		jw_u64(&w, "oldest_atime", sv->oldest_ns / 1000000000u);
		jw_u64(&w, "newest_atime", sv->newest_ns / 1000000000u);
		if (sv->objects)
			jw_u64(&w, "median_age_days", median_day(sv->hist, sv->objects));
		else
			jw_null(&w, "median_age_days");
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_arr_begin(&w, "atime_days");
	for (i = 0; i < SCAN_HIST_DAYS; i++)
		jw_u64(&w, NULL, st->hist[i]);
	jw_arr_end(&w);
	jw_arr_begin(&w, "sizes");
	for (i = 0; i < SCAN_SIZE_BUCKETS; i++) {
		jw_obj_begin(&w, NULL);
		if (i == SCAN_SIZE_BUCKETS - 1)
			jw_null(&w, "max_bytes");
		else
			jw_u64(&w, "max_bytes", scan_size_bucket_max(i));
		jw_u64(&w, "objects", st->size_hist[i]);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', stdout);
}

static void
report_table(const struct tool_ctx *c, const struct scan_stats *st, size_t nvols,
	     const struct report_vol *rv, size_t n)
{
	static char name[ESCAPE_SIZE(PATH_MAX)];
	char b1[TOOL_FMT_MAX], b2[TOOL_FMT_MAX], b3[16], med[32];
	size_t v;

	printf("cache %s: %" PRIu64 " %s, %s, %zu %s\n\n",
	       escaped(c->dir, name, sizeof(name)), st->objects,
	       plural(st->objects, "object", "objects"),
	       fmt_bytes(st->bytes, b1, sizeof(b1)), nvols, plural(nvols, "volume", "volumes"));
	printf("%10s %10s %6s  %-20s %-10s  %s\n", "objects", "bytes", "share",
	       "oldest access", "median age", "volume");
	for (v = 0; v < n; v++) {
		const struct scan_vol *sv = rv[v].sv;
		struct tool_volume tv;

		tool_volume_decode(rv[v].name, TOOL_VOL_TEXT, &tv);
		if (sv->objects) {
			unsigned m = median_day(sv->hist, sv->objects);
			snprintf(med, sizeof(med), m == SCAN_HIST_DAYS - 1 ? ">= %ud" : "%ud", m);
		} else {
			snprintf(med, sizeof(med), "-");
		}
		printf("%10" PRIu64 " %10s %6s  %-20s %-10s  %s\n", sv->objects,
		       fmt_bytes(sv->bytes, b1, sizeof(b1)), fmt_pct(sv->bytes, st->bytes, b3, sizeof(b3)),
		       sv->objects ? fmt_time(sv->oldest_ns / 1000000000u, b2, sizeof(b2)) : "-", med,
		       tv.desc);
	}
}

/* Days 0-6 one by one, then weeks, then what is older; then sizes. */
static void
report_histograms(const struct scan_stats *st)
{
	uint64_t max = 0, weeks[SCAN_HIST_DAYS / 7 + 2];
	unsigned i, last = 0, nweeks = 0;
	char label[32];

	for (i = 7; i < SCAN_HIST_DAYS - 1; i += 7, nweeks++) {
		unsigned d;
		weeks[nweeks] = 0;
		for (d = i; d < i + 7 && d < SCAN_HIST_DAYS - 1; d++)
			weeks[nweeks] += st->hist[d];
	}
	for (i = 0; i < 7; i++)
		max = st->hist[i] > max ? st->hist[i] : max;
	for (i = 0; i < nweeks; i++)
		max = weeks[i] > max ? weeks[i] : max;
	max = st->hist[SCAN_HIST_DAYS - 1] > max ? st->hist[SCAN_HIST_DAYS - 1] : max;
	printf("\nlast access      objects  share\n");
	for (i = 0; i < 7; i++) {
		snprintf(label, sizeof(label), "%ud ago", i);
		hist_row(label, st->hist[i], max, st->objects);
	}
	for (i = 0; i < nweeks; i++) {
		snprintf(label, sizeof(label), "%uw ago", i + 1);
		if (weeks[i] || i == 0)
			hist_row(label, weeks[i], max, st->objects);
	}
	snprintf(label, sizeof(label), ">= %ud ago", SCAN_HIST_DAYS - 1);
	hist_row(label, st->hist[SCAN_HIST_DAYS - 1], max, st->objects);
	max = 0;
	for (i = 0; i < SCAN_SIZE_BUCKETS; i++) {
		max = st->size_hist[i] > max ? st->size_hist[i] : max;
		if (st->size_hist[i])
			last = i;
	}
	printf("\nallocated size   objects  share\n");
	for (i = 0; i <= last; i++) {
		size_label(i, label, sizeof(label));
		hist_row(label, st->size_hist[i], max, st->objects);
	}
}

int
tool_report(struct tool_ctx *c)
{
	struct scan_result *r = tool_scan(c, 0, NULL);
	struct report_vol *rv;
	size_t n, v;

	if (r == NULL)
		return TOOL_ERR;
	rv = report_vols(r, &n);
	if (c->o->json) {
		report_json(c, scan_stats(r), rv, n);
	} else {
		report_table(c, scan_stats(r), scan_nvols(r), rv, n);
		report_histograms(scan_stats(r));
	}
	for (v = 0; v < n; v++)
		free(rv[v].name);
	free(rv);
	scan_free(r);
	return TOOL_OK;
}

/* ---- list ---- */

int
tool_list(struct tool_ctx *c)
{
	struct scan_result *r = tool_scan(c, (size_t)c->o->count, NULL);
	struct victims *vs;
	struct victim v;
	struct jw w;
	static char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], esc[ESCAPE_SIZE(PATH_MAX + NAME_MAX + 2)];
	char t[TOOL_FMT_MAX], b[TOOL_FMT_MAX];
	uint64_t n = 0;

	if (r == NULL)
		return TOOL_ERR;
	vs = victims_new(r, c->cachefd);
	if (c->o->json) {
		jw_init(&w, stdout);
		jw_arr_begin(&w, NULL);
	} else {
		printf("%-20s %10s  %s\n", "last access (UTC)", "size", "object");
	}
	while (n < c->o->count && victims_next(vs, &v)) {
		if (scan_dir_path(r, v.dir, dir, sizeof(dir)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", v.name);
		n++;
		if (c->o->json) {
			jw_obj_begin(&w, NULL);
			jw_str(&w, "path", path);
			jw_u64(&w, "atime", v.atime_ns / 1000000000u);
			/* 1 ns is atime_key()'s epoch (0 means "none" in the table): shown as 0. */
			jw_u64(&w, "atime_ns", v.atime_ns == 1 ? 0 : v.atime_ns);
			jw_u64(&w, "bytes", v.blocks * 512);
			jw_obj_end(&w);
		} else {
			escape_text(path, esc, sizeof(esc));
			printf("%-20s %10s  %s\n", fmt_time(v.atime_ns / 1000000000u, t, sizeof(t)),
			       fmt_bytes(v.blocks * 512, b, sizeof(b)), esc);
		}
	}
	if (c->o->json) {
		jw_arr_end(&w);
		fputc('\n', stdout);
	}
	victims_free(vs);
	scan_free(r);
	return TOOL_OK;
}
