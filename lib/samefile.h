/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * samefile.h: does a path still name the file we hold?
 *
 * The daemon and the tool open DIR/cache (and the pid file) once and work
 * below the descriptor, but the kernel, an administrator and the next
 * start know them by path.  Before acting for the path's sake (a cull the
 * kernel resolves in DIR/cache, a removal, an rmdir) they check that the
 * path, its last name not followed, is still that file: same device, same
 * inode.  A directory moved away and another put in its place fails the
 * check; so does one merely gone.
 */
#ifndef CFD_SAMEFILE_H
#define CFD_SAMEFILE_H

#include <sys/types.h>

/*
 * Is name beneath dirfd (AT_FDCWD for a path) the file of this device and
 * inode?  1 when so; else 0, with errno 0 when another file is there and
 * stat's errno when none could be looked at (ENOENT: gone).
 */
int name_is(int dirfd, const char *name, dev_t dev, ino_t ino);
/* The same for the file open as fd (0 with fstat's errno when fd fails). */
int name_is_fd(int dirfd, const char *name, int fd);

#endif
