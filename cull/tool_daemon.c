// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool_daemon.c: what cachefiles-cull learns without scanning (the
 * daemon's status over its control socket, FS-Cache's files in /proc) and
 * the cull command, which asks the daemon to cull toward a goal.
 *
 * Whether a cache is bound: the daemon answering on its socket says so;
 * otherwise /proc/fs/fscache/caches (5.17+, Debian 12's 6.1 among them)
 * lists each cache by its tag, the last field, with the state before it,
 * 'A' while the cache is active.  Opening /dev/cachefiles to find out
 * would itself keep a daemon from starting, so status never does.
 */
#include "cull/tool.h"
#include "cull/control.h"
#include "lib/escape.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define PROC_CACHES "/proc/fs/fscache/caches"
#define PROC_STATS "/proc/fs/fscache/stats"
#define STATUS_TIMEOUT_MS 3000

/*
 * Is path the directory open as dirfd?  By device and inode; when path
 * cannot be stat'ed from here (another mount namespace), by dirfd's own
 * path, and no otherwise: a cull must not go to a cache it cannot name.
 */
static int
same_dir(int dirfd, const char *path)
{
	char link[64], here[PATH_MAX];
	struct stat a, b;
	ssize_t n;

	if (fstat(dirfd, &a) == 0 && stat(path, &b) == 0)
		return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	if ((n = readlink(link, here, sizeof(here) - 1)) <= 0)
		return 0;
	here[n] = '\0';
	return strcmp(here, path) == 0;
}

void
tool_daemon_status(const char *socket, int dirfd, struct tool_daemon *d)
{
	char ok[8] = "";

	memset(d, 0, sizeof(*d));
	if (socket[0] == '\0') {	/* control_socket none */
		d->err = ENOENT;
		return;
	}
	if (control_call(socket, "status", d->reply, sizeof(d->reply), STATUS_TIMEOUT_MS) < 0) {
		d->err = errno;
		d->reply[0] = '\0';
		return;
	}
	if (json_get(d->reply, "ok", ok, sizeof(ok)) < 0 || strcmp(ok, "true") != 0) {
		/* A refusal (not root, say) is an answer, with its reason. */
		if (strcmp(ok, "false") == 0 &&
		    json_get(d->reply, "error", d->refused, sizeof(d->refused)) < 0)
			snprintf(d->refused, sizeof(d->refused), "no reason given");
		d->err = EPROTO;
		return;
	}
	d->answers = 1;
	if (dirfd < 0)
		return;
	/* A dir it does not send, or not readably, is not known to be this one. */
	if (json_get_bytes(d->reply, "dir", d->dir, sizeof(d->dir)) < 0)
		snprintf(d->dir, sizeof(d->dir), "?");
	else if (same_dir(dirfd, d->dir))
		return;
	d->answers = 0;
	d->other = 1;
}

/*
 * A line is "DEBUG_ID REF VOLS OBJS ACCES S NAME": the name is everything
 * after the state, blanks included (a tag may hold blanks).
 */
int
tool_caches_bound(FILE *f, const char *tag)
{
	char line[512], state;
	int found = 0, name, whole, cont = 0;

	if (tag[0] == '\0')
		tag = "CacheFiles";
	while (fgets(line, sizeof(line), f) != NULL) {
		/* A line longer than the buffer holds no tag of ours (255 bytes at most). */
		whole = strchr(line, '\n') != NULL || feof(f);
		line[strcspn(line, "\n")] = '\0';
		name = -1;
		/* The heading and its rule do not scan as numbers. */
		if (!cont && whole &&
		    sscanf(line, "%*x %*d %*d %*d %*d %c %n", &state, &name) == 1 &&
		    name > 0 && state == 'A' && strcmp(line + name, tag) == 0)
			found = 1;
		cont = !whole;
	}
	return found;
}

int
tool_proc_bound(const char *tag)
{
	FILE *f = fopen(PROC_CACHES, "re");
	int found;

	if (f == NULL)
		return -1;
	found = tool_caches_bound(f, tag);
	fclose(f);
	return found;
}

/* The value of "key=" in a line of key=value words, or -1. */
static int
word_value(const char *line, const char *key, uint64_t *v)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ' || p[-1] == ':') && p[n] == '=') {
			*v = strtoull(p + n + 1, NULL, 10);
			return 0;
		}
		p += n;
	}
	return -1;
}

int
tool_proc_cookies(uint64_t *cookies, uint64_t *volumes)
{
	FILE *f = fopen(PROC_STATS, "re");
	char line[512];
	int r = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Cookies", 7) == 0 && word_value(line, "n", cookies) == 0 &&
		    word_value(line, "v", volumes) == 0)
			r = 0;
	fclose(f);
	return r;
}

/*
 * cull -d DIR (or -f naming DIR): the daemon on the socket must serve DIR,
 * or the cull would go to another cache.  No daemon answering (nothing listens) is left to
 * the cull's own call.
 */
static int
serves(const char *socket, const char *dir, const char *sock)
{
	static struct tool_daemon d;
	char e[ESCAPE_SIZE(128)], o[ESCAPE_SIZE(128)];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd == -1) {
		fprintf(stderr, "cachefiles-cull: %s: open: %s\n", escaped(dir, e, sizeof(e)),
			strerror(errno));
		return 0;
	}
	tool_daemon_status(socket, fd, &d);
	close(fd);
	if (d.refused[0] != '\0') {
		fprintf(stderr, "cachefiles-cull: the daemon refused: %s\n",
			escaped(d.refused, o, sizeof(o)));
		return 0;
	}
	/* Connected, but no status in time: the cull would wait on it for good. */
	if (!d.answers && !d.other && (d.err == ETIMEDOUT || d.err == EPROTO)) {
		fprintf(stderr, "cachefiles-cull: the daemon on %s does not answer status (%s), "
			"so which cache it serves is not known; not asking it to cull %s\n", sock,
			d.err == ETIMEDOUT ? "timed out" : "not a status reply",
			escaped(dir, e, sizeof(e)));
		return 0;
	}
	if (!d.other)
		return 1;
	fprintf(stderr, "cachefiles-cull: the daemon on %s serves %s, not %s; name this "
		"cache's socket with -s\n", sock, escaped(d.dir, o, sizeof(o)),
		escaped(dir, e, sizeof(e)));
	return 0;
}

int
tool_cull(struct tool_ctx *c)
{
	const struct goal *g = &c->o->goal;
	char req[CONTROL_REQUEST_MAX], reply[CONTROL_REPLY_MAX], ok[8], result[32];
	char error[512], sock[ESCAPE_SIZE(128)], b[TOOL_FMT_MAX], gd[64];
	uint64_t culled = 0, bytes = 0, ms = 0, unseen = 0;
	const char *want = c->o->dir != NULL ? c->o->dir :
	    c->o->conf != NULL && config_given(&c->cfg, "dir") ? c->cfg.dir : NULL;

	switch (g->kind) {
	case GOAL_RUN_LIMITS: snprintf(req, sizeof(req), "cull to-run"); break;
	case GOAL_FREE_PCT: snprintf(req, sizeof(req), "cull free %" PRIu64, g->value); break;
	case GOAL_BYTES: snprintf(req, sizeof(req), "cull bytes %" PRIu64, g->value); break;
	case GOAL_OLDER_THAN: snprintf(req, sizeof(req), "cull older-than %" PRIu64, g->value); break;
	default: return TOOL_USAGE;
	}
	if (c->socket[0] == '\0') {
		fprintf(stderr, "cachefiles-cull: the configuration turns the daemon's control "
			"socket off (control_socket none), so it takes no requests; name a "
			"socket with -s\n");
		return TOOL_ERR;
	}
	escape_text(c->socket, sock, sizeof(sock));
	/* The cache named by -d, or by the file -f names: the daemon must serve it. */
	if (want != NULL && !serves(c->socket, want, sock))
		return TOOL_ERR;
	if (control_call(c->socket, req, reply, sizeof(reply), 0) < 0) {
		int e = errno;
		if (e == ENOENT || e == ECONNREFUSED)
			fprintf(stderr, "cachefiles-cull: %s: no daemon answers (%s); for a cache "
				"that is not bound, see 'cachefiles-cull trim'\n", sock, strerror(e));
		else
			fprintf(stderr, "cachefiles-cull: %s: %s\n", sock, strerror(e));
		return TOOL_ERR;
	}
	if (json_get(reply, "ok", ok, sizeof(ok)) < 0) {
		fprintf(stderr, "cachefiles-cull: %s: a reply that is not a status object\n", sock);
		return TOOL_ERR;
	}
	if (strcmp(ok, "true") != 0) {
		char e[ESCAPE_SIZE(sizeof(error))];
		if (json_get(reply, "error", error, sizeof(error)) < 0)
			snprintf(error, sizeof(error), "refused, no reason given");
		escape_text(error, e, sizeof(e));
		fprintf(stderr, "cachefiles-cull: the daemon refused: %s\n", e);
		return TOOL_ERR;
	}
	/*
	 * Every figure or none: a reply cut short or garbled is not "met".
	 * unseen may be absent (0), as from a daemon before it was added.
	 */
	if (json_get(reply, "result", result, sizeof(result)) < 0 ||
	    (strcmp(result, "met") != 0 && strcmp(result, "exhausted") != 0) ||
	    json_get_u64(reply, "culled", &culled) < 0 ||
	    json_get_u64(reply, "bytes", &bytes) < 0 ||
	    json_get_u64(reply, "ms", &ms) < 0 ||
	    (json_get(reply, "unseen", error, sizeof(error)) == 0 &&
	     json_get_u64(reply, "unseen", &unseen) < 0)) {
		fprintf(stderr, "cachefiles-cull: %s: a reply to the cull that is not one "
			"(no result of met or exhausted, or a figure missing or out of range)\n",
			sock);
		return TOOL_ERR;
	}
	goal_describe(g, gd, sizeof(gd));
	if (c->o->json) {
		struct jw w;
		jw_init(&w, stdout);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "goal", gd);
		jw_str(&w, "result", result);
		jw_u64(&w, "culled", culled);
		jw_u64(&w, "bytes", bytes);
		jw_double(&w, "seconds", (double)ms / 1000.0, 3);
		jw_u64(&w, "unseen", unseen);
		jw_obj_end(&w);
		fputc('\n', stdout);
	} else {
		printf("goal     %s: %s\n", gd, strcmp(result, "met") == 0 ? "met" :
		       unseen > 0 ? "not met, the daemon's scan could not look at some entries "
		       "(see its log)" : "not met, nothing more could be culled");
		printf("culled   %" PRIu64 " %s, %s\n", culled, plural(culled, "object", "objects"),
		       fmt_bytes(bytes, b, sizeof(b)));
		printf("took     %.1f s\n", (double)ms / 1000.0);
	}
	return strcmp(result, "exhausted") == 0 ? TOOL_EXHAUSTED : TOOL_OK;
}
