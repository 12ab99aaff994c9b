// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan-orders: how much does the order of the stat calls cost on a cold
 * cache?  Walks DIR (every directory, every regular file) one of four ways
 * and prints the wall and CPU time:
 *   dents    directory reads only (what find -type f does: no stat)
 *   readdir  each file stat'ed in the order its directory lists it
 *            (cachefilesd 0.10.10)
 *   dirino   each directory's files stat'ed in inode order (our scanner,
 *            cull/scan.c)
 *   global   every directory read first, then every file stat'ed in inode
 *            order over the whole tree
 *   chunkN   directories read N at a time (as the walk meets them), each
 *            N's files stat'ed together in inode order: global's order
 *            within a memory bound (a directory holding both files and
 *            subdirectories, which a cache has none of, is not handled)
 * A benchmark probe (bench/vm-vs-historical.sh VMB_SCAN=1), not part
 * of the daemon.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum mode { M_DENTS, M_READDIR, M_DIRINO, M_GLOBAL, M_CHUNK };

struct ent {
	uint64_t ino;
	uint32_t dir;		/* index in dirfds */
	uint32_t name;		/* offset in names */
};

static enum mode mode;
static struct ent *ents;
static size_t nents, ents_cap;
static char *names;
static size_t names_len, names_cap;
static int *dirfds;
static size_t ndirfds, dirfds_cap;
static uint64_t nstat, nfail, ndirs;
static size_t chunk, nheld;	/* M_CHUNK: directories per chunk, held now */

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (p == NULL) {
		perror("realloc");
		exit(1);
	}
	return p;
}

static int
ino_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void
stat_one(int fd, const char *name)
{
	struct stat sb;

	if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		nstat++;
	else
		nfail++;
}

/* Every gathered file stat'ed in inode order; their directories closed. */
static void
stat_gathered(void)
{
	qsort(ents, nents, sizeof(*ents), ino_cmp);
	for (size_t i = 0; i < nents; i++)
		stat_one(dirfds[ents[i].dir], names + ents[i].name);
	for (size_t i = 0; i < ndirfds; i++)
		if (dirfds[i] >= 0) {
			close(dirfds[i]);
			dirfds[i] = -1;
		}
	nents = names_len = nheld = 0;
}

/* Read one directory: subdirectories walked, files stat'ed or gathered. */
static void
walk(int fd)
{
	DIR *d = fdopendir(fd);
	size_t first = nents, names_first = names_len;
	struct dirent *de;
	uint32_t idx;
	int keep = 0;

	if (d == NULL) {
		close(fd);
		return;
	}
	ndirs++;
	dirfds = grow(dirfds, &dirfds_cap, ndirfds + 1, sizeof(*dirfds));
	idx = (uint32_t)ndirfds++;
	dirfds[idx] = -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type == DT_DIR) {
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (sub >= 0)
				walk(sub);
			continue;
		}
		if (de->d_type != DT_REG || mode == M_DENTS)
			continue;
		if (mode == M_READDIR) {
			stat_one(fd, de->d_name);
			continue;
		}
		size_t len = strlen(de->d_name) + 1;
		names = grow(names, &names_cap, names_len + len, 1);
		memcpy(names + names_len, de->d_name, len);
		ents = grow(ents, &ents_cap, nents + 1, sizeof(*ents));
		ents[nents].ino = de->d_ino;
		ents[nents].dir = idx;
		ents[nents].name = (uint32_t)names_len;
		names_len += len;
		nents++;
		keep = 1;
	}
	if (mode == M_DIRINO && nents > first) {
		qsort(ents + first, nents - first, sizeof(*ents), ino_cmp);
		for (size_t i = first; i < nents; i++)
			stat_one(fd, names + ents[i].name);
		nents = first;
		names_len = names_first;
		keep = 0;
	}
	if ((mode == M_GLOBAL || mode == M_CHUNK) && keep)
		dirfds[idx] = dup(fd);
	closedir(d);
	if (mode == M_CHUNK && keep && ++nheld >= chunk)
		stat_gathered();
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct rlimit rl = { 1 << 16, 1 << 16 };
	struct rusage ru;
	double t0, t1;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: scan-orders dents|readdir|dirino|global|chunkN DIR\n");
		return 2;
	}
	if (strcmp(argv[1], "dents") == 0)
		mode = M_DENTS;
	else if (strcmp(argv[1], "readdir") == 0)
		mode = M_READDIR;
	else if (strcmp(argv[1], "dirino") == 0)
		mode = M_DIRINO;
	else if (strcmp(argv[1], "global") == 0)
		mode = M_GLOBAL;
	else if (strncmp(argv[1], "chunk", 5) == 0 && (chunk = strtoul(argv[1] + 5, NULL, 10)) > 0)
		mode = M_CHUNK;
	else {
		fprintf(stderr, "scan-orders: unknown mode %s\n", argv[1]);
		return 2;
	}
	setrlimit(RLIMIT_NOFILE, &rl);
	t0 = now();
	fd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	walk(fd);
	if (mode == M_GLOBAL || mode == M_CHUNK)
		stat_gathered();
	t1 = now();
	getrusage(RUSAGE_SELF, &ru);
	printf("mode=%s dirs=%llu stats=%llu failed=%llu wall_s=%.2f user_s=%.2f sys_s=%.2f\n",
	       argv[1], (unsigned long long)ndirs, (unsigned long long)nstat,
	       (unsigned long long)nfail, t1 - t0,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
