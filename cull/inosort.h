/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inosort.h: a directory's entries in inode order, in linear time.
 *
 * The scan stats each directory's entries in inode order so that a cold
 * cache reads its inode tables in order.  A comparison sort through qsort()
 * cost about 40 % of the scan's user instructions (an indirect call and an
 * unpredictable branch per comparison); the inode numbers of one
 * directory's entries differ in a few low bytes only, which a radix sort
 * passes over once each and skips the rest.
 */
#ifndef CFD_INOSORT_H
#define CFD_INOSORT_H

#include <stddef.h>
#include <stdint.h>

struct inoent {
	uint64_t ino;
	uint32_t off;			/* the caller's: where the entry is */
};

/*
 * Sort v[0..n) by ino, ascending; tmp holds n records of scratch, and n is
 * below 2^32.  Stable: equal inode numbers keep their order.
 */
void inosort(struct inoent *v, struct inoent *tmp, size_t n);

#endif
