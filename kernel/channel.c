// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * channel.c: the channel to the CacheFiles kernel module.
 *
 * Every command goes through kernel_cmd(), and every state line comes back
 * through kernel_read_state(); the protocol lives here, the bytes travel
 * through a transport (kernel/transport.h) the caller names: the device in
 * the shipped daemon, the kernel simulator's socket in test programs
 * (docs/kernel-seam.md).  This file knows nothing of either.
 */
#include "kernel/channel.h"
#include "kernel/transport.h"
#include "config/config.h"
#include "lib/escape.h"
#include "lib/kcmd.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUSY_DELAY_MIN_MS 50
#define BUSY_DELAY_MAX_MS 1000
#define HEX_DIGITS_MAX 16

struct kchan {
	const struct ktransport *t;
	void *conn;		/* the transport's connection */
	int dead;		/* a probe after EIO confirmed the cache is dead */
	char dir[PATH_MAX];	/* the directory as sent with "dir" */
};

/* ---- opening ---- */

static void
open_failed(const struct ktransport *t, const char *path, int err)
{
	const char *why = t->explain_open != NULL ? t->explain_open(err) : NULL;

	log_errx("%s: open: %s (%s)", path, strerror(err),
		  why != NULL ? why : kernel_explain("open", err));
}

struct kchan *
kernel_open(const struct ktransport *t, const char *path, unsigned busy_wait_ms)
{
	unsigned delay = BUSY_DELAY_MIN_MS;
	uint64_t deadline = now_ms() + busy_wait_ms;
	int tried_load = 0, said_busy = 0;
	struct kchan *k;
	void *conn;

	if (path == NULL && (path = t->default_path()) == NULL) {
		log_errx("kernel %s: no path to open", t->name);
		return NULL;
	}
	for (;;) {
		conn = t->open(path);
		if (conn != NULL)
			break;
		if (errno == ENOENT && t->load != NULL && !tried_load) {
			tried_load = 1;
			if (t->load(path))
				continue;
			errno = ENOENT;
		}
		if (errno != EBUSY || now_ms() >= deadline) {
			open_failed(t, path, errno);
			return NULL;
		}
		if (!said_busy) {
			log_notice("%s is busy: a previous instance may still be withdrawing its cache; "
				   "retrying for up to %u ms", path, busy_wait_ms);
			said_busy = 1;
		}
		if (nap_unless_stopped(delay) == -1) {
			log_notice("%s: asked to stop while it was busy; not waiting longer", path);
			errno = EINTR;
			return NULL;
		}
		delay = delay * 2 > BUSY_DELAY_MAX_MS ? BUSY_DELAY_MAX_MS : delay * 2;
	}
	k = xcalloc(1, sizeof(*k));
	k->t = t;
	k->conn = conn;
	log_debug(1, "opened %s (%s)", path, t->name);
	return k;
}

void
kernel_close(struct kchan *k)
{
	int r;

	if (k == NULL)
		return;
	if ((r = k->t->close(k->conn)) < 0)
		log_warnx("kernel %s: close: %s", k->t->name, strerror(-r));
	free(k);
}

int
kernel_fd(const struct kchan *k)
{
	return k->t->fd(k->conn);
}

int
kernel_dead(const struct kchan *k)
{
	return k->dead;
}

/* ---- commands ---- */

/* Send the command cmd[0..len) (len < 0: it did not fit the buffer). */
static int
send_cmd(struct kchan *k, const char *cmd, int len)
{
	char shown[201];
	int r;

	/* The kernel ends a command at the first newline; never let one through. */
	if (len < 0 || len > KCMD_MAX)
		r = -E2BIG;
	else if (len == 0 || memchr(cmd, '\n', (size_t)len) != NULL)
		r = -EINVAL;
	else
		r = k->t->write(k->conn, cmd, (size_t)len);
	if (log_get_debug() >= 3)
		log_debug(3, "kernel: \"%s\" -> %s", len < 0 ? "" : escaped(cmd, shown, sizeof(shown)),
			  r == 0 ? "ok" : strerror(-r));
	return r;
}

int
kernel_cmd(struct kchan *k, const char *fmt, ...)
{
	char cmd[KCMD_MAX + 1];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return send_cmd(k, cmd, len < 0 || (size_t)len >= sizeof(cmd) ? -1 : len);
}

/* The command word of a command line, for messages and kernel_explain(). */
static void
cmd_word(const char *cmd, char *word, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && cmd[i] != '\0' && cmd[i] != ' '; i++)
		word[i] = cmd[i];
	word[i] = '\0';
}

/* Send one configuration command; on failure log it with its likely cause. */
static int
config_cmd(struct kchan *k, const char *cmd)
{
	char word[16];
	int r;

	if ((r = kernel_cmd(k, "%s", cmd)) == 0)
		return 0;
	cmd_word(cmd, word, sizeof(word));
	if (strcmp(word, "bind") == 0)	/* the directory went in an earlier command */
		log_errx("kernel refused \"bind\" of %s: %s (%s)", kernel_dir(k),
			  strerror(-r), kernel_explain(word, -r));
	else
		log_errx("kernel refused \"%s\": %s (%s)", cmd, strerror(-r),
			  kernel_explain(word, -r));
	return r;
}

static int
config_cmd_arg(struct kchan *k, const char *word, const char *arg)
{
	char cmd[KCMD_MAX + 1];

	if (snprintf_checked(cmd, sizeof(cmd), "%s %s", word, arg) == -1) {
		log_errx("%s: argument too long for the kernel (%zu bytes)", word,
			  strlen(arg));
		return -E2BIG;
	}
	return config_cmd(k, cmd);
}

/*
 * The kernel resolves "dir" without following a final symbolic link (bind
 * fails with ENOTDIR), yet /var/cache/fscache is often a link to a bigger
 * disk; send the link's target instead, as the administrator meant.  Any
 * link further up is resolved too: the daemon opens DIR before bind and
 * checks after it that the path still names what it opened, which a link
 * swapped in between would defeat (daemon.c, root_unmoved()).  A path that
 * does not resolve goes as it is, for bind to say why it fails.
 */
static const char *
bind_dir(const char *dir, char *real)
{
	struct stat st;

	if (realpath(dir, real) == NULL || strcmp(real, dir) == 0)
		return dir;
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		log_info("%s is a symbolic link: binding %s", dir, real);
	else
		log_info("%s: binding %s, its resolved path", dir, real);
	return real;
}

int
kernel_configure(struct kchan *k, const struct config *cfg)
{
	char cmds[CFG_LIMIT_CMDS][CFG_LIMIT_CMD_MAX];
	char buf[32], real[PATH_MAX];
	int i, n, r;

	if (cfg->dir[0] == '\0') {
		log_errx("no cache directory configured (dir)");
		return -EINVAL;
	}
	if (strlcpy_checked(k->dir, bind_dir(cfg->dir, real), sizeof(k->dir)) == -1) {
		log_errx("%s: path too long", cfg->dir);
		return -ENAMETOOLONG;
	}
	if ((r = config_cmd_arg(k, "dir", k->dir)) < 0)
		return r;
	if (cfg->tag[0] != '\0' && (r = config_cmd_arg(k, "tag", cfg->tag)) < 0)
		return r;
	if (cfg->secctx[0] != '\0' &&
	    (r = config_cmd_arg(k, "secctx", cfg->secctx)) < 0)
		return r;
	if (cfg->debug != 0 || config_given(cfg, "debug")) {
		snprintf(buf, sizeof(buf), "debug %#llx", (unsigned long long)cfg->debug);
		if ((r = config_cmd(k, buf)) < 0)
			return r;
	}
	n = config_limit_commands(cfg, cmds, CFG_LIMIT_CMDS);
	for (i = 0; i < n; i++) {
		cmds[i][CFG_LIMIT_CMD_MAX - 1] = '\0';
		if ((r = config_cmd(k, cmds[i])) < 0)
			return r;
	}
	return 0;
}

const char *
kernel_dir(const struct kchan *k)
{
	return k->dir;
}

int
kernel_bind(struct kchan *k)
{
	return config_cmd(k, "bind");
}

/*
 * After an EIO from cull or inuse, tell a dead cache from a refused name:
 * "tag" after bind fails with EEXIST on a live cache (bind sets the
 * default tag) and EIO on a dead one, and changes nothing either way.
 * Not "dir", which does the same but logs "Second cache directory
 * specified" in the kernel's log at each probe.
 */
static void
probe_dead(struct kchan *k)
{
	if (kernel_cmd(k, "tag CacheFiles") == -EIO)
		k->dead = 1;
}

static int
name_cmd(struct kchan *k, const char *word, const char *name)
{
	char cmd[KCMD_MAX + 1];
	size_t wl = strlen(word), nl = strlen(name);
	int r;

	if (!kcmd_name_ok(name, nl))
		return -EINVAL;
	/* kcmd_name_ok() bounds the name to NAME_MAX, far below the buffer */
	if (wl + 1 + nl > KCMD_MAX)
		return -E2BIG;
	/* Copied, not formatted: one of these goes with every cull. */
	memcpy(cmd, word, wl);
	cmd[wl] = ' ';
	memcpy(cmd + wl + 1, name, nl);
	cmd[wl + 1 + nl] = '\0';
	r = send_cmd(k, cmd, (int)(wl + 1 + nl));
	if (r == -EIO)
		probe_dead(k);
	return r;
}

int
kernel_cull(struct kchan *k, const char *name)
{
	return name_cmd(k, "cull", name);
}

int
kernel_inuse(struct kchan *k, const char *name)
{
	return name_cmd(k, "inuse", name);
}

/* ---- the state line ---- */

int
kernel_read_state(struct kchan *k, struct kstate *st)
{
	char buf[KSTATE_BUF], shown[201];
	ssize_t n;

	n = k->t->read(k->conn, buf, sizeof(buf));
	if (n == -EIO)
		probe_dead(k);	/* the device's reads go on when the cache dies: ask */
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENODATA;
	if (kstate_parse(buf, (size_t)n, st) == -1) {
		buf[n < (ssize_t)sizeof(buf) ? n : (ssize_t)sizeof(buf) - 1] = '\0';
		log_warnx("kernel state line malformed: \"%s\"", escaped(buf, shown, sizeof(shown)));
		return -EBADMSG;
	}
	if (log_get_debug() >= 3) {
		buf[n < (ssize_t)sizeof(buf) ? n : (ssize_t)sizeof(buf) - 1] = '\0';
		log_debug(3, "kernel state: %s", escaped(buf, shown, sizeof(shown)));
	}
	return 0;
}

enum { K_CULL, K_FRUN, K_FCULL, K_FSTOP, K_BRUN, K_BCULL, K_BSTOP,
       K_FRELEASED, K_BRELEASED, K_COUNT };

static const char *const kstate_keys[K_COUNT] = {
	"cull", "frun", "fcull", "fstop", "brun", "bcull", "bstop",
	"freleased", "breleased",
};

/* Parse 1..16 hex digits (either case) of s[0..len). */
static int
parse_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;
	int d;

	if (len == 0 || len > HEX_DIGITS_MAX)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int
key_index(const char *key, size_t len)
{
	int i;

	for (i = 0; i < K_COUNT; i++)
		if (strlen(kstate_keys[i]) == len && memcmp(kstate_keys[i], key, len) == 0)
			return i;
	return -1;
}

/*
 * One "key=value" token.  Unknown keys are skipped (newer kernels may add
 * some) but must still look like a token; a known key given twice makes the
 * line ambiguous, so it is rejected.
 */
static int
parse_token(const char *tok, size_t len, uint64_t val[K_COUNT], unsigned *seen)
{
	const char *eq = memchr(tok, '=', len);
	size_t klen, vlen;
	int i;

	if (eq == NULL || eq == tok || eq + 1 == tok + len)
		return -1;
	klen = (size_t)(eq - tok);
	vlen = len - klen - 1;
	if ((i = key_index(tok, klen)) < 0)
		return 0;
	if (*seen & (1u << i))
		return -1;
	*seen |= 1u << i;
	if (i == K_CULL) {
		if (vlen != 1 || (eq[1] != '0' && eq[1] != '1'))
			return -1;
		val[i] = (uint64_t)(eq[1] - '0');
		return 0;
	}
	return parse_hex(eq + 1, vlen, &val[i]);
}

int
kstate_parse(const char *line, size_t len, struct kstate *st)
{
	uint64_t val[K_COUNT] = { 0 };
	unsigned seen = 0, required = (1u << K_FRELEASED) - 1;
	size_t i = 0, start;

	while (i < len) {
		if (line[i] == ' ' || line[i] == '\n' || line[i] == '\t') {
			i++;
			continue;
		}
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\n' && line[i] != '\t') {
			if (line[i] == '\0')
				return -1;
			i++;
		}
		if (parse_token(line + start, i - start, val, &seen) == -1)
			return -1;
	}
	if ((seen & required) != required)
		return -1;
	memset(st, 0, sizeof(*st));
	st->cull = (int)val[K_CULL];
	st->frun = val[K_FRUN];
	st->fcull = val[K_FCULL];
	st->fstop = val[K_FSTOP];
	st->brun = val[K_BRUN];
	st->bcull = val[K_BCULL];
	st->bstop = val[K_BSTOP];
	st->freleased = val[K_FRELEASED];
	st->breleased = val[K_BRELEASED];
	st->has_released = (seen & (1u << K_FRELEASED)) && (seen & (1u << K_BRELEASED));
	return 0;
}

/* ---- explaining errors ---- */

struct explanation {
	const char *cmd;	/* NULL: any command */
	int err;
	const char *why;
};

static const struct explanation explanations[] = {
	{ "open", ENOENT, "the cachefiles module is not loaded and modprobe could not load it, or the device node is missing" },
	{ "open", ENXIO, "the cachefiles module is not loaded" },
	{ "open", ENODEV, "the cachefiles module is not loaded" },
	{ "open", EPERM, "opening the device needs CAP_SYS_ADMIN in the initial user namespace" },
	{ "open", EACCES, "opening the device needs root (CAP_SYS_ADMIN) and read-write access to it" },
	{ "open", EBUSY, "another cachefilesd has the device open, or a previous one is still withdrawing its cache" },
	{ "dir", EINVAL, "the directory name is empty" },
	{ "dir", EEXIST, "a cache directory was already given" },
	{ "tag", EINVAL, "the tag is empty" },
	{ "tag", EEXIST, "a tag was already given" },
	{ "secctx", EINVAL, "the security context is empty or was given twice" },
	/* 6.1 under AppArmor refuses the secctx line itself with ENOENT (seen in the VM). */
	{ "secctx", ENOENT, "no security module of this kernel knows that context: secctx needs "
	  "SELinux with the context in its policy (without SELinux, leave secctx out)" },
	{ "secctx", EOPNOTSUPP, "this kernel has no security module that takes a context: secctx "
	  "needs SELinux (without it, leave secctx out)" },
	{ "debug", EINVAL, "the debug mask is not a number" },
	{ "bind", ENOENT, "the cache directory is missing" },
	{ "bind", ENOTDIR, "the cache directory path is not a directory" },
	{ "bind", EROFS, "the cache filesystem is mounted read-only (or, under systemd, ProtectSystem= "
	  "makes it so: add the directory to ReadWritePaths=)" },
	{ "bind", EOPNOTSUPP, "the cache filesystem lacks user xattrs or another needed feature "
	  "(statfs, sync_fs, block size <= page size), or secctx was given on a kernel without SELinux" },
	{ "bind", EBUSY, "the cache is already bound, or another cache uses the same tag" },
	{ "bind", EINVAL, "no dir was given, the cache is on an idmapped mount, or the secctx is invalid" },
	{ "bind", EACCES, "permission denied on the cache directory (file modes or the security "
	  "policy; under SELinux with this package's module, set secctx)" },
	{ "bind", EPERM, "the cache or graveyard directory lacks xattr, rename, rmdir or unlink support, "
	  "or the security policy refused" },
	{ "bind", ERANGE, "the limits are inconsistent or the filesystem block size is invalid" },
	{ "bind", EIO, "DIR/cache or DIR/graveyard exists but is not a directory" },
	{ "bind", ENOSPC, "no room to create the cache and graveyard directories" },
	{ "bind", ENOBUFS, "no room to create the cache and graveyard directories" },
	{ "cull", EBUSY, "the object is in use" },
	{ "inuse", EBUSY, "the object is in use" },
	{ "cull", ENOENT, "the object is already gone" },
	{ "cull", ESTALE, "the object is already gone" },
	{ "inuse", ENOENT, "the object is already gone" },
	{ "inuse", ESTALE, "the object is already gone" },
	{ "cull", EINVAL, "the name is not a single path component" },
	{ "cull", EIO, "the cache is dead, or the kernel refused the name" },
	{ "cull", ENOTDIR, "the working directory is not a directory" },
	{ "inuse", EINVAL, "the name is not a single path component" },
	{ "inuse", EIO, "the cache is dead, or the kernel refused the name" },
	{ NULL, EINVAL, "the limits must satisfy 0 <= stop < cull < run < 100, and the kernel checks "
	  "each one against the values in force (ordering)" },
	{ NULL, EIO, "the cache is dead after a kernel I/O error; restart the daemon" },
	{ NULL, EOPNOTSUPP, "the kernel does not know this command, or it is too long" },
	{ NULL, ENOMEM, "the kernel is out of memory" },
	{ NULL, EACCES, "permission denied" },
	{ NULL, EPERM, "operation not permitted (CAP_SYS_ADMIN is needed to open the device)" },
	{ NULL, E2BIG, "the command is longer than the kernel accepts" },
	{ NULL, ERANGE, "the limits are inconsistent" },
};

const char *
kernel_explain(const char *cmd, int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < ARRAY_SIZE(explanations); i++)
		if (explanations[i].cmd != NULL && explanations[i].err == err &&
		    strcmp(explanations[i].cmd, cmd) == 0)
			return explanations[i].why;
	for (i = 0; i < ARRAY_SIZE(explanations); i++)
		if (explanations[i].cmd == NULL && explanations[i].err == err)
			return explanations[i].why;
	return "unexpected error";
}
