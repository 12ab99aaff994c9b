// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * target.c: deficit arithmetic.  Sizing the candidate table from what must
 * be freed is what lets nobody tune "culltable": a table too small costs a
 * rescan, one too large costs memory only.
 */
#include "cull/target.h"
#include "cull/heap.h"
#include "lib/util.h"

#include <sys/statvfs.h>

int
target_fsfree(int fd, struct fsfree *f)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return -1;
	f->blocks = sv.f_blocks;
	f->bavail = sv.f_bavail;
	f->files = sv.f_files;
	f->ffree = sv.f_ffree;
	f->bsize = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	return 0;
}

void
target_deficit(const struct target *t, const struct fsfree *f, struct deficit *d)
{
	d->blocks = t->bavail > f->bavail ? t->bavail - f->bavail : 0;
	d->files = t->ffree > f->ffree ? t->ffree - f->ffree : 0;
}

int
target_met(const struct target *t, const struct fsfree *f)
{
	struct deficit d;

	target_deficit(t, f, &d);
	return d.blocks == 0 && d.files == 0;
}

size_t
target_candidates(const struct target *t, const struct fsfree *f,
		  uint64_t mean_bytes, uint64_t objects, uint64_t memory_bytes)
{
	struct deficit d;
	uint64_t need, by_blocks = 0, cap, k;

	/* Before the first scan: a cache filesystem holds little else. */
	uint64_t ub = f->blocks > f->bavail ? f->blocks - f->bavail : 0;
	uint64_t uf = f->files > f->ffree ? f->files - f->ffree : 0;

	if (mean_bytes == 0 && uf > 0)
		mean_bytes = (uint64_t)((unsigned __int128)ub * f->bsize / uf);
	if (objects == 0)
		objects = uf;
	if (mean_bytes == 0)
		mean_bytes = f->bsize ? f->bsize : 4096;
	target_deficit(t, f, &d);
	if (d.blocks > 0 && f->bsize > 0) {
		uint64_t bytes = d.blocks > UINT64_MAX / f->bsize ? UINT64_MAX :
		    d.blocks * f->bsize;
		by_blocks = bytes / mean_bytes + 1;
	}
	need = d.files > by_blocks ? d.files : by_blocks;
	k = u64_sat_add(u64_sat_add(need, need / 4), objects / 100);
	if (k < TARGET_FLOOR)
		k = TARGET_FLOOR;
	if (memory_bytes == 0)
		memory_bytes = TARGET_DEFAULT_MEMORY;
	cap = memory_bytes / sizeof(struct cand);
	if (cap < 1)
		cap = 1;
	if (k > cap)
		k = cap;
	if (k > SIZE_MAX / sizeof(struct cand))
		k = SIZE_MAX / sizeof(struct cand);
	return (size_t)k;
}

/* sqrt by Newton's method: target.c links without libm. */
static double
root(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	if (x <= 0)
		return 0;
	for (i = 0; i < 64; i++)
		r = (r + x / r) / 2;
	return r;
}

double
target_sample_max(const struct dir_sample *s, double sum, double sum2)
{
	double m, mean, var, fpc;

	if (s == NULL || s->dirs < TARGET_SAMPLE_MIN_DIRS || s->known < s->dirs)
		return 0;
	m = (double)s->dirs;
	mean = sum / m;
	var = (sum2 - sum * mean) / (m - 1);
	if (var < 0)
		var = 0;
	fpc = 1 - m / (double)s->known;
	return (double)s->known * (mean + TARGET_SAMPLE_Z * root(var / m * fpc));
}

/* The smaller of two upper bounds of one count; 0 (unknown) is no bound. */
static double
tighter(double used, double sampled)
{
	return sampled > 0 && sampled < used ? sampled : used;
}

/* q of target_early_rank: the least fraction of the cache's objects that must go. */
static double
early_fraction(const struct deficit *d, const struct fsfree *f, const struct dir_sample *s)
{
	double q = 0, used;

	used = f->files > f->ffree ? (double)(f->files - f->ffree) : 0;
	if (s != NULL)
		used = tighter(used, target_sample_max(s, s->n, s->n2));
	if (used > 0 && d->files > 0)
		q = (double)d->files / used;
	used = f->blocks > f->bavail ? (double)(f->blocks - f->bavail) : 0;
	if (s != NULL && f->bsize > 0)
		used = tighter(used, target_sample_max(s, s->b, s->b2) / (double)f->bsize);
	if (used > 0 && d->blocks > 0 && (double)d->blocks / used > q)
		q = (double)d->blocks / used;
	return q > 1 ? 1 : q;
}

uint64_t
target_early_rank(const struct deficit *d, const struct fsfree *f, uint64_t seen,
		  const struct dir_sample *s)
{
	double cut;

	if (seen < TARGET_EARLY_MIN_SAMPLE)
		return 0;
	/* rank < (q - eps) n, eps = sqrt(ln(2 / alpha) / 2n): eps n = sqrt(ln(2 / alpha) n / 2) */
	cut = early_fraction(d, f, s) * (double)seen -
	    root(TARGET_EARLY_LN_2_ALPHA / 2 * (double)seen);
	if (cut < 1)
		return 0;
	return cut >= (double)seen ? seen : (uint64_t)cut;
}

uint64_t
target_early_names(const struct deficit *d, const struct fsfree *f, uint64_t seen,
		   const struct dir_sample *s)
{
	double q, hi;

	if (seen < TARGET_EARLY_MIN_SAMPLE)
		return 0;
	q = early_fraction(d, f, s);
	if (q <= 0)
		return 0;
	hi = 2 * q * (double)seen + root(TARGET_EARLY_LN_2_ALPHA / 2 * (double)seen) +
	    TARGET_EARLY_NAMES_EXTRA;
	return hi >= (double)seen ? seen : (uint64_t)hi;
}
