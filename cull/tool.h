/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tool.h: cachefiles-cull, the companion culling tool (man/cachefiles-cull.8).
 *
 * The tool links the scanner (cull/), the configuration parser (config/)
 * and the leaf helpers (lib/), never the daemon or the kernel channel.
 * Offline commands (status, report, list, trim) scan DIR/cache themselves;
 * online ones ask the daemon over its control socket (status, cull).
 *
 *   tool_cli.c      command line, configuration, dispatch
 *   tool_fmt.c      sizes, ages, times, volume names: pure functions
 *   tool_scan.c     status, report, list: the offline views
 *   tool_trim.c     trim: removing the oldest objects of an unbound cache
 *   tool_daemon.c   cull, and what status asks the daemon and /proc
 */
#ifndef CFD_TOOL_H
#define CFD_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "cull/goal.h"

/* Exit statuses. */
#define TOOL_OK 0
#define TOOL_ERR 1		/* runtime error */
#define TOOL_USAGE 2		/* usage or bad value */
#define TOOL_EXHAUSTED 3	/* goal not reached: nothing more could be culled */

#define TOOL_DEVICE "/dev/cachefiles"
#define TOOL_LIST_DEFAULT 20

enum tool_cmd { CMD_NONE, CMD_STATUS, CMD_REPORT, CMD_LIST, CMD_CULL, CMD_TRIM };
struct tool_opts {
	enum tool_cmd cmd;
	const char *conf;		/* -f; NULL: not given */
	const char *dir;		/* -d; NULL: from the configuration */
	const char *socket;		/* -s; NULL: CONTROL_DEFAULT_PATH */
	const char *device;		/* --device, for tests; NULL: TOOL_DEVICE */
	int json, dry_run, help, version;
	uint64_t count;			/* list -n */
	struct goal goal;		/* GOAL_NONE: none given */
};

/* Everything a command needs, set up by tool_cli.c. */
struct tool_ctx {
	const struct tool_opts *o;
	struct config cfg;		/* limits, tag, scan_threads, cull_memory */
	const char *dir;		/* the cache directory as named */
	const char *socket;
	int dirfd, cachefd;		/* DIR and DIR/cache, -1 for cull */
};

/*
 * Parse argv into o.  Options may stand before or after the command.
 * Returns TOOL_OK, or TOOL_USAGE with one line (no newline) in err.
 */
int tool_parse_args(int argc, char *const argv[], struct tool_opts *o,
		    char *err, size_t errlen);
int tool_main(int argc, char *argv[]);
void tool_usage(FILE *f);
const char *tool_cmd_name(enum tool_cmd c);

/* Formatting (tool_fmt.c).  Each writes into buf and returns buf. */
#define TOOL_FMT_MAX 64
const char *fmt_bytes(uint64_t bytes, char *buf, size_t len);	/* "1.5 MiB" */
const char *fmt_age(uint64_t seconds, char *buf, size_t len);	/* "3d 4h" */
const char *fmt_time(uint64_t epoch_s, char *buf, size_t len);	/* ISO 8601, UTC */
const char *fmt_pct(uint64_t part, uint64_t whole, char *buf, size_t len); /* "12.3%" */
/* one when n is 1, else many: "1 object", "2 objects", "0 objects" */
const char *plural(uint64_t n, const char *one, const char *many);

/*
 * What a volume directory's name says (kernel-interface reference 5.1):
 * fs is "9p", "nfs", "afs", "cifs", "ceph", "erofs" or "" (unknown), desc a
 * readable description, an unknown name as it is.  TOOL_VOL_TEXT escapes
 * what comes from the name for a terminal; TOOL_VOL_RAW leaves it as it is,
 * for a JSON writer, which escapes by its own rules.
 */
enum tool_vol_for { TOOL_VOL_TEXT, TOOL_VOL_RAW };
struct tool_volume {
	char fs[8];
	char desc[1100];		/* room for a whole name escaped */
	enum tool_vol_for mode;
};
void tool_volume_decode(const char *dirname, enum tool_vol_for mode, struct tool_volume *v);

/* Commands. */
int tool_status(struct tool_ctx *c);
int tool_report(struct tool_ctx *c);
int tool_list(struct tool_ctx *c);
int tool_trim(struct tool_ctx *c);
int tool_cull(struct tool_ctx *c);

/* tool_daemon.c: what can be learned without scanning. */
struct tool_daemon {
	int answers;			/* the daemon of this cache replied to "status" */
	int other;			/* a daemon replied, for another directory (dir) */
	int err;			/* errno of the call when none replied */
	char refused[128];		/* a daemon replied with an error: its reason */
	char dir[8192];			/* the directory the replying daemon serves */
	char reply[8192];		/* its reply, a flat JSON object */
};
/*
 * Ask the daemon on socket for its status.  With dirfd >= 0, a daemon
 * serving another directory (its "dir" is not dirfd's) does not count as
 * answering for this cache: other is set instead.
 */
void tool_daemon_status(const char *socket, int dirfd, struct tool_daemon *d);
/* A cache with this tag ("" = CacheFiles) is active in /proc/fs/fscache/caches: 1, 0, -1 unknown. */
int tool_proc_bound(const char *tag);
/* The same test on an open copy of that file: 1 or 0. */
int tool_caches_bound(FILE *f, const char *tag);
/* Cookies and volumes FS-Cache holds (/proc/fs/fscache/stats): 0, or -1 unknown. */
int tool_proc_cookies(uint64_t *cookies, uint64_t *volumes);

/*
 * A run, cull or stop limit in blocks or files as the kernel sets it at
 * bind, (total / 100) * pct, so that "below run" and trim --to-run agree
 * with the kernel's own checks to the block.
 */
uint64_t tool_kernel_limit(uint64_t total, unsigned pct);

/* tool_scan.c: a scan with progress on a terminal after a second. */
struct scan_result;
struct cand_key;
struct scan_result *tool_scan(struct tool_ctx *c, size_t max_candidates,
			       const struct cand_key *after);

#endif
