// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link-sim.c: the test daemon, cachefilesd-sim, talks to the kernel
 * simulator's socket named by $CACHEFILESD_DEVICE.  Linked into that
 * program only, in place of daemon/link-device.c; see docs/kernel-seam.md.
 *
 * It also holds the scan gate: the test daemon is linked with
 * --wrap=scan_run, and when $CFSIM_SCAN_GATE names a path, every scan
 * waits until that path exists (or the scan is cancelled) before it
 * starts.  A test thus holds the first scan for as long as it likes and
 * checks what the daemon does meanwhile: bind, READY=1, no wait for a scan
 * (tests/integ/lifecycle-notify.sh).
 *
 * And the early gate: when $CFSIM_EARLY_GATE names a path, a scan that
 * publishes an early snapshot (scan.h) hands it to the engine and then
 * holds the worker that published it until that path exists (or the scan
 * is cancelled).  With scan_threads 1 the scan stands still after its first
 * snapshot: a test checks what the daemon culls before the scan ends
 * (tests/integ/cull-early.sh).  When that path holds a number N, the
 * snapshots after the Nth are held as well, until the number grows or the
 * file is emptied: a test steps the scan from one snapshot to the next
 * (tests/integ/cull-early-tables.sh).
 */
#include "cull/scan.h"
#include "daemon/daemon.h"
#include "tests/sim/simtransport.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

const struct ktransport *const daemon_transport = &ktransport_sim;

struct scan_result *__real_scan_run(int rootfd, const struct scan_opts *opt,
				    struct scan_progress *prog);
struct scan_result *__wrap_scan_run(int rootfd, const struct scan_opts *opt,
				    struct scan_progress *prog);

static void (*early_notify)(void *arg);
static const atomic_int *early_cancel;

static atomic_uint early_published;	/* snapshots of this process's scans */

/* May the scan go past its nth snapshot?  The gate file: absent no, empty yes, N: n <= N. */
static int
early_open(const char *gate, unsigned n)
{
	FILE *f = fopen(gate, "r");
	unsigned allowed;
	int open;

	if (f == NULL)
		return 0;
	open = fscanf(f, "%u", &allowed) != 1 || n <= allowed;
	fclose(f);
	return open;
}

static void
early_hold(void *arg)
{
	const char *gate = getenv("CFSIM_EARLY_GATE");
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	unsigned n = atomic_fetch_add(&early_published, 1) + 1;

	if (early_notify != NULL)
		early_notify(arg);
	while (gate != NULL && gate[0] != '\0' && !early_open(gate, n) &&
	       !(early_cancel != NULL && atomic_load(early_cancel)))
		nanosleep(&tick, NULL);
}

struct scan_result *
__wrap_scan_run(int rootfd, const struct scan_opts *opt, struct scan_progress *prog)
{
	const char *gate = getenv("CFSIM_SCAN_GATE");
	const struct timespec tick = { 0, 20 * 1000 * 1000 };

	/* No worker runs yet: the engine's notify is swapped for the holding one. */
	if (opt->early != NULL && opt->early->notify != early_hold) {
		early_notify = opt->early->notify;
		opt->early->notify = early_hold;
	}
	early_cancel = opt->cancel;

	while (gate != NULL && gate[0] != '\0' && access(gate, F_OK) != 0 &&
	       !(opt->cancel != NULL && atomic_load(opt->cancel)))
		nanosleep(&tick, NULL);
	return __real_scan_run(rootfd, opt, prog);
}
