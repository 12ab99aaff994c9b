// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c: formatting the status snapshot.  The STATUS= line keeps the
 * words administrators and tests already read: the tag and directory, free
 * blocks and files against the limits, whether the kernel asks, then what
 * the engine does.
 */
#include "daemon/status.h"

#include <stdio.h>

double
status_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void
engine_words(const struct status *s, char *buf, size_t len)
{
	const struct engine_snap *e = &s->eng;

	if (!s->culling_enabled) {
		snprintf(buf, len, "culling disabled (nocull)");
	} else if (e->scanning) {
		snprintf(buf, len, "scanning: %llu objects (%llu/s); culled %llu, busy %llu",
			 (unsigned long long)e->scan_objects,
			 (unsigned long long)(e->scan_ms ? e->scan_objects * 1000 / e->scan_ms : 0),
			 (unsigned long long)e->culled, (unsigned long long)e->busy);
	} else if (e->scans == 0) {
		snprintf(buf, len, "no scan yet");
	} else {
		snprintf(buf, len, "%llu objects, %llu candidates left; culled %llu, busy %llu%s",
			 (unsigned long long)e->last_objects, (unsigned long long)e->left,
			 (unsigned long long)e->culled, (unsigned long long)e->busy,
			 e->backoff_ms ? "; backing off" : "");
	}
}

void
status_format_line(const struct status *s, char *buf, size_t len)
{
	char eng[256];

	engine_words(s, eng, sizeof(eng));
	snprintf(buf, len, "bound tag %s on %s; free blocks %.1f%% (cull below %u%%, run %u%%), "
		 "free files %.1f%% (cull below %u%%, run %u%%); %s; %s",
		 s->tag[0] ? s->tag : "CacheFiles", s->dir,
		 status_pct(s->fs.bavail, s->fs.blocks), s->limit_pct[LIM_BCULL],
		 s->limit_pct[LIM_BRUN],
		 status_pct(s->fs.ffree, s->fs.files), s->limit_pct[LIM_FCULL],
		 s->limit_pct[LIM_FRUN],
		 s->kernel_cull ? "culling" : "within limits", eng);
}
