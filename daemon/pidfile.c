// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pidfile.c: a locked pidfile.
 *
 * The file is opened beneath a descriptor of its directory, so that removing
 * it at exit neither depends on the working directory (the daemon lives in
 * DIR/cache by then) nor follows a symlink planted at its name.  An existing
 * file is used only when it is a regular file with one link, owned by us:
 * in a directory others can write, a hard link planted at the name would
 * otherwise have its target truncated and overwritten (protected_hardlinks
 * stops that only where it is on).
 */
#include "daemon/pidfile.h"
#include "lib/log.h"
#include "lib/samefile.h"
#include "lib/util.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPEN_TRIES 5		/* the file may be replaced while we lock it */

struct pidfile {
	int fd;
	int dirfd;
	char *path;		/* for messages */
	char *base;		/* its name inside dirfd */
};

/* Open the directory part of path; *base points at the last component. */
static int
open_parent(const char *path, char *copy, const char **base)
{
	char *slash = strrchr(copy, '/');
	const char *dir;
	int fd;

	if (slash == NULL) {
		dir = ".";
		*base = copy;
	} else {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
		*base = slash + 1;
	}
	if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0) {
		errno = EINVAL;
		log_err("%s: pidfile name", path);
		return -1;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		log_err("%s: open directory %s", path, dir);
	return fd;
}

/* Is the name in the directory still the file we hold? */
static int
still_ours(const struct pidfile *pf)
{
	return name_is_fd(pf->dirfd, pf->base, pf->fd);
}

/* May we write this file?  0, or -1 after saying why. */
static int
fit_for_us(const struct pidfile *pf)
{
	struct stat sb;

	if (fstat(pf->fd, &sb) == -1) {
		log_err("%s: stat pidfile", pf->path);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		log_errx("%s: refusing a pidfile that is not a regular file", pf->path);
		return -1;
	}
	if (sb.st_nlink != 1) {
		log_errx("%s: refusing a pidfile with %lu hard links (another file's name?)",
			  pf->path, (unsigned long)sb.st_nlink);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		log_errx("%s: refusing a pidfile owned by uid %lu, not by us (uid %lu)",
			  pf->path, (unsigned long)sb.st_uid, (unsigned long)geteuid());
		return -1;
	}
	return 0;
}

static pid_t
read_holder(int fd)
{
	char buf[32];
	uint64_t pid;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_u64(buf, 10, 1, INT_MAX, &pid) == -1)
		return 0;
	return (pid_t)pid;
}

static void
pf_free(struct pidfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	if (pf->dirfd >= 0)
		close(pf->dirfd);
	free(pf->path);
	free(pf->base);
	free(pf);
}

struct pidfile *
pidfile_open(const char *path, pid_t *holder)
{
	struct pidfile *pf = xcalloc(1, sizeof(*pf));
	const char *base;
	char *copy;
	int tries;

	*holder = 0;
	pf->fd = -1;
	pf->path = xstrdup(path);
	copy = xstrdup(path);
	pf->dirfd = open_parent(path, copy, &base);
	pf->base = xstrdup(base);
	free(copy);
	if (pf->dirfd == -1) {
		pf_free(pf);
		return NULL;
	}
	for (tries = 0; tries < OPEN_TRIES; tries++) {
		pf->fd = openat(pf->dirfd, pf->base, O_RDWR | O_CREAT | O_CLOEXEC |
				O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0644);
		if (pf->fd == -1) {
			log_err("%s: open pidfile", path);
			break;
		}
		if (fit_for_us(pf) == -1) {
			close(pf->fd);
			pf->fd = -1;
			break;
		}
		if (flock(pf->fd, LOCK_EX | LOCK_NB) == -1) {
			int err = errno;

			if (err == EWOULDBLOCK) {
				*holder = read_holder(pf->fd);
				if (*holder > 0)
					log_errx("another cachefilesd (pid %ld) is running: %s is locked",
						  (long)*holder, path);
				else	/* no pid written in it (yet, or ever) */
					log_errx("another process holds %s locked: another cachefilesd "
						  "starting, or not a cachefilesd pid file", path);
			} else {
				log_err("%s: lock pidfile", path);
			}
			close(pf->fd);
			pf->fd = -1;
			errno = err;
			break;
		}
		/* A previous instance may have removed it between our open and lock. */
		if (still_ours(pf))
			return pf;
		close(pf->fd);
		pf->fd = -1;
	}
	if (tries == OPEN_TRIES)
		log_errx("%s: pidfile keeps being replaced; giving up", path);
	pf_free(pf);
	return NULL;
}

int
pidfile_write(struct pidfile *pf)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(pf->fd, 0) == -1) {
		log_err("%s: truncate pidfile", pf->path);
		return -1;
	}
	if (pwrite(pf->fd, buf, (size_t)len, 0) != len) {
		log_err("%s: write pidfile", pf->path);
		return -1;
	}
	return 0;
}

void
pidfile_remove(struct pidfile *pf)
{
	if (pf == NULL)
		return;
	if (still_ours(pf) && unlinkat(pf->dirfd, pf->base, 0) == -1)
		log_warn("%s: remove pidfile", pf->path);
	pf_free(pf);
}

void
pidfile_close(struct pidfile *pf)
{
	if (pf != NULL)
		pf_free(pf);
}
