// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * priv.c: capability drop with libcap, in one function, every step checked.
 */
#include "priv.h"
#include "log.h"

#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define OWNER_CHECK_MAX 4096	/* top-level entries looked at for foreign owners */

/*
 * Does any directory at the top of fd belong to someone else?  Files do not
 * matter (stat and unlink need rights on the parent only), and the kernel
 * creates a volume's fan-out directories together with the volume, so the
 * top level tells whether the walk below would meet a directory it cannot
 * enter: one left from a time when the cache root had another owner.
 */
static int
foreign_dirs(int fd, uid_t me)
{
	struct dirent *de;
	struct stat sb;
	int dfd, n = 0, found = 0;
	DIR *d;

	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 1;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 1;
	}
	while (!found && n++ < OWNER_CHECK_MAX && (de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(sb.st_mode) && sb.st_uid != me)
			found = 1;
	}
	closedir(d);
	return found;
}

/* Does scanning need to bypass file modes: is any of the tree someone else's? */
static int
need_dac(int cachefd, int gravefd)
{
	struct stat a, b, r;
	uid_t me = geteuid();

	if (fstat(cachefd, &a) == -1 || fstat(gravefd, &b) == -1 ||
	    fstatat(cachefd, "..", &r, AT_SYMLINK_NOFOLLOW) == -1) {
		log_warn("cache directory: fstat");
		return 1;
	}
	if (a.st_uid != me || b.st_uid != me || r.st_uid != me)
		return 1;
	return foreign_dirs(cachefd, me) || foreign_dirs(gravefd, me);
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
log_kept(const cap_value_t *keep, int nkeep, int dac)
{
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
	log_info("capabilities kept: %s%s", nkeep ? buf : "none",
		 dac ? " (part of the cache tree belongs to another user)" : "");
}

int
priv_drop(int cachefd, int gravefd)
{
	static const cap_value_t dac[] = { CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE };
	cap_value_t keep[2];
	int nkeep = 0, want_dac = need_dac(cachefd, gravefd);
	cap_t caps;

	if (want_dac)
		nkeep = held(dac, 2, keep);
	drop_bound(keep, nkeep);
	/* We never exec after start-up: nothing may regain privileges that way. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		log_warn("prctl PR_SET_NO_NEW_PRIVS");
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() == -1)
		log_debug(1, "cap_reset_ambient: %s", strerror(errno));
	if ((caps = cap_init()) == NULL) {
		log_warn("cap_init");
		return -1;
	}
	if (nkeep > 0 &&
	    (cap_set_flag(caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET) == -1 ||
	     cap_set_flag(caps, CAP_PERMITTED, nkeep, keep, CAP_SET) == -1)) {
		log_warn("cap_set_flag");
		cap_free(caps);
		return -1;
	}
	if (cap_set_proc(caps) == -1) {
		log_warn("dropping capabilities: cap_set_proc");
		cap_free(caps);
		return -1;
	}
	cap_free(caps);
	log_kept(keep, nkeep, want_dac);
	return 0;
}
