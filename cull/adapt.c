// SPDX-License-Identifier: GPL-2.0-or-later
/* adapt.c: the scan's worker count, from where the workers' time went (adapt.h). */
#include "cull/adapt.h"

void
adapt_init(struct adapt *a, unsigned max, unsigned cpus, int measured)
{
	a->max = max ? max : 1;
	a->exec = a->wait = a->block = 0;
	if (!measured || cpus == 0) {
		a->mode = ADAPT_FIXED;
		a->active = a->max;
		return;
	}
	a->mode = ADAPT_MEASURING;
	a->active = cpus < a->max ? cpus : a->max;
}

int
adapt_sample(struct adapt *a, uint64_t exec, uint64_t wait, uint64_t block)
{
	unsigned was = a->active;

	if (a->mode == ADAPT_FIXED)
		return 0;
	a->exec += exec;
	a->wait += wait;
	a->block += block;
	if (a->exec + a->wait + a->block < ADAPT_WINDOW_NS)
		return 0;
	if (a->exec == 0) {
		/* The kernel reports no CPU time: nothing to go by, as before adapt.c. */
		a->mode = ADAPT_FIXED;
		a->active = a->max;
	} else if (a->block >= a->exec && a->active < a->max) {
		a->active++;	/* the disk's latency dominates: another request in flight helps */
	} else if (a->wait >= a->exec && a->block < a->exec && a->active > 1) {
		a->active--;	/* queueing for CPUs: a worker fewer costs no speed */
	}
	a->exec = a->wait = a->block = 0;
	return a->active > was;
}
