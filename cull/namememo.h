/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namememo.h: the names of a scan's oldest objects, kept as the scan reads
 * them, so that the culler need not read their directories again.
 *
 * Candidates carry no names (heap.h: 20 bytes each), so the culler maps a
 * victim's inode number back to a name by reading its directory
 * (victims.h).  While the kernel asks for culling during a scan, the engine
 * takes a new partial table every time the scan has seen a quarter more
 * objects, and every table's victims are spread over nearly every
 * directory seen: each table cost about one read of all of them, and on
 * ext4's hashed directories a read costs as much as a tenth of the stat()
 * calls that made the table.  The scan has every name in hand when it
 * stats the object, so it keeps the names of the objects older than a
 * threshold the engine sets from the latest partial table (an upper bound
 * of what the deficit will take), and each table's victims are named from
 * here first.
 *
 * Bounded: at most NAMEMEMO_MAX objects and NAMEMEMO_BYTES of names; past
 * that, directories are read as before.  A remembered name is only a hint:
 * the culler stats the object by it, as it does every victim.  Thread-safe:
 * the scan's workers add while the engine's thread reads.
 */
#ifndef CFD_NAMEMEMO_H
#define CFD_NAMEMEMO_H

#include <stddef.h>
#include <stdint.h>

#define NAMEMEMO_MAX 65536		/* objects: 2 MiB of slots, allocated on the first name */
#define NAMEMEMO_BYTES (4u << 20)	/* their names, NULs included */

struct namememo;

struct namememo *namememo_new(void);
void namememo_free(struct namememo *m);
/*
 * Objects with an atime below this (ns) are worth naming; 0 (the start):
 * none.  Read by the scan for every object, set by the engine.
 */
void namememo_set_below(struct namememo *m, uint64_t atime_ns);
uint64_t namememo_below(const struct namememo *m);
/* Remember a name; the first one given for (dir, ino) stays.  Dropped when full. */
void namememo_add(struct namememo *m, uint32_t dir, uint64_t ino, const char *name);
/* Copy the name of (dir, ino) into buf: 1, or 0 when unknown or m is NULL. */
int namememo_get(struct namememo *m, uint32_t dir, uint64_t ino, char *buf, size_t len);
size_t namememo_count(struct namememo *m);

#endif
