// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * priv.c: capability drop with libcap, in one function, every step checked.
 */
#include "priv.h"
#include "log.h"

#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Does scanning need to bypass file modes: is the tree someone else's? */
static int
need_dac(int cachefd, int gravefd)
{
	struct stat a, b;
	uid_t me = geteuid();

	if (fstat(cachefd, &a) == -1 || fstat(gravefd, &b) == -1) {
		log_warn("cache directory: fstat");
		return 1;
	}
	return a.st_uid != me || b.st_uid != me;
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
		 dac ? " (the cache tree belongs to another user)" : "");
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
