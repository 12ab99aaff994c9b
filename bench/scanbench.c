// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scanbench: time one scan of a cache tree with the library the daemon
 * uses (cull/scan.h) and print one machine-readable line:
 *
 *   bench=scan objects=N seconds=S rate=R threads=J candidates=K
 *       table_bytes=B bytes_per_candidate=C rss_delta_kb=D maxrss_kb=M
 *
 *   scanbench [-k CANDIDATES] [-j THREADS] [-l LABEL] [-v] DIR
 *
 * With -v it then walks the candidates oldest first as the culler does
 * (names found again by inode, each object re-stat'ed; nothing removed) and
 * prints "bench=victims handed=N seconds=S rate=R".
 *
 * DIR is the cache root (the directory holding cache/).  table_bytes counts
 * what the scan keeps: the candidate records plus the directory table;
 * rss_delta_kb is the growth of the resident set while the result is held.
 */
#include "cull/scan.h"
#include "cull/victims.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long
rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
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
	struct scan_opts o = { .max_candidates = 4096, .threads = 1 };
	const char *label = "";
	struct scan_result *r;
	const struct scan_stats *st;
	struct rusage ru;
	double t0, t1;
	long rss0, rss1;
	int c, fd, walk = 0;
	char path[4096];
	size_t table;

	while ((c = getopt(argc, argv, "k:j:l:v")) != -1) {
		switch (c) {
		case 'v': walk = 1; break;
		case 'k': o.max_candidates = strtoull(optarg, NULL, 10); break;
		case 'j': o.threads = (unsigned)atoi(optarg); break;
		case 'l': label = optarg; break;
		default:
			fprintf(stderr, "usage: scanbench [-k CANDIDATES] [-j THREADS] [-l LABEL] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "scanbench: need DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cache", argv[optind]);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	rss0 = rss_kb();
	t0 = now_s();
	r = scan_run(fd, &o, NULL);
	t1 = now_s();
	if (r == NULL) {
		fprintf(stderr, "scanbench: scan failed\n");
		return 1;
	}
	rss1 = rss_kb();
	st = scan_stats(r);
	table = scan_table_bytes(r);
	getrusage(RUSAGE_SELF, &ru);
	printf("bench=scan%s%s objects=%llu seconds=%.3f rate=%.0f threads=%u threads_peak=%u "
	       "candidates=%zu "
	       "table_bytes=%zu bytes_per_candidate=%.1f rss_delta_kb=%ld "
	       "rss_bytes_per_candidate=%.1f maxrss_kb=%ld unknown=%llu errors=%llu\n",
	       label[0] ? " " : "", label,
	       (unsigned long long)st->objects, t1 - t0,
	       (double)st->objects / (t1 - t0 > 0 ? t1 - t0 : 1e-9), o.threads,
	       st->threads_peak, scan_ncand(r), table,
	       scan_ncand(r) ? (double)table / (double)scan_ncand(r) : 0.0,
	       rss1 - rss0,
	       scan_ncand(r) ? (double)(rss1 - rss0) * 1024.0 / (double)scan_ncand(r) : 0.0,
	       ru.ru_maxrss,
	       (unsigned long long)st->unknown, (unsigned long long)st->errors);
	if (walk) {
		struct victims *vs = victims_new(r, fd);
		struct victim v;
		unsigned long long n = 0;

		t0 = now_s();
		while (victims_next(vs, &v))
			n++;
		t1 = now_s();
		printf("bench=victims handed=%llu vanished=%llu moved=%llu seconds=%.3f rate=%.0f\n",
		       n, (unsigned long long)victims_stats(vs)->vanished,
		       (unsigned long long)victims_stats(vs)->moved, t1 - t0,
		       (double)n / (t1 - t0 > 0 ? t1 - t0 : 1e-9));
		victims_free(vs);
	}
	scan_free(r);
	close(fd);
	return 0;
}
