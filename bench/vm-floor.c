// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-floor: the least work any exact-LRU culling daemon can do, as a
 * daemon of its own for bench/vm-vs-historical.sh (VMB_DAEMONS=... floor).
 *
 * It binds the cache the way the daemons do (each line of the
 * configuration, then "bind"), reads every directory once, stat()s every
 * file once (no daemon can know an object's atime otherwise), sorts them
 * oldest first and culls them in that order, each with one fchdir() (only
 * when the directory changes) and one write(), until statvfs() shows the
 * run limits (brun, frun) met; it asks statvfs() every 32 culls.  Nothing
 * else: no re-check of an object before its cull, no check that its
 * directory is still in place, no table bounded in memory, no early
 * culling, no retry of busy objects, no graveyard, no kept state.  Its CPU
 * time is the kernel's cost of the walk and of the culls plus very little,
 * a floor under our daemon's and 0.10.10's in the same run.  Then it waits
 * for SIGTERM.  A benchmark probe, never installed; not a daemon to run.
 * With the line "vm-floor-order inode" in CONF (consumed here, not sent to
 * the kernel) it culls the same oldest set in directory and inode order:
 * an experiment's probe, bench/VM-RESULTS.md "Cull order".  With
 * "vm-floor-walk uring N" it stat()s each directory's files through
 * io_uring, N requests in flight (raw system calls, no liburing): the probe
 * of bench/VM-RESULTS.md "io_uring's statx with one vCPU".
 *
 *   vm-floor [-n] [-s] -f CONF
 */
#include <dirent.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct ent {
	uint64_t atime;
	uint64_t ino;
	uint64_t blocks;	/* st_blocks, 512-byte units */
	uint32_t dir;		/* index in dirfds */
	uint32_t name;		/* offset in names */
};

static struct ent *ents;
static size_t nents, ents_cap;
static char *names;
static size_t names_len, names_cap;
static int *dirfds;
static size_t ndirs, dirs_cap;
static unsigned brun_pct, frun_pct;
static int inode_order;	/* "vm-floor-order inode" in CONF: see main() */
static unsigned uring_depth;	/* "vm-floor-walk uring N" in CONF: see walk() */

/* One io_uring, mapped by hand. */
static struct {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
} ring;

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 4096;
	if ((p = realloc(p, *cap * size)) == NULL) {
		perror("vm-floor: realloc");
		exit(1);
	}
	return p;
}

static int
atime_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->atime < y->atime ? -1 : x->atime > y->atime;
}

static int
dir_ino_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void *
map_ring(size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.fd, off);

	if (p == MAP_FAILED) {
		perror("vm-floor: mmap io_uring");
		exit(1);
	}
	return p;
}

static void
uring_setup(unsigned depth)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	if ((ring.fd = (int)syscall(__NR_io_uring_setup, depth, &p)) < 0) {
		perror("vm-floor: io_uring_setup");
		exit(1);
	}
	sq = map_ring(p.sq_off.array + p.sq_entries * sizeof(unsigned), IORING_OFF_SQ_RING);
	cq = map_ring(p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
	    IORING_OFF_CQ_RING);
	ring.sqes = map_ring(p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
	ring.sq_tail = (unsigned *)(void *)(sq + p.sq_off.tail);
	ring.sq_mask = (unsigned *)(void *)(sq + p.sq_off.ring_mask);
	ring.sq_array = (unsigned *)(void *)(sq + p.sq_off.array);
	ring.cq_head = (unsigned *)(void *)(cq + p.cq_off.head);
	ring.cq_tail = (unsigned *)(void *)(cq + p.cq_off.tail);
	ring.cq_mask = (unsigned *)(void *)(cq + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(void *)(cq + p.cq_off.cqes);
}

/* statx of n names relative to fd, through the ring; res[i] < 0 on failure. */
static void
uring_statx(int fd, char **name, struct statx *sx, int *res, unsigned n)
{
	unsigned i, tail = *ring.sq_tail, head;

	for (i = 0; i < n; i++) {
		unsigned idx = (tail + i) & *ring.sq_mask;
		struct io_uring_sqe *q = &ring.sqes[idx];

		memset(q, 0, sizeof(*q));
		q->opcode = IORING_OP_STATX;
		q->fd = fd;
		q->addr = (uint64_t)(uintptr_t)name[i];
		q->len = STATX_TYPE | STATX_INO | STATX_ATIME | STATX_BLOCKS;
		q->off = (uint64_t)(uintptr_t)&sx[i];
		q->statx_flags = AT_SYMLINK_NOFOLLOW;
		q->user_data = i;
		ring.sq_array[idx] = idx;
	}
	__atomic_store_n(ring.sq_tail, tail + n, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring.fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
		perror("vm-floor: io_uring_enter");
		exit(1);
	}
	head = *ring.cq_head;
	for (i = 0; i < n; i++) {
		while (head == __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE))
			if (syscall(__NR_io_uring_enter, ring.fd, 0, 1, IORING_ENTER_GETEVENTS,
			    NULL, 0) < 0 && errno != EINTR)
				exit(1);
		res[ring.cqes[head & *ring.cq_mask].user_data] = ring.cqes[head & *ring.cq_mask].res;
		head++;
	}
	__atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
}

static void
add_ent(uint32_t dir, const char *name, uint64_t atime, uint64_t ino, uint64_t blocks)
{
	size_t len = strlen(name) + 1;

	names = grow(names, &names_cap, names_len + len, 1);
	memcpy(names + names_len, name, len);
	ents = grow(ents, &ents_cap, nents + 1, sizeof(*ents));
	ents[nents].atime = atime;
	ents[nents].ino = ino;
	ents[nents].blocks = blocks;
	ents[nents].dir = dir;
	ents[nents].name = (uint32_t)names_len;
	names_len += len;
	nents++;
}

/* The regular files of one directory, read whole, stat'ed in batches through the ring. */
static void walk(int fd);

static void
walk_uring(int fd, DIR *d, uint32_t idx)
{
	char **pend = NULL;
	size_t npend = 0, pend_cap = 0;
	struct statx sx[256];
	int res[256];
	char *nm[256];
	struct dirent *de;
	size_t i, j;

	while ((de = readdir(d)) != NULL) {
		if (de->d_type == DT_DIR) {
			int sub;

			if (de->d_name[0] != '.' &&
			    (sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) >= 0)
				walk(sub);
			continue;
		}
		if (de->d_type != DT_REG)
			continue;
		pend = grow(pend, &pend_cap, npend + 1, sizeof(*pend));
		pend[npend++] = strdup(de->d_name);
	}
	for (i = 0; i < npend; i += j) {
		unsigned n = (unsigned)(npend - i < uring_depth ? npend - i : uring_depth);

		for (j = 0; j < n; j++)
			nm[j] = pend[i + j];
		uring_statx(fd, nm, sx, res, n);
		for (j = 0; j < n; j++) {
			if (res[j] >= 0 && S_ISREG(sx[j].stx_mode))
				add_ent(idx, nm[j], (uint64_t)sx[j].stx_atime.tv_sec * 1000000000u +
				    sx[j].stx_atime.tv_nsec, sx[j].stx_ino, sx[j].stx_blocks);
			free(nm[j]);
		}
	}
	free(pend);
}

/* Every file of the directory open as fd stat'ed once, subdirectories walked. */
static void
walk(int fd)
{
	DIR *d = fdopendir(dup(fd));
	struct dirent *de;
	uint32_t idx;

	if (d == NULL) {
		close(fd);
		return;
	}
	dirfds = grow(dirfds, &dirs_cap, ndirs + 1, sizeof(*dirfds));
	idx = (uint32_t)ndirs++;
	dirfds[idx] = fd;
	if (uring_depth != 0) {
		walk_uring(fd, d, idx);
		closedir(d);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat sb;

		if (de->d_type == DT_DIR) {
			int sub;

			if (de->d_name[0] == '.')
				continue;
			if ((sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) >= 0)
				walk(sub);
			continue;
		}
		if (de->d_type != DT_REG ||
		    fstatat(fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
			continue;
		add_ent(idx, de->d_name, (uint64_t)sb.st_atim.tv_sec * 1000000000u +
		    (uint64_t)sb.st_atim.tv_nsec, (uint64_t)sb.st_ino, (uint64_t)sb.st_blocks);
	}
	closedir(d);
}

static int
limits_met(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return 1;
	return sv.f_bavail >= sv.f_blocks / 100 * brun_pct &&
	    sv.f_ffree >= sv.f_files / 100 * frun_pct;
}

/*
 * How many of the oldest (ents sorted by atime) meet the run limits from
 * here: an experiment's probe (VM-RESULTS, "cull order"), which culls that
 * same set in directory and inode order instead, to price the order of the
 * kernel's unlinks.
 */
static size_t
deficit_set(int fd)
{
	struct statvfs sv;
	uint64_t need_b = 0, need_f = 0, got_b = 0;
	size_t i;

	if (fstatvfs(fd, &sv) < 0)
		return 0;
	if (sv.f_bavail < sv.f_blocks / 100 * brun_pct)
		need_b = sv.f_blocks / 100 * brun_pct - sv.f_bavail;
	if (sv.f_ffree < sv.f_files / 100 * frun_pct)
		need_f = sv.f_files / 100 * frun_pct - sv.f_ffree;
	for (i = 0; i < nents && (got_b < need_b || i < need_f); i++)
		got_b += ents[i].blocks * 512 / sv.f_frsize;
	fprintf(stderr, "vm-floor: inode order for the %zu oldest\n", i);
	return i;
}

/* Each line of CONF to the device, the run limits noted; the cache's directory. */
static char *
configure(int dev, const char *conf)
{
	FILE *f = fopen(conf, "r");
	char line[4096], *dir = NULL;

	if (f == NULL) {
		perror(conf);
		exit(1);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t len = strcspn(line, "\n");

		line[len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (strcmp(line, "vm-floor-order inode") == 0) {
			inode_order = 1;	/* the probe's own, not the kernel's */
			continue;
		}
		if (sscanf(line, "vm-floor-walk uring %u", &uring_depth) == 1) {
			if (uring_depth == 0 || uring_depth > 256)
				uring_depth = 64;
			uring_setup(uring_depth);
			continue;
		}
		if (strncmp(line, "dir ", 4) == 0)
			dir = strdup(line + 4);
		sscanf(line, "brun %u%%", &brun_pct);
		sscanf(line, "frun %u%%", &frun_pct);
		if (write(dev, line, len) < 0)
			fprintf(stderr, "vm-floor: \"%s\": %s\n", line, strerror(errno));
	}
	fclose(f);
	if (dir == NULL || write(dev, "bind", 4) < 0) {
		fprintf(stderr, "vm-floor: no dir, or bind refused: %s\n", strerror(errno));
		exit(1);
	}
	return dir;
}

int
main(int argc, char **argv)
{
	const char *conf = NULL;
	struct rlimit rl = { 1 << 20, 1 << 20 };
	char path[4096], cmd[300];
	size_t i, culled = 0, refused = 0;
	int dev, root, opt, cwd = -1;
	char *dir;

	while ((opt = getopt(argc, argv, "nsf:")) != -1)
		if (opt == 'f')
			conf = optarg;
	if (conf == NULL) {
		fprintf(stderr, "usage: vm-floor [-n] [-s] -f CONF\n");
		return 2;
	}
	/* A descriptor for every directory, kept: no path walk at cull time. */
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		perror("vm-floor: setrlimit");
	if ((dev = open("/dev/cachefiles", O_RDWR)) < 0) {
		perror("/dev/cachefiles");
		return 1;
	}
	dir = configure(dev, conf);
	snprintf(path, sizeof(path), "%s/cache", dir);
	if ((root = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) < 0) {
		perror(path);
		return 1;
	}
	walk(dup(root));
	qsort(ents, nents, sizeof(*ents), atime_cmp);
	if (inode_order)
		qsort(ents, deficit_set(root), sizeof(*ents), dir_ino_cmp);
	for (i = 0; i < nents; i++) {
		const struct ent *e = &ents[i];
		int len;

		if (culled % 32 == 0 && limits_met(root))
			break;
		if (dirfds[e->dir] != cwd) {
			if (fchdir(dirfds[e->dir]) < 0)
				continue;
			cwd = dirfds[e->dir];
		}
		len = snprintf(cmd, sizeof(cmd), "cull %s", names + e->name);
		if (len > 0 && (size_t)len < sizeof(cmd) && write(dev, cmd, (size_t)len) == len)
			culled++;
		else
			refused++;
	}
	if (chdir("/") < 0)
		perror("vm-floor: chdir");
	fprintf(stderr, "vm-floor: %zu objects in %zu directories, %zu culled, %zu refused\n",
		nents, ndirs, culled, refused);
	/* Stay bound until stopped, as a daemon does. */
	for (;;)
		pause();
}
