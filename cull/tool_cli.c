// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool_cli.c: cachefiles-cull's command line.  Options may stand before or
 * after the command; each option is checked against the command it goes
 * with, so a typo is a usage error and never a different action.
 */
#include "cull/tool.h"
#include "cull/control.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AGE_MAX (3650 * 86400ULL)		/* as cull_age */
#define SIZE_MAX_BYTES (1ULL << 60)
#define SOCKET_PATH_MAX 107			/* sun_path, less its NUL */

static const char *const cmd_names[] = {
	[CMD_NONE] = "", [CMD_STATUS] = "status", [CMD_REPORT] = "report",
	[CMD_LIST] = "list", [CMD_CULL] = "cull", [CMD_TRIM] = "trim",
};

const char *
tool_cmd_name(enum tool_cmd c)
{
	return cmd_names[c];
}

void
tool_usage(FILE *f)
{
	fputs("usage: cachefiles-cull [-f CONF] [-d DIR] [-s PATH] [--json] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  status                    the cache at a glance\n"
	      "  report                    volumes, access-time and size histograms\n"
	      "  list [-n N]               the N oldest objects, as they would be culled (20)\n"
	      "  cull GOAL                 ask the running daemon to cull toward GOAL\n"
	      "  trim GOAL [--dry-run]     remove the oldest objects of an unbound cache\n"
	      "\n"
	      "goals (one):\n"
	      "  --to-run                  up to brun and frun\n"
	      "  --free P%                 until P% of the blocks are free\n"
	      "  --bytes SIZE              free SIZE more, N[K|M|G]\n"
	      "  --older-than AGE          objects unused for longer than N[s|m|h|d|w]\n"
	      "\n"
	      "options:\n"
	      "  -f, --config CONF         the daemon's configuration (/etc/cachefilesd.conf)\n"
	      "  -d, --dir DIR             the cache directory; alone, no CONF is read (but\n"
	      "                            cull reads it for control_socket)\n"
	      "  -s, --socket PATH         the daemon's control socket (the configuration's\n"
	      "                            control_socket, else " CONTROL_DEFAULT_PATH ")\n"
	      "  -n, --count N             list: how many objects\n"
	      "      --json                one JSON document on stdout\n"
	      "      --dry-run             trim: show what would go, remove nothing\n"
	      "      --device PATH         trim: device to hold instead of /dev/cachefiles (for tests)\n"
	      "  -h, --help                this text\n"
	      "  -V, --version             the version\n", f);
}

static int
usage_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return TOOL_USAGE;
}

/* A value quoted in a message: escaped, shortened. */
static const char *
q(const char *s, char *buf, size_t len)
{
	if (s[escape_text(s, buf, len - 4)] != '\0')
		strcat(buf, "...");
	return buf;
}

static int
set_goal(struct tool_opts *o, enum goal_kind k, const char *name, const char *arg,
	 char *err, size_t errlen)
{
	char sh[80];
	uint64_t v = 0;

	if (o->goal.kind != GOAL_NONE)
		return usage_error(err, errlen, "%s: only one goal at a time", name);
	switch (k) {
	case GOAL_FREE_PCT: {
		size_t n = strlen(arg), i;
		if (n < 2 || arg[n - 1] != '%' || strspn(arg, "0123456789") != n - 1)
			return usage_error(err, errlen, "%s: '%s' is not a percentage "
					   "such as 80%%", name, q(arg, sh, sizeof(sh)));
		/* Any number of digits: 1000% is out of range, not malformed; 0100% is 100%. */
		for (i = 0; i + 1 < n && v <= 100; i++)
			v = v * 10 + (uint64_t)(arg[i] - '0');
		if (v < 1 || v > 100)
			return usage_error(err, errlen, "%s: %s is out of range "
					   "(1%% to 100%%)", name, q(arg, sh, sizeof(sh)));
		break;
	}
	case GOAL_BYTES:
		if (config_parse_size(arg, 1, SIZE_MAX_BYTES, &v) < 0)
			return usage_error(err, errlen, errno == ERANGE ?
					   "%s: '%s' is out of range (1 to 1073741824G)" :
					   "%s: '%s' is not a size such as 512M (N[K|M|G])",
					   name, q(arg, sh, sizeof(sh)));
		break;
	case GOAL_OLDER_THAN:
		if (config_parse_duration(arg, 1, AGE_MAX, &v) < 0)
			return usage_error(err, errlen, errno == ERANGE ?
					   "%s: '%s' is out of range (1s to 3650d)" :
					   "%s: '%s' is not an age such as 30d (N[s|m|h|d|w])",
					   name, q(arg, sh, sizeof(sh)));
		break;
	default:
		break;
	}
	o->goal.kind = k;
	o->goal.value = v;
	return TOOL_OK;
}

/* Which command an option belongs to: CMD_NONE for every command. */
struct opt {
	const char *lng;
	char shrt;
	int has_arg;
	enum tool_cmd only, also;
	int id;
};

enum { O_CONF, O_DIR, O_SOCKET, O_COUNT, O_JSON, O_DRY, O_DEVICE, O_HELP, O_VERSION,
       O_TO_RUN, O_FREE, O_BYTES, O_OLDER };

static const struct opt opts[] = {
	{ "config", 'f', 1, CMD_NONE, CMD_NONE, O_CONF },
	{ "dir", 'd', 1, CMD_NONE, CMD_NONE, O_DIR },
	{ "socket", 's', 1, CMD_NONE, CMD_NONE, O_SOCKET },
	{ "count", 'n', 1, CMD_LIST, CMD_LIST, O_COUNT },
	{ "json", 0, 0, CMD_NONE, CMD_NONE, O_JSON },
	{ "dry-run", 0, 0, CMD_TRIM, CMD_TRIM, O_DRY },
	{ "device", 0, 1, CMD_TRIM, CMD_TRIM, O_DEVICE },
	{ "help", 'h', 0, CMD_NONE, CMD_NONE, O_HELP },
	{ "version", 'V', 0, CMD_NONE, CMD_NONE, O_VERSION },
	{ "to-run", 0, 0, CMD_CULL, CMD_TRIM, O_TO_RUN },
	{ "free", 0, 1, CMD_CULL, CMD_TRIM, O_FREE },
	{ "bytes", 0, 1, CMD_CULL, CMD_TRIM, O_BYTES },
	{ "older-than", 0, 1, CMD_CULL, CMD_TRIM, O_OLDER },
};

static int
apply(struct tool_opts *o, const struct opt *p, const char *arg, char *err, size_t errlen)
{
	char sh[80];

	switch (p->id) {
	case O_CONF: o->conf = arg; break;
	case O_DIR: o->dir = arg; break;
	case O_SOCKET:
		/* What connect() can take; "none" means something only in the file. */
		if (strcmp(arg, "none") == 0)
			return usage_error(err, errlen, "--socket: 'none' turns the socket off in "
					   "the configuration; here, name a socket");
		if (strlen(arg) > SOCKET_PATH_MAX)
			return usage_error(err, errlen, "--socket: longer than %d bytes",
					   SOCKET_PATH_MAX);
		o->socket = arg;
		break;
	case O_DEVICE: o->device = arg; break;
	case O_JSON: o->json = 1; break;
	case O_DRY: o->dry_run = 1; break;
	case O_HELP: o->help = 1; break;
	case O_VERSION: o->version = 1; break;
	case O_COUNT:
		if (parse_u64(arg, 10, 1, 100000000, &o->count) < 0)
			return usage_error(err, errlen, "--count: '%s' is not a number "
					   "from 1 to 100000000", q(arg, sh, sizeof(sh)));
		break;
	case O_TO_RUN: return set_goal(o, GOAL_RUN_LIMITS, "--to-run", "", err, errlen);
	case O_FREE: return set_goal(o, GOAL_FREE_PCT, "--free", arg, err, errlen);
	case O_BYTES: return set_goal(o, GOAL_BYTES, "--bytes", arg, err, errlen);
	case O_OLDER: return set_goal(o, GOAL_OLDER_THAN, "--older-than", arg, err, errlen);
	}
	if (p->has_arg && arg[0] == '\0')
		return usage_error(err, errlen, "--%s: empty value", p->lng);
	return TOOL_OK;
}

int
tool_parse_args(int argc, char *const argv[], struct tool_opts *o, char *err, size_t errlen)
{
	const struct opt *used[ARRAY_SIZE(opts)];
	size_t nused = 0, j;
	int i, r, only_args = 0;
	char sh[80];

	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct opt *p = NULL;
		size_t k;

		if (!only_args && strcmp(a, "--") == 0) {
			only_args = 1;
			continue;
		}
		if (only_args || a[0] != '-' || a[1] == '\0') {
			if (o->cmd != CMD_NONE)
				return usage_error(err, errlen, "unexpected argument '%s'",
						   q(a, sh, sizeof(sh)));
			for (k = 1; k < ARRAY_SIZE(cmd_names); k++)
				if (strcmp(a, cmd_names[k]) == 0)
					o->cmd = (enum tool_cmd)k;
			if (o->cmd == CMD_NONE)
				return usage_error(err, errlen, "unknown command '%s' (status, "
						   "report, list, cull, trim)", q(a, sh, sizeof(sh)));
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			for (k = 0; k < ARRAY_SIZE(opts); k++)
				if (strlen(opts[k].lng) == n && strncmp(opts[k].lng, a + 2, n) == 0)
					p = &opts[k];
			if (p == NULL)
				return usage_error(err, errlen, "unknown option '%s'",
						   q(a, sh, sizeof(sh)));
			if (eq != NULL && !p->has_arg)
				return usage_error(err, errlen, "--%s takes no value", p->lng);
			if (eq != NULL)
				val = eq + 1;
		} else {
			for (k = 0; k < ARRAY_SIZE(opts); k++)
				if (opts[k].shrt == a[1])
					p = &opts[k];
			if (p == NULL || (!p->has_arg && a[2] != '\0'))
				return usage_error(err, errlen, "unknown option '%s'",
						   q(a, sh, sizeof(sh)));
			if (a[2] != '\0')
				val = a + 2;
		}
		if (p->has_arg && val == NULL) {
			if (i + 1 >= argc)
				return usage_error(err, errlen, "--%s needs a value", p->lng);
			val = argv[++i];
		}
		for (j = 0; j < nused; j++)
			if (used[j] == p && p->id != O_TO_RUN && p->id != O_FREE &&
			    p->id != O_BYTES && p->id != O_OLDER)
				return usage_error(err, errlen, "--%s given twice", p->lng);
		used[nused++] = p;
		if ((r = apply(o, p, val ? val : "", err, errlen)) != TOOL_OK)
			return r;
	}
	if (o->help || o->version)
		return TOOL_OK;
	if (o->cmd == CMD_NONE)
		return usage_error(err, errlen, "no command given (status, report, list, "
				   "cull, trim); see --help");
	for (j = 0; j < nused; j++)
		if (used[j]->only != CMD_NONE && used[j]->only != o->cmd &&
		    used[j]->also != o->cmd)
			return usage_error(err, errlen, "--%s does not go with %s",
					   used[j]->lng, cmd_names[o->cmd]);
	if ((o->cmd == CMD_CULL || o->cmd == CMD_TRIM) && o->goal.kind == GOAL_NONE)
		return usage_error(err, errlen, "%s needs a goal: --to-run, --free P%%, "
				   "--bytes SIZE or --older-than AGE", cmd_names[o->cmd]);
	if (o->cmd == CMD_LIST && o->count == 0)
		o->count = TOOL_LIST_DEFAULT;
	return TOOL_OK;
}

static void
config_error(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "cachefiles-cull: %s\n", msg);
}

/* Open DIR and DIR/cache; one clear line and TOOL_ERR when it is no cache. */
static int
open_cache(struct tool_ctx *c)
{
	char e[ESCAPE_SIZE(128)];
	struct stat sb;

	escape_text(c->dir, e, sizeof(e));
	c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0) {
		fprintf(stderr, "cachefiles-cull: %s: %s\n", e, errno == ENOTDIR ?
			"not a directory" : strerror(errno));
		return TOOL_ERR;
	}
	c->cachefd = openat(c->dirfd, "cache", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->cachefd < 0) {
		int err = errno;
		int st = fstatat(c->dirfd, "cache", &sb, AT_SYMLINK_NOFOLLOW);

		if (st == 0 && S_ISLNK(sb.st_mode))
			fprintf(stderr, "cachefiles-cull: %s/cache: a symbolic link, "
				"not followed\n", e);
		else if (st == 0 || err != ENOENT)
			fprintf(stderr, "cachefiles-cull: %s/cache: %s\n", e,
				err == ENOTDIR || err == ELOOP ? "not a directory" : strerror(err));
		else
			fprintf(stderr, "cachefiles-cull: %s: not a cache directory "
				"(no cache/ inside)\n", e);
		return TOOL_ERR;
	}
	return TOOL_OK;
}

int
tool_main(int argc, char *argv[])
{
	struct tool_opts o;
	struct tool_ctx c;
	char err[512];
	int r;

	log_init("cachefiles-cull", 1, 0);
	if (tool_parse_args(argc, argv, &o, err, sizeof(err)) != TOOL_OK) {
		fprintf(stderr, "cachefiles-cull: %s\n", err);
		return TOOL_USAGE;
	}
	if (o.help || o.version) {
		if (o.help)
			tool_usage(stdout);
		else
			printf("cachefiles-cull %s\n", VERSION);
		if (fflush(stdout) == 0 && !ferror(stdout))
			return TOOL_OK;
		fprintf(stderr, "cachefiles-cull: standard output: %s\n", strerror(errno));
		return TOOL_ERR;
	}
	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.dirfd = c.cachefd = -1;
	c.socket = o.socket ? o.socket : CONTROL_DEFAULT_PATH;
	/*
	 * -d alone: the kernel's default limits, no file read.  -f (or no -d):
	 * the file's dir, limits and tag; -d with -f: the file's limits for
	 * the directory -d names.  cull needs only the daemon's socket: the
	 * default file is read for its control_socket when it exists and -s
	 * does not name one, -d or not (cull has no use for a directory).
	 */
	if (o.conf != NULL || (o.dir == NULL && o.cmd != CMD_CULL) ||
	    (o.cmd == CMD_CULL && o.socket == NULL && access(CFG_DEFAULT_PATH, F_OK) == 0)) {
		const char *path = o.conf ? o.conf : CFG_DEFAULT_PATH;
		/* With -d (or for cull) the file need not name a dir. */
		if ((o.dir != NULL || o.cmd == CMD_CULL ?
		     config_load_nodir(&c.cfg, path, config_error, NULL) :
		     config_load(&c.cfg, path, config_error, NULL)) != 0)
			return TOOL_ERR;
	} else {
		config_defaults(&c.cfg);
	}
	c.dir = o.dir ? o.dir : c.cfg.dir;
	/*
	 * The daemon's socket as its configuration names it (the default one
	 * when no file was read), unless -s says otherwise; "" when the file
	 * turns it off (control_socket none): then no daemon takes requests.
	 */
	if (o.socket == NULL)
		c.socket = c.cfg.control_socket;
	if (o.cmd != CMD_CULL && (r = open_cache(&c)) != TOOL_OK)
		return r;
	switch (o.cmd) {
	case CMD_STATUS: r = tool_status(&c); break;
	case CMD_REPORT: r = tool_report(&c); break;
	case CMD_LIST: r = tool_list(&c); break;
	case CMD_TRIM: r = tool_trim(&c); break;
	case CMD_CULL: r = tool_cull(&c); break;
	default: r = TOOL_USAGE; break;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cachefiles-cull: standard output: %s\n", strerror(errno));
		r = TOOL_ERR;
	}
	if (c.cachefd >= 0)
		close(c.cachefd);
	if (c.dirfd >= 0)
		close(c.dirfd);
	return r;
}
