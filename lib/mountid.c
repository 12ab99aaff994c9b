// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mountid.c: the one way to learn a mount's identity.  A fallback for
 * kernels without STATX_MNT_ID (name_to_handle_at() reports the same id)
 * would go in mount_id_at(), after the statx() attempt.
 */
#include "lib/mountid.h"

#include <sys/stat.h>

#include <fcntl.h>

int
mount_id_at(int dirfd, const char *name, uint64_t *id)
{
	struct statx stx;
	int flags = AT_SYMLINK_NOFOLLOW | (name[0] == '\0' ? AT_EMPTY_PATH : 0);

	if (statx(dirfd, name, flags, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 1;
	}
	*id = 0;
	return 0;
}

int
mount_id(int fd, uint64_t *id)
{
	return mount_id_at(fd, "", id);
}
