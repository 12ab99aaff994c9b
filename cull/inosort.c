// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inosort.c: least-significant-byte-first radix sort of (inode, offset)
 * records.  One read of the keys finds the bytes that differ somewhere
 * (OR and AND of all keys), a second counts those bytes' histograms; then
 * each costs one stable scatter pass between v and tmp.  A
 * fan-out directory's inode numbers usually vary in two or three bytes.
 */
#include "cull/inosort.h"

#include <string.h>

#define SMALL 32		/* below this, insertion sort is cheaper */

static void
insertion(struct inoent *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct inoent e = v[i];
		for (j = i; j > 0 && v[j - 1].ino > e.ino; j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

void
inosort(struct inoent *v, struct inoent *tmp, size_t n)
{
	uint32_t count[8][256];		/* n < 2^32: one buffer of entries */
	uint64_t all_or = 0, all_and = UINT64_MAX, diff;
	struct inoent *src = v, *dst = tmp, *t;
	unsigned shift[8], nb = 0, b, d;
	size_t i;

	if (n < SMALL) {
		insertion(v, n);
		return;
	}
	for (i = 0; i < n; i++) {
		all_or |= v[i].ino;
		all_and &= v[i].ino;
	}
	diff = all_or ^ all_and;	/* the bits that are not the same in every key */
	for (b = 0; b < 8; b++)
		if ((diff >> (8 * b)) & 0xff)
			shift[nb++] = 8 * b;
	memset(count, 0, nb * sizeof(count[0]));
	for (i = 0; i < n; i++)
		for (b = 0; b < nb; b++)
			count[b][(v[i].ino >> shift[b]) & 0xff]++;
	for (b = 0; b < nb; b++) {
		uint32_t sum = 0, c;

		for (d = 0; d < 256; d++) {
			c = count[b][d];
			count[b][d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[b][(src[i].ino >> shift[b]) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}
