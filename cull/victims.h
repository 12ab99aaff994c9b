/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victims.h: turn a scan's candidates, oldest first, into names that can
 * be culled, each checked again just before it is handed out.
 *
 * Candidates carry no names.  For a window of upcoming candidates the
 * directories they live in are read once each (getdents64) to map inode
 * numbers back to names; then every victim is stat'ed by name
 * (AT_SYMLINK_NOFOLLOW) and dropped if it vanished, is no longer a regular
 * file, is another inode, or its atime moved since the scan.  Directory
 * descriptors are opened beneath the cache root with O_NOFOLLOW on the same
 * mount (scan_open_dir), so a caller may fchdir() into them.
 */
#ifndef CFD_VICTIMS_H
#define CFD_VICTIMS_H

#include <stddef.h>
#include <stdint.h>

struct cand;
struct namememo;
struct scan_result;
struct victims;

struct victim {
	int dirfd;			/* owned by the iterator; valid until the next call */
	uint32_t dir;			/* directory table index */
	const char *name;		/* valid until the next call */
	uint64_t atime_ns, ino;
	uint64_t blocks;		/* st_blocks: 512-byte units */
};

struct victims_stats {
	uint64_t handed, vanished, moved, errors;
	uint64_t by_cwd;		/* victims_enter() calls the working directory's path settled */
};

/* Takes no ownership of r, which must outlive the iterator; reorders r's candidates. */
struct victims *victims_new(struct scan_result *r, int rootfd);
/*
 * Take over old's open directories that vs's table names by the same path
 * under the same root, instead of opening them again: the tables of one
 * scan (each partial table, then the whole one) share their directory
 * indices, and culling in LRU order visits most directories in each.  A
 * descriptor taken over is checked before each cull like any other
 * (victims_enter).  vs learns the root's path again (its working directory
 * moves there for a moment) and takes nothing when it changed.  Call it
 * before vs hands out its first victim; old may be NULL, and is freed by
 * its caller as before.
 */
void victims_adopt(struct victims *vs, struct victims *old);
/*
 * The path at which rootfd must stay (the daemon's DIR/cache), checked
 * by path before the root's path is learnt and by victims_in_place():
 * with the root moved away, no victim is in place.  Call it before
 * victims_adopt.  Without it, the root's path as first learnt is checked.
 */
void victims_root_at(struct victims *vs, const char *path);
void victims_free(struct victims *vs);
/*
 * Name the candidates of the first window (the next ones from here) that m
 * knows, so that their directories are not read for them; returns how
 * many.  m may be freed afterwards; NULL names nothing.
 */
size_t victims_name_from(struct victims *vs, struct namememo *m);
/* Next victim: 1, or 0 when none is left in this pass. */
int victims_next(struct victims *vs, struct victim *v);
/* Atime of the next candidate (before checks); 0 when none is left. */
uint64_t victims_peek_atime(const struct victims *vs);
/* Put the victim last returned back: the next call returns it again. */
void victims_unget(struct victims *vs);
/* Keep the victim last returned (it was busy) for victims_retry(). */
void victims_keep(struct victims *vs);
/* Start another pass over the kept victims, oldest first; returns their count. */
size_t victims_retry(struct victims *vs);
size_t victims_left(const struct victims *vs);
size_t victims_kept(const struct victims *vs);
/* Atime of the oldest victim kept for a retry; 0 when none is kept. */
uint64_t victims_kept_atime(const struct victims *vs);
/*
 * Copy what is left of the table, the kept victims then those not reached,
 * still oldest first, to out (room for victims_kept() + victims_left());
 * returns how many.  The pass goes on as it was.
 */
size_t victims_copy_left(const struct victims *vs, struct cand *out);
/*
 * Just before a cull: does the victim's directory still resolve from the
 * cache root, component by component without following links, to the very
 * directory v->dirfd holds, and is the root itself where it must be
 * (victims_root_at)?  1 yes; 0 no (it was moved or replaced since it was
 * opened, or the whole root was moved: counted as moved, and its
 * descriptor closed, so that later victims there are found through the
 * path again).  A rename after this
 * check and before the kernel resolves the name is not seen: the window is
 * one fchdir() and one write() long.  Directory descriptors stay open from
 * one victim to the next: this check, not a reopening, is what keeps a
 * cull inside the cache.
 */
int victims_in_place(struct victims *vs, const struct victim *v);
/*
 * Just before a cull, the same check, made where the kernel will resolve
 * the name: fchdir() into v->dirfd, then ask the kernel the working
 * directory's path (getcwd, one system call that walks the dentry's
 * parents and looks nothing up).  When it is the root's path (learnt once,
 * from rootfd) followed by the directory's path from the scan, the
 * directory is where it was: 1 at once.  Otherwise (moved, replaced,
 * unlinked, unreachable from the process root, a path beyond PATH_MAX)
 * victims_in_place() decides.  The path settles it only as far as names
 * go: a directory above DIR/cache replaced by another of the same names
 * is the caller's to check (the daemon compares DIR/cache with its
 * descriptor before each batch).  -1 with errno if fchdir() failed.  The
 * working directory is left in v->dirfd (or rootfd) for the caller to
 * restore.
 */
int victims_enter(struct victims *vs, const struct victim *v);
const struct victims_stats *victims_stats(const struct victims *vs);

#endif
