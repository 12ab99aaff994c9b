// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan.c: the walker.  Workers take directories from shared stacks, one a
 * depth: always from the shallowest non-empty one, at a random (seeded)
 * place in it, so that every directory above the data is read first and the
 * data directories then come in a random order (see the early snapshots in
 * scan.h).  A worker takes a chunk of directories at a time (CHUNK_DIRS),
 * reads them with getdents64 into a large buffer, stats only data objects
 * (d_type saves a stat for everything else), all of the buffer's together
 * in inode order, and passes batches of records to the shared heap under
 * one lock.  Each worker is two threads, one reading the next chunk while
 * the other stats this one (struct worker).  A worker keeps a copy of the
 * heap's root so that young objects, the vast majority once the heap is
 * full, are rejected without taking the lock.
 */
#include "cull/scan.h"
#include "cull/adapt.h"
#include "cull/inosort.h"
#include "cull/namememo.h"
#include "cull/names.h"
#include "lib/escape.h"
#include "lib/kcmd.h"
#include "lib/mountid.h"
#include "lib/samefile.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DENTS_READ (64 * 1024)	/* one getdents64 call */
#define DENTS_BUF (512 * 1024)	/* entries gathered before they are stat'ed */
#define DENTS_MAX (DENTS_BUF / 24)	/* a dirent64 is at least 24 bytes */
#define BATCH 256
/*
 * Directories read before their entries are stat'ed, together, in inode
 * order.  A fan-out directory's objects share their inode table blocks
 * with those of the directories made beside it: stat'ed one directory at
 * a time, each block is visited once per directory it holds objects of;
 * a chunk visits it about once.  Sixteen made a cold walk of the VM
 * benchmark's tree about a tenth cheaper in system time than one at a
 * time (bench/scan-orders, chunk16 against dirino; bench/VM-RESULTS.md).
 */
#define CHUNK_DIRS 16
#define HANDOFF_EVERY 32	/* stats between offers of the CPU to the reader (hand_off) */
#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct sdir {
	uint32_t parent;
	uint32_t name_off;		/* in the arena */
	uint32_t vol;			/* index in vols, UINT32_MAX above volumes */
	uint16_t depth;			/* 0 = DIR/cache */
	uint16_t data_ok;		/* a fan-out or long-key directory */
};

struct scan_result {
	struct heap heap;
	struct sdir *dirs;
	size_t ndirs, dirs_cap;
	char *arena;
	size_t arena_len, arena_cap;
	struct scan_vol *vols;
	size_t nvols, vols_cap;
	struct scan_stats st;
	size_t sorted;			/* heap.v[0..sorted) are the oldest, in order */
	size_t selected;		/* heap.v[0..selected) the oldest, sorted or not */
	dev_t dev;
	uint64_t mnt_id;
	int has_mnt_id;
};

/* Shared state of one walk. */
struct walk {
	struct scan_result *r;
	int rootfd;
	const struct scan_opts *opt;
	struct scan_progress *prog;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct dstack {
		uint32_t *v;
		size_t n, cap;
	} stacks[NAMES_MAX_DEPTH + 1];
	size_t nstack;			/* over all depths */
	unsigned busy;			/* chunks popped and not yet finished */
	unsigned reading;		/* workers with a chunk among them */
	struct adapt ad;		/* how many workers read (adapt.h) */
	unsigned peak;			/* the most workers reading at once */
	int crowded;			/* fewer CPUs than scan threads and culler */
	uint64_t now_s;
	uint64_t rng;			/* xorshift64 state, under the lock */
	/* early snapshots (opt->early): objects seen when the last was taken */
	uint64_t early_last;
	uint64_t seen, seen_bytes;	/* data objects in directories read to the end */
	uint64_t empties_removed, empties_busy;	/* remove_empty(), under the lock */
	struct stat root_st;		/* rootfd's, for root_at_path; st_nlink 0: unknown */
	unsigned data_depth;		/* depth of the directories data was found in; 0: none */
	int mixed;			/* data at more than one depth (the old layout) */
	int early_busy;			/* a worker is publishing one */
	uint64_t early_dirs;		/* data directories read when the last was taken */
	struct dir_sample depth[NAMES_MAX_DEPTH + 1];	/* directories by depth */
};

/* One directory's share of a walk: counted apart, joined when it is done. */
struct dcount {
	uint64_t entries;		/* all but . and .., whatever they are */
	uint64_t objects, bytes;
	uint64_t oldest, newest;	/* atimes, ns */
	uint64_t hist[SCAN_HIST_DAYS];	/* days, for its volume */
};

/* A directory of a chunk (open_chunk). */
struct cdir {
	int fd;
	uint32_t dir;
	struct sdir d;
	struct dcount c;
};

/*
 * What a worker's time went to while one chunk was read and stat'ed, by
 * one of its two threads (adapt.h): wall clock, and from schedstat on a
 * CPU and waiting for one, over the spans it worked on the chunk; yielded,
 * the part of the wall time slept in yield(); untimed, a span not measured.
 * Each thread writes its own.
 */
struct spent {
	uint64_t wall, exec, wait, yielded;
	int untimed;
};

/* Popped directories, read into fills and stat'ed before the next but one. */
struct chunk {
	struct cdir dir[CHUNK_DIRS];
	size_t n;
	struct spent reader, stater;	/* the reading and the stat'ing threads' */
};

/*
 * Entries gathered from a chunk's directories: DENTS_BUF bytes of them at
 * most, stat'ed together in inode order.  A chunk whose entries do not fit
 * spans several fills, a directory too, continued in the next.
 */
struct fill {
	char *buf;
	struct inoent *order;		/* DENTS_MAX */
	size_t used, nent;
	struct chunk *ch;
	int last;			/* the chunk's last: its directories are done */
};

/* What a worker's reading thread is doing, for its stater (hand_off). */
enum reader_state {
	READER_PARKED,			/* between chunks: waiting for a fill, a directory, the end */
	READER_READING			/* from popping a chunk to handing over its last fill */
};

/*
 * One worker: a reading thread and a stat'ing thread, so that the reads of
 * the next chunk's directories (synchronous, a block at a time for an
 * indexed ext4 directory) wait on the disk while this chunk's entries are
 * stat'ed.  The reader pops chunks, opens and reads them into the two
 * fills; the stater stats each fill, and finishes a chunk after its last.
 * When the reading thread cannot be started, the worker's one thread does
 * both in turn (piped = 0).
 */
struct worker {
	struct walk *w;
	struct inoent *order_tmp;	/* DENTS_MAX: the stater's, for inosort */
	struct cand batch[BATCH];
	size_t nbatch;
	uint64_t limit_at, limit_ino;	/* heap root when last seen */
	int limited;
	struct scan_stats st;		/* the stater's counters; merged at the end */
	struct scan_stats rst;		/* the reader's */
	struct fill fills[2];
	struct chunk chunks[2];
	unsigned nchunks;		/* chunks popped: the next is chunks[nchunks & 1] */
	unsigned inflight;		/* of them not yet finished (walk lock) */
	pthread_mutex_t plock;		/* the pipe: the counts below */
	pthread_cond_t pcond;
	unsigned produced, consumed;	/* fills handed over, fills stat'ed */
	int ended;			/* the reader pops no more */
	int piped;
	atomic_int rstate;		/* enum reader_state, set by the reader */
	pthread_t tid, reader;
	unsigned index;			/* workers from ad.active on are parked */
	int ssfd, rssfd;		/* /proc/thread-self/schedstat of each; -1: none */
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_ns(&ts);
}

static int
cancelled(const struct walk *w)
{
	return w->opt->cancel && atomic_load_explicit(w->opt->cancel, memory_order_relaxed);
}

/*
 * Wait while the caller asks the scan to yield (scan_opts.yield), unless
 * cancelled; the time slept is not the disk's (adapt.h): added to *slept.
 */
static void
yield(const struct walk *w, uint64_t *slept)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	uint64_t t0 = 0;

	while (w->opt->yield && atomic_load_explicit(w->opt->yield, memory_order_relaxed) &&
	       !cancelled(w)) {
		if (t0 == 0)
			t0 = mono_ns();
		nanosleep(&tick, NULL);
	}
	if (t0 != 0)
		*slept += mono_ns() - t0;
}

/*
 * A thread's time so far, from its schedstat descriptor fd: wall clock, on
 * a CPU and waiting for one.
 */
static int
spent_now(int fd, struct spent *s)
{
	char buf[96], *end;
	ssize_t n;

	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	s->wall = mono_ns();
	s->exec = strtoull(buf, &end, 10);
	s->wait = strtoull(end, NULL, 10);
	return 0;
}

/* A span of a thread's work on a chunk begins (t0)... */
static void
span_begin(int fd, struct spent *t0)
{
	t0->untimed = spent_now(fd, t0) < 0;
}

/* ... and ends: what it took joins acc, that thread's share of the chunk. */
static void
span_end(int fd, const struct spent *t0, struct spent *acc)
{
	struct spent t1;

	if (t0->untimed || spent_now(fd, &t1) < 0) {
		acc->untimed = 1;
		return;
	}
	acc->wall += t1.wall - t0->wall;
	acc->exec += t1.exec - t0->exec;
	acc->wait += t1.wait - t0->wait;
}

/* Identity of the mount a directory descriptor is on: (dev, mount id if known). */
static int
fd_mount(int fd, dev_t *dev, uint64_t *mnt, int *has_mnt)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -1;
	if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	*dev = sb.st_dev;
	*has_mnt = mount_id(fd, mnt);
	return 0;
}

static int
same_mount(const struct scan_result *r, int fd)
{
	dev_t dev;
	uint64_t mnt;
	int has;

	if (fd_mount(fd, &dev, &mnt, &has) < 0)
		return -1;
	/* When either identity is unknown we cannot tell a bind mount: not ours. */
	if (dev != r->dev || !has || !r->has_mnt_id || mnt != r->mnt_id) {
		errno = EXDEV;
		return -1;
	}
	return 0;
}

static uint32_t
arena_add(struct scan_result *r, const char *name)
{
	size_t len = strlen(name) + 1;
	uint32_t off;

	if (r->arena_len + len > r->arena_cap) {
		size_t cap = r->arena_cap ? r->arena_cap * 2 : 4096;
		while (cap < r->arena_len + len)
			cap *= 2;
		r->arena = xreallocarray(r->arena, cap, 1);
		r->arena_cap = cap;
	}
	off = (uint32_t)r->arena_len;
	memcpy(r->arena + off, name, len);
	r->arena_len += len;
	return off;
}

/* Put directory idx on its depth's stack, to be read.  Lock held. */
static void
push_dir(struct walk *w, uint32_t idx)
{
	unsigned depth = w->r->dirs[idx].depth;
	struct dstack *s = &w->stacks[depth < NAMES_MAX_DEPTH ? depth : NAMES_MAX_DEPTH];

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n++] = idx;
	w->nstack++;
}

/* Add a directory to the table and to the stack of work; lock held. */
static void
add_dir(struct walk *w, uint32_t parent, const char *name)
{
	struct scan_result *r = w->r;
	struct sdir *d;
	uint32_t idx = (uint32_t)r->ndirs;

	if (r->ndirs == r->dirs_cap) {
		r->dirs_cap = r->dirs_cap ? r->dirs_cap * 2 : 256;
		r->dirs = xreallocarray(r->dirs, r->dirs_cap, sizeof(*r->dirs));
	}
	d = &r->dirs[r->ndirs++];
	d->parent = parent;
	d->name_off = arena_add(r, name);
	d->depth = parent == UINT32_MAX ? 0 : r->dirs[parent].depth + 1;
	d->data_ok = d->depth >= 2 && (name[0] == '@' || name[0] == '+');
	d->vol = parent == UINT32_MAX ? UINT32_MAX : r->dirs[parent].vol;
	if (d->depth == 1) {
		if (r->nvols == r->vols_cap) {
			r->vols_cap = r->vols_cap ? r->vols_cap * 2 : 16;
			r->vols = xreallocarray(r->vols, r->vols_cap, sizeof(*r->vols));
		}
		d->vol = (uint32_t)r->nvols;
		memset(&r->vols[r->nvols], 0, sizeof(r->vols[0]));
		r->vols[r->nvols++].dir = idx;
	}
	push_dir(w, idx);
	w->depth[d->depth < NAMES_MAX_DEPTH ? d->depth : NAMES_MAX_DEPTH].known++;
	r->st.dirs++;
}

/* Take a directory: the shallowest first, at random within a depth; lock held. */
static uint32_t
pop_dir(struct walk *w)
{
	struct dstack *s = w->stacks;
	uint32_t dir;
	size_t i;

	while (s->n == 0)
		s++;
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	i = (size_t)(w->rng % s->n);
	dir = s->v[i];
	s->v[i] = s->v[--s->n];
	w->nstack--;
	return dir;
}

int
scan_dir_path(const struct scan_result *r, uint32_t dir, char *buf, size_t len)
{
	uint32_t chain[NAMES_MAX_DEPTH + 1];
	size_t n = 0, pos = 0;

	if (dir >= r->ndirs || len == 0)
		return -1;
	while (dir != 0 && dir != UINT32_MAX && n < ARRAY_SIZE(chain)) {
		chain[n++] = dir;
		dir = r->dirs[dir].parent;
	}
	buf[0] = '\0';
	while (n > 0) {
		const char *name = r->arena + r->dirs[chain[--n]].name_off;
		int k = snprintf(buf + pos, len - pos, "%s%s", pos ? "/" : "", name);
		if (k < 0 || (size_t)k >= len - pos)
			return -1;
		pos += (size_t)k;
	}
	return 0;
}

/*
 * Copy the names from the root to dir into names[] (each NAME_MAX+1 bytes);
 * returns the number of components.  Caller holds the lock if the table can
 * grow meanwhile.
 */
static int
dir_chain(const struct scan_result *r, uint32_t dir, char (*names)[NAME_MAX + 1])
{
	uint32_t chain[NAMES_MAX_DEPTH + 1];
	int n = 0, i;

	while (dir != 0 && n < (int)ARRAY_SIZE(chain)) {
		chain[n++] = dir;
		dir = r->dirs[dir].parent;
	}
	for (i = 0; i < n; i++) {
		const char *name = r->arena + r->dirs[chain[n - 1 - i]].name_off;
		size_t len = strnlen(name, NAME_MAX);

		/* copied, not formatted: the check before every cull comes through here */
		memcpy(names[i], name, len);
		names[i][len] = '\0';
	}
	return n;
}

/*
 * One openat2() for the whole chain: no symlink, no mount crossed (so the
 * mount check is the kernel's), nothing outside rootfd.  Each cull
 * resolves its directory this way (the check that it is still in place),
 * so one call instead of a walk saves about five system calls a cull.  -1 with errno ENOSYS when openat2 cannot be used here (before
 * 5.6, refused by a seccomp filter, a path longer than PATH_MAX): the
 * caller walks instead.
 */
static int
open_beneath(int rootfd, char (*names)[NAME_MAX + 1], int n, int flags)
{
	static atomic_int unusable;
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	char path[PATH_MAX];
	size_t pos = 0;
	int i, fd;

	if (atomic_load_explicit(&unusable, memory_order_relaxed))
		goto walk;
	path[0] = '.';
	path[1] = '\0';
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (pos + 1 + len >= sizeof(path))
			goto walk;
		if (i > 0)
			path[pos++] = '/';
		memcpy(path + pos, names[i], len + 1);
		pos += len;
	}
	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return fd;
	atomic_store_explicit(&unusable, 1, memory_order_relaxed);
walk:
	errno = ENOSYS;
	return -1;
}

static int
open_chain(const struct scan_result *r, int rootfd, char (*names)[NAME_MAX + 1], int n,
	   int flags)
{
	int fd = open_beneath(rootfd, names, n, flags), i;

	/* Without a mount identity nothing is entered, whichever way it was opened. */
	if (fd >= 0 && r->has_mnt_id)
		return fd;
	if (fd < 0 && errno != ENOSYS)
		return -1;
	if (fd < 0)
		fd = openat(rootfd, ".", flags);
	else
		n = 0;

	for (i = 0; fd >= 0 && i < n; i++) {
		int next = openat(fd, names[i], flags);
		int saved = errno;
		close(fd);
		errno = saved;
		fd = next;
	}
	if (fd >= 0 && same_mount(r, fd) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int
open_dir_as(const struct scan_result *r, int rootfd, uint32_t dir, int flags)
{
	static __thread char names[NAMES_MAX_DEPTH + 1][NAME_MAX + 1];
	int n;

	if (dir >= r->ndirs) {
		errno = EINVAL;
		return -1;
	}
	n = dir_chain(r, dir, names);
	return open_chain(r, rootfd, names, n, flags);
}

int
scan_open_dir(const struct scan_result *r, int rootfd, uint32_t dir)
{
	return open_dir_as(r, rootfd, dir, OPEN_DIR);
}

/*
 * The same resolution with O_PATH: the check before each cull only needs
 * the directory's identity, and a path descriptor skips the open and
 * release work (permission check, notifications) a readable one costs.
 */
int
scan_dir_ident(const struct scan_result *r, int rootfd, uint32_t dir, dev_t *dev, ino_t *ino)
{
	struct stat sb;
	int fd = open_dir_as(r, rootfd, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ok = fd >= 0 && fstat(fd, &sb) == 0;

	if (fd >= 0)
		close(fd);
	if (!ok)
		return -1;
	*dev = sb.st_dev;
	*ino = sb.st_ino;
	return 0;
}

static void
sample(struct worker *k, uint32_t dir, const char *name, const char *what)
{
	struct walk *w = k->w;
	struct scan_stats *st = &w->r->st;
	char path[SCAN_SAMPLE_LEN], raw[SCAN_SAMPLE_LEN];
	char esc[SCAN_SAMPLE_LEN];

	/* Lock held by the caller. */
	if (st->nsamples >= SCAN_SAMPLES)
		return;
	if (scan_dir_path(w->r, dir, path, sizeof(path)) < 0)
		path[0] = '\0';
	snprintf(raw, sizeof(raw), "%s%s%s", path, path[0] && name[0] ? "/" : "", name);
	escape_text(raw, esc, sizeof(esc) - 32);
	/* Truncation is fine: a sample names the entry for a human. */
	if (snprintf(st->samples[st->nsamples++], SCAN_SAMPLE_LEN, "%s (%s)", esc,
		     what) >= SCAN_SAMPLE_LEN)
		st->samples[st->nsamples - 1][SCAN_SAMPLE_LEN - 1] = '\0';
}

/* A rare event worth naming: counted by the caller, sampled here. */
static void
note(struct worker *k, uint32_t dir, const char *name, const char *what)
{
	pthread_mutex_lock(&k->w->lock);
	sample(k, dir, name, what);
	pthread_mutex_unlock(&k->w->lock);
}

/* Unknown entries are rare: taking the lock for each costs nothing. */
static void
unknown(struct worker *k, uint32_t dir, const char *name, const char *what)
{
	k->st.unknown++;
	pthread_mutex_lock(&k->w->lock);
	sample(k, dir, name, what);
	pthread_mutex_unlock(&k->w->lock);
}

/* Hand the batch to the shared heap and refresh the cached root. */
static void
flush(struct worker *k)
{
	struct heap *h = &k->w->r->heap;
	size_t i;

	for (i = 0; i < k->nbatch; i++)
		heap_offer(h, &k->batch[i]);
	k->nbatch = 0;
	if (h->cap > 0 && h->n == h->cap) {
		k->limited = 1;
		k->limit_at = cand_atime(&h->v[0]);
		k->limit_ino = cand_ino(&h->v[0]);
	}
}

static void
offer(struct worker *k, uint64_t at, uint64_t ino, uint32_t dir)
{
	if (k->w->opt->max_candidates == 0)
		return;
	if (k->limited && (at > k->limit_at || (at == k->limit_at && ino >= k->limit_ino)))
		return;
	if (k->w->opt->after != NULL && (at < k->w->opt->after->atime_ns ||
	    (at == k->w->opt->after->atime_ns && ino <= k->w->opt->after->ino)))
		return;
	cand_set(&k->batch[k->nbatch++], at, ino, dir);
	if (k->nbatch == BATCH) {
		pthread_mutex_lock(&k->w->lock);
		flush(k);
		pthread_mutex_unlock(&k->w->lock);
	}
}

/* Count a data object in its directory's share; returns its atime in ns. */
static uint64_t
account(struct worker *k, const struct stat *sb, struct dcount *c)
{
	struct scan_stats *st = &k->st;
	int64_t s = sb->st_atim.tv_sec;
	uint64_t at = atime_key(&sb->st_atim);
	uint64_t bytes = (uint64_t)sb->st_blocks * 512;
	/* Before 1970 is as old as it gets; in the future, used today. */
	uint64_t day = s < 0 ? SCAN_HIST_DAYS - 1 : (uint64_t)s >= k->w->now_s ? 0 :
	    (k->w->now_s - (uint64_t)s) / 86400;

	st->objects++;
	st->bytes += bytes;
	c->objects++;
	c->bytes += bytes;
	if (day >= SCAN_HIST_DAYS)
		day = SCAN_HIST_DAYS - 1;
	st->hist[day]++;
	c->hist[day]++;
	st->size_hist[scan_size_bucket(bytes)]++;
	/* An atime of 0 (the epoch, or before it) is a value, not "none yet". */
	if (st->objects == 1 || at < st->oldest_ns)
		st->oldest_ns = at;
	if (at > st->newest_ns)
		st->newest_ns = at;
	if (c->objects == 1 || at < c->oldest)
		c->oldest = at;
	if (at > c->newest)
		c->newest = at;
	return at;
}

/* One entry of the chunk's directory cd; its record leaves the name room bytes. */
static void
entry(struct worker *k, struct cdir *cd, const char *name, size_t room, unsigned char type)
{
	enum name_kind kind = names_kind(name);
	struct stat sb;
	uint64_t at;
	int have_stat = 0, fd = cd->fd;
	uint32_t dir = cd->dir;

	cd->c.entries++;
	if (type == DT_UNKNOWN) {
		if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				k->st.vanished++;
			else
				k->st.errors++;
			return;
		}
		have_stat = 1;
		type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISREG(sb.st_mode) ? DT_REG :
		    S_ISLNK(sb.st_mode) ? DT_LNK : DT_FIFO;
	}
	if (type == DT_DIR) {
		/*
		 * No command ever names a directory (the culler enters it,
		 * empty ones go by rmdir): a newline in a volume's name (a
		 * 9p mount source can hold one) must not hide its objects.
		 */
		if (kind != NAME_DIR || strnlen(name, room) >= room) {
			unknown(k, dir, name, "directory");
			return;
		}
		if (cd->d.depth + 1 > NAMES_MAX_DEPTH) {
			k->st.too_deep++;
			note(k, dir, name, "too deep: not entered");
			return;
		}
		/*
		 * Every waiting reader: a signal could wake only a parked one,
		 * which sleeps on (directories are added above the data only:
		 * a few hundred broadcasts a walk).
		 */
		pthread_mutex_lock(&k->w->lock);
		add_dir(k->w, dir, name);
		pthread_cond_broadcast(&k->w->cond);
		pthread_mutex_unlock(&k->w->lock);
		return;
	}
	if (type != DT_REG || kind != NAME_DATA || !cd->d.data_ok) {
		unknown(k, dir, name, type == DT_LNK ? "symlink" :
			type == DT_REG ? "file" : "special");
		return;
	}
	if (kcmd_name_len_in(name, room) == 0) {
		k->st.unsendable++;
		note(k, dir, name, "name no cull command can carry");
		return;
	}
	if (!have_stat && fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			k->st.vanished++;
		else
			k->st.errors++;
		return;
	}
	if (!S_ISREG(sb.st_mode)) {
		unknown(k, dir, name, "not a regular file");
		return;
	}
	at = account(k, &sb, &cd->c);
	offer(k, at, (uint64_t)sb.st_ino, dir);
	/* Likely a victim soon: its name spares the culler a directory read. */
	if (k->w->opt->memo != NULL && at < namememo_below(k->w->opt->memo))
		namememo_add(k->w->opt->memo, dir, (uint64_t)sb.st_ino, name);
}

/*
 * Append the entries of directory who of f's chunk to f, as long as one
 * more read fits in it: 1 when the directory is read to its end, 0 when
 * the fill is full first, -1 on error.
 */
static int
gather(struct fill *f, uint32_t who)
{
	int fd = f->ch->dir[who].fd;

	while (f->used + DENTS_READ <= DENTS_BUF) {
		ssize_t n, off;

		n = getdents64(fd, f->buf + f->used, DENTS_READ);
		if (n < 0)
			return -1;
		if (n == 0)
			return 1;
		for (off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(f->buf + f->used + off);
			struct inoent *e = &f->order[f->nent++];

			e->ino = de->d_ino;
			e->off = (uint32_t)(f->used + (size_t)off);
			e->who = who;
			off += de->d_reclen;
		}
		f->used += (size_t)n;
	}
	return 0;
}

/*
 * Offer the CPU to this worker's reader while it reads a chunk, when the
 * scan's threads and the culler are more than the CPUs.  Both threads run
 * at SCAN_NICE, and at that weight a woken thread does not preempt its
 * peer (on 6.1 the wakeup granularity, scaled by the weight, exceeds the
 * sleeper's credit): the reader, woken by each directory block, waited for
 * the stater's scheduler tick, read one block a tick, and fell behind, so
 * that the stater then waited for it and the CPU idled through the
 * reader's reads (bench/VM-RESULTS.md).  A reader not yet woken leaves
 * sched_yield() nothing to do.
 */
static void
hand_off(struct worker *k)
{
	if (k->piped && k->w->crowded &&
	    atomic_load_explicit(&k->rstate, memory_order_relaxed) == READER_READING)
		sched_yield();
}

/* The reader says what it is doing (hand_off). */
static void
reader_is(struct worker *k, enum reader_state s)
{
	atomic_store_explicit(&k->rstate, s, memory_order_relaxed);
}

/*
 * Stat a fill's entries, in inode order over all the chunk's directories
 * in it: on a cold cache that reads the inode tables in order instead of
 * at random.
 */
static void
stat_gathered(struct worker *k, struct fill *f)
{
	const size_t at = offsetof(struct dirent64, d_name);
	size_t i;

	inosort(f->order, k->order_tmp, f->nent);
	for (i = 0; i < f->nent; i++) {
		const struct inoent *e = &f->order[i];
		struct dirent64 *de = (struct dirent64 *)(f->buf + e->off);
		/* the record's bytes after the name's start, within what was read */
		size_t end = e->off + de->d_reclen < f->used ? e->off + de->d_reclen : f->used;

		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		yield(k->w, &f->ch->stater.yielded);
		entry(k, &f->ch->dir[e->who], de->d_name, end > e->off + at ? end - e->off - at : 0,
		      de->d_type);
		if (i % HANDOFF_EVERY == HANDOFF_EVERY - 1)
			hand_off(k);
	}
}

/* A directory read to the end joins its depth's sample (target.h); lock held. */
static void
sample_dir(struct walk *w, unsigned depth, uint64_t dobj, uint64_t dbytes)
{
	struct dir_sample *s = &w->depth[depth < NAMES_MAX_DEPTH ? depth : NAMES_MAX_DEPTH];

	s->dirs++;
	s->n += (double)dobj;
	s->n2 += (double)dobj * (double)dobj;
	s->b += (double)dbytes;
	s->b2 += (double)dbytes * (double)dbytes;
}

/*
 * Is DIR/cache (rootfd) still at the path the scan was given?  rootfd's
 * own identity is read at the walk's start (scan_run): it cannot change.
 */
static int
root_at_path(const struct walk *w)
{
	return w->root_st.st_nlink != 0 &&
	    name_is(AT_FDCWD, w->opt->empties_root, w->root_st.st_dev, w->root_st.st_ino);
}

/*
 * rmdir names[n - 1] in the directory names[0 .. n - 1) leads to from
 * rootfd; the caller has just checked that rootfd is DIR/cache.
 */
static int
rmdir_below(struct walk *w, char (*names)[NAME_MAX + 1], int n)
{
	int fd, r, saved;

	if ((fd = open_chain(w->r, w->rootfd, names, n - 1, OPEN_DIR)) < 0)
		return -1;
	r = unlinkat(fd, names[n - 1], AT_REMOVEDIR);
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/*
 * Directory dir, below DIR/cache, was read to its end with nothing in it.
 * The kernel leaves a volume's directory and its 256 fan-out directories
 * behind when the volume's objects are gone: 257 inodes a volume, which a
 * cache short of files needs back (0.10.10 removed them as its scans
 * found them).  rmdir takes only an empty directory, and from 5.17 the
 * kernel refuses it (EBUSY) for one it uses.  Its parent is tried next,
 * as the last fan-out gone leaves the volume's empty.  Each is reached
 * from DIR/cache name by name (open_chain: no link, no mount) while
 * DIR/cache is at its path: nothing outside is removed.
 */
static void
remove_empty(struct worker *k, uint32_t dir)
{
	char names[NAMES_MAX_DEPTH + 1][NAME_MAX + 1];
	struct walk *w = k->w;
	uint64_t removed = 0, busy = 0;
	int n;

	pthread_mutex_lock(&w->lock);	/* the table may grow meanwhile */
	n = dir_chain(w->r, dir, names);
	pthread_mutex_unlock(&w->lock);
	/* Once for the directory and its parents: the removals follow at once. */
	if (!root_at_path(w))
		return;
	for (; n >= 1; n--) {
		if (rmdir_below(w, names, n) == 0)
			removed++;
		else {
			busy += errno == EBUSY;
			break;
		}
	}
	if (removed || busy) {
		pthread_mutex_lock(&w->lock);
		w->empties_removed += removed;
		w->empties_busy += busy;
		pthread_mutex_unlock(&w->lock);
	}
}

/* The directory's share joins the walk's, its depth's and its volume's. */
static void
dir_done(struct worker *k, const struct cdir *cd)
{
	struct walk *w = k->w;
	const struct dcount *c = &cd->c;
	size_t i;

	pthread_mutex_lock(&w->lock);
	sample_dir(w, cd->d.depth, c->objects, c->bytes);
	if (c->objects > 0) {
		w->seen += c->objects;
		w->seen_bytes += c->bytes;
		if (w->data_depth == 0)
			w->data_depth = cd->d.depth;
		else if (w->data_depth != cd->d.depth)
			w->mixed = 1;
	}
	if (c->objects > 0 && cd->d.vol != UINT32_MAX) {
		struct scan_vol *v = &w->r->vols[cd->d.vol];

		if (v->objects == 0 || c->oldest < v->oldest_ns)
			v->oldest_ns = c->oldest;
		v->objects += c->objects;
		v->bytes += c->bytes;
		for (i = 0; i < SCAN_HIST_DAYS; i++)
			v->hist[i] += c->hist[i];
		if (c->newest > v->newest_ns)
			v->newest_ns = c->newest;
	}
	pthread_mutex_unlock(&w->lock);
	if (c->entries == 0 && cd->d.depth >= 1 && w->opt->empties_root != NULL)
		remove_empty(k, cd->dir);
	if (w->prog) {
		__atomic_fetch_add(&w->prog->objects, c->objects, __ATOMIC_RELAXED);
		__atomic_fetch_add(&w->prog->dirs, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Open the popped directory dir into chunk ch.  0: opened, or a failure
 * counted (the directory is not read); -1 when the process is out of
 * descriptors and may_defer: the caller puts it back for later.
 */
static int
open_popped(struct worker *k, struct chunk *ch, uint32_t dir, int may_defer)
{
	static __thread char names[NAMES_MAX_DEPTH + 1][NAME_MAX + 1];
	struct walk *w = k->w;
	struct cdir *cd = &ch->dir[ch->n];
	int n;

	pthread_mutex_lock(&w->lock);
	cd->d = w->r->dirs[dir];
	n = dir_chain(w->r, dir, names);
	pthread_mutex_unlock(&w->lock);
	cd->dir = dir;
	memset(&cd->c, 0, sizeof(cd->c));
	if ((cd->fd = open_chain(w->r, w->rootfd, names, n, OPEN_DIR)) >= 0) {
		ch->n++;
		return 0;
	}
	if (may_defer && (errno == EMFILE || errno == ENFILE))
		return -1;
	if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
		k->rst.vanished++;
	else if (errno == EXDEV)
		k->rst.mounts++;
	else
		k->rst.errors++;
	if (errno != ENOENT && errno != EXDEV) {
		pthread_mutex_lock(&w->lock);
		sample(k, dir, "", errno == ELOOP || errno == ENOTDIR ?
		       "not a directory" : strerror(errno));
		pthread_mutex_unlock(&w->lock);
	}
	return 0;
}

/* The reader's side: is a fill handed over not yet stat'ed (its chunk maybe open)? */
static int
pending(struct worker *k)
{
	int n;

	if (!k->piped)
		return 0;
	pthread_mutex_lock(&k->plock);
	n = k->produced != k->consumed;
	pthread_mutex_unlock(&k->plock);
	return n;
}

/* ... and wait until every one is: the chunks before this one are closed. */
static void
drain(struct worker *k)
{
	pthread_mutex_lock(&k->plock);
	while (k->produced != k->consumed)
		pthread_cond_wait(&k->pcond, &k->plock);
	pthread_mutex_unlock(&k->plock);
}

/*
 * Open the n popped directories.  Out of descriptors (the culler keeps
 * many open, victims.c), the chunk ends with those opened so far and the
 * rest go back on their stacks; with none opened, the first is tried
 * again once the chunk before, still being stat'ed, is closed.  Only a
 * directory that cannot be opened alone counts as an error.
 */
static void
open_chunk(struct worker *k, struct chunk *ch, const uint32_t *dirs, size_t n)
{
	struct walk *w = k->w;
	size_t i;

	ch->n = 0;
	for (i = 0; i < n; i++) {
		if (open_popped(k, ch, dirs[i], ch->n > 0 || pending(k)) == 0)
			continue;
		if (ch->n > 0)
			break;
		/* none open yet: alone, once the chunk before is closed */
		drain(k);
		(void)open_popped(k, ch, dirs[i], 0);
	}
	if (i == n)
		return;
	pthread_mutex_lock(&w->lock);
	for (; i < n; i++)
		push_dir(w, dirs[i]);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Is the sample uniform?  Only while every directory left is at the one
 * depth data was found at (the 5.17+ layout: I<vol>/@xx/): the random
 * order within a depth then makes what was seen a uniform sample of data
 * directories.  Data at several depths (the old layout), or directories
 * left below the data's depth, would bias it: no snapshot.  Lock held.
 */
static int
sample_uniform(const struct walk *w)
{
	size_t i;

	if (w->mixed || w->data_depth == 0 || w->data_depth > NAMES_MAX_DEPTH)
		return 0;
	for (i = 0; i <= NAMES_MAX_DEPTH; i++)
		if (i != w->data_depth && w->stacks[i].n > 0)
			return 0;
	return 1;
}

/*
 * Is an early snapshot due?  Not after the last chunk, which the full
 * result follows at once.  Lock held, the chunk just read still counted
 * in busy.
 */
static int
early_due(const struct walk *w)
{
	const struct dir_sample *s;

	if (w->opt->early == NULL || w->early_busy || (w->nstack == 0 && w->busy <= 1) ||
	    w->seen < SCAN_EARLY_MIN || !sample_uniform(w))
		return 0;
	/* A quarter more objects, or a sixteenth of the data directories. */
	s = &w->depth[w->data_depth];
	return w->seen - w->early_last >= w->early_last / 4 ||
	    (s->dirs - w->early_dirs) * 16 >= s->known;
}

/*
 * Copy what the walk has seen into a result of its own and publish it.
 * Called and returns with the lock held; drops it while it sorts.
 */
static void
early_publish(struct worker *k)
{
	struct walk *w = k->w;
	struct scan_early *ea = w->opt->early;
	struct scan_result *src = w->r, *r = xcalloc(1, sizeof(*r));
	struct scan_result *old;

	w->early_busy = 1;
	w->early_last = w->seen;
	w->early_dirs = w->depth[w->data_depth].dirs;
	r->dev = src->dev;
	r->mnt_id = src->mnt_id;
	r->has_mnt_id = src->has_mnt_id;
	r->heap.n = r->heap.cap = src->heap.n;
	r->heap.v = xreallocarray(NULL, src->heap.n ? src->heap.n : 1, sizeof(struct cand));
	memcpy(r->heap.v, src->heap.v, src->heap.n * sizeof(struct cand));
	r->ndirs = r->dirs_cap = src->ndirs;
	r->dirs = xreallocarray(NULL, src->ndirs, sizeof(*r->dirs));
	memcpy(r->dirs, src->dirs, src->ndirs * sizeof(*r->dirs));
	r->arena_len = r->arena_cap = src->arena_len;
	r->arena = xmalloc(src->arena_len ? src->arena_len : 1);
	memcpy(r->arena, src->arena, src->arena_len);
	r->st.objects = w->seen;
	r->st.bytes = w->seen_bytes;
	r->st.start_s = src->st.start_s;
	r->st.partial = 1;
	r->st.sample = w->depth[w->data_depth];
	pthread_mutex_unlock(&w->lock);

	/*
	 * Not sorted here: a snapshot is used for its certainly old part only,
	 * a few per cent of it (scan_sort_oldest), and most snapshots are
	 * replaced by the next before anyone looks.  In the simulator the
	 * whole sorts were most of the user time culling early adds; in the
	 * VM the difference is within noise (bench/VM-RESULTS.md).
	 */
	r->sorted = r->selected = 0;
	pthread_mutex_lock(&ea->lock);
	old = ea->snap;
	ea->snap = r;
	pthread_mutex_unlock(&ea->lock);
	scan_free(old);
	if (ea->notify != NULL)
		ea->notify(ea->arg);

	pthread_mutex_lock(&w->lock);
	w->early_busy = 0;
}

struct scan_result *
scan_kept_new(int rootfd)
{
	struct scan_result *r = xcalloc(1, sizeof(*r));

	if (rootfd >= 0 && fd_mount(rootfd, &r->dev, &r->mnt_id, &r->has_mnt_id) < 0) {
		free(r);
		return NULL;
	}
	heap_init(&r->heap, 0);
	return r;
}

uint32_t
scan_kept_dir(struct scan_result *r, uint32_t parent, const char *name)
{
	struct sdir *d;

	if (r->ndirs == r->dirs_cap) {
		r->dirs_cap = r->dirs_cap ? r->dirs_cap * 2 : 256;
		r->dirs = xreallocarray(r->dirs, r->dirs_cap, sizeof(*r->dirs));
	}
	d = &r->dirs[r->ndirs];
	d->parent = parent;
	d->name_off = arena_add(r, name);
	d->depth = parent == UINT32_MAX ? 0 : r->dirs[parent].depth + 1;
	/* The scanner's rule (add_dir): fan-out and long-key directories below a volume. */
	d->data_ok = d->depth > 1 && (name[0] == '+' || name[0] == '@');
	d->vol = UINT32_MAX;
	return (uint32_t)r->ndirs++;
}

void
scan_kept_cands(struct scan_result *r, struct cand *v, size_t n)
{
	heap_free(&r->heap);
	r->heap.v = v;
	r->heap.n = r->heap.cap = n;
	r->sorted = r->selected = n;
	r->st.partial = 1;
}

void
scan_kept_unseen(struct scan_result *r, uint64_t n)
{
	r->st.unseen_kept = n;
}

void
scan_kept_truncate(struct scan_result *r, size_t n)
{
	struct cand *v;

	if (n >= r->heap.n || n == 0)
		return;
	/* Give the rest back: cull_memory bounds what stays. */
	if ((v = realloc(r->heap.v, n * sizeof(*v))) != NULL)
		r->heap.v = v;
	r->heap.n = r->heap.cap = n;
	r->sorted = r->selected = n;
}

uint32_t
scan_dir_parent(const struct scan_result *r, uint32_t dir)
{
	return dir < r->ndirs ? r->dirs[dir].parent : UINT32_MAX;
}

const char *
scan_dir_name(const struct scan_result *r, uint32_t dir)
{
	return dir < r->ndirs ? r->arena + r->dirs[dir].name_off : NULL;
}

int
scan_dir_data(const struct scan_result *r, uint32_t dir)
{
	return dir < r->ndirs && r->dirs[dir].data_ok;
}

unsigned
scan_dir_depth(const struct scan_result *r, uint32_t dir)
{
	return dir < r->ndirs ? r->dirs[dir].depth : 0;
}

struct scan_result *
scan_early_take(struct scan_early *ea)
{
	struct scan_result *r;

	pthread_mutex_lock(&ea->lock);
	r = ea->snap;
	ea->snap = NULL;
	pthread_mutex_unlock(&ea->lock);
	return r;
}

/* How much of the table holds the n oldest: the known prefix when it does. */
static size_t
holding(const struct scan_result *r, size_t n)
{
	return r->selected >= n ? r->selected : r->heap.n;
}

void
scan_sort_oldest(struct scan_result *r, size_t n)
{
	if (n > r->heap.n)
		n = r->heap.n;
	if (n <= r->sorted)
		return;
	cands_sort_oldest(r->heap.v, holding(r, n), r->sorted, n);
	r->sorted = n;
	if (r->selected < n)
		r->selected = n;
}

const struct cand *
scan_rank_oldest(struct scan_result *r, size_t i)
{
	if (i >= r->heap.n)
		return NULL;
	if (i >= r->sorted) {
		cands_select_rank(r->heap.v, holding(r, i + 1), r->sorted, i);
		if (r->selected < i + 1)
			r->selected = i + 1;
	}
	return &r->heap.v[i];
}

void
scan_keep_oldest(struct scan_result *r, size_t n)
{
	scan_sort_oldest(r, n);
	if (n < r->heap.n)
		r->heap.n = n;
	if (r->sorted > r->heap.n)
		r->sorted = r->heap.n;
	if (r->selected > r->heap.n)
		r->selected = r->heap.n;
}

/*
 * Tell adapt.c where the chunk's time went, both threads' together (lock
 * held); wake the parked if it grew.  Each thread's blocked time is its
 * wall time less its CPU, its wait for a CPU and its sleep in yield().
 */
static void
account_time(struct walk *w, const struct chunk *ch)
{
	const struct spent *a = &ch->reader, *b = &ch->stater;
	uint64_t wall = a->wall + b->wall, exec = a->exec + b->exec, wait = a->wait + b->wait;
	uint64_t other = exec + wait + a->yielded + b->yielded;

	if (adapt_sample(&w->ad, exec, wait, wall > other ? wall - other : 0))
		pthread_cond_broadcast(&w->cond);
}

/* Work for k: a directory left, and k among the workers reading (or none will come). */
static int
must_wait(const struct walk *w, const struct worker *k)
{
	if (cancelled(w))
		return 0;
	if (w->nstack == 0)
		return w->busy > 0;
	return k->index >= w->ad.active;
}

/*
 * How many directories the next chunk takes: up to CHUNK_DIRS of the
 * shallowest depth left, but no more than a fair share of them among the
 * workers reading, so that the last of a depth are not left to one, and
 * no more than a 32nd of that depth's directories, so that an early
 * snapshot (due after each 16th, early_due) still comes in time.  One at
 * a time until the first snapshot may be due: the first cull waits for it.
 * Lock held, a directory left.
 */
static size_t
chunk_size(const struct walk *w)
{
	const struct dstack *s = w->stacks;
	size_t readers = w->ad.active ? w->ad.active : 1, n, step;

	if (w->seen < SCAN_EARLY_MIN)
		return 1;
	while (s->n == 0)
		s++;
	n = (s->n + readers - 1) / readers;
	step = (size_t)w->depth[s - w->stacks].known / 32;
	if (n > step)
		n = step > 0 ? step : 1;
	return n > CHUNK_DIRS ? CHUNK_DIRS : n;
}

/* Pop k's next chunk's directories into dirs; returns how many.  Lock held. */
static size_t
take_chunk(struct walk *w, struct worker *k, uint32_t *dirs)
{
	size_t i, n = chunk_size(w);

	for (i = 0; i < n; i++)
		dirs[i] = pop_dir(w);
	w->busy++;
	if (k->inflight++ == 0 && ++w->reading > w->peak)
		w->peak = w->reading;
	return n;
}

/* The chunk's directories are read and stat'ed: count them, close them. */
static void
close_chunk(struct worker *k, struct chunk *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++) {
		dir_done(k, &ch->dir[i]);
		close(ch->dir[i].fd);
	}
}

/* After the chunk's last fill: its time, its candidates, a snapshot if due. */
static void
chunk_done(struct worker *k, const struct chunk *ch)
{
	struct walk *w = k->w;

	pthread_mutex_lock(&w->lock);
	if (!ch->reader.untimed && !ch->stater.untimed)
		account_time(w, ch);
	flush(k);
	if (early_due(w))
		early_publish(k);
	w->busy--;
	if (--k->inflight == 0)
		w->reading--;
	if (w->nstack == 0 && w->busy == 0)
		pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Stat a fill (the stater's side); after its chunk's last, finish the chunk. */
static void
stat_fill(struct worker *k, struct fill *f)
{
	struct chunk *ch = f->ch;
	struct spent t0;

	span_begin(k->ssfd, &t0);
	stat_gathered(k, f);
	if (f->last)
		close_chunk(k, ch);
	span_end(k->ssfd, &t0, &ch->stater);
	if (f->last)
		chunk_done(k, ch);
}

/* The next fill to read into, once the stater has given one back (the reader's side). */
static struct fill *
fill_get(struct worker *k)
{
	struct fill *f = &k->fills[0];

	if (k->piped) {
		pthread_mutex_lock(&k->plock);
		while (k->produced - k->consumed == ARRAY_SIZE(k->fills))
			pthread_cond_wait(&k->pcond, &k->plock);
		f = &k->fills[k->produced % ARRAY_SIZE(k->fills)];
		pthread_mutex_unlock(&k->plock);
	}
	f->used = f->nent = 0;
	f->last = 0;
	return f;
}

/* Hand a fill to the stater; without a reading thread, stat it now. */
static void
hand_over(struct worker *k, struct fill *f, int last)
{
	f->last = last;
	if (!k->piped) {
		stat_fill(k, f);
		return;
	}
	pthread_mutex_lock(&k->plock);
	k->produced++;
	pthread_cond_signal(&k->pcond);
	pthread_mutex_unlock(&k->plock);
}

/*
 * Pop a chunk, open its directories and read them into fills, handing each
 * over when full and after the last directory.  The fill is taken before
 * the chunk is popped: two chunks at most are then in flight, this one and
 * the one the stater is on (a chunk is finished before its last fill is
 * given back).  0 when no directory is left or the scan is cancelled.
 */
static int
read_next_chunk(struct worker *k)
{
	struct walk *w = k->w;
	struct fill *f = fill_get(k);
	uint32_t dirs[CHUNK_DIRS];
	struct chunk *ch;
	struct spent t0;
	uint64_t slept = 0;	/* between chunks: nobody's time */
	size_t n, i;

	/*
	 * Culls first (scan_opts.yield), but a chunk begun is read to its end:
	 * paused halfway, the reader left its stater nothing to stat when the
	 * culls stopped, and the CPU idle while it read the rest.
	 */
	yield(w, &slept);
	pthread_mutex_lock(&w->lock);
	while (must_wait(w, k))
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->nstack == 0 || cancelled(w)) {
		pthread_mutex_unlock(&w->lock);
		return 0;
	}
	n = take_chunk(w, k, dirs);
	pthread_mutex_unlock(&w->lock);
	reader_is(k, READER_READING);
	ch = &k->chunks[k->nchunks++ % ARRAY_SIZE(k->chunks)];
	memset(&ch->reader, 0, sizeof(ch->reader));
	memset(&ch->stater, 0, sizeof(ch->stater));
	span_begin(k->rssfd, &t0);
	open_chunk(k, ch, dirs, n);
	f->ch = ch;
	for (i = 0; i < ch->n && !cancelled(w); i++) {
		int r;

		/* full: stat'ed while the rest of the directory goes into the other */
		while ((r = gather(f, (uint32_t)i)) == 0 && !cancelled(w)) {
			span_end(k->rssfd, &t0, &ch->reader);
			hand_over(k, f, 0);
			f = fill_get(k);
			f->ch = ch;
			span_begin(k->rssfd, &t0);
		}
		if (r < 0)
			k->rst.errors++;
	}
	span_end(k->rssfd, &t0, &ch->reader);
	reader_is(k, READER_PARKED);
	hand_over(k, f, 1);
	return 1;
}

static void *
reader_main(void *arg)
{
	struct worker *k = arg;

	k->rssfd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	while (read_next_chunk(k))
		;
	pthread_mutex_lock(&k->plock);
	k->ended = 1;
	pthread_cond_signal(&k->pcond);
	pthread_mutex_unlock(&k->plock);
	if (k->rssfd >= 0)
		close(k->rssfd);
	return NULL;
}

/* The stater's loop: each fill handed over, in turn, until the reader ends. */
static void
stat_fills(struct worker *k)
{
	for (;;) {
		struct fill *f;

		pthread_mutex_lock(&k->plock);
		while (k->consumed == k->produced && !k->ended)
			pthread_cond_wait(&k->pcond, &k->plock);
		if (k->consumed == k->produced) {
			pthread_mutex_unlock(&k->plock);
			return;
		}
		f = &k->fills[k->consumed % ARRAY_SIZE(k->fills)];
		pthread_mutex_unlock(&k->plock);
		stat_fill(k, f);
		pthread_mutex_lock(&k->plock);
		k->consumed++;
		pthread_cond_signal(&k->pcond);
		pthread_mutex_unlock(&k->plock);
	}
}

static void *
worker_main(void *arg)
{
	struct worker *k = arg;
	struct walk *w = k->w;

	/* thread-self: this thread's own numbers (adapt.h); -1 where there are none */
	k->ssfd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	/* set before the reader starts, which reads it; no reader, no race */
	k->piped = 1;
	if (pthread_create(&k->reader, NULL, reader_main, k) != 0)
		k->piped = 0;
	if (k->piped) {
		stat_fills(k);
		pthread_join(k->reader, NULL);
	} else {
		k->rssfd = k->ssfd;
		while (read_next_chunk(k))
			;
	}
	pthread_mutex_lock(&w->lock);
	flush(k);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (k->ssfd >= 0)
		close(k->ssfd);
	return NULL;
}

unsigned
scan_usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	return (unsigned)CPU_COUNT(&set);
}

/* Whether the kernel tells a thread's CPU and queueing time (adapt.h). */
static int
schedstat_readable(void)
{
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	char buf[96];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf), 0) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0;
}

static void
merge_stats(struct scan_stats *dst, const struct scan_stats *src)
{
	size_t i;

	if (src->objects && (!dst->objects || src->oldest_ns < dst->oldest_ns))
		dst->oldest_ns = src->oldest_ns;
	dst->objects += src->objects;
	dst->bytes += src->bytes;
	dst->unknown += src->unknown;
	dst->unsendable += src->unsendable;
	dst->vanished += src->vanished;
	dst->errors += src->errors;
	dst->mounts += src->mounts;
	dst->too_deep += src->too_deep;
	if (src->newest_ns > dst->newest_ns)
		dst->newest_ns = src->newest_ns;
	for (i = 0; i < SCAN_HIST_DAYS; i++)
		dst->hist[i] += src->hist[i];
	for (i = 0; i < SCAN_SIZE_BUCKETS; i++)
		dst->size_hist[i] += src->size_hist[i];
}

static void
worker_init(struct worker *k, struct walk *w, unsigned index)
{
	size_t i;

	k->index = index;
	k->w = w;
	k->order_tmp = xreallocarray(NULL, DENTS_MAX, sizeof(*k->order_tmp));
	for (i = 0; i < ARRAY_SIZE(k->fills); i++) {
		k->fills[i].buf = xmalloc(DENTS_BUF);
		k->fills[i].order = xreallocarray(NULL, DENTS_MAX, sizeof(*k->fills[i].order));
	}
	pthread_mutex_init(&k->plock, NULL);
	pthread_cond_init(&k->pcond, NULL);
}

static void
worker_free(struct worker *k)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(k->fills); i++) {
		free(k->fills[i].buf);
		free(k->fills[i].order);
	}
	free(k->order_tmp);
	pthread_cond_destroy(&k->pcond);
	pthread_mutex_destroy(&k->plock);
}

static struct scan_result *
result_new(int rootfd, size_t max_candidates)
{
	struct scan_result *r = xcalloc(1, sizeof(*r));

	if (fd_mount(rootfd, &r->dev, &r->mnt_id, &r->has_mnt_id) < 0) {
		free(r);
		return NULL;
	}
	r->st.mount_id_unknown = !r->has_mnt_id;
	heap_init(&r->heap, max_candidates);
	return r;
}

struct scan_result *
scan_run(int rootfd, const struct scan_opts *opt, struct scan_progress *prog)
{
	struct walk w;
	struct worker *ks;
	unsigned nk = opt->threads ? opt->threads : 1, i, started = 0, cpus;
	uint64_t t0 = now_ms();
	struct scan_result *r = result_new(rootfd, opt->max_candidates);

	if (r == NULL)
		return NULL;
	memset(&w, 0, sizeof(w));
	w.r = r;
	w.rootfd = rootfd;
	w.opt = opt;
	w.prog = prog;
	if (opt->empties_root != NULL && fstat(rootfd, &w.root_st) < 0)
		w.root_st.st_nlink = 0;	/* no empty directory is removed */
	w.now_s = (uint64_t)time(NULL);
	w.rng = opt->seed ? opt->seed : (mono_ns() ^ (uint64_t)getpid() << 32) | 1;
	r->st.start_s = w.now_s;
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	add_dir(&w, UINT32_MAX, "");
	r->st.dirs = 0;		/* the root is not counted */
	cpus = opt->cpus ? opt->cpus : scan_usable_cpus();
	w.crowded = cpus < 2 * nk + 1;
	adapt_init(&w.ad, nk, cpus, schedstat_readable());

	ks = xcalloc(nk, sizeof(*ks));
	for (i = 0; i < nk; i++)
		worker_init(&ks[i], &w, i);
	/* Helpers first; the calling thread is worker 0. */
	for (i = 1; i < nk; i++)
		if (pthread_create(&ks[i].tid, NULL, worker_main, &ks[i]) == 0)
			started = i;
		else
			break;
	if (started + 1 < nk) {
		/* Fewer workers than asked for: never wait for one that is not there. */
		pthread_mutex_lock(&w.lock);
		adapt_init(&w.ad, started + 1, 0, 0);
		pthread_mutex_unlock(&w.lock);
	}
	worker_main(&ks[0]);
	for (i = 1; i <= started; i++)
		pthread_join(ks[i].tid, NULL);
	for (i = 0; i < nk; i++) {
		merge_stats(&r->st, &ks[i].st);
		merge_stats(&r->st, &ks[i].rst);
		worker_free(&ks[i]);
	}
	free(ks);
	for (i = 0; i <= NAMES_MAX_DEPTH; i++)
		free(w.stacks[i].v);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	r->st.cancelled = cancelled(&w);
	r->st.threads_peak = w.peak;
	r->st.empties_removed = w.empties_removed;
	r->st.empties_busy = w.empties_busy;
	heap_sort_oldest_first(&r->heap);
	r->sorted = r->selected = r->heap.n;
	r->st.ms = now_ms() - t0;
	return r;
}

void
scan_free(struct scan_result *r)
{
	if (r == NULL)
		return;
	heap_free(&r->heap);
	free(r->dirs);
	free(r->arena);
	free(r->vols);
	free(r);
}

const struct scan_stats *
scan_stats(const struct scan_result *r)
{
	return &r->st;
}

uint64_t
scan_unseen(const struct scan_stats *st)
{
	/* No mount identity: the walk entered no directory, so it saw nothing. */
	return st->errors + st->too_deep + st->unsendable + (st->mount_id_unknown ? 1 : 0) +
	    st->unseen_kept;
}

size_t
scan_nvols(const struct scan_result *r)
{
	return r->nvols;
}

const struct scan_vol *
scan_vol(const struct scan_result *r, size_t i)
{
	return i < r->nvols ? &r->vols[i] : NULL;
}

size_t
scan_ncand(const struct scan_result *r)
{
	return r->heap.n;
}

struct cand *
scan_cands(struct scan_result *r)
{
	return r->heap.v;
}

size_t
scan_ndirs(const struct scan_result *r)
{
	return r->ndirs;
}

unsigned
scan_size_bucket(uint64_t bytes)
{
	uint64_t pages = (bytes - 1) >> 12;	/* 4 KiB units, less one */
	unsigned b;

	if (bytes == 0)
		return 0;
	b = pages == 0 ? 1 : 1 + (unsigned)(64 - __builtin_clzll(pages));
	return b < SCAN_SIZE_BUCKETS ? b : SCAN_SIZE_BUCKETS - 1;
}

uint64_t
scan_size_bucket_max(unsigned bucket)
{
	if (bucket == 0)
		return 0;
	if (bucket >= SCAN_SIZE_BUCKETS - 1)
		return UINT64_MAX;
	return 4096ull << (bucket - 1);
}

size_t
scan_table_bytes(const struct scan_result *r)
{
	return r->heap.cap * sizeof(struct cand) + r->dirs_cap * sizeof(struct sdir) +
	    r->arena_cap + r->vols_cap * sizeof(struct scan_vol) + sizeof(*r);
}
