/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inosort.h: directory entries in inode order, in linear time.
 *
 * The scan stats the entries of a chunk of directories in inode order so
 * that a cold cache reads its inode tables in order.  A comparison sort
 * through qsort() cost about 40 % of the scan's user instructions (an
 * indirect call and an unpredictable branch per comparison); the inode
 * numbers of neighbouring directories' entries differ in a few low bytes
 * only, which a radix sort passes over once each and skips the rest.
 */
#ifndef CFD_INOSORT_H
#define CFD_INOSORT_H

#include <stddef.h>
#include <stdint.h>

struct inoent {
	uint64_t ino;
	uint32_t off;			/* the caller's: where the entry is */
	uint32_t who;			/* the caller's too: whose entry it is */
};

/*
 * Sort v[0..n) by ino, ascending; tmp holds n records of scratch, and n is
 * below 2^32.  Stable: equal inode numbers keep their order.
 */
void inosort(struct inoent *v, struct inoent *tmp, size_t n);

#endif
