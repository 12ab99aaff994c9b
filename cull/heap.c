// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * heap.c: bounded max-heap of candidates.  Offering an object costs one
 * comparison when it is younger than the root (the common case once the
 * heap is full) and O(log cap) otherwise; there is no memmove anywhere.
 */
#include "heap.h"
#include "util.h"

#include <stdlib.h>

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

int
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

/* Restore the max-heap property below i, for the first n records. */
static void
sift_down(struct cand *v, size_t n, size_t i)
{
	struct cand c = v[i];

	for (;;) {
		size_t l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = l;
		if (l + 1 < n && cand_cmp(&v[l + 1], &v[l]) > 0)
			m = l + 1;
		if (cand_cmp(&v[m], &c) <= 0)
			break;
		v[i] = v[m];
		i = m;
	}
	v[i] = c;
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
	h->v[0] = *c;
	sift_down(h->v, h->n, 0);
	return 1;
}

void
heap_sort_oldest_first(struct heap *h)
{
	size_t n = h->n;

	/* Heapsort: move the largest to the end, repeatedly. */
	while (n > 1) {
		struct cand t = h->v[0];
		h->v[0] = h->v[n - 1];
		h->v[n - 1] = t;
		n--;
		sift_down(h->v, n, 0);
	}
}
