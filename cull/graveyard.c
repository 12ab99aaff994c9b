// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * graveyard.c: emptying DIR/graveyard in bounded batches.
 *
 * A pass walks the graveyard depth first with a stack of directory streams,
 * each opened beneath its parent with O_NOFOLLOW, so a symlink is only ever
 * unlinked as a link and nothing outside the graveyard is reachable.  The
 * walk keeps its place between calls; a call stops after its budget of
 * entries.  After a pass that removed something another pass follows, since
 * readdir() need not return entries added meanwhile; a pass that removes
 * nothing ends the work until inotify reports a new arrival.
 */
#include "cull/graveyard.h"
#include "lib/escape.h"
#include "lib/mountid.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAILURES_SHOWN 3	/* failures logged in full per pass */

struct frame {
	DIR *dir;
	char name[NAME_MAX + 1];	/* this directory's name in its parent */
	dev_t dev;			/* what dir holds, checked against name (in_place) */
	ino_t ino;
};

struct graveyard {
	int fd;				/* the graveyard */
	int ifd;			/* inotify, or -1 */
	char *at;			/* where it must stay (graveyard_at), or NULL */
	int lost;			/* it is not there: emptied no more */
	ino_t ino;
	dev_t dev;			/* never leave this filesystem ... */
	uint64_t mnt_id;		/* ... nor this mount */
	int mnt_known;			/* 0: no identity here: enter no directory */
	struct frame stack[GRAVEYARD_DEPTH];
	int depth;			/* frames in use; 0 = between passes */
	unsigned long long pass_removed, pass_failed, seq;
	struct graveyard_stats stats;
};

static void
fail(struct graveyard *g, const char *what, const char *name)
{
	char buf[ESCAPE_SIZE(NAME_MAX)];

	g->stats.failed++;
	if (++g->pass_failed <= FAILURES_SHOWN)
		log_warn("graveyard: %s %s", what, escaped(name, buf, sizeof(buf)));
}

static void
watch(struct graveyard *g)
{
	char path[64];

	g->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (g->ifd == -1) {
		log_warn("graveyard: inotify_init1");
		return;
	}
	/* The magic link names exactly the directory we opened, not a path that could change. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", g->fd);
	if (inotify_add_watch(g->ifd, path, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) == -1) {
		log_warn("graveyard: inotify_add_watch %s; new arrivals are removed "
			 "only at the next start", path);
		close(g->ifd);
		g->ifd = -1;
	}
}

struct graveyard *
graveyard_open(int parentfd, const char *name)
{
	struct graveyard *g;
	struct stat sb;
	int fd;

	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOTDIR || errno == ELOOP)
			log_errx("%s: not a directory (a symlink there is not followed)", name);
		else
			log_err("%s: open", name);
		return NULL;
	}
	if (fstat(fd, &sb) == -1) {
		log_err("%s: fstat", name);
		close(fd);
		return NULL;
	}
	g = xcalloc(1, sizeof(*g));
	g->fd = fd;
	g->dev = sb.st_dev;
	g->ino = sb.st_ino;
	g->mnt_known = mount_id(fd, &g->mnt_id);
	if (!g->mnt_known)
		log_warnx("graveyard: this kernel and filesystem give no mount identity, so "
			  "bind mounts cannot be told apart: directories buried there are left");
	watch(g);
	return g;
}

static void
pop(struct graveyard *g)
{
	closedir(g->stack[--g->depth].dir);
}

void
graveyard_free(struct graveyard *g)
{
	if (g == NULL)
		return;
	while (g->depth > 0)
		pop(g);
	if (g->ifd >= 0)
		close(g->ifd);
	close(g->fd);
	free(g->at);
	free(g);
}

int
graveyard_dirfd(const struct graveyard *g)
{
	return g->fd;
}

int
graveyard_fd(const struct graveyard *g)
{
	return g->ifd;
}

int
graveyard_drain(struct graveyard *g)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n, off;
	int count = 0;

	if (g->ifd < 0)
		return 0;
	while ((n = read(g->ifd, buf, sizeof(buf))) > 0)
		for (off = 0; off + (ssize_t)sizeof(*ev) <= n;
		     off += (ssize_t)(sizeof(*ev) + ev->len)) {
			ev = (const struct inotify_event *)(buf + off);
			count++;
		}
	if (n == -1 && errno != EAGAIN && errno != EINTR)
		log_warn("graveyard: read inotify");
	return count;
}

void
graveyard_stats(const struct graveyard *g, struct graveyard_stats *out)
{
	*out = g->stats;
}

void
graveyard_at(struct graveyard *g, const char *path)
{
	free(g->at);
	g->at = path != NULL ? xstrdup(path) : NULL;
}

/* Push a directory stream for fd (its identity sb), named name in its parent. */
static int
push(struct graveyard *g, int fd, const struct stat *sb, const char *name)
{
	struct frame *f = &g->stack[g->depth];

	f->dev = sb->st_dev;
	f->ino = sb->st_ino;
	if ((f->dir = fdopendir(fd)) == NULL) {
		fail(g, "fdopendir", name);
		close(fd);
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	g->depth++;
	return 0;
}

static int
top_fd(const struct graveyard *g)
{
	return dirfd(g->stack[g->depth - 1].dir);
}

static void
removed(struct graveyard *g, const char *what, const char *name)
{
	char buf[ESCAPE_SIZE(NAME_MAX)];

	g->stats.removed++;
	g->pass_removed++;
	if (log_get_debug() >= 2)
		log_debug(2, "graveyard: removed %s %s", what, escaped(name, buf, sizeof(buf)));
}

/* A subtree deeper than the stack: move it to the top level for a later pass. */
static void
move_up(struct graveyard *g, const char *name)
{
	char dst[64], buf[ESCAPE_SIZE(NAME_MAX)];

	snprintf(dst, sizeof(dst), "deep.%ld.%llu", (long)getpid(), ++g->seq);
	if (renameat2(top_fd(g), name, g->fd, dst, RENAME_NOREPLACE) == -1) {
		if (errno != ENOENT)
			fail(g, "rename too deep directory", name);
		return;
	}
	g->stats.moved++;
	g->pass_removed++;	/* progress: a later pass will see it */
	log_debug(1, "graveyard: moved %s up as %s (deeper than %d)",
		  escaped(name, buf, sizeof(buf)), dst,
		  GRAVEYARD_DEPTH);
}

/* Descend into directory name of the top frame. */
static void
descend(struct graveyard *g, const char *name)
{
	struct stat sb;
	uint64_t mnt;
	int fd;

	if (g->depth == GRAVEYARD_DEPTH) {
		move_up(g, name);
		return;
	}
	fd = openat(top_fd(g), name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd == -1) {
		if (errno == ENOENT)
			return;
		/* Replaced by a symlink or file meanwhile: remove it as such. */
		if ((errno == ELOOP || errno == ENOTDIR) &&
		    unlinkat(top_fd(g), name, 0) == 0) {
			removed(g, "entry", name);
			return;
		}
		fail(g, "open directory", name);
		return;
	}
	if (fstat(fd, &sb) == -1 || sb.st_dev != g->dev ||
	    !g->mnt_known || !mount_id(fd, &mnt) || mnt != g->mnt_id) {
		/* A mount point (a bind mount of this filesystem too): not ours. */
		errno = EXDEV;
		fail(g, "descend into", name);
		close(fd);
		return;
	}
	push(g, fd, &sb, name);
}

static int
entry_is_dir(struct graveyard *g, const struct dirent *de, int *isdir)
{
	struct stat sb;

	if (de->d_type != DT_UNKNOWN) {
		*isdir = de->d_type == DT_DIR;
		return 0;
	}
	if (fstatat(top_fd(g), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT)
			fail(g, "stat", de->d_name);
		return -1;
	}
	*isdir = S_ISDIR(sb.st_mode);
	return 0;
}

static void
handle_entry(struct graveyard *g, const struct dirent *de)
{
	int isdir;

	if (entry_is_dir(g, de, &isdir) == -1)
		return;
	if (!isdir) {
		if (unlinkat(top_fd(g), de->d_name, 0) == 0)
			removed(g, "file", de->d_name);
		else if (errno == EISDIR)
			descend(g, de->d_name);
		else if (errno != ENOENT)
			fail(g, "unlink", de->d_name);
		return;
	}
	descend(g, de->d_name);
}

/* The top directory is exhausted: close it and remove it from its parent. */
static void
finish_dir(struct graveyard *g)
{
	char name[NAME_MAX + 1];

	memcpy(name, g->stack[g->depth - 1].name, sizeof(name));
	pop(g);
	if (g->depth == 0)
		return;		/* the graveyard itself stays */
	if (unlinkat(top_fd(g), name, AT_REMOVEDIR) == 0)
		removed(g, "directory", name);
	else if (errno != ENOENT)
		fail(g, "rmdir", name);
}

static int
start_pass(struct graveyard *g)
{
	int fd = openat(g->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat sb = { .st_dev = g->dev, .st_ino = g->ino };

	g->pass_removed = 0;
	g->pass_failed = 0;
	if (fd == -1) {
		log_warn("%s: open", g->at != NULL ? g->at : "graveyard");
		return -1;
	}
	return push(g, fd, &sb, ".");
}

static int
same(const struct stat *sb, dev_t dev, ino_t ino)
{
	return sb->st_dev == dev && sb->st_ino == ino;
}

/* What in_place() found. */
enum where { WALK_IN_PLACE, WALK_MOVED, WALK_UNCHECKED, WALK_LOST };

/* sb from a stat that returned rc: the same directory, another, or not known (errno)? */
static enum where
compare(int rc, const struct stat *sb, dev_t dev, ino_t ino, enum where moved)
{
	if (rc == 0)
		return same(sb, dev, ino) ? WALK_IN_PLACE : moved;
	return errno == ENOENT || errno == ENOTDIR ? moved : WALK_UNCHECKED;
}

/*
 * Is every directory of the walk still where the walk found it: the
 * graveyard at its path (graveyard_at), each frame by its name in the
 * one above?  WALK_MOVED: a directory of the walk was moved or replaced
 * (whatever was moved out of the graveyard is no longer the graveyard's
 * to empty); WALK_LOST: the graveyard itself is not at its path;
 * WALK_UNCHECKED: a stat failed otherwise (errno).  Checked before each
 * removal, so that a move is seen within one system call.
 */
static enum where
in_place(const struct graveyard *g)
{
	enum where w = WALK_IN_PLACE;
	struct stat sb;
	int i, rc;

	if (g->at != NULL) {
		rc = fstatat(AT_FDCWD, g->at, &sb, AT_SYMLINK_NOFOLLOW);
		w = compare(rc, &sb, g->dev, g->ino, WALK_LOST);
	}
	for (i = 1; i < g->depth && w == WALK_IN_PLACE; i++) {
		rc = fstatat(dirfd(g->stack[i - 1].dir), g->stack[i].name, &sb,
			     AT_SYMLINK_NOFOLLOW);
		w = compare(rc, &sb, g->stack[i].dev, g->stack[i].ino, WALK_MOVED);
	}
	return w;
}

/* The walk met a directory not in place (in_place): give up this pass. */
static int
walk_given_up(struct graveyard *g, enum where w)
{
	char buf[ESCAPE_SIZE(PATH_MAX)];

	switch (w) {
	case WALK_LOST:
		log_errx("graveyard: %s is no longer the directory opened at start (moved, "
			  "replaced or removed); emptied no more", escaped(g->at, buf, sizeof(buf)));
		g->lost = 1;
		break;
	case WALK_MOVED:
		log_warnx("graveyard: a directory was moved out of the graveyard while it "
			  "was emptied; what is left of it stays where it went");
		g->stats.moved_out++;
		break;
	default:
		log_warn("graveyard: cannot check that the walk is still in the graveyard; "
			 "tried again later");
		break;
	}
	while (g->depth > 0)
		pop(g);
	/* Moved: another pass, from the graveyard as it is now. */
	return w == WALK_MOVED ? 1 : w == WALK_UNCHECKED ? GRAVEYARD_RETRY : 0;
}

int
graveyard_lost(const struct graveyard *g)
{
	return g->lost;
}

/* A pass ended: go round again only if it made progress. */
static int
end_pass(struct graveyard *g)
{
	g->stats.passes++;
	if (g->pass_failed > FAILURES_SHOWN)
		log_warnx("graveyard: %llu more removals failed in this pass",
			  g->pass_failed - FAILURES_SHOWN);
	log_debug(2, "graveyard: pass done, %llu removed, %llu failed",
		  g->pass_removed, g->pass_failed);
	return g->pass_removed > 0;
}

int
graveyard_work(struct graveyard *g, unsigned budget)
{
	struct dirent *de;
	enum where w;

	if (g->lost)
		return 0;
	if (g->depth == 0 && start_pass(g) == -1)
		return GRAVEYARD_RETRY;
	while (budget > 0) {
		if ((w = in_place(g)) != WALK_IN_PLACE)
			return walk_given_up(g, w);
		errno = 0;
		de = readdir(g->stack[g->depth - 1].dir);
		if (de == NULL) {
			if (errno != 0)
				fail(g, "readdir in", g->stack[g->depth - 1].name);
			finish_dir(g);
			budget--;
			if (g->depth == 0)
				return end_pass(g);
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		budget--;
		handle_entry(g, de);
	}
	return 1;
}
