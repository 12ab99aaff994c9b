/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.h: walk a cache tree into candidates and statistics, without the
 * kernel.  This is the library the daemon's engine and the companion
 * culling tool share.
 *
 * The walk starts at a descriptor of DIR/cache and uses only *at() calls
 * relative to directory descriptors (openat with O_NOFOLLOW|O_DIRECTORY,
 * getdents64, fstatat with AT_SYMLINK_NOFOLLOW): it never follows a symbolic
 * link, never changes the working directory and never crosses into another
 * mount.  Only regular files named D, E, S or T inside a fan-out ('@') or
 * long-key ('+') directory are candidates (both on-disk layouts); anything
 * else is counted as unknown and left alone.  Directories are spread over
 * opt->threads workers, which matters for cold metadata caches; each worker
 * reads its next directories while it stats the objects of those it read
 * last (a second thread), so that the directory reads' waits on the disk
 * overlap its stat() work.
 */
#ifndef CFD_SCAN_H
#define CFD_SCAN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cull/heap.h"
#include "cull/target.h"

#define SCAN_HIST_DAYS 128	/* atime histogram: days before the scan; last = older */
#define SCAN_SIZE_BUCKETS 24	/* allocated size: 0, <= 4 KiB << (i - 1); last = larger */
#define SCAN_SAMPLES 8		/* unknown entries remembered by path */
#define SCAN_SAMPLE_LEN 256

/*
 * Early snapshots, for culling before the scan ends.  Directories above the
 * data are read first, then the data directories in a random order (seeded
 * by scan_opts.seed), so the objects seen after any number of directories
 * are a uniform sample of directories.  When opt->early is set, at
 * checkpoints (SCAN_EARLY_MIN objects seen, then each time a quarter more)
 * a worker copies the candidates seen so far, with the directory table, into
 * a result of their own, in no order (the taker sorts the part it uses:
 * scan_sort_oldest), its stats holding only the
 * objects and bytes of the directories read to the end and those
 * directories as a sample of the data directories (partial = 1).  Late in
 * the walk, a snapshot also follows each sixteenth of the data directories,
 * so that the last is taken near the end.  It
 * replaces the snapshot not yet taken under lock, then calls notify(arg)
 * from the worker's thread.  Nothing is published once the last
 * directories are read: the full result follows.  Nor while the sample may be biased:
 * data found at more than one depth (the pre-5.17 layout), or directories
 * left at another depth than the data's.
 */
#define SCAN_EARLY_MIN 256

struct scan_early {
	pthread_mutex_t lock;
	struct scan_result *snap;	/* under lock; taken by scan_early_take */
	void (*notify)(void *arg);
	void *arg;
};

struct scan_opts {
	size_t max_candidates;		/* heap size; 0 = statistics only */
	unsigned threads;		/* workers at most, >= 1 (adapt.h: how many work) */
	unsigned cpus;			/* CPUs to start with; 0: those it may run on */
	const atomic_int *cancel;	/* stop early when *cancel becomes non-zero */
	/*
	 * While *yield is non-zero the workers wait (polling every 2 ms)
	 * before their next chunk of directories and their next entry:
	 * someone else needs the disk first.  NULL: never.
	 */
	const atomic_int *yield;
	uint64_t seed;			/* directory order; 0: from the clock */
	struct scan_early *early;	/* NULL: no early snapshots */
	/*
	 * NULL, or where the workers leave the names of the data objects
	 * older than namememo_below(memo) as they stat them (namememo.h).
	 */
	struct namememo *memo;
	/*
	 * NULL, or only objects after this key (atime, then inode number) are
	 * candidates: a pass that goes on where a full table of the last one
	 * ended (cachefiles-cull trim).  A second name of the last inode (a
	 * hard link, which the kernel never makes in a cache) is not offered
	 * again.
	 */
	const struct cand_key *after;
	/*
	 * NULL, or the path of DIR/cache (rootfd), and then the directories
	 * below it found empty are removed as the scan reads them
	 * (rmdir, so only while empty; the caller sets it only on kernels
	 * that refuse to let a directory they use go: 5.17 on): the daemon's
	 * scans, never the tool's views.
	 */
	const char *empties_root;
};

/* Updated while the scan runs (relaxed atomics): read from any thread. */
struct scan_progress {
	uint64_t objects, dirs;
};

struct scan_vol {
	uint32_t dir;			/* its entry in the directory table */
	uint64_t objects, bytes;
	uint64_t oldest_ns, newest_ns;	/* atime range of its data objects */
	uint64_t hist[SCAN_HIST_DAYS];	/* as scan_stats.hist, this volume only */
};

struct scan_stats {
	uint64_t objects, bytes;	/* data objects; bytes allocated (st_blocks) */
	uint64_t dirs;
	uint64_t unknown;		/* entries we do not understand: left alone */
	uint64_t unsendable;		/* data names that no cull command can carry */
	uint64_t vanished;		/* disappeared while we looked */
	uint64_t errors;		/* unreadable directories, failed stats */
	uint64_t mounts;		/* other mounts inside the tree, not entered */
	uint64_t too_deep;
	uint64_t empties_removed;	/* empty directories removed (empties_root) */
	uint64_t empties_busy;		/* refused by the kernel (EBUSY): in use */
	int mount_id_unknown;		/* no mount identity here: no directory entered */
	uint64_t unseen_kept;		/* a kept table: what its walk could not look at */
	uint64_t oldest_ns, newest_ns;	/* atime range of data objects */
	uint64_t hist[SCAN_HIST_DAYS];
	uint64_t size_hist[SCAN_SIZE_BUCKETS];	/* by scan_size_bucket() */
	unsigned threads_peak;		/* the most workers reading at once (adapt.h) */
	uint64_t start_s;		/* wall clock at start */
	uint64_t ms;			/* duration */
	int cancelled;
	int partial;			/* an early snapshot (see scan_early) */
	struct dir_sample sample;	/* an early snapshot's data directories */
	unsigned nsamples;
	char samples[SCAN_SAMPLES][SCAN_SAMPLE_LEN];
};

struct scan_result;
struct namememo;

/* rootfd: descriptor of DIR/cache.  NULL only on allocation/thread failure. */
/* The CPUs this process may run on; 0 when unknown. */
unsigned scan_usable_cpus(void);

struct scan_result *scan_run(int rootfd, const struct scan_opts *opt,
			     struct scan_progress *prog);
void scan_free(struct scan_result *r);

const struct scan_stats *scan_stats(const struct scan_result *r);
/*
 * Entries a walk could not look at (unreadable, too deep, unsendable; all
 * of them when it had no mount identity and entered no directory): any of
 * them may be past an age goal, which is then not met.
 */
uint64_t scan_unseen(const struct scan_stats *st);
size_t scan_nvols(const struct scan_result *r);
const struct scan_vol *scan_vol(const struct scan_result *r, size_t i);

/* The latest early snapshot, or NULL; the caller frees it. */
struct scan_result *scan_early_take(struct scan_early *ea);
/*
 * The n oldest candidates of a result to its front, sorted oldest first;
 * the others after them in no order.  A finished scan's result, or one
 * built from kept state, is sorted whole already.
 */
void scan_sort_oldest(struct scan_result *r, size_t n);
/*
 * The candidate of rank i (0: the oldest), or NULL past the last: it goes
 * to place i and the i older ones before it, not sorted (a cut-off's
 * atime costs a selection, not a sort).  Valid until the table changes.
 */
const struct cand *scan_rank_oldest(struct scan_result *r, size_t i);
/* Keep only the n oldest candidates of a result, sorted oldest first. */
void scan_keep_oldest(struct scan_result *r, size_t n);

/*
 * A result built from kept state (cull/state.h) rather than a walk: the
 * mount identity of rootfd (none when rootfd < 0: no directory opens),
 * then directories, each after its parent (the root first, parent
 * UINT32_MAX, name ""), then the candidates, sorted oldest first, whose
 * array (xmalloc'ed) it takes.  The caller checks every value first.
 */
struct scan_result *scan_kept_new(int rootfd);
uint32_t scan_kept_dir(struct scan_result *r, uint32_t parent, const char *name);
void scan_kept_cands(struct scan_result *r, struct cand *v, size_t n);
void scan_kept_unseen(struct scan_result *r, uint64_t n);
/* Keep the n oldest candidates of a result built from kept state (n <= its count). */
void scan_kept_truncate(struct scan_result *r, size_t n);
/* The directory table, entry by entry: UINT32_MAX / NULL / 0 out of range. */
uint32_t scan_dir_parent(const struct scan_result *r, uint32_t dir);
const char *scan_dir_name(const struct scan_result *r, uint32_t dir);
int scan_dir_data(const struct scan_result *r, uint32_t dir);	/* objects may live here */
unsigned scan_dir_depth(const struct scan_result *r, uint32_t dir);

/* Candidates, oldest first (atime, then inode). */
size_t scan_ncand(const struct scan_result *r);
struct cand *scan_cands(struct scan_result *r);

/* The directory table: path relative to DIR/cache ("" for the root). */
size_t scan_ndirs(const struct scan_result *r);
int scan_dir_path(const struct scan_result *r, uint32_t dir, char *buf, size_t len);
/*
 * Open directory dir again beneath rootfd, component by component with
 * O_NOFOLLOW, and check that it is on the scanned mount.  Returns an
 * O_RDONLY|O_DIRECTORY descriptor or -1 with errno set (EXDEV: a mount).
 */
int scan_open_dir(const struct scan_result *r, int rootfd, uint32_t dir);
/* The identity of what dir resolves to now, resolved as above: 0, or -1 with errno. */
int scan_dir_ident(const struct scan_result *r, int rootfd, uint32_t dir, dev_t *dev,
		   ino_t *ino);

/* Bucket of the size histogram for an allocated size, and the bucket's upper bound. */
unsigned scan_size_bucket(uint64_t bytes);
uint64_t scan_size_bucket_max(unsigned bucket);	/* UINT64_MAX for the last */

/* Bytes the result holds: candidate array, directory table, names, volumes. */
size_t scan_table_bytes(const struct scan_result *r);

#endif
