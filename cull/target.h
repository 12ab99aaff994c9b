/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * target.h: how much must be culled, and how many candidates to keep.
 *
 * A target is what culling works towards, in the backing filesystem's own
 * counts: free blocks (f_bsize units) and free files.  The kernel's run
 * limits are one (f_bavail >= brun and f_ffree >= frun, as the kernel's own
 * check says); a goal asked from outside is another.  This file knows
 * nothing of the kernel: the engine turns its limits into a target.
 */
#ifndef CFD_TARGET_H
#define CFD_TARGET_H

#include <stddef.h>
#include <stdint.h>

#define TARGET_FLOOR 4096		/* candidates kept at least */
#define TARGET_DEFAULT_MEMORY (256ull << 20)	/* when cull_memory is 0 */

/* The filesystem counts that matter, from statvfs. */
struct fsfree {
	uint64_t blocks, bavail;	/* in f_bsize units, as the kernel */
	uint64_t files, ffree;
	uint64_t bsize;
};

struct target {
	uint64_t bavail;		/* free blocks wanted (f_bavail) */
	uint64_t ffree;			/* free files wanted (f_ffree) */
};

struct deficit {
	uint64_t blocks, files;		/* still to free to reach the target */
};

int target_fsfree(int fd, struct fsfree *f);
void target_deficit(const struct target *t, const struct fsfree *f, struct deficit *d);
/* Both counts reached? */
int target_met(const struct target *t, const struct fsfree *f);

/*
 * Candidates to keep for one scan.  mean_bytes is the mean allocated size
 * of an object (0 = unknown: estimated from the filesystem's usage).  The
 * result covers the larger of the two deficits in objects, plus a quarter,
 * plus 1 % of the objects, at least TARGET_FLOOR, at most what
 * memory_bytes can hold.
 */
size_t target_candidates(const struct target *t, const struct fsfree *f,
			 uint64_t mean_bytes, uint64_t objects,
			 uint64_t memory_bytes);

/*
 * Culling before a scan ends.  The scan has seen `seen` objects, a uniform
 * sample of the cache's (it reads the data directories in a random order);
 * d is what the kernel still wants freed, counting what was culled since
 * the scan started, and f the filesystem then.  The fraction of the cache's
 * objects that must go is at least q = max(d->files / files, d->blocks /
 * blocks), where files and blocks bound the cache's from above: the
 * filesystem's used counts, or the directory sample's bounds (below) when
 * those are smaller (the blocks fraction takes an object's size to be
 * independent of its age).  By the Dvoretzky-Kiefer-Wolfowitz inequality the sample's
 * distribution of atimes is within eps = sqrt(ln(2 / alpha) / 2n) of the
 * cache's everywhere, with probability 1 - alpha; so the sample's objects
 * of rank below (q - eps) n are older than the cache's q-quantile, and all
 * of them must go under exact LRU.  Returns that rank (cull the sample's
 * objects older than the one of that rank), 0 when the sample is too small
 * to say anything sure.  alpha = 1 %.
 */
#define TARGET_EARLY_MIN_SAMPLE 256
#define TARGET_EARLY_LN_2_ALPHA 5.298317366548036	/* ln(2 / 0.01) */

/*
 * The directories a scan has read to the end, out of those it knows at
 * that depth (scan.h: a uniform sample of the data directories).  The used
 * counts of the filesystem are a loose bound of the cache's size when the
 * filesystem holds other things: a bound from the sample is tighter, and a
 * tighter denominator certifies more of the sample.  For objects and for
 * allocated bytes, the bound is known * (mean + z s / sqrt(dirs) *
 * sqrt(1 - dirs / known)), s the per-directory standard deviation (a
 * normal bound with the finite population correction, z = 4: wrong with
 * probability about 3e-5), used only from TARGET_SAMPLE_MIN_DIRS on.
 */
#define TARGET_SAMPLE_MIN_DIRS 64
#define TARGET_SAMPLE_Z 4.0
struct dir_sample {
	uint64_t dirs, known;		/* read to the end; in all at that depth */
	double n, n2;			/* their data objects: sum, sum of squares */
	double b, b2;			/* their allocated bytes: sum, sum of squares */
};
/* s: NULL or an empty sample when there is none; the used counts then. */
uint64_t target_early_rank(const struct deficit *d, const struct fsfree *f, uint64_t seen,
			   const struct dir_sample *s);
/*
 * The rank below which a sample's objects are worth naming while the scan
 * goes on (namememo.h): those exact LRU will likely cull, with room for
 * error, 2 q n + eps n + TARGET_EARLY_NAMES_EXTRA.  q only bounds the
 * fraction from below (the cache's size is bounded from above); a rank
 * too low costs directory reads later, one too high memory, which the
 * memo bounds.  0 when the sample is too small or nothing must go;
 * never more than seen.
 */
#define TARGET_EARLY_NAMES_EXTRA 64
uint64_t target_early_names(const struct deficit *d, const struct fsfree *f, uint64_t seen,
			    const struct dir_sample *s);
/* The bound above for one of the sample's sums; 0 when it says nothing. */
double target_sample_max(const struct dir_sample *s, double sum, double sum2);

#endif
