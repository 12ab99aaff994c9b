/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidfile.h: a pidfile held under an flock(2) lock for the daemon's life, so
 * that a second instance fails at once with the first one's pid.  The lock
 * belongs to the open file description and so survives fork().
 */
#ifndef CFD_PIDFILE_H
#define CFD_PIDFILE_H

#include <sys/types.h>

struct pidfile;

/*
 * Create or open path and lock it.  Returns NULL after logging the cause;
 * when another process holds the lock, *holder is set to its pid (or 0 if
 * the file does not say) and errno to EWOULDBLOCK.
 */
struct pidfile *pidfile_open(const char *path, pid_t *holder);
/* Write the calling process's pid; 0 or -1 (logged). */
int pidfile_write(struct pidfile *pf);
/* Remove the file if it is still ours, then close it. */
void pidfile_remove(struct pidfile *pf);
/* Close without removing (a parent that hands the lock to its child). */
void pidfile_close(struct pidfile *pf);

#endif
