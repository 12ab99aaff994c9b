/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * old_kernel.h: older kernels, played in a unit test by wrapping the two
 * sources of a mount identity.  A test program that includes this (once)
 * and lists statx and name_to_handle_at in its .wrap file can set
 * no_statx_mnt (statx() without STATX_MNT_ID, before 5.8) and no_handles
 * (name_to_handle_at() failing, a filesystem without file handles).
 */
#ifndef CFD_TEST_OLD_KERNEL_H
#define CFD_TEST_OLD_KERNEL_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static int no_statx_mnt, no_handles;

int __wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx);
int __real_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx);
int __wrap_name_to_handle_at(int dirfd, const char *path, struct file_handle *h, int *mnt,
			     int flags);
int __real_name_to_handle_at(int dirfd, const char *path, struct file_handle *h, int *mnt,
			     int flags);

int
__wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	int r = __real_statx(dirfd, path, flags, mask, stx);

	if (r == 0 && no_statx_mnt)
		stx->stx_mask &= ~(unsigned)STATX_MNT_ID;
	return r;
}

int
__wrap_name_to_handle_at(int dirfd, const char *path, struct file_handle *h, int *mnt,
			 int flags)
{
	if (no_handles) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_name_to_handle_at(dirfd, path, h, mnt, flags);
}

#endif
