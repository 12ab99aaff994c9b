// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c: formatting the status snapshot.  The STATUS= line keeps the
 * words administrators and tests already read: the tag and directory, free
 * blocks and files against the limits, whether the kernel asks, then what
 * the engine does.
 */
#include "daemon/status.h"
#include "lib/json.h"

#include <stdio.h>

/* Percent of whole that part is (0 when whole is 0). */
static double
status_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void
engine_words(const struct status *s, char *buf, size_t len)
{
	const struct engine_snap *e = &s->eng;

	if (!s->culling_enabled) {
		snprintf(buf, len, "culling disabled (nocull or -N)");
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
	char files[16] = "-";

	/* A filesystem without inode counts (btrfs) has no free share to show. */
	if (s->fs.files)
		snprintf(files, sizeof(files), "%.1f%%", status_pct(s->fs.ffree, s->fs.files));
	snprintf(buf, len, "bound tag %s on %s; free blocks %.1f%% (cull below %u%%, run %u%%), "
		 "free files %s (cull below %u%%, run %u%%); %s; %s",
		 s->tag[0] ? s->tag : "CacheFiles", s->dir,
		 status_pct(s->fs.bavail, s->fs.blocks), s->limit_pct[LIM_BCULL],
		 s->limit_pct[LIM_BRUN], files, s->limit_pct[LIM_FCULL],
		 s->limit_pct[LIM_FRUN],
		 s->kernel_cull ? "culling" : "within limits", eng);
}

const char *
status_state(const struct status *s)
{
	return s->culling_enabled ? efsm_state_name(s->eng.state) : "stopped";
}

static uint64_t
ns_to_s(uint64_t ns)
{
	return ns / 1000000000u;
}

size_t
status_format_json(const struct status *s, char *buf, size_t size)
{
	static const char *const lim[LIM_COUNT] = {
		"brun_pct", "bcull_pct", "bstop_pct", "frun_pct", "fcull_pct", "fstop_pct",
	};
	const struct engine_snap *e = &s->eng;
	FILE *f;
	struct jw w;
	int i;

	if ((f = jw_mem_open(buf, size)) == NULL)
		return 0;
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_bool(&w, "ok", 1);
	jw_str(&w, "version", VERSION);
	jw_u64(&w, "uptime_s", s->uptime_ms / 1000);
	jw_str(&w, "dir", s->dir);
	jw_str(&w, "tag", s->tag);
	jw_bool(&w, "culling_enabled", s->culling_enabled);
	jw_bool(&w, "kernel_cull", s->kernel_cull);
	jw_str(&w, "state", status_state(s));
	jw_u64(&w, "goals", e->goals);
	jw_double(&w, "free_blocks_pct", status_pct(s->fs.bavail, s->fs.blocks), 1);
	if (s->fs.files)
		jw_double(&w, "free_files_pct", status_pct(s->fs.ffree, s->fs.files), 1);
	else
		jw_null(&w, "free_files_pct");	/* no inode counts (btrfs): not 0 % */
	for (i = 0; i < LIM_COUNT; i++)
		jw_u64(&w, lim[i], s->limit_pct[i]);
	jw_u64(&w, "blocks", s->fs.blocks);
	jw_u64(&w, "blocks_free", s->fs.bavail);
	jw_u64(&w, "files", s->fs.files);
	jw_u64(&w, "files_free", s->fs.ffree);
	jw_u64(&w, "block_size", s->fs.bsize);
	jw_bool(&w, "scanning", e->scanning);
	jw_u64(&w, "scan_objects", e->scan_objects);
	jw_u64(&w, "scans", e->scans);
	jw_u64(&w, "last_scan_objects", e->last_objects);
	jw_u64(&w, "last_scan_bytes", e->last_bytes);
	jw_u64(&w, "last_scan_ms", e->last_ms);
	jw_u64(&w, "oldest_atime", ns_to_s(e->last_oldest_ns));
	jw_u64(&w, "newest_atime", ns_to_s(e->last_newest_ns));
	jw_u64(&w, "candidates_left", e->left);
	jw_u64(&w, "busy_kept", e->kept);
	jw_u64(&w, "culled", e->culled);
	jw_u64(&w, "culled_bytes", e->culled_bytes);
	jw_u64(&w, "busy", e->busy);
	jw_u64(&w, "vanished", e->vanished);
	jw_u64(&w, "moved", e->moved);
	jw_u64(&w, "backoff_s", e->backoff_ms / 1000);
	jw_u64(&w, "age_limit_s", e->age_limit_s);
	jw_obj_end(&w);
	return jw_mem_close(f, buf, size);
}
