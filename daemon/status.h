/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h: one snapshot of the daemon's state, filled in one place
 * (daemon.c) and formatted here for STATUS= and the control socket, and in
 * metrics.c for the metrics file.  Whoever shows the state reads this struct;
 * nobody re-derives it.
 */
#ifndef CFD_STATUS_H
#define CFD_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "cull/target.h"
#include "daemon/engine.h"

struct status {
	uint64_t uptime_ms;
	uint64_t start_s;		/* when the daemon started, wall clock, s since the epoch */
	const char *dir, *tag;		/* tag "" is the kernel's default */
	int culling_enabled;		/* 0: nocull or -N */
	int kernel_cull;		/* the kernel's flag at the last read */
	unsigned limit_pct[LIM_COUNT];	/* as configured, in percent */
	struct fsfree fs;		/* the cache filesystem now */
	struct engine_snap eng;		/* valid when culling_enabled */
	int ending;			/* the daemon's last snapshot: it is stopping or dead */
};

/* The one-line summary systemd shows as StatusText=. */
void status_format_line(const struct status *s, char *buf, size_t len);
/* The engine's state in words ("stopped" while culling is disabled). */
const char *status_state(const struct status *s);
/*
 * The control socket's status reply: one flat JSON object, no newline
 * (docs/control-protocol.md).  Returns its length, 0 when it did not fit.
 */
size_t status_format_json(const struct status *s, char *buf, size_t size);

#endif
