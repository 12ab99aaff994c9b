// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * priv.c: capability drop with libcap, in one function, every step checked.
 */
#include "daemon/priv.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/mountid.h"
#include "lib/util.h"

#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHECK_DEPTH 16		/* past any layout the kernel makes; the level below is stat()ed */
#define CHECK_ENTRIES 1000000	/* directory entries read before giving up */

/* Whose the tree is, or why the DAC capabilities are needed all the same. */
enum owners { OWN_ALL, OWN_FOREIGN, OWN_UNCHECKED, OWN_PATH };

struct owner_walk {
	uid_t me;
	dev_t dev;
	uint64_t mnt_id;	/* 0: unknown */
	unsigned long entries;
	char path[PATH_MAX];	/* where the walk is, for the message */
	size_t len;
	uid_t foreign_uid;
};

/* Append "/name" to the walk's path; returns the old length to restore. */
static size_t
path_push(struct owner_walk *w, const char *name)
{
	size_t old = w->len;
	int n = snprintf(w->path + old, sizeof(w->path) - old, "%s%s", old ? "/" : "", name);

	if (n > 0 && (size_t)n < sizeof(w->path) - old)
		w->len += (size_t)n;
	else
		w->path[old] = '\0';
	return old;
}

static enum owners walk_dirs(struct owner_walk *w, int fd, int depth);

/* Descend into directory name of parent; the descriptor goes to walk_dirs(). */
static enum owners
walk_sub(struct owner_walk *w, int parent, const char *name, int depth)
{
	enum owners r;
	size_t old;
	int fd;

	if (depth > CHECK_DEPTH)
		return OWN_UNCHECKED;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? OWN_ALL : OWN_UNCHECKED;
	old = path_push(w, name);
	r = walk_dirs(w, fd, depth);
	if (r == OWN_ALL) {
		w->len = old;
		w->path[old] = '\0';
	}
	return r;
}

/*
 * Is every directory below fd (which it closes) ours?  Files do not matter:
 * stat, cull and unlink need rights on the parent only.  Only directories
 * with subdirectories are read (a link count of 2 says there are none), so
 * on the usual layout this reads the volume directories and stats their
 * fan-outs, not the data files.  Another mount is not the scan's.
 */
static enum owners
walk_dirs(struct owner_walk *w, int fd, int depth)
{
	enum owners r = OWN_ALL;
	struct dirent *de;
	struct statx sx;
	uint64_t mnt;
	DIR *d;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return OWN_UNCHECKED;
	}
	while (r == OWN_ALL && (de = readdir(d)) != NULL) {
		if (++w->entries > CHECK_ENTRIES) {
			r = OWN_UNCHECKED;
			break;
		}
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (statx(dirfd(d), de->d_name, AT_SYMLINK_NOFOLLOW,
			  STATX_TYPE | STATX_UID | STATX_NLINK, &sx) == -1 ||
		    !S_ISDIR(sx.stx_mode) || makedev(sx.stx_dev_major, sx.stx_dev_minor) != w->dev)
			continue;
		/* Another mount is not the scan's; when either id is unknown, cannot tell. */
		if (w->mnt_id != 0 && mount_id_at(dirfd(d), de->d_name, &mnt) &&
		    mnt != w->mnt_id)
			continue;
		if (sx.stx_uid != w->me) {
			path_push(w, de->d_name);
			w->foreign_uid = sx.stx_uid;
			r = OWN_FOREIGN;
		}
		else if (sx.stx_nlink != 2)
			r = walk_sub(w, dirfd(d), de->d_name, depth + 1);
	}
	closedir(d);
	return r;
}

/* Walk below fd, named label (relative to DIR) in messages. */
static enum owners
walk_top(struct owner_walk *w, int fd, const char *label)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd == -1)
		return OWN_UNCHECKED;
	w->len = 0;
	w->path[0] = '\0';
	path_push(w, label);
	return walk_dirs(w, dfd, 0);
}

/* The owner of one of the three top directories, checked. */
static enum owners
top_owner(struct owner_walk *w, const struct stat *sb, const char *label)
{
	if (sb->st_uid == w->me)
		return OWN_ALL;
	w->len = 0;
	w->path[0] = '\0';
	path_push(w, label);
	w->foreign_uid = sb->st_uid;
	return OWN_FOREIGN;
}

/* Does scanning need to bypass file modes: is any of the tree someone else's? */
static enum owners
tree_owners(int cachefd, int gravefd, const char *dir)
{
	struct owner_walk w = { .me = geteuid() };
	char shown[1024];	/* w.path escaped: it is not trusted with the log */
	struct stat a, b, r;
	enum owners o;

	if (fstat(cachefd, &a) == -1 || fstat(gravefd, &b) == -1 ||
	    fstatat(cachefd, "..", &r, AT_SYMLINK_NOFOLLOW) == -1) {
		log_warn("%s/cache: fstat", dir);
		return OWN_UNCHECKED;
	}
	w.dev = a.st_dev;
	mount_id(cachefd, &w.mnt_id);
	if ((o = top_owner(&w, &r, ".")) == OWN_ALL &&
	    (o = top_owner(&w, &a, "cache")) == OWN_ALL &&
	    (o = top_owner(&w, &b, "graveyard")) == OWN_ALL &&
	    (o = walk_top(&w, cachefd, "cache")) == OWN_ALL)
		o = walk_top(&w, gravefd, "graveyard");
	log_debug(1, "ownership check: %lu directory entries read", w.entries);
	if (o == OWN_FOREIGN)
		log_info("%s%s belongs to uid %lu, not to the daemon: the scan needs the DAC capabilities",
			 strcmp(w.path, ".") == 0 ? "the cache root" : "cache root/",
			 strcmp(w.path, ".") == 0 ? "" : escaped(w.path, shown, sizeof(shown)),
			 (unsigned long)w.foreign_uid);
	return o;
}

/*
 * Does reaching DIR/cache and DIR/graveyard by path need CAP_DAC_READ_SEARCH
 * although the tree is ours?  The checks before each cull batch and each
 * graveyard removal stat them by path, which takes search rights on every
 * directory above DIR: under one that root without the DAC pair cannot
 * search (DIR below another user's 0700 directory), every check would
 * fail, and the daemon would take its cache for moved.  Tried as it will
 * be, with the pair lowered from the effective set for the moment (our
 * thread alone holds capabilities yet: no other has started).
 */
static int
path_needs_search(const char *dir)
{
	static const cap_value_t dac[] = { CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE };
	static const char *const below[] = { "cache", "graveyard" };
	cap_t cur = cap_get_proc(), low = cur != NULL ? cap_dup(cur) : NULL;
	char path[PATH_MAX];
	struct stat sb;
	int i, denied = 0;

	if (low == NULL || cap_set_flag(low, CAP_EFFECTIVE, 2, dac, CAP_CLEAR) == -1 ||
	    cap_set_proc(low) == -1) {
		log_debug(1, "cannot lower the DAC capabilities to try DIR's path: %s",
			  strerror(errno));
	} else {
		for (i = 0; i < 2 && !denied; i++)
			denied = snprintf_checked(path, sizeof(path), "%s/%s", dir, below[i]) != -1 &&
				 fstatat(AT_FDCWD, path, &sb, AT_SYMLINK_NOFOLLOW) == -1 &&
				 (errno == EACCES || errno == EPERM);
		if (cap_set_proc(cur) == -1)
			log_warn("restoring the capabilities after trying DIR's path");
	}
	cap_free(low);
	cap_free(cur);
	return denied;
}

/* Shrink the bounding set to keep[]; needs CAP_SETPCAP, so it may be refused. */
static void
drop_bound(const cap_value_t *keep, int nkeep)
{
	cap_value_t c;
	int i, kept, refused = 0;

	for (c = 0; c < (cap_value_t)cap_max_bits(); c++) {
		for (kept = 0, i = 0; i < nkeep; i++)
			kept |= keep[i] == c;
		if (kept || CAP_IS_SUPPORTED(c) == 0)
			continue;
		if (cap_drop_bound(c) == -1)
			refused = 1;
	}
	if (refused)
		log_debug(1, "capability bounding set left as is: %s", strerror(errno));
}

/* The kept capabilities that we actually hold in the permitted set. */
static int
held(const cap_value_t *want, int nwant, cap_value_t *out)
{
	cap_t cur = cap_get_proc();
	cap_flag_value_t v;
	int i, n = 0;

	if (cur == NULL)
		return 0;
	for (i = 0; i < nwant; i++)
		if (cap_get_flag(cur, want[i], CAP_PERMITTED, &v) == 0 && v == CAP_SET)
			out[n++] = want[i];
	cap_free(cur);
	return n;
}

static void
log_kept(const cap_value_t *keep, int nkeep, enum owners owners)
{
	static const char *const why[] = {
		[OWN_ALL] = "",
		[OWN_FOREIGN] = " (part of the cache tree belongs to another user)",
		[OWN_UNCHECKED] = " (the cache tree's owners could not all be checked)",
		[OWN_PATH] = " (a directory above the cache root cannot be searched without it)",
	};
	char buf[128] = "";
	char *name;
	int i;

	for (i = 0; i < nkeep; i++) {
		name = cap_to_name(keep[i]);
		if (name == NULL)
			continue;
		if (i > 0)
			strncat(buf, ",", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, name, sizeof(buf) - strlen(buf) - 1);
		cap_free(name);
	}
	log_info("capabilities kept: %s%s", nkeep ? buf : "none", why[owners]);
}

int
priv_drop(int cachefd, int gravefd, const char *dir)
{
	/* The first alone when only DIR's path needs it. */
	static const cap_value_t dac[] = { CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE };
	cap_value_t keep[2];
	enum owners owners = tree_owners(cachefd, gravefd, dir != NULL ? dir : "DIR");
	int nkeep = 0;
	cap_t caps;

	if (owners == OWN_ALL && dir != NULL && path_needs_search(dir))
		owners = OWN_PATH;
	if (owners != OWN_ALL)
		nkeep = held(dac, owners == OWN_PATH ? 1 : 2, keep);
	drop_bound(keep, nkeep);
	/* We never exec after start-up: nothing may regain privileges that way. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		log_warn("prctl PR_SET_NO_NEW_PRIVS");
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() == -1)
		log_debug(1, "cap_reset_ambient: %s", strerror(errno));
	if ((caps = cap_init()) == NULL) {
		log_err("cap_init");
		return -1;
	}
	if (nkeep > 0 &&
	    (cap_set_flag(caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET) == -1 ||
	     cap_set_flag(caps, CAP_PERMITTED, nkeep, keep, CAP_SET) == -1)) {
		log_err("cap_set_flag");
		cap_free(caps);
		return -1;
	}
	if (cap_set_proc(caps) == -1) {
		log_err("dropping capabilities: cap_set_proc");
		cap_free(caps);
		return -1;
	}
	cap_free(caps);
	log_kept(keep, nkeep, owners);
	return 0;
}
