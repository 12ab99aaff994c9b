/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heap.h: the candidate table, a bounded max-heap of compact records.
 *
 * A record is 20 bytes: access time in nanoseconds, inode number and the
 * index of the directory that holds the object in the scan's directory
 * table.  Names are not kept: the culler maps inode numbers back to names by
 * reading the directory again (see victims.h), which keeps the table well
 * under 32 bytes a candidate whatever the length of the cache's names.
 *
 * The root is the youngest of the oldest objects seen, so an object newer
 * than the root is rejected with one comparison; after the scan the table
 * is sorted oldest first in place.
 */
#ifndef CFD_HEAP_H
#define CFD_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* 32-bit halves keep the alignment at 4, so an array has no padding. */
struct cand {
	uint32_t at_lo, at_hi;		/* atime, ns since the epoch */
	uint32_t ino_lo, ino_hi;
	uint32_t dir;			/* index in the scan's directory table */
};

static inline uint64_t
cand_atime(const struct cand *c)
{
	return (uint64_t)c->at_hi << 32 | c->at_lo;
}

static inline uint64_t
cand_ino(const struct cand *c)
{
	return (uint64_t)c->ino_hi << 32 | c->ino_lo;
}

static inline void
cand_set(struct cand *c, uint64_t atime_ns, uint64_t ino, uint32_t dir)
{
	c->at_lo = (uint32_t)atime_ns;
	c->at_hi = (uint32_t)(atime_ns >> 32);
	c->ino_lo = (uint32_t)ino;
	c->ino_hi = (uint32_t)(ino >> 32);
	c->dir = dir;
}

struct heap {
	struct cand *v;
	size_t n, cap;
};

/* cap == 0 makes a heap that keeps nothing. */
void heap_init(struct heap *h, size_t cap);
void heap_free(struct heap *h);
/* Keep c if it is among the cap oldest seen so far; returns 1 if kept. */
int heap_offer(struct heap *h, const struct cand *c);
/* Would c be kept?  (Cheap pre-check, no change.) */
int heap_wants(const struct heap *h, uint64_t atime_ns, uint64_t ino);
/* Sort the records oldest first (any order in, not only a heap). */
void heap_sort_oldest_first(struct heap *h);
/* Only the k oldest to the front, sorted; the rest after them in no order. */
void heap_sort_oldest(struct heap *h, size_t k);
/*
 * The same over v[0..within), known to hold the k oldest of a larger array,
 * whose from oldest are already at its front in order (left alone).
 */
void cands_sort_oldest(struct cand *v, size_t within, size_t from, size_t k);
/*
 * The record of rank i (0: the oldest) of v[0..within) to v[i], the i older
 * ones before it in no order, without sorting them: what a cut-off needs.
 * v[0..from) as above; nothing happens when i < from or i >= within.
 */
void cands_select_rank(struct cand *v, size_t within, size_t from, size_t i);
/*
 * Order used everywhere: atime, then inode number (then the directory, so
 * that no two records tie).  <0, 0, >0.  Inline: the sorts and the heap
 * call it tens of millions of times a scan, and a call cost them about a
 * quarter of their instructions.
 */
static inline int
cand_cmp(const struct cand *a, const struct cand *b)
{
	uint64_t x = cand_atime(a), y = cand_atime(b);

	if (x != y)
		return x < y ? -1 : 1;
	x = cand_ino(a);
	y = cand_ino(b);
	if (x != y)
		return x < y ? -1 : 1;
	return a->dir < b->dir ? -1 : a->dir > b->dir;
}

/* What names an object culled: its atime then and its inode number. */
struct cand_key {
	uint64_t atime_ns, ino;
};
/*
 * Take out of v[0..n), sorted oldest first, every record whose atime and
 * inode number are among keys[0..nkeys), which are sorted here unless
 * they already are (culls come oldest first, mostly); the rest keep their
 * order.  Returns how many are left.
 */
size_t cands_drop_keys(struct cand *v, size_t n, struct cand_key *keys, size_t nkeys);

#endif
