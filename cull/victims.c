// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * victims.c: candidates back to names, in windows.  A window is the next
 * W candidates; a hash of their (directory, inode) pairs lets one
 * getdents64 pass over a directory resolve every candidate of the window
 * that lives there, so each directory is read at most once per window
 * however the candidates are spread.  Names are kept for the window only.
 * W is an eighth of the objects scanned, within [32 Ki, 256 Ki]: a window
 * costs about one read of every directory, so about 8 directory entries a
 * victim, for at most ~20 MB of names while culling.  A name memo
 * (namememo.h) names the first window's candidates it knows without a
 * read; a directory is read only for a candidate still unnamed.
 */
#include "cull/victims.h"
#include "cull/heap.h"
#include "cull/namememo.h"
#include "cull/names.h"
#include "cull/scan.h"
#include "lib/kcmd.h"
#include "lib/samefile.h"
#include "lib/util.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WINDOW_MIN 32768
#define WINDOW_MAX 262144
#define SLOTS_MIN 256		/* open directories kept: one volume's fan-out */
#define SLOTS_MAX 4096		/* at most: 16 volumes' fan-outs */
#define FDS_SPARE 128		/* descriptors left to everything else */
#define DENTS_BUF (64 * 1024)

struct victims {
	struct scan_result *r;
	struct cand *v;
	size_t n, cur, kept, last;
	size_t wbeg, wend;
	size_t window, hsize;		/* hsize: power of two >= 2 * window */
	uint32_t *names;		/* per window slot: arena offset + 1, 0 = unknown */
	char *arena;
	size_t alen, acap;
	uint32_t *hash;			/* window slot + 1, 0 = empty */
	uint32_t *dir_epoch;
	uint32_t epoch;
	struct {
		uint32_t dir;
		int fd;
		dev_t dev;		/* what fd holds, for the check before a cull */
		ino_t ino;
		char *path;		/* where it should be: root's path, '/', dir's path */
	} *fds;
	size_t nslots;			/* a power of two */
	char *rootpath;			/* rootfd's path (getcwd), NULL until known or unknown */
	int rootpath_tried;
	char *rootat;			/* where rootfd must stay (victims_root_at), or NULL */
	dev_t rdev;			/* rootfd's identity, for root_in_place() */
	ino_t rino;
	int rknown;
	char *dents;
	int rootfd;
	struct victims_stats st;
};

static size_t
hash_of(const struct victims *vs, uint32_t dir, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)dir << 40) ^ dir) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (vs->hsize - 1);
}

/*
 * How many directory descriptors to keep: one per directory of the table
 * (rounded up to a power of two) when the descriptor limit allows, so
 * that culling in LRU order, which jumps between directories, opens each
 * directory once rather than again whenever two share a slot.
 */
static size_t
slots_for(size_t ndirs)
{
	struct rlimit rl;
	size_t n = SLOTS_MIN, budget = SLOTS_MIN;

	/* Below SLOTS_MIN + FDS_SPARE descriptors, SLOTS_MIN as ever. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return n;
	if (rl.rlim_cur == RLIM_INFINITY)
		budget = SLOTS_MAX;
	else if (rl.rlim_cur > SLOTS_MIN + FDS_SPARE)
		budget = (size_t)rl.rlim_cur - FDS_SPARE;
	while (n < ndirs && n * 2 <= SLOTS_MAX && n * 2 <= budget)
		n *= 2;
	return n;
}

struct victims *
victims_new(struct scan_result *r, int rootfd)
{
	struct victims *vs = xcalloc(1, sizeof(*vs));
	struct stat sb;
	size_t i;

	vs->r = r;
	vs->v = scan_cands(r);
	vs->n = scan_ncand(r);
	vs->rootfd = rootfd;
	vs->last = SIZE_MAX;
	if (fstat(rootfd, &sb) == 0) {
		vs->rdev = sb.st_dev;
		vs->rino = sb.st_ino;
		vs->rknown = 1;
	}
	vs->window = scan_stats(r)->objects / 8;
	if (vs->window < WINDOW_MIN)
		vs->window = WINDOW_MIN;
	if (vs->window > WINDOW_MAX)
		vs->window = WINDOW_MAX;
	for (vs->hsize = 1; vs->hsize < 2 * vs->window; vs->hsize *= 2)
		;
	vs->names = xcalloc(vs->window, sizeof(*vs->names));
	vs->hash = xcalloc(vs->hsize, sizeof(*vs->hash));
	vs->dir_epoch = xcalloc(scan_ndirs(r) + 1, sizeof(*vs->dir_epoch));
	vs->dents = xmalloc(DENTS_BUF);
	vs->nslots = slots_for(scan_ndirs(r));
	vs->fds = xcalloc(vs->nslots, sizeof(*vs->fds));
	for (i = 0; i < vs->nslots; i++)
		vs->fds[i].fd = -1;
	return vs;
}

static void forget_dir(struct victims *vs, size_t s);
static void learn_rootpath(struct victims *vs);
static int root_in_place(const struct victims *vs);

static void
drop_dirs(struct victims *vs)
{
	size_t i;

	for (i = 0; i < vs->nslots; i++)
		forget_dir(vs, i);
}

void
victims_free(struct victims *vs)
{
	if (vs == NULL)
		return;
	drop_dirs(vs);
	free(vs->fds);
	free(vs->rootpath);
	free(vs->rootat);
	free(vs->names);
	free(vs->hash);
	free(vs->dir_epoch);
	free(vs->dents);
	free(vs->arena);
	free(vs);
}

static void
next_epoch(struct victims *vs)
{
	if (++vs->epoch == 0) {
		memset(vs->dir_epoch, 0, (scan_ndirs(vs->r) + 1) * sizeof(*vs->dir_epoch));
		vs->epoch = 1;
	}
}

static void
build_window(struct victims *vs)
{
	size_t i;

	vs->wbeg = vs->cur;
	vs->wend = vs->n - vs->cur < vs->window ? vs->n : vs->cur + vs->window;
	memset(vs->names, 0, vs->window * sizeof(*vs->names));
	memset(vs->hash, 0, vs->hsize * sizeof(*vs->hash));
	vs->alen = 0;
	next_epoch(vs);
	for (i = vs->wbeg; i < vs->wend; i++) {
		size_t h = hash_of(vs, vs->v[i].dir, cand_ino(&vs->v[i]));
		while (vs->hash[h] != 0)
			h = (h + 1) & (vs->hsize - 1);
		vs->hash[h] = (uint32_t)(i - vs->wbeg + 1);
	}
}

static void
forget_dir(struct victims *vs, size_t s)
{
	if (vs->fds[s].fd >= 0)
		close(vs->fds[s].fd);
	vs->fds[s].fd = -1;
	free(vs->fds[s].path);
	vs->fds[s].path = NULL;
}

/* Where the slot's directory should be, for victims_enter(); NULL if unknown. */
static void
expect_path(struct victims *vs, size_t s)
{
	char rel[PATH_MAX];
	size_t lr, lp;

	if (vs->rootpath == NULL || scan_dir_path(vs->r, vs->fds[s].dir, rel, sizeof(rel)) < 0)
		return;
	lp = strlen(vs->rootpath);
	lr = strlen(rel);
	if (lp + 1 + lr + 1 > PATH_MAX)
		return;
	vs->fds[s].path = xmalloc(lp + 1 + lr + 1);
	memcpy(vs->fds[s].path, vs->rootpath, lp);
	vs->fds[s].path[lp] = '/';
	memcpy(vs->fds[s].path + lp + 1, rel, lr + 1);
}

static int
dir_fd(struct victims *vs, uint32_t dir)
{
	size_t s = dir & (vs->nslots - 1);
	struct stat sb;

	if (vs->fds[s].fd >= 0 && vs->fds[s].dir == dir)
		return vs->fds[s].fd;
	forget_dir(vs, s);
	vs->fds[s].dir = dir;
	vs->fds[s].fd = scan_open_dir(vs->r, vs->rootfd, dir);
	if (vs->fds[s].fd >= 0 && fstat(vs->fds[s].fd, &sb) < 0)
		forget_dir(vs, s);
	else if (vs->fds[s].fd >= 0) {
		vs->fds[s].dev = sb.st_dev;
		vs->fds[s].ino = sb.st_ino;
		expect_path(vs, s);
	}
	return vs->fds[s].fd;
}

void
victims_adopt(struct victims *vs, struct victims *old)
{
	size_t i, s;

	if (old == NULL || old->rootfd != vs->rootfd || old->rootpath == NULL)
		return;
	/*
	 * The root's path as it is now, not old's: with a parent renamed every
	 * carried path would be wrong, and each cull would take the slow check.
	 */
	if (!vs->rootpath_tried)
		learn_rootpath(vs);
	if (vs->rootpath == NULL || strcmp(vs->rootpath, old->rootpath) != 0)
		return;
	for (i = 0; i < old->nslots; i++) {
		uint32_t dir = old->fds[i].dir;

		s = dir & (vs->nslots - 1);
		if (old->fds[i].fd < 0 || old->fds[i].path == NULL ||
		    dir >= scan_ndirs(vs->r) || vs->fds[s].fd >= 0)
			continue;
		vs->fds[s].dir = dir;
		expect_path(vs, s);
		if (vs->fds[s].path == NULL || strcmp(vs->fds[s].path, old->fds[i].path) != 0) {
			forget_dir(vs, s);	/* another directory at that index */
			continue;
		}
		vs->fds[s].fd = old->fds[i].fd;
		vs->fds[s].dev = old->fds[i].dev;
		vs->fds[s].ino = old->fds[i].ino;
		old->fds[i].fd = -1;
	}
}

static void
set_name(struct victims *vs, size_t slot, const char *name)
{
	size_t len = strlen(name) + 1;

	if (vs->alen + len > vs->acap) {
		size_t cap = vs->acap ? vs->acap * 2 : 64 * 1024;
		while (cap < vs->alen + len)
			cap *= 2;
		vs->arena = xreallocarray(vs->arena, cap, 1);
		vs->acap = cap;
	}
	memcpy(vs->arena + vs->alen, name, len);
	vs->names[slot] = (uint32_t)vs->alen + 1;
	vs->alen += len;
}

/* Match one directory entry against the window's unconsumed candidates. */
static void
match(struct victims *vs, uint32_t dir, uint64_t ino, const char *name)
{
	size_t h = hash_of(vs, dir, ino);

	for (; vs->hash[h] != 0; h = (h + 1) & (vs->hsize - 1)) {
		size_t slot = vs->hash[h] - 1, pos = vs->wbeg + slot;
		const struct cand *c = &vs->v[pos];
		if (pos < vs->cur || vs->names[slot] != 0 || c->dir != dir ||
		    cand_ino(c) != ino)
			continue;
		if (names_kind(name) == NAME_DATA && kcmd_name_len(name) != 0)
			set_name(vs, slot, name);
		return;
	}
}

size_t
victims_name_from(struct victims *vs, struct namememo *m)
{
	char name[NAME_MAX + 1];
	size_t i, named = 0;

	if (m == NULL || vs->cur >= vs->n)
		return 0;
	if (vs->cur >= vs->wend)
		build_window(vs);
	for (i = vs->cur; i < vs->wend; i++)
		if (vs->names[i - vs->wbeg] == 0 &&
		    namememo_get(m, vs->v[i].dir, cand_ino(&vs->v[i]), name, sizeof(name))) {
			set_name(vs, i - vs->wbeg, name);
			named++;
		}
	return named;
}

static void
resolve_dir(struct victims *vs, uint32_t dir)
{
	int fd = dir_fd(vs, dir);

	if (fd < 0)
		return;
	if (lseek(fd, 0, SEEK_SET) < 0) {
		vs->st.errors++;
		return;
	}
	for (;;) {
		ssize_t n = getdents64(fd, vs->dents, DENTS_BUF), off;
		if (n <= 0) {
			if (n < 0)
				vs->st.errors++;
			break;
		}
		for (off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(vs->dents + off);
			off += de->d_reclen;
			if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN)
				match(vs, dir, de->d_ino, de->d_name);
		}
	}
}

/* Check the candidate at pos by name; 1 and v filled if it is still the same object. */
static int
verify(struct victims *vs, size_t pos, struct victim *v)
{
	const struct cand *c = &vs->v[pos];
	size_t slot = pos - vs->wbeg;
	struct stat sb;
	const char *name;
	uint64_t at;
	int fd;

	if (vs->names[slot] == 0) {
		vs->st.vanished++;
		return 0;
	}
	name = vs->arena + vs->names[slot] - 1;
	if ((fd = dir_fd(vs, c->dir)) < 0) {
		vs->st.vanished++;
		return 0;
	}
	if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			vs->st.vanished++;
		else
			vs->st.errors++;
		return 0;
	}
	at = atime_key(&sb.st_atim);
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_ino != cand_ino(c) ||
	    at != cand_atime(c)) {
		vs->st.moved++;
		return 0;
	}
	v->dirfd = fd;
	v->dir = c->dir;
	v->name = name;
	v->atime_ns = at;
	v->ino = (uint64_t)sb.st_ino;
	v->blocks = (uint64_t)sb.st_blocks;
	return 1;
}

int
victims_next(struct victims *vs, struct victim *v)
{
	while (vs->cur < vs->n) {
		size_t pos;
		uint32_t dir;

		if (vs->cur >= vs->wend)
			build_window(vs);
		pos = vs->cur;
		dir = vs->v[pos].dir;
		/* Unnamed (no memo knew it): one read names the window's candidates there. */
		if (vs->names[pos - vs->wbeg] == 0 && vs->dir_epoch[dir] != vs->epoch) {
			vs->dir_epoch[dir] = vs->epoch;
			resolve_dir(vs, dir);	/* candidates from pos on */
		}
		vs->cur++;
		if (verify(vs, pos, v)) {
			vs->last = pos;
			vs->st.handed++;
			return 1;
		}
	}
	return 0;
}

int
victims_in_place(struct victims *vs, const struct victim *v)
{
	size_t s = v->dir & (vs->nslots - 1);
	/* v->dirfd is the slot's descriptor until the next call: its identity is known. */
	int held = vs->fds[s].fd == v->dirfd && vs->fds[s].dir == v->dir;
	dev_t dev;
	ino_t ino;

	/* The directory under the root, and the root where it must be. */
	if (held && scan_dir_ident(vs->r, vs->rootfd, v->dir, &dev, &ino) == 0 &&
	    dev == vs->fds[s].dev && ino == vs->fds[s].ino && root_in_place(vs))
		return 1;
	/* The held directory is elsewhere now: later victims there are found by path again. */
	if (held)
		forget_dir(vs, s);
	vs->st.moved++;
	return 0;
}

/* The kernel's path of the working directory: its length, or -1. */
static ssize_t
cwd_path(char *buf, size_t size)
{
	/* the system call itself: glibc's getcwd() may walk ".." for a long path */
	long n = syscall(SYS_getcwd, buf, size);

	return n > 0 && buf[0] == '/' ? (ssize_t)n - 1 : -1;
}

void
victims_root_at(struct victims *vs, const char *path)
{
	free(vs->rootat);
	vs->rootat = path != NULL ? xstrdup(path) : NULL;
}

/*
 * Is rootfd still the directory at the path it must stay at (or, without
 * one, at the path learnt for it)?  By path, the last name not followed.
 * 1 when there is no path to check it by.
 */
static int
root_in_place(const struct victims *vs)
{
	const char *p = vs->rootat != NULL ? vs->rootat : vs->rootpath;

	if (p == NULL)
		return 1;
	return vs->rknown && name_is(AT_FDCWD, p, vs->rdev, vs->rino);
}

/*
 * rootfd's path, learnt once: the working directory moves into it for a
 * moment.  Not learnt while rootfd is away from where it must stay: the
 * path would vouch for wherever it was moved to.
 */
static void
learn_rootpath(struct victims *vs)
{
	char buf[PATH_MAX];

	vs->rootpath_tried = 1;
	/* In place before and after: a root moved away and back between is not learnt. */
	if (vs->rootat != NULL && !root_in_place(vs))
		return;
	if (fchdir(vs->rootfd) == 0 && cwd_path(buf, sizeof(buf)) > 0 &&
	    (vs->rootat == NULL || root_in_place(vs)))
		vs->rootpath = xstrdup(buf);
}

int
victims_enter(struct victims *vs, const struct victim *v)
{
	size_t s = v->dir & (vs->nslots - 1);
	char buf[PATH_MAX];
	int held = vs->fds[s].fd == v->dirfd && vs->fds[s].dir == v->dir;

	if (!vs->rootpath_tried)
		learn_rootpath(vs);
	if (held && vs->fds[s].path == NULL)
		expect_path(vs, s);	/* opened before the root's path was known */
	if (fchdir(v->dirfd) < 0)
		return -1;
	/* Fast: the kernel names the new working directory where it should be. */
	if (held && vs->fds[s].path != NULL && cwd_path(buf, sizeof(buf)) > 0 &&
	    strcmp(buf, vs->fds[s].path) == 0) {
		vs->st.by_cwd++;
		return 1;
	}
	return victims_in_place(vs, v);
}

uint64_t
victims_peek_atime(const struct victims *vs)
{
	return vs->cur < vs->n ? cand_atime(&vs->v[vs->cur]) : 0;
}

void
victims_unget(struct victims *vs)
{
	if (vs->last != SIZE_MAX && vs->last + 1 == vs->cur) {
		vs->cur = vs->last;
		vs->st.handed--;
	}
	vs->last = SIZE_MAX;
}

void
victims_keep(struct victims *vs)
{
	/* kept <= last < cur: the slot written was consumed already. */
	if (vs->last != SIZE_MAX && vs->kept <= vs->last && vs->last < vs->cur)
		vs->v[vs->kept++] = vs->v[vs->last];
	vs->last = SIZE_MAX;
}

size_t
victims_retry(struct victims *vs)
{
	size_t rest = vs->n - vs->cur;

	/* Those not reached yet follow the kept ones: still oldest first. */
	memmove(vs->v + vs->kept, vs->v + vs->cur, rest * sizeof(*vs->v));
	vs->n = vs->kept + rest;
	vs->cur = vs->kept = 0;
	vs->last = SIZE_MAX;
	vs->wbeg = vs->wend = 0;
	return vs->n;
}

size_t
victims_copy_left(const struct victims *vs, struct cand *out)
{
	size_t rest = vs->n - vs->cur;

	memcpy(out, vs->v, vs->kept * sizeof(*vs->v));
	memcpy(out + vs->kept, vs->v + vs->cur, rest * sizeof(*vs->v));
	return vs->kept + rest;
}

size_t
victims_left(const struct victims *vs)
{
	return vs->n - vs->cur;
}

size_t
victims_kept(const struct victims *vs)
{
	return vs->kept;
}

uint64_t
victims_kept_atime(const struct victims *vs)
{
	/* Kept in the order they were handed: the first is the oldest. */
	return vs->kept > 0 ? cand_atime(&vs->v[0]) : 0;
}

const struct victims_stats *
victims_stats(const struct victims *vs)
{
	return &vs->st;
}
