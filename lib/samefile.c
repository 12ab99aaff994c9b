// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * samefile.c: the one check that a path still names the file we hold
 * (see samefile.h).
 */
#include "lib/samefile.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>

int
name_is(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat sb;

	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	if (sb.st_dev == dev && sb.st_ino == ino)
		return 1;
	errno = 0;
	return 0;
}

int
name_is_fd(int dirfd, const char *name, int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) == -1)
		return 0;
	return name_is(dirfd, name, sb.st_dev, sb.st_ino);
}
