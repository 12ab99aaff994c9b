// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uringstat: a prototype, not part of the daemon.  Walks a cache tree as
 * the scanner does (openat + getdents64, directories by d_type) and stats
 * every other entry with statx(STATX_ATIME | STATX_INO | STATX_BLOCKS,
 * AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC), either one synchronous call at
 * a time (-b 0) or through io_uring with up to BATCH requests in flight,
 * submitted in one io_uring_submit() per refill.  Debian 12's kernel (6.1)
 * cannot complete IORING_OP_STATX inline: every request is handed to an
 * io-wq worker thread, so BATCH is in effect the number of stats in flight.
 *
 *   uringstat [-b BATCH] DIR
 *
 * DIR is the cache root (the directory holding cache/).  Keeps only the
 * count, the allocated bytes and the oldest atime (no candidate heap: this
 * measures the I/O pattern, not the scanner).  Prints
 *
 *   bench=uringstat objects=N dirs=D seconds=S rate=R batch=B errors=E
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STATX_MASK (STATX_ATIME | STATX_INO | STATX_BLOCKS)
#define STATX_FLAGS (AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static struct {
	uint64_t objects, dirs, errors, bytes, oldest_ns;
} tot = { .oldest_ns = UINT64_MAX };

/* Names of one directory's non-directory entries, NUL-separated. */
static char *arena;
static size_t arena_len, arena_cap;
static size_t *offs;
static size_t noffs, offs_cap;
/* Directories still to walk: paths relative to the root descriptor. */
static char **stack;
static size_t nstack, stack_cap;
static struct statx *bufs;

static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (p == NULL) {
		perror("uringstat: realloc");
		exit(1);
	}
	return p;
}

static void
push_dir(const char *parent, const char *name)
{
	size_t l = strlen(parent) + strlen(name) + 2;
	char *p = xrealloc(NULL, l);

	snprintf(p, l, "%s%s%s", parent, parent[0] ? "/" : "", name);
	if (nstack == stack_cap) {
		stack_cap = stack_cap ? stack_cap * 2 : 64;
		stack = xrealloc(stack, stack_cap * sizeof(*stack));
	}
	stack[nstack++] = p;
}

static void
add_name(const char *name)
{
	size_t l = strlen(name) + 1;

	while (arena_len + l > arena_cap) {
		arena_cap = arena_cap ? arena_cap * 2 : 1 << 20;
		arena = xrealloc(arena, arena_cap);
	}
	if (noffs == offs_cap) {
		offs_cap = offs_cap ? offs_cap * 2 : 4096;
		offs = xrealloc(offs, offs_cap * sizeof(*offs));
	}
	offs[noffs++] = arena_len;
	memcpy(arena + arena_len, name, l);
	arena_len += l;
}

static void
account(const struct statx *sx)
{
	uint64_t at = (uint64_t)sx->stx_atime.tv_sec * 1000000000ull + sx->stx_atime.tv_nsec;

	tot.objects++;
	tot.bytes += sx->stx_blocks * 512;
	if (at < tot.oldest_ns)
		tot.oldest_ns = at;
}

/* Free statx buffers for io_uring: a slot stays taken while in flight. */
static unsigned *freeslots, nfree;

/* Stat every collected name relative to dfd, BATCH in flight. */
static void
stat_names(struct io_uring *ring, int dfd, unsigned batch)
{
	size_t next = 0, done = 0;

	if (batch == 0) {
		for (size_t i = 0; i < noffs; i++) {
			if (statx(dfd, arena + offs[i], STATX_FLAGS, STATX_MASK, &bufs[0]) < 0)
				tot.errors++;
			else
				account(&bufs[0]);
		}
		return;
	}
	while (done < noffs) {
		struct io_uring_cqe *cqe;
		unsigned added = 0;

		while (nfree > 0 && next < noffs) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
			unsigned slot;

			if (sqe == NULL)
				break;
			slot = freeslots[--nfree];
			io_uring_prep_statx(sqe, dfd, arena + offs[next], STATX_FLAGS,
					    STATX_MASK, &bufs[slot]);
			io_uring_sqe_set_data64(sqe, slot);
			next++;
			added++;
		}
		if (added && io_uring_submit(ring) < 0) {
			fprintf(stderr, "uringstat: io_uring_submit failed\n");
			exit(1);
		}
		if (io_uring_wait_cqe(ring, &cqe) < 0) {
			fprintf(stderr, "uringstat: io_uring_wait_cqe failed\n");
			exit(1);
		}
		do {
			unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);

			if (cqe->res < 0)
				tot.errors++;
			else
				account(&bufs[slot]);
			io_uring_cqe_seen(ring, cqe);
			freeslots[nfree++] = slot;
			done++;
		} while (io_uring_peek_cqe(ring, &cqe) == 0);
	}
}

/* Read one directory: subdirectories onto the stack, the rest into the arena. */
static int
read_dir(int dfd, const char *rel)
{
	static char buf[64 * 1024];
	long n;

	arena_len = 0;
	noffs = 0;
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long o = 0; o < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + o);

			o += de->d_reclen;
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			if (de->d_type == DT_DIR)
				push_dir(rel, de->d_name);
			else
				add_name(de->d_name);
		}
	}
	return n < 0 ? -1 : 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	unsigned batch = 128;
	struct io_uring ring;
	char path[4096];
	int c, root;
	double t0, t1;

	while ((c = getopt(argc, argv, "b:")) != -1) {
		switch (c) {
		case 'b': batch = (unsigned)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: uringstat [-b BATCH] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1 || batch > 4096) {
		fprintf(stderr, "uringstat: need DIR (and BATCH <= 4096)\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cache", argv[optind]);
	root = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0) {
		perror(path);
		return 1;
	}
	bufs = xrealloc(NULL, (batch ? batch : 1) * sizeof(*bufs));
	if (batch) {
		int err = io_uring_queue_init(batch, &ring, 0);

		if (err < 0) {
			fprintf(stderr, "uringstat: io_uring_queue_init: %s\n", strerror(-err));
			return 1;
		}
		freeslots = xrealloc(NULL, batch * sizeof(*freeslots));
		for (unsigned s = 0; s < batch; s++)
			freeslots[nfree++] = s;
	}
	t0 = now_s();
	push_dir("", ".");
	while (nstack > 0) {
		char *rel = stack[--nstack];
		int dfd = openat(root, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (dfd < 0 || read_dir(dfd, rel) < 0) {
			tot.errors++;
		} else {
			tot.dirs++;
			stat_names(batch ? &ring : NULL, dfd, batch);
		}
		if (dfd >= 0)
			close(dfd);
		free(rel);
	}
	t1 = now_s();
	printf("bench=uringstat objects=%llu dirs=%llu seconds=%.3f rate=%.0f batch=%u "
	       "bytes=%llu errors=%llu\n",
	       (unsigned long long)tot.objects, (unsigned long long)tot.dirs, t1 - t0,
	       (double)tot.objects / (t1 - t0 > 0 ? t1 - t0 : 1e-9), batch,
	       (unsigned long long)tot.bytes, (unsigned long long)tot.errors);
	if (batch)
		io_uring_queue_exit(&ring);
	close(root);
	return 0;
}
