/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * checkenv.h: what "cachefilesd -t" checks beyond the configuration's own
 * validity: the cache directory exists and is a directory, its filesystem
 * takes user.* extended attributes, and whether it is mounted noatime.
 */
#ifndef CFD_CHECKENV_H
#define CFD_CHECKENV_H

struct config;

/* Log each problem; returns the number of errors (warnings do not count). */
int checkenv(const struct config *cfg);

/*
 * At start, before the bind: -1, logged, when DIR is on a mount this
 * process sees read-only (a read-only bind mount, or a path outside the
 * unit's ReadWritePaths=); 0 otherwise, a missing DIR included.
 */
int checkenv_writable(const char *dir);

#endif
