/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priv.h: dropping capabilities once the cache is bound.
 *
 * Only open() of /dev/cachefiles checks CAP_SYS_ADMIN; write() and read() on
 * the open descriptor do not, and the kernel performs cull and inuse with
 * the credentials it recorded at bind.  What remains is scanning DIR/cache
 * and emptying DIR/graveyard, which needs CAP_DAC_READ_SEARCH and
 * CAP_DAC_OVERRIDE only when the tree belongs to another uid.
 */
#ifndef CFD_PRIV_H
#define CFD_PRIV_H

/*
 * Drop every capability from the effective, permitted, inheritable and
 * ambient sets except the DAC pair when the cache root, DIR/cache,
 * DIR/graveyard or any directory below them belongs to another uid than the
 * effective one (or the tree is too big to check), and CAP_DAC_READ_SEARCH
 * alone when dir/cache or dir/graveyard cannot be stat'ed by path without
 * it (dir: the cache root's path as the kernel took it; NULL: not tried);
 * shrink the bounding set when allowed and set no_new_privs.  Logs the kept
 * set.  Returns 0, or -1 after logging.
 */
int priv_drop(int cachefd, int gravefd, const char *dir);

#endif
