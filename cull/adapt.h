/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * adapt.h: how many of a scan's workers should be reading directories.
 *
 * Parallel stat() calls pay off only while the workers wait on the disk:
 * on a cold spinning disk or a network block device four of them read a
 * cache several times faster than one.  When the metadata comes from
 * memory or a fast SSD, the calls are CPU work, and workers beyond the
 * CPUs they can run on only queue for them (a fourth more kernel time on
 * one vCPU, measured: bench/VM-RESULTS.md).  So a scan starts with as many
 * workers as it has CPUs (never more than scan_threads) and, from what the
 * kernel says each worker did (/proc/thread-self/schedstat: time on a CPU,
 * time waiting for one; the rest of the wall time, less the time the scan
 * was told to yield, it was blocked, on the disk), adds one while the
 * workers are blocked at least as long as they compute, and parks one
 * while they wait for a CPU at least as long as they compute.  Decided
 * over windows of ADAPT_WINDOW_NS of the workers' time; pure arithmetic
 * here, the measuring is scan.c's.
 */
#ifndef CFD_ADAPT_H
#define CFD_ADAPT_H

#include <stdint.h>

#define ADAPT_WINDOW_NS (200ull * 1000 * 1000)

enum adapt_mode {
	ADAPT_FIXED,		/* every worker, always (no numbers to go by) */
	ADAPT_MEASURING,	/* active follows the windows */
};

struct adapt {
	enum adapt_mode mode;
	unsigned active, max;
	uint64_t exec, wait, block;	/* this window, summed over workers (ns) */
};

/* max workers, cpus usable (0: unknown); measured: whether numbers will come. */
void adapt_init(struct adapt *a, unsigned max, unsigned cpus, int measured);
/*
 * One worker's chunk of directories: ns on a CPU, waiting for one, blocked.  Returns
 * 1 when a->active grew (parked workers may go on), 0 otherwise.
 */
int adapt_sample(struct adapt *a, uint64_t exec, uint64_t wait, uint64_t block);

#endif
