// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simdev.c: the device model of the kernel simulator.
 *
 * It follows the CacheFiles module's daemon interface as the reference
 * describes it and as it was observed on a real kernel: the command parser
 * and its errnos, the per-command ordering check of the six limits, bind and
 * its checks in the kernel's order, the absolute limits computed once at bind
 * from statfs of the cache filesystem, the space check with its hysteresis,
 * the released counters, and cull/inuse resolved in the writer's current
 * working directory.  One difference on purpose: a cull whose target lies
 * outside DIR/cache is refused with EIO and logged as a VIOLATION instead of
 * being carried out, so that a daemon bug cannot damage the test machine.
 */
#include "tests/sim/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

enum { LSET_F, LSET_B, LSET_COUNT };
enum { L_RUN, L_CULL, L_STOP, L_COUNT };

#define BUSY_MAX 65536

/* The state of one open of the device; cleared at open and close. */
static struct {
	int open;
	int bound;
	int dead;
	int culling;
	int changed;		/* STATE_CHANGED: the device is readable */
	char *dir, *tag, *secctx;
	uint64_t debug;
	uint64_t pct[LSET_COUNT][L_COUNT];
	uint64_t lim[LSET_COUNT][L_COUNT];	/* absolute, fixed at bind */
	uint64_t freleased, breleased;
	int rootfd;
	char root[PATH_MAX];	/* resolved DIR, for the log and the cwd check */
	dev_t dev;
	ino_t cache_ino, grave_ino;
	unsigned bshift;	/* old kernels: block limits in pages */
} d = { .rootfd = -1 };

/* What outlives an open: the objects the "netfs" holds, and the counters. */
static struct {
	int notify_due;
	unsigned gravecounter;
	char cache[PATH_MAX];	/* DIR/cache of the last bind, for relative control paths */
	struct { dev_t dev; ino_t ino; } busy[BUSY_MAX];
	int nbusy;
	unsigned long opens, closes, binds, commands, reads, checks;
	unsigned long culls, cull_files, cull_dirs, cull_busy, cull_missing, cull_failed;
	unsigned long inuses, inuse_busy, violations, notifies;
	unsigned long long culled_blocks;
} g;

static const char *const limit_names[LSET_COUNT][L_COUNT] = {
	{ "frun", "fcull", "fstop" },
	{ "brun", "bcull", "bstop" },
};

/* The kernel's isspace(): the C locale set plus 0xa0. */
static int
kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/*
 * simple_strtoul(): base 0 picks 16 for "0x" followed by a hex digit, 8 for a
 * leading 0, else 10; no sign; wraps on overflow; *end is the first byte not
 * used.
 */
static uint64_t
kstrtoul(const char *s, int base, const char **end)
{
	uint64_t v = 0;

	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		    strchr("0123456789abcdefABCDEF", s[2]) != NULL && s[2] != '\0')
			base = 16;
		else if (s[0] == '0')
			base = 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (;; s++) {
		int digit;

		if (*s >= '0' && *s <= '9')
			digit = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			digit = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			digit = *s - 'A' + 10;
		else
			break;
		if (digit >= base)
			break;
		v = v * (uint64_t)base + (uint64_t)digit;
	}
	*end = s;
	return v;
}

static void
state_changed(void)
{
	if (!d.changed) {
		d.changed = 1;
		g.notify_due = 1;
	}
}

int
dev_take_notify(void)
{
	int due = g.notify_due;

	g.notify_due = 0;
	if (due)
		g.notifies++;
	return due;
}

/*
 * A deterministic race for tests: after the Nth cull from now (or the next
 * bind), rename one path before the reply, so that the daemon's next step
 * meets a directory moved while it was culling (as the kernel moves a
 * volume it retires), or a cache directory swapped after bind.  Or release
 * one object there instead: the kernel releasing it while the daemon is in
 * the middle of a pass, its notice read only after the pass.
 */
static struct {
	unsigned long left;		/* culls until the rename; 0 = disarmed */
	int at_bind;			/* rename at the next successful bind instead */
	int release;			/* release "from" instead of renaming it */
	int exchange;			/* swap "from" and "to" (both must exist) */
	char from[PATH_MAX], to[PATH_MAX];
} hook;

static int apply_busy(const char *verb, const char *path, const struct stat *st);

static void
run_hook(int bind)
{
	struct stat st;

	if (bind ? !hook.at_bind : (hook.left == 0 || --hook.left > 0))
		return;
	hook.at_bind = 0;
	hook.left = 0;
	if (hook.release) {
		if (lstat(hook.from, &st) == 0)
			apply_busy("release", hook.from, &st);
		else
			sim_log("hook: release %s failed: %s", hook.from, errname(errno));
		return;
	}
	if (hook.exchange) {
		if (renameat2(AT_FDCWD, hook.from, AT_FDCWD, hook.to, RENAME_EXCHANGE) == 0)
			sim_log("hook: exchanged %s and %s", hook.from, hook.to);
		else
			sim_log("hook: exchange %s and %s failed: %s", hook.from, hook.to,
				errname(errno));
		return;
	}
	if (rename(hook.from, hook.to) == 0)
		sim_log("hook: renamed %s to %s", hook.from, hook.to);
	else
		sim_log("hook: rename %s to %s failed: %s", hook.from, hook.to, errname(errno));
}

static void
set_culling(int on)
{
	if (d.culling == on)
		return;
	d.culling = on;
	sim_log("space: cull flag %d", on);
	state_changed();
}

static void
kill_cache(const char *why)
{
	d.dead = 1;
	sim_log("DEAD: %s", why);
}

/*
 * The kernel's space check, run on read(), at bind and (through the control
 * request "check") when the netfs creates an object: fnr files and bnr
 * blocks are about to be used.  Returns 0, or ENOBUFS below the stop limits.
 */
static int
space_check(uint64_t fnr, uint64_t bnr)
{
	struct statfs sf;
	uint64_t ffree, bavail;

	g.checks++;
	if (fstatfs(d.rootfd, &sf) < 0) {
		int err = errno;

		sim_log("space: statfs %s: %s", d.root, strerror(err));
		if (err == EIO)
			kill_cache("statfs failed");
		return err;
	}
	ffree = (uint64_t)sf.f_ffree > fnr ? (uint64_t)sf.f_ffree - fnr : 0;
	bavail = (uint64_t)sf.f_bavail > bnr ? (uint64_t)sf.f_bavail - bnr : 0;
	bavail >>= d.bshift;
	if (ffree < d.lim[LSET_F][L_STOP] || bavail < d.lim[LSET_B][L_STOP]) {
		set_culling(1);
		return ENOBUFS;
	}
	if (ffree < d.lim[LSET_F][L_CULL] || bavail < d.lim[LSET_B][L_CULL]) {
		set_culling(1);
		return 0;
	}
	if (d.culling && ffree >= d.lim[LSET_F][L_RUN] && bavail >= d.lim[LSET_B][L_RUN])
		set_culling(0);
	return 0;
}

static void
reset_open_state(void)
{
	if (d.rootfd >= 0)
		close(d.rootfd);
	free(d.dir);
	free(d.tag);
	free(d.secctx);
	memset(&d, 0, sizeof(d));
	d.rootfd = -1;
	for (int s = 0; s < LSET_COUNT; s++) {
		d.pct[s][L_RUN] = 7;
		d.pct[s][L_CULL] = 5;
		d.pct[s][L_STOP] = 1;
	}
}

void
dev_open(pid_t pid)
{
	reset_open_state();
	d.open = 1;
	g.opens++;
	sim_log("open: pid %ld", (long)pid);
}

void
dev_close(void)
{
	sim_log("close: %s", d.bound ? "cache unbound (withdrawn), contents kept" : "not bound");
	reset_open_state();
	g.closes++;
}

/* --- commands --- */

static int
cmd_string(char **slot, const char *what, const char *args, int again_err)
{
	if (*args == '\0') {
		sim_log("  empty %s specified", what);
		return EINVAL;
	}
	if (*slot != NULL) {
		sim_log("  second %s specified", what);
		return again_err;
	}
	*slot = strdup(args);
	return *slot == NULL ? ENOMEM : 0;
}

static int
cmd_limit(int set, int which, const char *args)
{
	const char *end;
	uint64_t v = kstrtoul(args, 10, &end);
	uint64_t *p = d.pct[set];
	int bad;

	if (end[0] != '%' || end[1] != '\0')
		return EINVAL;
	switch (which) {
	case L_RUN:
		bad = v <= p[L_CULL] || v >= 100;
		break;
	case L_CULL:
		bad = v <= p[L_STOP] || v >= p[L_RUN];
		break;
	default:
		bad = v >= p[L_CULL];
		break;
	}
	if (bad) {
		sim_log("  Free space limits must be in range 0%%<=stop<cull<run<100%%");
		return EINVAL;
	}
	p[which] = v;
	return 0;
}

static int
cmd_debug(const char *args)
{
	const char *end;
	uint64_t v = kstrtoul(args, 0, &end);

	if (*end != '\0')
		return EINVAL;
	d.debug = v;
	return 0;
}

/* /proc/PID/cwd of the writer, opened, and its path for the log. */
static int
open_cwd(pid_t pid, char *path, size_t pathsz)
{
	char link[64];
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "/proc/%ld/cwd", (long)pid);
	n = readlink(link, path, pathsz - 1);
	if (n < 0)
		n = 0;
	path[n] = '\0';
	fd = open(link, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		sim_log("  %s: open: %s", link, strerror(errno));
	return fd;
}

static int
make_dir(int rootfd, const char *name, ino_t *ino)
{
	struct stat st;

	if (mkdirat(rootfd, name, 0700) < 0 && errno != EEXIST)
		return errno;
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	if (!S_ISDIR(st.st_mode)) {
		sim_log("  %s/%s is not a directory", d.root, name);
		return EIO;
	}
	*ino = st.st_ino;
	return 0;
}

static int
pages_shift(unsigned long bsize)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned shift = 0;

	while ((bsize << shift) < (unsigned long)page)
		shift++;
	return (int)shift;
}

/* The steps of the kernel's cachefiles_add_cache() that a test can see. */
static int
add_cache(pid_t pid)
{
	char cwd[PATH_MAX], link[64];
	struct statfs sf;
	struct statvfs sv;
	struct stat st;
	int base = AT_FDCWD, fd, err;
	ssize_t n;

	if (d.dir[0] != '/') {
		base = open_cwd(pid, cwd, sizeof(cwd));
		if (base < 0)
			return ENOENT;
	}
	/* kern_path(LOOKUP_DIRECTORY) without LOOKUP_FOLLOW: a final symlink is not followed */
	fd = openat(base, d.dir, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	err = errno;
	if (base >= 0)
		close(base);
	if (fd < 0)
		return err;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return ENOTDIR;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, d.root, sizeof(d.root) - 1);
	d.root[n < 0 ? 0 : n] = '\0';
	if (simopt.xattr_check && getxattr(link, "user.cfsim.probe", NULL, 0) < 0 &&
	    errno == EOPNOTSUPP) {
		sim_log("  %s: no user.* xattrs", d.root);
		close(fd);
		return EOPNOTSUPP;
	}
	if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
		close(fd);
		return EROFS;
	}
	if (simopt.fail_bind) {
		close(fd);
		return simopt.fail_bind;
	}
	if (fstatfs(fd, &sf) < 0) {
		err = errno;
		close(fd);
		return err;
	}
	if (sf.f_bsize <= 0 || sf.f_bsize > sysconf(_SC_PAGESIZE)) {
		close(fd);
		return sf.f_bsize <= 0 ? ERANGE : EOPNOTSUPP;
	}
	d.bshift = simopt.old_kernel ? pages_shift((unsigned long)sf.f_bsize) : 0;
	for (int w = 0; w < L_COUNT; w++) {
		d.lim[LSET_F][w] = (uint64_t)sf.f_files / 100 * d.pct[LSET_F][w];
		d.lim[LSET_B][w] = ((uint64_t)sf.f_blocks >> d.bshift) / 100 * d.pct[LSET_B][w];
	}
	if ((err = make_dir(fd, "cache", &d.cache_ino)) != 0 ||
	    (err = make_dir(fd, "graveyard", &d.grave_ino)) != 0) {
		close(fd);
		return err;
	}
	d.dev = st.st_dev;
	d.rootfd = fd;
	d.bound = 1;
	g.binds++;
	if (snprintf(g.cache, sizeof(g.cache), "%s/cache", d.root) >= (int)sizeof(g.cache))
		g.cache[0] = '\0';
	sim_log("bound: dir %s tag %s files %llu blocks %llu bsize %ld", d.root, d.tag,
		(unsigned long long)sf.f_files, (unsigned long long)sf.f_blocks,
		(long)sf.f_bsize);
	space_check(0, 0);
	run_hook(1);
	return 0;
}

static int
limits_consistent(void)
{
	for (int s = 0; s < LSET_COUNT; s++) {
		uint64_t *p = d.pct[s];

		if (p[L_STOP] >= p[L_CULL] || p[L_CULL] >= p[L_RUN] || p[L_RUN] >= 100)
			return 0;
	}
	return 1;
}

static int
cmd_bind(const char *args, pid_t pid)
{
	if (!simopt.old_kernel && !limits_consistent())
		return ERANGE;
	if (d.dir == NULL) {
		sim_log("  No cache directory specified");
		return EINVAL;
	}
	if (d.bound) {
		sim_log("  Cache already bound");
		return EBUSY;
	}
	if (*args != '\0') {
		sim_log("  Invalid argument to the 'bind' command");
		return EINVAL;
	}
	if (d.tag == NULL && (d.tag = strdup("CacheFiles")) == NULL)
		return ENOMEM;
	return add_cache(pid);
}

static int
is_busy(const struct stat *st)
{
	if (st->st_dev == d.dev && (st->st_ino == d.cache_ino || st->st_ino == d.grave_ino))
		return 1;
	for (int i = 0; i < g.nbusy; i++)
		if (g.busy[i].dev == st->st_dev && g.busy[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Is path DIR/cache or below it? */
static int
inside_cache(const char *path)
{
	size_t n = strlen(g.cache);

	return strncmp(path, g.cache, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Bury the victim as the kernel does: unlink a non-directory, move a directory. */
static int
bury(int cwdfd, const char *name, const struct stat *st, const char *abspath)
{
	char grave[32];
	int gfd, r, err;

	if (!S_ISDIR(st->st_mode)) {
		if (unlinkat(cwdfd, name, 0) < 0) {
			sim_log("  unlink %s: %s", abspath, strerror(errno));
			kill_cache("unlink failed");
			return EIO;
		}
		g.cull_files++;
		g.culled_blocks += (unsigned long long)st->st_blocks;
		return 0;
	}
	if (st->st_dev != d.dev) {
		kill_cache("rename across filesystems");
		return EIO;
	}
	snprintf(grave, sizeof(grave), "%08x%08x", (unsigned)time(NULL), ++g.gravecounter);
	gfd = openat(d.rootfd, "graveyard", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	r = gfd < 0 ? -1 : renameat(cwdfd, name, gfd, grave);
	err = errno;
	if (gfd >= 0)
		close(gfd);
	if (r < 0) {
		sim_log("  rename %s to graveyard: %s", abspath, strerror(err));
		kill_cache("rename failed");
		return EIO;
	}
	sim_log("  buried %s as %s/graveyard/%s", abspath, d.root, grave);
	g.cull_dirs++;
	return 0;
}

static int
cmd_cull_inuse(const char *args, pid_t pid, int cull)
{
	const char *what = cull ? "cull" : "inuse";
	char cwd[PATH_MAX], abspath[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	int cwdfd, err;

	if (strchr(args, '/') != NULL) {
		sim_log("  %s command requires dirfd and filename", what);
		return EINVAL;
	}
	if (!d.bound) {
		sim_log("  %s applied to unready cache", what);
		return EIO;
	}
	cwdfd = open_cwd(pid, cwd, sizeof(cwd));
	if (cwdfd < 0)
		return errno == ENOTDIR ? ENOTDIR : EIO;
	snprintf(abspath, sizeof(abspath), "%s/%s", cwd, args);
	if (cull)
		g.culls++;
	else
		g.inuses++;
	if (!inside_cache(cwd)) {
		g.violations++;
		sim_log("VIOLATION: %s %s from pid %ld: cwd %s is outside %s", what, abspath,
			(long)pid, cwd, g.cache);
	}
	if (args[0] == '\0' || strcmp(args, ".") == 0 || strcmp(args, "..") == 0 ||
	    strlen(args) > NAME_MAX) {
		sim_log("  %s %s: Internal error: name refused", what, abspath);
		close(cwdfd);
		return EIO;
	}
	if (fstatat(cwdfd, args, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		err = errno == ENOENT ? (simopt.estale ? ESTALE : ENOENT) : EIO;
		g.cull_missing += err != EIO;
		sim_log("%s %s -> %s", what, abspath, errname(err));
		close(cwdfd);
		return err;
	}
	if (is_busy(&st)) {
		if (cull)
			g.cull_busy++;
		else
			g.inuse_busy++;
		sim_log("%s %s -> EBUSY", what, abspath);
		close(cwdfd);
		return EBUSY;
	}
	if (!cull) {
		sim_log("inuse %s -> 0", abspath);
		close(cwdfd);
		return 0;
	}
	if (simopt.cull_delay_ms)
		usleep(simopt.cull_delay_ms * 1000);	/* a slow kernel, for sampling */
	if (!inside_cache(cwd)) {
		/* refused on purpose: see the comment at the top */
		g.cull_failed++;
		sim_log("cull %s -> EIO (refused by the simulator)", abspath);
		close(cwdfd);
		return EIO;
	}
	err = bury(cwdfd, args, &st, abspath);
	if (err)
		g.cull_failed++;
	sim_log("cull %s (%s) -> %s", abspath, S_ISDIR(st.st_mode) ? "dir" : "file",
		errname(err));
	close(cwdfd);
	run_hook(0);
	return err;
}

static int
run_command(const char *cmd, const char *args, pid_t pid)
{
	for (int s = 0; s < LSET_COUNT; s++)
		for (int w = 0; w < L_COUNT; w++)
			if (strcmp(cmd, limit_names[s][w]) == 0)
				return cmd_limit(s, w, args);
	if (strcmp(cmd, "dir") == 0)
		return cmd_string(&d.dir, "cache directory", args, EEXIST);
	if (strcmp(cmd, "tag") == 0)
		return cmd_string(&d.tag, "tag", args, EEXIST);
	if (strcmp(cmd, "secctx") == 0)
		return cmd_string(&d.secctx, "security context", args, EINVAL);
	if (strcmp(cmd, "debug") == 0)
		return cmd_debug(args);
	if (strcmp(cmd, "bind") == 0)
		return cmd_bind(args, pid);
	if (strcmp(cmd, "cull") == 0)
		return cmd_cull_inuse(args, pid, 1);
	if (strcmp(cmd, "inuse") == 0)
		return cmd_cull_inuse(args, pid, 0);
	return EOPNOTSUPP;
}

/* An injected fault for this command (simfault.c), or 0. */
static int
injected_write(const char *buf, size_t len)
{
	char text[201], word[16];
	size_t n = len > 200 ? 200 : len, w = 0;

	memcpy(text, buf, n);
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	while (w < sizeof(word) - 1 && text[w] != '\0' && !kspace((unsigned char)text[w])) {
		word[w] = text[w];
		w++;
	}
	word[w] = '\0';
	/* "tag" after bind is the daemon's liveness probe: only "probe" rules touch it */
	return fault_on_write(text, word, d.bound && strcmp(word, "tag") == 0);
}

int
dev_write(const char *buf, size_t len, pid_t pid)
{
	char cmd[SIM_CMD_MAX + 1];
	char *nl, *args;
	int err;

	g.commands++;
	if ((err = injected_write(buf, len)) != 0) {
		sim_log("write \"%.*s\" pid %ld -> %s (injected)", len > 200 ? 200 : (int)len,
			buf, (long)pid, errname(err));
		return err;
	}
	if (d.dead)
		err = EIO;
	else if (len > SIM_CMD_MAX)
		err = EOPNOTSUPP;
	else if (memchr(buf, '\0', len) != NULL)
		err = EINVAL;
	else {
		memcpy(cmd, buf, len);
		cmd[len] = '\0';
		nl = strchr(cmd, '\n');
		if (nl == cmd) {
			err = EINVAL;
			goto out;
		}
		if (nl != NULL)
			*nl = '\0';
		for (args = cmd; *args != '\0' && !kspace((unsigned char)*args); args++)
			;
		if (*args != '\0') {
			if (args == cmd) {
				err = EOPNOTSUPP;
				goto out;
			}
			*args++ = '\0';
			while (kspace((unsigned char)*args))
				args++;
		}
		err = run_command(cmd, args, pid);
	}
out:
	sim_log("write \"%.*s\" pid %ld -> %s", len > 200 ? 200 : (int)len, buf, (long)pid,
		errname(err));
	return err;
}

static unsigned long malformed_left;	/* reads still to answer with a malformed line */

int
dev_read(size_t size, char *out, size_t outsz, size_t *outlen)
{
	char line[SIM_LINE_MAX];
	unsigned long long fr, br;
	int n, err, malformed;

	g.reads++;
	*outlen = 0;
	if (!d.bound) {
		sim_log("read %zu -> EOF (not bound)", size);
		return 0;
	}
	/* An injected error comes before the side effects: counters and flag are kept. */
	if ((err = fault_on_read(&malformed)) != 0) {
		sim_log("read %zu -> %s (injected)", size, errname(err));
		return err;
	}
	space_check(0, 0);
	fr = d.freleased;
	br = d.breleased;
	d.freleased = d.breleased = 0;
	/* a flip found by this read's own space check is reported by this read */
	d.changed = 0;
	g.notify_due = 0;
	n = snprintf(line, sizeof(line),
		     "cull=%c frun=%llx fcull=%llx fstop=%llx brun=%llx bcull=%llx bstop=%llx",
		     d.culling ? '1' : '0',
		     (unsigned long long)d.lim[LSET_F][L_RUN], (unsigned long long)d.lim[LSET_F][L_CULL],
		     (unsigned long long)d.lim[LSET_F][L_STOP], (unsigned long long)d.lim[LSET_B][L_RUN],
		     (unsigned long long)d.lim[LSET_B][L_CULL], (unsigned long long)d.lim[LSET_B][L_STOP]);
	if (!simopt.old_kernel)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " freleased=%x breleased=%llx",
			      (unsigned)fr, br);
	if (malformed_left > 0 || malformed) {
		/* A fault for tests: a line no parser may accept (the counters are lost). */
		if (!malformed)
			malformed_left--;
		n = snprintf(line, sizeof(line), "cull=2 frun=zz fcull");
	}
	if ((size_t)n > size || (size_t)n > outsz) {
		sim_log("read %zu -> EMSGSIZE (line is %d bytes; counters lost)", size, n);
		return EMSGSIZE;
	}
	memcpy(out, line, (size_t)n);
	*outlen = (size_t)n;
	sim_log("read %zu -> %s", size, line);
	return 0;
}

/* --- control requests: the test acting as netfs and filesystem --- */

static int
reply(char *buf, size_t sz, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
	return rc;
}

static int
ctl_path(const char *arg, char *path, size_t sz)
{
	if (arg[0] == '/')
		return snprintf(path, sz, "%s", arg) >= (int)sz ? -1 : 0;
	if (g.cache[0] == '\0')
		return -1;
	return snprintf(path, sz, "%s/%s", g.cache, arg) >= (int)sz ? -1 : 0;
}

static int
find_busy(const struct stat *st)
{
	for (int i = 0; i < g.nbusy; i++)
		if (g.busy[i].dev == st->st_dev && g.busy[i].ino == st->st_ino)
			return i;
	return -1;
}

/* Mark, unmark or release one object; returns 0, or -1 when the table is full. */
static int
apply_busy(const char *verb, const char *path, const struct stat *st)
{
	int i = find_busy(st);

	if (strcmp(verb, "busy") == 0) {
		if (i < 0 && g.nbusy == BUSY_MAX)
			return -1;
		if (i < 0) {
			g.busy[g.nbusy].dev = st->st_dev;
			g.busy[g.nbusy].ino = st->st_ino;
			g.nbusy++;
		}
		sim_log("ctl: busy %s", path);
		return 0;
	}
	if (i >= 0)
		g.busy[i] = g.busy[--g.nbusy];
	if (strcmp(verb, "release") == 0) {
		d.freleased++;
		d.breleased += (uint64_t)st->st_blocks;
		if (!simopt.old_kernel)
			state_changed();
	}
	sim_log("ctl: %s %s (%lld blocks)", verb, path, (long long)st->st_blocks);
	return 0;
}

static const char *tree_verb;
static int tree_count;

static int
tree_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (apply_busy(tree_verb, path, st) < 0)
		return 1;
	tree_count++;
	return 0;
}

/* busy|unbusy|release PATH, or the same with -tree for every file below PATH. */
static int
ctl_busy(const char *verb, const char *arg, char *rep, size_t sz)
{
	char path[PATH_MAX], base[16];
	size_t n = strcspn(verb, "-");
	struct stat st;

	snprintf(base, sizeof(base), "%.*s", (int)n, verb);
	if (ctl_path(arg, path, sizeof(path)) < 0)
		return reply(rep, sz, -1, "error %s: relative path and no cache bound yet", arg);
	if (strcmp(base, "release") == 0 && !d.bound)
		return reply(rep, sz, -1, "error not bound");
	if (verb[n] == '-') {
		tree_verb = base;
		tree_count = 0;
		if (nftw(path, tree_one, 16, FTW_PHYS) != 0)
			return reply(rep, sz, -1, "error %s: walk failed or busy table full", path);
		return reply(rep, sz, 0, "ok %s %d objects", verb, tree_count);
	}
	if (lstat(path, &st) < 0)
		return reply(rep, sz, -1, "error %s: %s", path, strerror(errno));
	if (apply_busy(base, path, &st) < 0)
		return reply(rep, sz, -1, "error too many busy objects");
	return reply(rep, sz, 0, "ok %s %s", verb, path);
}

static int
ctl_check(const char *arg, char *rep, size_t sz)
{
	unsigned long long fnr = 0, bnr = 0;
	int err;

	if (!d.bound)
		return reply(rep, sz, -1, "error not bound");
	if (*arg != '\0' && sscanf(arg, "%llu %llu", &fnr, &bnr) < 1)
		return reply(rep, sz, -1, "error usage: check [FILES [BLOCKS]]");
	err = space_check(fnr, bnr);
	sim_log("ctl: check %llu %llu -> cull=%d %s", fnr, bnr, d.culling, errname(err));
	return reply(rep, sz, 0, "ok cull=%d%s", d.culling, err == ENOBUFS ? " enobufs" : "");
}

static int
ctl_state(char *rep, size_t sz)
{
	return reply(rep, sz, 0,
		     "ok connected=%d bound=%d dead=%d cull=%d changed=%d opens=%lu closes=%lu"
		     " binds=%lu commands=%lu reads=%lu checks=%lu notifies=%lu culls=%lu"
		     " cull_files=%lu cull_dirs=%lu cull_busy=%lu cull_missing=%lu cull_failed=%lu"
		     " inuses=%lu inuse_busy=%lu violations=%lu busy=%d culled_blocks=%llu"
		     " frun=%llu fcull=%llu fstop=%llu brun=%llu bcull=%llu bstop=%llu"
		     " freleased=%llu breleased=%llu debug=%llu faults=%lu tag=%s dir=%s",
		     d.open, d.bound, d.dead, d.culling, d.changed, g.opens, g.closes,
		     g.binds, g.commands, g.reads, g.checks, g.notifies, g.culls,
		     g.cull_files, g.cull_dirs, g.cull_busy, g.cull_missing, g.cull_failed,
		     g.inuses, g.inuse_busy, g.violations, g.nbusy, g.culled_blocks,
		     (unsigned long long)d.lim[LSET_F][L_RUN], (unsigned long long)d.lim[LSET_F][L_CULL],
		     (unsigned long long)d.lim[LSET_F][L_STOP], (unsigned long long)d.lim[LSET_B][L_RUN],
		     (unsigned long long)d.lim[LSET_B][L_CULL], (unsigned long long)d.lim[LSET_B][L_STOP],
		     (unsigned long long)d.freleased, (unsigned long long)d.breleased,
		     (unsigned long long)d.debug, fault_injected(), d.tag ? d.tag : "", d.root);
}

/* "rename-after N FROM TO": arm the hook (paths relative to DIR/cache). */
static int
ctl_rename_after(const char *arg, char *rep, size_t sz)
{
	char from[PATH_MAX], to[PATH_MAX];
	unsigned long n;
	int used = 0;

	if (sscanf(arg, "%lu %4095s %4095s%n", &n, from, to, &used) != 3 || n == 0 ||
	    arg[used] != '\0')
		return reply(rep, sz, -1, "error usage: rename-after N FROM TO");
	if (ctl_path(from, hook.from, sizeof(hook.from)) < 0 ||
	    ctl_path(to, hook.to, sizeof(hook.to)) < 0)
		return reply(rep, sz, -1, "error path too long or no cache bound");
	hook.left = n;
	hook.at_bind = 0;
	hook.release = 0;
	hook.exchange = 0;
	sim_log("ctl: rename-after %lu %s %s", n, hook.from, hook.to);
	return reply(rep, sz, 0, "ok");
}

/* "release-after N PATH": arm the hook to release PATH (relative to DIR/cache). */
static int
ctl_release_after(const char *arg, char *rep, size_t sz)
{
	char path[PATH_MAX];
	unsigned long n;
	int used = 0;

	if (sscanf(arg, "%lu %4095s%n", &n, path, &used) != 2 || n == 0 || arg[used] != '\0')
		return reply(rep, sz, -1, "error usage: release-after N PATH");
	if (!d.bound)
		return reply(rep, sz, -1, "error not bound");
	if (ctl_path(path, hook.from, sizeof(hook.from)) < 0)
		return reply(rep, sz, -1, "error path too long or no cache bound");
	hook.left = n;
	hook.at_bind = 0;
	hook.release = 1;
	hook.exchange = 0;
	sim_log("ctl: release-after %lu %s", n, hook.from);
	return reply(rep, sz, 0, "ok");
}

/*
 * "rename-at-bind FROM TO" and "exchange-at-bind FROM TO" (absolute paths):
 * arm the hook for the next bind.
 */
static int
ctl_rename_at_bind(int exchange, const char *arg, char *rep, size_t sz)
{
	const char *verb = exchange ? "exchange-at-bind" : "rename-at-bind";
	int used = 0;

	if (sscanf(arg, "%4095s %4095s%n", hook.from, hook.to, &used) != 2 ||
	    arg[used] != '\0' || hook.from[0] != '/' || hook.to[0] != '/')
		return reply(rep, sz, -1, "error usage: %s /FROM /TO", verb);
	hook.left = 0;
	hook.at_bind = 1;
	hook.release = 0;
	hook.exchange = exchange;
	sim_log("ctl: %s %s %s", verb, hook.from, hook.to);
	return reply(rep, sz, 0, "ok");
}

/* "fault clear", "fault list", or "fault RULE" (simfault.c). */
static int
ctl_fault(const char *arg, char *rep, size_t sz)
{
	char why[160];
	int n;

	if (strcmp(arg, "clear") == 0)
		return reply(rep, sz, 0, "ok cleared %d", fault_clear());
	if (strcmp(arg, "list") == 0) {
		char list[SIM_CTL_MAX - 8];

		fault_list(list, sizeof(list));
		return reply(rep, sz, 0, "ok %s", list);
	}
	if ((n = fault_add(arg, why, sizeof(why))) < 0)
		return reply(rep, sz, -1, "error %s", why);
	return reply(rep, sz, 0, "ok rule %d", n);
}

int
dev_control(const char *req, char *rep, size_t sz)
{
	char verb[24];
	const char *arg;
	size_t n = strcspn(req, " ");

	if (n >= sizeof(verb))
		return reply(rep, sz, -1, "error unknown request");
	memcpy(verb, req, n);
	verb[n] = '\0';
	arg = req + n + strspn(req + n, " ");
	if (strcmp(verb, "busy") == 0 || strcmp(verb, "unbusy") == 0 ||
	    strcmp(verb, "release") == 0 || strcmp(verb, "busy-tree") == 0 ||
	    strcmp(verb, "unbusy-tree") == 0 || strcmp(verb, "release-tree") == 0) {
		if (*arg == '\0')
			return reply(rep, sz, -1, "error usage: %s PATH", verb);
		return ctl_busy(verb, arg, rep, sz);
	}
	if (strcmp(verb, "check") == 0)
		return ctl_check(arg, rep, sz);
	if (strcmp(verb, "state") == 0)
		return ctl_state(rep, sz);
	if (strcmp(verb, "dead") == 0) {
		if (!d.open)
			return reply(rep, sz, -1, "error no client");
		kill_cache("by control request");
		return reply(rep, sz, 0, "ok dead");
	}
	if (strcmp(verb, "log") == 0) {
		sim_log("MARK %s", arg);
		return reply(rep, sz, 0, "ok");
	}
	if (strcmp(verb, "rename-after") == 0)
		return ctl_rename_after(arg, rep, sz);
	if (strcmp(verb, "release-after") == 0)
		return ctl_release_after(arg, rep, sz);
	if (strcmp(verb, "rename-at-bind") == 0)
		return ctl_rename_at_bind(0, arg, rep, sz);
	if (strcmp(verb, "exchange-at-bind") == 0)
		return ctl_rename_at_bind(1, arg, rep, sz);
	if (strcmp(verb, "fault") == 0)
		return ctl_fault(arg, rep, sz);
	if (strcmp(verb, "malformed") == 0) {
		if (sscanf(arg, "%lu", &malformed_left) != 1)
			return reply(rep, sz, -1, "error usage: malformed N");
		sim_log("ctl: the next %lu reads return a malformed line", malformed_left);
		state_changed();	/* and wake the reader to read one */
		return reply(rep, sz, 0, "ok");
	}
	return reply(rep, sz, -1, "error unknown request %s", verb);
}
