// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * heap.c: bounded max-heap of candidates, and the sorts and selections
 * over candidate arrays.  Offering an object costs one comparison when it
 * is younger than the root (the common case once the heap is full) and
 * O(log cap) otherwise, without moving the array.
 */
#include "cull/heap.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void
heap_init(struct heap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap;
	h->v = cap ? xreallocarray(NULL, cap, sizeof(*h->v)) : NULL;
}

void
heap_free(struct heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

static void
sift_up(struct cand *v, size_t i)
{
	struct cand c = v[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (cand_cmp(&v[p], &c) >= 0)
			break;
		v[i] = v[p];
		i = p;
	}
	v[i] = c;
}

/*
 * The root gives way to c, for the first n records.  An offer's c is
 * older than the root it replaces and mostly belongs near the leaves,
 * where most of a heap is: rather than sift c down with two comparisons a
 * level, the hole goes down the younger child all the way (one a level)
 * and c climbs back the few levels it has to (bottom-up replacement).
 * About half the comparisons, in the scan's busiest loop once the table
 * is full.  Any c finds its place: it climbs as far as the root.
 */
static void
replace_root(struct cand *v, size_t n, const struct cand *c)
{
	size_t i = 0, l;

	while ((l = 2 * i + 1) < n) {
		if (l + 1 < n && cand_cmp(&v[l + 1], &v[l]) > 0)
			l++;
		v[i] = v[l];
		i = l;
	}
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (cand_cmp(&v[p], c) >= 0)
			break;
		v[i] = v[p];
		i = p;
	}
	v[i] = *c;
}

int
heap_wants(const struct heap *h, uint64_t atime_ns, uint64_t ino)
{
	const struct cand *r;

	if (h->n < h->cap)
		return 1;
	if (h->cap == 0)
		return 0;
	r = &h->v[0];
	return atime_ns < cand_atime(r) ||
	    (atime_ns == cand_atime(r) && ino < cand_ino(r));
}

int
heap_offer(struct heap *h, const struct cand *c)
{
	if (h->n < h->cap) {
		h->v[h->n] = *c;
		sift_up(h->v, h->n++);
		return 1;
	}
	if (h->cap == 0 || cand_cmp(c, &h->v[0]) >= 0)
		return 0;
	replace_root(h->v, h->n, c);
	return 1;
}

static void
swap(struct cand *a, struct cand *b)
{
	struct cand t = *a;

	*a = *b;
	*b = t;
}

static void
insertion_sort(struct cand *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct cand c = v[i];
		for (j = i; j > 0 && cand_cmp(&v[j - 1], &c) > 0; j--)
			v[j] = v[j - 1];
		v[j] = c;
	}
}

/*
 * Heapsort: the fallback when quicksort partitions badly.  Built by
 * insertions and taken apart by root replacements, the two moves the
 * bounded heap itself makes, which every offer tests.
 */
static void
heap_sort(struct cand *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		sift_up(v, i);
	while (n > 1) {
		struct cand last = v[n - 1];

		v[n - 1] = v[0];
		replace_root(v, --n, &last);
	}
}

/*
 * One quicksort partition of v[0..n), n > 16, around the median of three:
 * returns where the pivot ends; everything before it is no younger, and
 * everything after it no older.
 */
static size_t
partition(struct cand *v, size_t n)
{
	size_t m = n / 2, i, j;

	if (cand_cmp(&v[m], &v[0]) < 0)
		swap(&v[m], &v[0]);
	if (cand_cmp(&v[n - 1], &v[0]) < 0)
		swap(&v[n - 1], &v[0]);
	if (cand_cmp(&v[n - 1], &v[m]) < 0)
		swap(&v[n - 1], &v[m]);
	/* Pivot (the median) to n - 2; v[0] <= pivot <= v[n - 1]. */
	swap(&v[m], &v[n - 2]);
	for (i = 0, j = n - 2;;) {
		while (cand_cmp(&v[++i], &v[n - 2]) < 0)
			;
		while (cand_cmp(&v[--j], &v[n - 2]) > 0)
			;
		if (i >= j)
			break;
		swap(&v[i], &v[j]);
	}
	swap(&v[i], &v[n - 2]);
	return i;
}

/*
 * Introsort: quicksort with a median of three, insertion sort for small
 * ranges and heapsort past a depth limit.  Quicksort walks memory in
 * order, which matters for millions of records: a plain heapsort of a
 * million candidates spends seconds in cache misses.
 */
static void
intro_sort(struct cand *v, size_t n, unsigned depth)
{
	while (n > 16) {
		size_t i;

		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		i = partition(v, n);
		/* Recurse into the smaller side, loop on the larger. */
		if (i < n - i - 1) {
			intro_sort(v, i, depth);
			v += i + 1;
			n -= i + 1;
		} else {
			intro_sort(v + i + 1, n - i - 1, depth);
			n = i;
		}
	}
	insertion_sort(v, n);
}

/*
 * Quickselect: the k oldest of v[0..n) to v[0..k), in no order.  Only the
 * side holding the k-th record is partitioned again, so this costs about
 * 2n comparisons where a sort costs n log n; past the depth limit the rest
 * is sorted whole.
 */
static void
select_oldest(struct cand *v, size_t n, size_t k, unsigned depth)
{
	while (n > 16) {
		size_t i;

		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		i = partition(v, n);
		if (k <= i) {
			n = i;
		} else if (k > i + 1) {
			v += i + 1;
			n -= i + 1;
			k -= i + 1;
		} else {
			return;
		}
	}
	insertion_sort(v, n);
}

/* Twice the depth of a balanced split of n: past it, quicksort is going badly. */
static unsigned
depth_limit(size_t n)
{
	unsigned depth = 0;

	for (; n > 1; n >>= 1)
		depth += 2;
	return depth;
}

void
cands_sort_oldest(struct cand *v, size_t within, size_t from, size_t k)
{
	if (k > within)
		k = within;
	if (k <= from)
		return;
	v += from;
	within -= from;
	k -= from;
	if (k < within)
		select_oldest(v, within, k, depth_limit(within));
	intro_sort(v, k, depth_limit(k));
}

void
cands_select_rank(struct cand *v, size_t within, size_t from, size_t i)
{
	if (i < from || i >= within)
		return;
	/* select_oldest leaves the k-th oldest at k - 1: partitions put a pivot there. */
	select_oldest(v + from, within - from, i - from + 1, depth_limit(within - from));
}

void
heap_sort_oldest(struct heap *h, size_t k)
{
	cands_sort_oldest(h->v, h->n, 0, k);
}

void
heap_sort_oldest_first(struct heap *h)
{
	heap_sort_oldest(h, h->n);
}

static int
key_cmp(const struct cand_key *x, const struct cand_key *y)
{
	if (x->atime_ns != y->atime_ns)
		return x->atime_ns < y->atime_ns ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int
key_qcmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static int
keys_sorted(const struct cand_key *k, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (key_cmp(&k[i - 1], &k[i]) > 0)
			return 0;
	return 1;
}

/*
 * One merge of the two sorted lists over the records no younger than the
 * last key, then the rest moved down whole: no search per record.
 */
size_t
cands_drop_keys(struct cand *v, size_t n, struct cand_key *keys, size_t nkeys)
{
	size_t i, j = 0, k = 0;

	if (nkeys == 0)
		return n;
	if (!keys_sorted(keys, nkeys))
		qsort(keys, nkeys, sizeof(*keys), key_qcmp);
	for (i = 0; i < n && j < nkeys; i++) {
		struct cand_key c = { cand_atime(&v[i]), cand_ino(&v[i]) };

		while (j < nkeys && key_cmp(&keys[j], &c) < 0)
			j++;
		if (j < nkeys && key_cmp(&keys[j], &c) == 0)
			continue;
		v[k++] = v[i];
	}
	if (k < i)
		memmove(&v[k], &v[i], (n - i) * sizeof(*v));
	return k + n - i;
}
