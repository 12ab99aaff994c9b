// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_scan.c: the scanner on trees the input describes.
 *
 * The input is a recipe: two option bytes (threads, heap size), then
 * operations of a few bytes each that create regular files, directories,
 * symbolic links and FIFOs with chosen names and access times, go down
 * into a new directory or back up (at most MAX_OPS entries, MAX_DEPTH
 * deep, past NAMES_MAX_DEPTH).  The tree lives in a private tmpfs when one
 * can be mounted (a mount namespace of our own), else in /tmp.  Next to it
 * lies a sentinel tree shaped like a cache, with the oldest data objects
 * of all, which the tree's symbolic links point into.
 *
 * After scan_run(): no sentinel is a candidate; every candidate is a
 * regular file named like a data object, found again in its directory
 * through scan_open_dir(), with the access time recorded; candidates are
 * sorted oldest first; and they are exactly the heap-size oldest of the
 * data objects the recipe made where the scanner's rules say they count,
 * as does the object count.
 */
#include "tests/fuzz/fuzz.h"
#include "cull/names.h"
#include "cull/scan.h"
#include "lib/kcmd.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_OPS 48
#define MAX_DEPTH (NAMES_MAX_DEPTH + 3)
#define MAX_CAND 70

static char base[64];		/* the scratch directory (a tmpfs if we could) */
static int basefd = -1;
static ino_t sentinels[8];
static size_t nsentinels;
static char targets[8][PATH_MAX];	/* what symbolic links point to */
static size_t ntargets;

struct level {
	int fd;
	unsigned depth;		/* 0 = the cache root */
	int entered;		/* the scanner enters it */
	int data_ok;		/* its data objects are candidates */
};

struct obj {
	uint64_t at;
	uint64_t ino;
};

/* ---- scratch space ---- */

static void
rm_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				rm_at(fd, de->d_name);
		closedir(d);
		FUZZ_CHECK(unlinkat(dirfd, name, AT_REMOVEDIR) == 0, "rmdir %s: %s",
			   name, strerror(errno));
		return;
	}
	if (fd >= 0)
		close(fd);
	FUZZ_CHECK(unlinkat(dirfd, name, 0) == 0, "unlink %s: %s", name, strerror(errno));
}

static void
cleanup(void)
{
	if (basefd < 0)
		return;
	rm_at(basefd, "outside");
	close(basefd);
	umount2(base, MNT_DETACH);	/* gone with the namespace anyway */
	rmdir(base);
}

static void
set_atime(int dirfd, const char *name, int64_t sec, long nsec)
{
	struct timespec ts[2] = { { (time_t)sec, nsec }, { 0, UTIME_OMIT } };

	utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

/* A file that only a followed symbolic link could reach. */
static void
sentinel(int dirfd, const char *name)
{
	struct stat sb;
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	FUZZ_CHECK(fd >= 0, "sentinel %s: %s", name, strerror(errno));
	close(fd);
	set_atime(dirfd, name, 1, 0);	/* older than anything in the tree */
	FUZZ_CHECK(fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0, "stat");
	sentinels[nsentinels++] = sb.st_ino;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = { "outside", "outside/I1", "outside/I1/@ab",
					    "outside/I1/@ab/+cd" };
	int fd;
	size_t i;

	(void)argc;
	(void)argv;
	snprintf(base, sizeof(base), "/tmp/cfd-fuzz-scan.XXXXXX");
	FUZZ_CHECK(mkdtemp(base) != NULL, "mkdtemp: %s", strerror(errno));
	/* A tmpfs of our own when allowed: fast, and gone when we exit. */
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("cfd-fuzz", base, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=0700") == 0)
		fprintf(stderr, "fuzz_scan: trees in a private tmpfs at %s\n", base);
	else
		fprintf(stderr, "fuzz_scan: trees in %s\n", base);
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(basefd >= 0, "open %s: %s", base, strerror(errno));
	atexit(cleanup);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		FUZZ_CHECK(mkdirat(basefd, dirs[i], 0700) == 0, "mkdir %s", dirs[i]);
		snprintf(targets[ntargets++], PATH_MAX, "%s/%s", base, dirs[i]);
	}
	fd = openat(basefd, "outside/I1/@ab", O_RDONLY | O_DIRECTORY);
	sentinel(fd, "Dsecret");
	sentinel(fd, "+cd/Tsecret");
	close(fd);
	snprintf(targets[ntargets++], PATH_MAX, "%s/outside/I1/@ab/Dsecret", base);
	snprintf(targets[ntargets++], PATH_MAX, "..");
	snprintf(targets[ntargets++], PATH_MAX, "/");
	snprintf(targets[ntargets++], PATH_MAX, "missing");
	return 0;
}

/* ---- the recipe ---- */

struct recipe {
	const uint8_t *p, *end;
};

static unsigned
next(struct recipe *r)
{
	return r->p < r->end ? *r->p++ : 0;
}

/* A name: mostly shaped like the cache's, sometimes raw bytes. */
static void
make_name(struct recipe *r, char *name, int raw)
{
	static const char first[] = "DESTIJ@+x.";
	static const char rest[] = "0123456789abcdef";
	size_t n, i;

	if (raw) {
		n = 1 + next(r) % 16;
		for (i = 0; i < n; i++) {
			unsigned c = next(r);
			name[i] = c == '/' ? '%' : c == 0 ? '\n' : (char)c;
		}
		name[n] = '\0';
		return;
	}
	name[0] = first[next(r) % (sizeof(first) - 1)];
	n = next(r) % 4;
	for (i = 0; i < n; i++)
		name[1 + i] = rest[next(r) % (sizeof(rest) - 1)];
	name[1 + n] = '\0';
}

static void
pick_atime(struct recipe *r, int64_t *sec, long *nsec)
{
	unsigned a = next(r);

	*nsec = (long)(next(r) % 4) * 250000000;
	switch (a) {
	case 0: *sec = 0; break;
	case 255: *sec = -86400; break;			/* before the epoch */
	case 254: *sec = (int64_t)time(NULL) + 86400; break;	/* future */
	case 253: *sec = INT64_C(20000000000); break;	/* past 2554: saturates */
	default: *sec = (int64_t)time(NULL) - (int64_t)a * 3 * 86400; break;
	}
}

static int
sendable_data(const char *name)
{
	return names_kind(name) == NAME_DATA && kcmd_name_ok(name, strlen(name));
}

static int
obj_cmp(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Build the tree; returns the number of counted data objects in objs. */
static size_t
build(struct recipe *r, int rootfd, struct obj *objs)
{
	struct level lv[MAX_DEPTH + 1];
	char name[NAME_MAX + 1];
	size_t nobj = 0, top = 0, ops;
	struct stat sb;

	lv[0] = (struct level){ rootfd, 0, 1, 0 };
	for (ops = 0; ops < MAX_OPS && r->p < r->end; ops++) {
		unsigned op = next(r) % 8;
		struct level *cur = &lv[top];
		int fd;

		switch (op) {
		case 0: case 1: case 6: {	/* a regular file */
			int64_t sec;
			long nsec;

			make_name(r, name, op == 6);
			pick_atime(r, &sec, &nsec);
			fd = openat(cur->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC, 0600);
			if (fd < 0)
				break;
			close(fd);
			set_atime(cur->fd, name, sec, nsec);
			FUZZ_CHECK(fstatat(cur->fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0, "stat");
			if (cur->entered && cur->data_ok && sendable_data(name)) {
				objs[nobj].at = atime_key(&sb.st_atim);
				objs[nobj++].ino = sb.st_ino;
			}
			break;
		}
		case 2: case 7:			/* a directory, entered by 2 */
			make_name(r, name, next(r) % 8 == 0);
			if (mkdirat(cur->fd, name, 0700) < 0 || op == 7 || top == MAX_DEPTH)
				break;
			fd = openat(cur->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			FUZZ_CHECK(fd >= 0, "open a new directory: %s", strerror(errno));
			lv[top + 1] = (struct level){
				.fd = fd,
				.depth = cur->depth + 1,
				/* whatever bytes the name holds: no command names it */
				.entered = cur->entered && names_kind(name) == NAME_DIR &&
				    cur->depth + 1 <= NAMES_MAX_DEPTH,
				.data_ok = cur->depth + 1 >= 2 && (name[0] == '@' || name[0] == '+'),
			};
			top++;
			break;
		case 3:				/* back up */
			if (top > 0)
				close(lv[top--].fd);
			break;
		case 4:				/* a symbolic link */
			make_name(r, name, 0);
			symlinkat(targets[next(r) % ntargets], cur->fd, name);
			break;
		case 5:				/* a FIFO */
			make_name(r, name, 0);
			mkfifoat(cur->fd, name, 0600);
			break;
		}
	}
	while (top > 0)
		close(lv[top--].fd);
	return nobj;
}

/* ---- the properties ---- */

static void
check_cand(struct scan_result *res, int rootfd, const struct cand *c)
{
	int fd = scan_open_dir(res, rootfd, c->dir);
	char path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	int found = 0;
	DIR *d;
	size_t i;

	for (i = 0; i < nsentinels; i++)
		FUZZ_CHECK(cand_ino(c) != sentinels[i], "a sentinel is a candidate");
	FUZZ_CHECK(scan_dir_path(res, c->dir, path, sizeof(path)) == 0, "no path");
	FUZZ_CHECK(fd >= 0, "directory '%s' of a candidate: %s", path, strerror(errno));
	d = fdopendir(fd);
	FUZZ_CHECK(d != NULL, "fdopendir");
	while ((de = readdir(d)) != NULL) {
		if (de->d_ino != cand_ino(c))
			continue;
		found = 1;
		FUZZ_CHECK(names_kind(de->d_name) == NAME_DATA,
			   "candidate '%s/%s' is not named as data", path, de->d_name);
		FUZZ_CHECK(fstatat(fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			   S_ISREG(sb.st_mode), "candidate '%s/%s' is not a regular file",
			   path, de->d_name);
		FUZZ_CHECK(atime_key(&sb.st_atim) == cand_atime(c),
			   "candidate '%s/%s' has another atime", path, de->d_name);
		break;
	}
	closedir(d);
	FUZZ_CHECK(found, "candidate inode %llu not in '%s'",
		   (unsigned long long)cand_ino(c), path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe r = { data, data + size };
	struct obj objs[MAX_OPS];
	struct scan_opts opt = { 0 };
	struct scan_result *res;
	struct cand *cands;
	size_t nobj, ncand, want, i;
	int rootfd;

	if (size > 512)
		return -1;
	opt.threads = 1 + next(&r) % 3;
	opt.max_candidates = next(&r) % (MAX_CAND + 1);
	FUZZ_CHECK(mkdirat(basefd, "cache", 0700) == 0, "mkdir cache: %s", strerror(errno));
	rootfd = openat(basefd, "cache", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	FUZZ_CHECK(rootfd >= 0, "open cache: %s", strerror(errno));
	nobj = build(&r, rootfd, objs);

	res = scan_run(rootfd, &opt, NULL);
	FUZZ_CHECK(res != NULL, "scan_run failed");
	FUZZ_CHECK(scan_stats(res)->objects == nobj, "%llu objects counted, %zu made",
		   (unsigned long long)scan_stats(res)->objects, nobj);
	ncand = scan_ncand(res);
	cands = scan_cands(res);
	want = nobj < opt.max_candidates ? nobj : opt.max_candidates;
	FUZZ_CHECK(ncand == want, "%zu candidates, %zu wanted", ncand, want);
	qsort(objs, nobj, sizeof(objs[0]), obj_cmp);
	for (i = 0; i < ncand; i++) {
		check_cand(res, rootfd, &cands[i]);
		if (i > 0)
			FUZZ_CHECK(cand_cmp(&cands[i - 1], &cands[i]) < 0,
				   "candidates %zu and %zu out of order", i - 1, i);
		FUZZ_CHECK(cand_atime(&cands[i]) == objs[i].at &&
			   cand_ino(&cands[i]) == objs[i].ino,
			   "candidate %zu is not the %zuth oldest object", i, i + 1);
	}
	scan_free(res);
	close(rootfd);
	rm_at(basefd, "cache");
	return 0;
}
