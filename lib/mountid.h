/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountid.h: which mount a file lies on.
 *
 * The device number alone cannot tell a bind mount of the cache's own
 * filesystem from the cache itself; the mount id can.  It comes from
 * statx(STATX_MNT_ID), or on kernels before 5.8 from name_to_handle_at();
 * when neither answers (an old kernel and a filesystem that cannot export
 * handles) the identity is unknown and callers must not descend where
 * they cannot tell.
 */
#ifndef CFD_MOUNTID_H
#define CFD_MOUNTID_H

#include <stdint.h>

/*
 * The mount of name beneath dirfd, not following a final symbolic link
 * ("" for dirfd itself).  Returns 1 with *id set when known, else 0 with
 * *id = 0.
 */
int mount_id_at(int dirfd, const char *name, uint64_t *id);
/* The mount of an open descriptor: mount_id_at(fd, "", id). */
int mount_id(int fd, uint64_t *id);

#endif
