// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-gen: the synthetic cache tree of bench/vm-vs-historical.sh.
 *
 *   vm-gen [-s SEED] [-d DAYS] [-m MINKIB] [-k MAXKIB] DIR COUNT MANIFEST
 *
 * Makes DIR/cache/I<volume>/@00..@ff/ for two volumes (an NFS-style and a
 * 9p-style key) and COUNT regular files named like 5.17+ data objects (E:
 * base64 keys of 40 to 90 characters, S: hex words, D: short printable keys).
 * Each file holds real, non-zero data (mkfs.ext4 -d turns zero blocks into
 * holes, and culling a hole frees nothing) of a log-uniform size between
 * MINKIB KiB (default 1) and MAXKIB KiB (default 64; rounded down to MINKIB
 * times a power of two), carries a user.CacheFiles.cache xattr
 * shaped like the kernel's (object size, zero point, type, content), and has
 * a distinct whole-second access time spread over DAYS days (default 90), so
 * that "the truly oldest K" is well defined.  Creation order is random, so
 * inode order is not age order.  MANIFEST gets "atime size name" lines.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "bench/gen.h"

#define NVOLS	2

static const char *volumes[NVOLS] = {
	"Infs,4.2,2,801,c0a80001,,0,,,,100000,100000,3,3c,1e,3c,1",
	"I9p,data,0",
};

#define die(op, obj) gen_die("vm-gen", op, obj)

/*
 * About log-uniform between minkib and maxkib KiB (many small, a few large):
 * a uniform number of doublings, the fraction interpolated linearly, which
 * spares the benchmark libm.
 */
static size_t
object_size(unsigned minkib, unsigned maxkib)
{
	unsigned bits = 0, e, f;

	while ((minkib << (bits + 1)) <= maxkib)
		bits++;
	if (bits == 0)
		return (size_t)minkib * 1024;
	e = (unsigned)(rnd() % (bits * 1024u));
	f = e % 1024;
	return ((size_t)minkib * 1024 << (e / 1024)) * (1024 + f) / 1024;
}

static void
write_object(const char *path, size_t size, time_t atime, const char *block)
{
	struct {
		uint64_t size, zero_point;
		uint8_t type, content, aux[8];
	} __attribute__((packed)) x;
	struct timespec ts[2];
	size_t done, n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		die("open", path);
	for (done = 0; done < size; done += n) {
		n = size - done < 65536 ? size - done : 65536;
		if (write(fd, block, n) != (ssize_t)n)
			die("write", path);
	}
	memset(&x, 0, sizeof(x));
	x.size = htobe64(size);
	x.zero_point = htobe64(size);
	x.content = 3;
	if (fsetxattr(fd, "user.CacheFiles.cache", &x, sizeof(x), 0) < 0)
		die("fsetxattr", path);
	ts[0].tv_sec = ts[1].tv_sec = atime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (futimens(fd, ts) < 0)
		die("futimens", path);
	if (close(fd) < 0)
		die("close", path);
}

static void
make_dirs(const char *dir)
{
	char path[4096];
	int v, i;

	snprintf(path, sizeof(path), "%s/cache", dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("mkdir", dir);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		die("mkdir", path);
	for (v = 0; v < NVOLS; v++) {
		snprintf(path, sizeof(path), "%s/cache/%s", dir, volumes[v]);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			die("mkdir", path);
		for (i = 0; i < 256; i++) {
			snprintf(path, sizeof(path), "%s/cache/%s/@%02x", dir,
			    volumes[v], i);
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				die("mkdir", path);
		}
	}
}

int
main(int argc, char **argv)
{
	static char block[65536];
	unsigned days = 90, minkib = 1, maxkib = 64;
	uint64_t count, n, *order, span;
	char path[4096], name[128];
	time_t now = time(NULL);
	FILE *mf;
	int c;

	while ((c = getopt(argc, argv, "s:d:m:k:")) != -1) {
		switch (c) {
		case 's':
			gen_seed(optarg);
			break;
		case 'd':
			days = (unsigned)atoi(optarg);
			break;
		case 'm':
			minkib = (unsigned)atoi(optarg);
			break;
		case 'k':
			maxkib = (unsigned)atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 3 || days == 0 || minkib == 0 || minkib > 4096 || maxkib < minkib ||
	    maxkib > 65536)
		goto usage;
	count = strtoull(argv[optind + 1], NULL, 10);
	span = (uint64_t)days * 86400;
	if (count == 0 || count > span) {
		fprintf(stderr, "vm-gen: COUNT must be 1 .. %llu\n",
		    (unsigned long long)span);
		return 2;
	}
	memset(block, 0x5a, sizeof(block));
	make_dirs(argv[optind]);
	if ((mf = fopen(argv[optind + 2], "w")) == NULL)
		die("fopen", argv[optind + 2]);
	if ((order = malloc(count * sizeof(*order))) == NULL)
		die("malloc", "order");
	for (n = 0; n < count; n++)
		order[n] = n;
	for (n = count; n > 1; n--) {
		uint64_t j = rnd() % n, t = order[n - 1];

		order[n - 1] = order[j];
		order[j] = t;
	}
	for (n = 0; n < count; n++) {
		uint64_t s = order[n];
		time_t atime = now - (time_t)span + (time_t)(s * (span / count));
		size_t size = object_size(minkib, maxkib);
		unsigned v = (unsigned)(rnd() % 10) < 7 ? 0 : 1;

		make_name(name, sizeof(name), s);
		snprintf(path, sizeof(path), "%s/cache/%s/@%02x/%s",
		    argv[optind], volumes[v], (unsigned)(rnd() % 256), name);
		write_object(path, size, atime, block);
		fprintf(mf, "%lld %zu %s\n", (long long)atime, size, name);
	}
	free(order);
	if (fclose(mf) != 0)
		die("fclose", argv[optind + 2]);
	return 0;
usage:
	fprintf(stderr, "usage: vm-gen [-s SEED] [-d DAYS] [-m MINKIB] [-k MAXKIB] DIR COUNT MANIFEST\n");
	return 2;
}
