/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kcmd.h: what one command to /dev/cachefiles may hold.
 *
 * The kernel takes at most PAGE_SIZE - 1 bytes in one write() (4095 on the
 * platforms we build for) and reads it as "WORD ARGUMENT": it cuts the
 * command at the first newline, refuses a NUL byte and skips the blanks
 * before the argument.  A culled name goes to lookup_one_len() in the
 * working directory, which refuses "", ".", ".." and any '/'.
 */
#ifndef CFD_KCMD_H
#define CFD_KCMD_H

#include <stddef.h>

/* The longest command, without a NUL: a buffer holding one is KCMD_MAX + 1. */
#define KCMD_MAX 4095

/*
 * Can "cull NAME" (or "inuse NAME") be sent as one command naming exactly
 * the directory entry name[0..len)?  Not when it is empty, "." or "..",
 * longer than NAME_MAX, too long for the command, holds '/', a newline or a
 * NUL, or starts with a blank the kernel would skip.
 */
int kcmd_name_ok(const char *name, size_t len);
/* The same for a NUL-terminated name: its length when it can, else 0. */
size_t kcmd_name_len(const char *name);
/*
 * The same, faster, for a name whose first room bytes may all be read
 * (a directory entry's record: room is its d_reclen less the name's
 * offset); 0 as well when no NUL ends it within room.
 */
size_t kcmd_name_len_in(const char *name, size_t room);

#endif
