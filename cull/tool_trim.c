// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool_trim.c: trim, removing the oldest data objects of a cache that no
 * kernel has bound, toward a goal.
 *
 * With a cache bound only the kernel may remove objects (it must close
 * them first), so trim refuses unless it can hold /dev/cachefiles itself:
 * the device admits one opener system-wide, and while trim holds it no
 * daemon can bind.  Objects go in the order the daemon would cull them:
 * the same scan, the same victims iterator, each object stat'ed again
 * (regular file, same inode, same atime) and its directory checked to
 * still resolve from DIR/cache without links on the same mount, right
 * before unlinkat() relative to that directory.  Unknown entries are
 * never candidates, so they stay.
 *
 * Goals: --bytes counts the allocated size of what was removed (the space
 * an unbound cache gets back, whatever else writes to the filesystem);
 * --free and --to-run watch statvfs after each removal; --older-than
 * removes every object used before the cut-off.
 */
#include "cull/tool.h"
#include "cull/heap.h"
#include "cull/scan.h"
#include "cull/target.h"
#include "cull/victims.h"
#include "lib/escape.h"
#include "lib/json.h"
#include "lib/samefile.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Hold the device so that no daemon binds meanwhile.  A stand-in named by
 * --device (tests) that is not a character device is held by flock(), and
 * a lock held elsewhere counts as EBUSY, as the real device's one opener.
 */
static int
hold_device(const char *path, int *fd)
{
	char e[ESCAPE_SIZE(128)];
	struct stat sb;

	escape_text(path, e, sizeof(e));
	*fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd >= 0 && fstat(*fd, &sb) == 0 && !S_ISCHR(sb.st_mode) &&
	    flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		close(*fd);
		*fd = -1;
		errno = EBUSY;
	}
	if (*fd >= 0)
		return 0;
	if (errno == EBUSY)
		fprintf(stderr, "cachefiles-cull: %s is busy: a daemon holds the cache; "
			"ask it instead with 'cachefiles-cull cull'\n", e);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(stderr, "cachefiles-cull: %s: %s; load the cachefiles module "
			"(modprobe cachefiles) so that trim can keep a daemon from binding "
			"while it works\n", e, strerror(errno));
	else if (errno == EPERM || errno == EACCES)
		fprintf(stderr, "cachefiles-cull: %s: %s (trim needs root: "
			"CAP_SYS_ADMIN)\n", e, strerror(errno));
	else
		fprintf(stderr, "cachefiles-cull: %s: %s\n", e, strerror(errno));
	return -1;
}

/*
 * Objects already reported as not removable: a pass from the oldest again
 * (after objects changed) leaves them be rather than print and count them
 * twice.  Beyond this many they are reported again, which costs only noise.
 */
#define TRIM_REFUSED_MAX 256

struct trim {
	struct tool_ctx *c;
	struct fsfree f;		/* now, or as it would be (dry run) */
	struct goal_active a;		/* the goal as checked: free counts wanted, age cut-off */
	uint64_t removed, bytes, skipped;
	uint64_t failed;		/* objects that would not go (unlink refused) */
	uint64_t changed;		/* candidates changed, moved or gone since their scan */
	uint64_t unseen;		/* entries a pass could not look at (unseen_in) */
	struct cand_key last;		/* the latest object handed: a next pass starts after it */
	int have_last;
	uint64_t refused[TRIM_REFUSED_MAX]; /* inodes that would not go, or had no path */
	size_t nrefused;
	struct jw w;
};

/* How a pass ended. */
enum pass_end {
	PASS_ERROR = -1,
	PASS_RAN_OUT,			/* its table is done, the goal is not */
	PASS_STOPPED,			/* the goal is met, or --older-than reached its cut-off */
};

static int
met(const struct trim *t)
{
	const struct goal *g = &t->c->o->goal;

	switch (g->kind) {
	case GOAL_BYTES:
		/* What trim removed, where the daemon measures free space (the man page). */
		return t->bytes >= g->value;
	case GOAL_OLDER_THAN:
		return 0;	/* decided by each object's atime */
	default:
		return target_met(&t->a.t, &t->f);
	}
}

static void
show(struct trim *t, const char *dir, const struct victim *v)
{
	static char path[PATH_MAX + NAME_MAX + 2], esc[ESCAPE_SIZE(PATH_MAX + NAME_MAX + 2)];
	char b1[TOOL_FMT_MAX], b2[TOOL_FMT_MAX];

	snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", v->name);
	if (t->c->o->json) {
		jw_obj_begin(&t->w, NULL);
		jw_str(&t->w, "path", path);
		jw_u64(&t->w, "atime", v->atime_ns / 1000000000u);
		jw_u64(&t->w, "bytes", v->blocks * 512);
		jw_obj_end(&t->w);
	} else if (t->c->o->dry_run) {
		escape_text(path, esc, sizeof(esc));
		printf("%-20s %10s  %s\n", fmt_time(v->atime_ns / 1000000000u, b1, sizeof(b1)),
		       fmt_bytes(v->blocks * 512, b2, sizeof(b2)), esc);
	}
}

/*
 * Is DIR/cache still the directory opened at start?  Every check of a
 * victim is made below that descriptor: were DIR/cache moved away (and
 * perhaps replaced), trim would go on removing files that are no longer
 * in DIR/cache.  By path, without following a link, before each removal,
 * as the daemon does before each batch.  The tool never changes its
 * working directory, so a relative DIR names the same place throughout.
 */
static int
cache_in_place(const struct tool_ctx *c)
{
	char path[PATH_MAX], e[ESCAPE_SIZE(128)];
	const char *why = "another directory is there now";

	if (snprintf_checked(path, sizeof(path), "%s/cache", c->dir) == -1)
		why = strerror(ENAMETOOLONG);
	else if (name_is_fd(AT_FDCWD, path, c->cachefd))
		return 1;
	else if (errno != 0)
		why = strerror(errno);
	escape_text(path, e, sizeof(e));
	fprintf(stderr, "cachefiles-cull: %s is no longer the directory trim opened "
		"(moved, replaced or removed: stat: %s); stopping\n", e, why);
	return 0;
}

static void
note_key(struct trim *t, const struct victim *v)
{
	if (!t->have_last || v->atime_ns > t->last.atime_ns ||
	    (v->atime_ns == t->last.atime_ns && v->ino > t->last.ino)) {
		t->last.atime_ns = v->atime_ns;
		t->last.ino = v->ino;
		t->have_last = 1;
	}
}

static int
refused_before(const struct trim *t, const struct victim *v)
{
	size_t i;

	for (i = 0; i < t->nrefused; i++)
		if (t->refused[i] == v->ino)
			return 1;
	return 0;
}

/* It would not go: said once, counted once (failed keeps the goal unmet). */
static void
refuse(struct trim *t, const struct victim *v)
{
	if (t->nrefused < TRIM_REFUSED_MAX)
		t->refused[t->nrefused++] = v->ino;
	t->failed++;
	t->skipped++;
}

/* One object handed by the victims iterator: removed (or listed), or not. */
static void
take(struct trim *t, struct victims *vs, const struct victim *v, const char *dir)
{
	struct tool_ctx *c = t->c;
	char ed[ESCAPE_SIZE(PATH_MAX)], en[ESCAPE_SIZE(NAME_MAX)];

	if (!victims_in_place(vs, v))
		return;		/* counted with the pass's re-check drops */
	if (!c->o->dry_run && unlinkat(v->dirfd, v->name, 0) < 0) {
		if (errno != ENOENT) {
			int e = errno;
			fprintf(stderr, "cachefiles-cull: %s%s%s: unlink: %s\n",
				escaped(dir, ed, sizeof(ed)), dir[0] ? "/" : "",
				escaped(v->name, en, sizeof(en)), strerror(e));
			refuse(t, v);
		} else {
			t->skipped++;
		}
		return;
	}
	show(t, dir, v);
	t->removed++;
	t->bytes += v->blocks * 512;
	if (c->o->dry_run || target_fsfree(c->cachefd, &t->f) < 0) {
		t->f.bavail += (v->blocks * 512 + t->f.bsize - 1) / (t->f.bsize ? t->f.bsize : 4096);
		t->f.ffree++;
	}
}

/*
 * Its directory's path does not fit in PATH_MAX (a crafted tree: names of
 * up to NAME_MAX, NAMES_MAX_DEPTH deep).  It is left where it is, as the
 * daemon leaves it (its check of the working directory cannot name it
 * either), but counted as failed: --older-than must not report its goal
 * met while an object older than the cut-off is still there.
 */
static void
unnamed(struct trim *t, const struct victim *v)
{
	char en[ESCAPE_SIZE(NAME_MAX)];

	fprintf(stderr, "cachefiles-cull: .../%s: its path is longer than PATH_MAX; not removed\n",
		escaped(v->name, en, sizeof(en)));
	refuse(t, v);
}

/*
 * One pass over a fresh scan of the objects after the last one handed (a
 * dry run removes nothing, so a pass after a full table must not list the
 * same objects again).  *full: the table was full, more may be left.
 */
static enum pass_end
pass(struct trim *t, size_t cap, int *full)
{
	struct tool_ctx *c = t->c;
	struct scan_result *r = tool_scan(c, cap, t->have_last ? &t->last : NULL);
	struct victims *vs;
	struct victim v;
	char dir[PATH_MAX];
	enum pass_end end = PASS_RAN_OUT;
	const struct victims_stats *st;
	uint64_t drops;

	if (r == NULL)
		return PASS_ERROR;
	*full = scan_ncand(r) >= cap;
	if (scan_unseen(scan_stats(r)) > t->unseen)
		t->unseen = scan_unseen(scan_stats(r));
	vs = victims_new(r, c->cachefd);
	while (end == PASS_RAN_OUT && victims_next(vs, &v)) {
		note_key(t, &v);
		if (c->o->goal.kind == GOAL_OLDER_THAN && v.atime_ns >= t->a.before_ns)
			end = PASS_STOPPED;
		else if (!cache_in_place(c))
			end = PASS_ERROR;
		else if (refused_before(t, &v))
			continue;
		else if (scan_dir_path(r, v.dir, dir, sizeof(dir)) < 0)
			unnamed(t, &v);
		else
			take(t, vs, &v, dir);
		if (end == PASS_RAN_OUT && met(t))
			end = PASS_STOPPED;
	}
	/*
	 * Candidates whose re-check failed: touched (perhaps to another old
	 * atime), renamed elsewhere or unreadable.  Any of them may still be
	 * older than an --older-than cut-off somewhere in the cache.
	 */
	st = victims_stats(vs);
	drops = st->vanished + st->moved + st->errors;
	t->skipped += drops;
	t->changed += drops;
	victims_free(vs);
	scan_free(r);
	return end;
}

/* Until the goal, or a pass whose table held all that was left, or handed nothing. */
static enum pass_end
passes(struct trim *t, size_t cap, int *full)
{
	enum pass_end end = met(t) ? PASS_STOPPED : PASS_RAN_OUT;
	int progress;

	for (progress = 1; end == PASS_RAN_OUT && progress;) {
		struct cand_key was = t->last;
		int had = t->have_last;
		end = pass(t, cap, full);
		/* note_key() only moves forward: a pass that handed nothing new ends it. */
		progress = *full && t->have_last && (!had || t->last.atime_ns != was.atime_ns ||
						     t->last.ino != was.ino);
	}
	return end;
}

/*
 * Candidates: every object the filesystem can hold, within cull_memory.
 * Without inode counts (btrfs) the files in use are unknown, not 0: then
 * at most NO_COUNTS_MAX (320 MiB, allocated at once), and passes after the
 * first go on where it ended.
 */
#define NO_COUNTS_MAX ((size_t)1 << 24)
/* Passes from the oldest again after objects changed under --older-than. */
#define TRIM_AGAIN_MAX 3

static size_t
table_size(const struct tool_ctx *c, const struct fsfree *f)
{
	size_t cap = (size_t)(c->cfg.cull_memory / sizeof(struct cand));
	uint64_t used = f->files > f->ffree ? f->files - f->ffree : 0;

	if (f->files != 0 && used + 1 < cap)
		cap = (size_t)used + 1;
	else if (f->files == 0 && cap > NO_COUNTS_MAX)
		cap = NO_COUNTS_MAX;
	return cap < TARGET_FLOOR ? TARGET_FLOOR : cap;
}

/*
 * The goal in the terms trim checks, resolved as the daemon resolves one
 * (cull/goal.c), the run limits counted as the kernel counts them.
 */
static int
resolve(struct trim *t)
{
	const struct tool_ctx *c = t->c;
	struct target run;
	struct timespec ts;

	run.bavail = tool_kernel_limit(t->f.blocks, c->cfg.limit[LIM_BRUN]);
	run.ffree = tool_kernel_limit(t->f.files, c->cfg.limit[LIM_FRUN]);
	clock_gettime(CLOCK_REALTIME, &ts);
	return goal_resolve(&c->o->goal, &t->f, &run, timespec_ns(&ts), now_ms(), &t->a);
}

/* Why a goal was not met, for the summary line. */
static const char *
not_met_why(const struct trim *t, int r)
{
	if (r < 0)
		return "not met: stopped by the error above";
	if (t->c->o->goal.kind == GOAL_OLDER_THAN && t->unseen > 0)
		return "not met: some entries could not be read or were too deep to check";
	if (t->c->o->goal.kind == GOAL_OLDER_THAN && t->changed > 0)
		return "not met: objects changed or moved while trim ran; run it again";
	if (t->c->o->goal.kind == GOAL_OLDER_THAN && t->failed > 0)
		return "not met: objects named above could not be removed";
	return "not met: nothing more can be removed";
}

/* The last line, or the JSON object's closing members; r as in tool_trim. */
static void
summary(struct trim *t, const char *gd, int r, double seconds)
{
	const struct tool_opts *o = t->c->o;
	char b[TOOL_FMT_MAX];

	if (o->json) {
		jw_arr_end(&t->w);
		jw_bool(&t->w, "dry_run", o->dry_run);
		jw_str(&t->w, "goal", gd);
		jw_str(&t->w, "result", r == 1 ? "met" : r == 0 ? "exhausted" : "error");
		jw_u64(&t->w, "removed", t->removed);
		jw_u64(&t->w, "bytes", t->bytes);
		jw_u64(&t->w, "skipped", t->skipped);
		jw_u64(&t->w, "unseen", t->unseen);
		jw_double(&t->w, "seconds", seconds, 3);
		jw_obj_end(&t->w);
		fputc('\n', stdout);
		return;
	}
	printf("%s %" PRIu64 " %s (%s) in %.1f s; goal %s %s\n",
	       o->dry_run ? "would remove" : "removed", t->removed,
	       plural(t->removed, "object", "objects"),
	       fmt_bytes(t->bytes, b, sizeof(b)), seconds, gd,
	       r == 1 ? (o->dry_run ? "would be met" : "met") : not_met_why(t, r));
}

int
tool_trim(struct tool_ctx *c)
{
	const struct goal *g = &c->o->goal;
	const char *device = c->o->device ? c->o->device : TOOL_DEVICE;
	struct tool_daemon d;
	struct trim t;
	uint64_t t0 = now_ms();
	enum pass_end end;
	size_t cap;
	int devfd = -1, r = 0, full = 0, again;
	char gd[64];

	if (tool_proc_bound(c->cfg.tag) == 1) {
		fprintf(stderr, "cachefiles-cull: a cache tagged %s is bound (/proc/fs/fscache/caches); "
			"ask its daemon instead with 'cachefiles-cull cull'\n",
			c->cfg.tag[0] ? c->cfg.tag : "CacheFiles");
		return TOOL_ERR;
	}
	tool_daemon_status(c->socket, c->dirfd, &d);
	if (d.other) {
		char e[ESCAPE_SIZE(128)];
		fprintf(stderr, "cachefiles-cull: the daemon of another cache (%s) answers on "
			"the control socket and holds the device; trim works only while "
			"no daemon runs\n", escaped(d.dir, e, sizeof(e)));
		return TOOL_ERR;
	}
	if (d.answers) {
		fprintf(stderr, "cachefiles-cull: a daemon answers on its control socket; "
			"ask it instead with 'cachefiles-cull cull'\n");
		return TOOL_ERR;
	}
	/* A dry run removes nothing: it needs neither the device nor root. */
	if (!c->o->dry_run && hold_device(device, &devfd) < 0)
		return TOOL_ERR;
	memset(&t, 0, sizeof(t));
	t.c = c;
	if (target_fsfree(c->cachefd, &t.f) < 0) {
		char e[ESCAPE_SIZE(256)];

		fprintf(stderr, "cachefiles-cull: %s/cache: statvfs: %s\n",
			escaped(c->dir, e, sizeof(e)), strerror(errno));
		if (devfd >= 0)
			close(devfd);
		return TOOL_ERR;
	}
	if (resolve(&t) < 0) {
		fprintf(stderr, "cachefiles-cull: %s: not a goal trim can work towards\n",
			goal_describe(g, gd, sizeof(gd)));
		if (devfd >= 0)
			close(devfd);
		return TOOL_USAGE;
	}
	cap = table_size(c, &t.f);
	if (c->o->json) {
		jw_init(&t.w, stdout);
		jw_obj_begin(&t.w, NULL);
		jw_arr_begin(&t.w, "objects");
	}
	end = passes(&t, cap, &full);
	/*
	 * Objects that changed since their scan may still be older than the
	 * cut-off, before the key the passes went on from (touched to another
	 * old atime, or renamed): look again from the oldest, a few times at
	 * most against a cache that keeps changing.  A dry run lists, once.
	 */
	for (again = 0; g->kind == GOAL_OLDER_THAN && !c->o->dry_run && end != PASS_ERROR &&
	     t.changed > 0 && again < TRIM_AGAIN_MAX; again++) {
		t.changed = 0;
		t.have_last = 0;
		end = passes(&t, cap, &full);
	}
	/* --older-than is met when every object older than the cut-off went. */
	if (end == PASS_ERROR)
		r = -1;
	else if (g->kind == GOAL_OLDER_THAN)
		r = (end == PASS_STOPPED || !full) && t.failed == 0 && t.unseen == 0 &&
		    t.changed == 0;
	else
		r = end == PASS_STOPPED;
	goal_describe(g, gd, sizeof(gd));
	summary(&t, gd, r, (double)(now_ms() - t0) / 1000.0);
	if (devfd >= 0)
		close(devfd);
	return r < 0 ? TOOL_ERR : r == 0 ? TOOL_EXHAUSTED : TOOL_OK;
}
