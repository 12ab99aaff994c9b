// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mountid.c: the one way to learn a mount's identity.  statx() gives it
 * from 5.8 on; before, name_to_handle_at() reports the same id (the
 * kernel copies it out along with the handle) on every filesystem that
 * can export handles, which all cache filesystems (ext4, xfs, btrfs) do.
 */
#include "lib/mountid.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stddef.h>

#define HANDLE_BYTES 128	/* MAX_HANDLE_SZ: any filesystem's handle fits */

/* The fallback for kernels without STATX_MNT_ID. */
static int
handle_mount_id(int dirfd, const char *name, int flags, uint64_t *id)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + HANDLE_BYTES];
	} h;
	int mnt;

	h.fh.handle_bytes = HANDLE_BYTES;
	/* Without AT_SYMLINK_FOLLOW a final link is not followed, as with statx. */
	if (name_to_handle_at(dirfd, name, &h.fh, &mnt, flags & AT_EMPTY_PATH) == -1 ||
	    mnt < 0)
		return 0;
	*id = (uint64_t)mnt;
	return 1;
}

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
	if (handle_mount_id(dirfd, name, flags, id))
		return 1;
	*id = 0;
	return 0;
}

int
mount_id(int fd, uint64_t *id)
{
	return mount_id_at(fd, "", id);
}
