/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * graveyard.h: emptying DIR/graveyard.
 *
 * The kernel renames culled directories into DIR/graveyard and never
 * deletes them.  graveyard_work() removes what it finds there, depth first,
 * in bounded batches so that the event loop stays responsive; it never
 * follows a symlink, never leaves the graveyard's filesystem, and never
 * removes the graveyard itself.  An inotify descriptor tells the loop when
 * something new arrives.
 */
#ifndef CFD_GRAVEYARD_H
#define CFD_GRAVEYARD_H

#define GRAVEYARD_BATCH 1000	/* entries a call may remove or open */
#define GRAVEYARD_DEPTH 64	/* deeper trees are moved up and done later */

struct graveyard;

/*
 * Open the directory name beneath parentfd without following a symlink at
 * name, and watch it.  Returns NULL after logging.
 */
struct graveyard *graveyard_open(int parentfd, const char *name);
/*
 * The path at which the graveyard must stay (DIR/graveyard), checked
 * before each removal: moved away or replaced, it is emptied no more
 * (graveyard_lost).  Without it, only the walk's directories below it
 * are checked.
 */
void graveyard_at(struct graveyard *g, const char *path);
/*
 * Was the graveyard found elsewhere than at its path?  The kernel goes on
 * burying the directories it retires in the one it holds, wherever it
 * went, where nothing would empty them (it unlinks files itself): the
 * daemon stops, and restarted binds DIR as it is then.
 */
int graveyard_lost(const struct graveyard *g);
void graveyard_free(struct graveyard *g);

/* The graveyard's own descriptor (O_DIRECTORY|O_NOFOLLOW). */
int graveyard_dirfd(const struct graveyard *g);
/* The inotify descriptor: readable when something arrived; -1 if unwatched. */
int graveyard_fd(const struct graveyard *g);
/* Consume pending inotify events; returns how many arrived. */
int graveyard_drain(struct graveyard *g);

/*
 * Remove up to budget entries.  Returns 1 when more work remains (call again
 * soon), 0 when a whole pass found nothing more it could remove, and
 * GRAVEYARD_RETRY when a pass was given up on an error that may pass (a
 * check of its place that could not be made): call again later, since the
 * kernel may bury nothing more for days.
 */
#define GRAVEYARD_RETRY 2
int graveyard_work(struct graveyard *g, unsigned budget);

struct graveyard_stats {
	unsigned long long removed;	/* files and directories removed */
	unsigned long long failed;	/* removals refused (logged) */
	unsigned long long moved;	/* too-deep subtrees moved to the top */
	unsigned long long passes;	/* complete passes over the graveyard */
	unsigned long long moved_out;	/* walks given up: a directory of theirs moved */
};
void graveyard_stats(const struct graveyard *g, struct graveyard_stats *out);

#endif
