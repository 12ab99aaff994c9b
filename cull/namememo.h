/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namememo.h: names of likely victims, remembered from one table of a scan
 * to the next.
 *
 * Culling before a scan ends (cull_early) takes a new partial table every
 * time the scan has seen a quarter more objects, and each table's victims
 * are named by reading their directories again (victims.h).  A directory
 * the scan has read to the end already holds every victim it will ever
 * give, so the names found for one table's likely next victims (those just
 * past its certain part) serve the tables after it without a second read.
 * Bounded: at most NAMEMEMO_MAX objects are remembered, names included;
 * past that, directories are read as before.  A remembered name is only a
 * hint: the culler stats the object by it, as it does every victim.
 */
#ifndef CFD_NAMEMEMO_H
#define CFD_NAMEMEMO_H

#include <stdint.h>

#define NAMEMEMO_MAX 65536	/* objects: 2 MiB of keys, and their names */

struct namememo;

struct namememo *namememo_new(void);
void namememo_free(struct namememo *m);
/* Remember the name of this object when a directory read comes across it. */
void namememo_want(struct namememo *m, uint32_t dir, uint64_t ino);
/* A directory entry read: kept if wanted and not named yet. */
void namememo_offer(struct namememo *m, uint32_t dir, uint64_t ino, const char *name);
/* The name remembered, or NULL; valid until namememo_free. */
const char *namememo_find(const struct namememo *m, uint32_t dir, uint64_t ino);

#endif
