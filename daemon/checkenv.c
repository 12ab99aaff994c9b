// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * checkenv.c: the checks "cachefilesd -t" makes on the cache directory, so
 * that the usual reasons for a failed bind show up before the daemon runs,
 * with their cause named, instead of as a bare EOPNOTSUPP from the kernel.
 */
#include "daemon/checkenv.h"
#include "config/config.h"
#include "lib/log.h"

#include <attr/xattr.h>		/* libattr: the xattr calls and ENOATTR */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/*
 * Debian's libattr header defines ENOATTR; Fedora's attr/xattr.h is a link
 * to glibc's sys/xattr.h, which does not.  The kernel's errno is ENODATA.
 */
#ifndef ENOATTR
#define ENOATTR ENODATA
#endif

/* Set and removed again on DIR itself; the kernel never looks at it. */
#define PROBE_XATTR "user.cachefilesd.probe"

/*
 * The kernel stores every object's metadata in a user.* attribute, so a
 * filesystem without them cannot hold a cache.  Probe by doing it.
 */
static int
check_xattr(const char *dir, int fd)
{
	if (fsetxattr(fd, PROBE_XATTR, "1", 1, 0) == -1) {
		if (errno == ENOTSUP)
			log_warnx("%s: the filesystem does not support user.* "
				  "extended attributes, which the kernel needs: bind "
				  "would fail with EOPNOTSUPP", dir);
		else
			log_warn("%s: setxattr %s", dir, PROBE_XATTR);
		return 1;
	}
	/* Left behind it would be harmless, so a failure is only a warning. */
	if (fremovexattr(fd, PROBE_XATTR) == -1 && errno != ENOATTR)
		log_warn("%s: warning: removexattr %s", dir, PROBE_XATTR);
	return 0;
}

/*
 * statvfs reports the flags of the mount DIR is on as this process sees
 * it: a read-only bind mount, and a path outside a systemd unit's
 * ReadWritePaths= under ProtectSystem=strict, show ST_RDONLY although the
 * filesystem itself is writable.  faccessat(W_OK) would not: it checks
 * permissions, and the kernel would bind and fail only when it first
 * creates an object.
 */
#define RDONLY_HINT "remount it read-write or, under systemd's " \
	"ProtectSystem=, name it in the unit's ReadWritePaths= (systemctl edit cachefilesd)"

static void
rdonly_message(const char *dir)
{
	log_errx("%s: the filesystem is mounted read-only: the kernel cannot "
		  "create the cache there; " RDONLY_HINT, dir);
}

int
checkenv_writable(const char *dir)
{
	struct statvfs sv;

	/* A missing directory is for the bind to report, with its own words. */
	if (statvfs(dir, &sv) == -1 || !(sv.f_flag & ST_RDONLY))
		return 0;
	rdonly_message(dir);
	return -1;
}

static int
check_mount(const char *dir, int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) == -1) {
		log_warn("%s: statvfs", dir);
		return 1;
	}
	if (sv.f_flag & ST_RDONLY) {
		rdonly_message(dir);
		return 1;
	}
	/* Culling goes by atime; frozen atimes make it oldest-created first. */
	if (sv.f_flag & ST_NOATIME)
		log_warnx("%s: warning: the filesystem is mounted noatime, so "
			  "access times never change and culling removes the oldest "
			  "objects instead of the least recently used; mount it with "
			  "relatime or strictatime", dir);
	return 0;
}

int
checkenv(const struct config *cfg)
{
	const char *dir = cfg->dir;
	struct stat st;
	int fd, errors;

	/*
	 * The kernel would not follow a final symbolic link at bind (ENOTDIR);
	 * the daemon binds the resolved path instead (kernel_configure()), so
	 * say which one.
	 */
	if (lstat(dir, &st) == 0) {
		char real[PATH_MAX];

		if (realpath(dir, real) == NULL) {
			log_warn("%s: realpath", dir);
			return 1;
		}
		if (S_ISLNK(st.st_mode))
			log_info("%s is a symbolic link: the daemon binds %s", dir, real);
		else if (strcmp(real, dir) != 0)
			log_info("%s: the daemon binds %s, its resolved path", dir, real);
	}
	if (stat(dir, &st) == -1) {
		log_warn("%s: stat", dir);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_warnx("%s: not a directory", dir);
		return 1;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		log_warn("%s: open", dir);
		return 1;
	}
	errors = check_mount(dir, fd);
	if (errors == 0)
		errors += check_xattr(dir, fd);
	close(fd);
	return errors;
}
