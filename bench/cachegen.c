// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachegen: make a cachefiles-shaped tree for benchmarks and tests.
 *
 *   cachegen [-s SEED] [-v VOLUMES] [-d DAYS] [-t TIE_PCT] [-b] [-k KIB]
 *            [-m MANIFEST] DIR COUNT
 *
 * Creates DIR/cache/I<volume>/@00..@ff/ and COUNT data objects spread over
 * them, in random order (so inode order is not age order).  Names: 70 %
 * NFS-style E keys of 40 to 90 characters, 10 % S hex-word keys of 40 to 90
 * characters, 20 % short 9p-style D keys.  Sizes follow a rough log-normal
 * (4 KiB .. 64 MiB, median ~128 KiB) as sparse files (ftruncate), or with
 * -b as real blocks of KIB KiB each (-k, default 4) so that culling frees
 * space.  Access times are spread over DAYS days (default 90); TIE_PCT
 * percent (default 20) are rounded to the whole day, which makes ties; -t 0
 * gives distinct times.  -m writes "atime_ns path" lines, one an object.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/gen.h"

#define die(op, obj) gen_die("cachegen", op, obj)

static off_t
object_size(void)
{
	/* Sum of uniforms: roughly normal in log2, 12 (4 KiB) .. 26 (64 MiB). */
	unsigned e = 12 + (unsigned)(rnd() % 8 + rnd() % 8);

	return ((off_t)1 << e) + (off_t)(rnd() % ((uint64_t)1 << e));
}

int
main(int argc, char **argv)
{
	unsigned vols = 1, days = 90, tie = 20, kib = 4;
	const char *manifest = NULL;
	int real_blocks = 0, c, i;
	FILE *mf = NULL;
	char path[4096], name[256];
	uint64_t count, *order, now = (uint64_t)time(NULL), n;
	static char block[64 * 1024];

	while ((c = getopt(argc, argv, "s:v:d:t:bk:m:")) != -1) {
		switch (c) {
		case 's': gen_seed(optarg); break;
		case 'v': vols = (unsigned)atoi(optarg); break;
		case 'd': days = (unsigned)atoi(optarg); break;
		case 't': tie = (unsigned)atoi(optarg); break;
		case 'b': real_blocks = 1; break;
		case 'k': kib = (unsigned)atoi(optarg); break;
		case 'm': manifest = optarg; break;
		default:
			fprintf(stderr, "usage: cachegen [-s SEED] [-v VOLS] [-d DAYS] [-t TIE%%] "
				"[-b] [-k KIB] [-m MANIFEST] DIR COUNT\n");
			return 2;
		}
	}
	if (argc - optind != 2 || vols == 0 || days == 0 || kib == 0 || kib > 64) {
		fprintf(stderr, "cachegen: need DIR and COUNT (see the source)\n");
		return 2;
	}
	count = strtoull(argv[optind + 1], NULL, 10);
	if (manifest && (mf = fopen(manifest, "w")) == NULL)
		die("open", manifest);
	snprintf(path, sizeof(path), "%s/cache", argv[optind]);
	if (mkdir(argv[optind], 0755) < 0 && errno != EEXIST)
		die("mkdir", argv[optind]);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		die("mkdir", path);
	for (unsigned v = 0; v < vols; v++) {
		snprintf(path, sizeof(path), "%s/cache/Infs,4.2,2,801,c0a80001,,%x,,,,100000,100000,3,3c,1e,3c,1",
			 argv[optind], v);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			die("mkdir", path);
		for (i = 0; i < 256; i++) {
			size_t l = strlen(path);
			snprintf(path + l, sizeof(path) - l, "/@%02x", i);
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				die("mkdir", path);
			path[l] = '\0';
		}
	}
	/* A random permutation of serials: creation order is not age order. */
	order = malloc(count * sizeof(*order));
	if (order == NULL)
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
		uint64_t age_ns = (s * (days * 86400ull * 1000000000ull / (count ? count : 1)));
		struct timespec ts[2];
		int fd;

		make_name(name, sizeof(name), s);
		snprintf(path, sizeof(path), "%s/cache/Infs,4.2,2,801,c0a80001,,%x,,,,100000,100000,3,3c,1e,3c,1/@%02x/%s",
			 argv[optind], (unsigned)(s % vols), (unsigned)(rnd() % 256), name);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			die("open", path);
		if (real_blocks) {
			if (write(fd, block, kib * 1024u) != (ssize_t)(kib * 1024u))
				die("write", path);
		} else if (ftruncate(fd, object_size()) < 0) {
			die("ftruncate", path);
		}
		/* Serial 0 is the oldest; ties: rounded to the day. */
		ts[0].tv_sec = (time_t)(now - days * 86400ull) + (time_t)(age_ns / 1000000000ull);
		ts[0].tv_nsec = (long)(age_ns % 1000000000ull);
		if (rnd() % 100 < tie) {
			ts[0].tv_sec -= ts[0].tv_sec % 86400;
			ts[0].tv_nsec = 0;
		}
		ts[1] = ts[0];
		if (futimens(fd, ts) < 0)
			die("futimens", path);
		close(fd);
		if (mf)
			fprintf(mf, "%lld%09ld %s\n", (long long)ts[0].tv_sec, ts[0].tv_nsec, path);
	}
	free(order);
	if (mf && fclose(mf) != 0)
		die("close", manifest);
	return 0;
}
