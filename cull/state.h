/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state.h: kept state, what the last scan learned, so that a restart culls
 * at once instead of after a full scan.
 *
 * The file holds the oldest candidates of the last scan (atime, inode and
 * the directory, by the chain of names from DIR/cache) and the atime below
 * which that list is complete, behind a header with a magic, a version, a
 * byte-order mark, the cache it describes (filesystem and inode of DIR/cache,
 * a hash of the tag) and an FNV-1a 64 checksum of the whole file.  It is
 * read back into a scan result the culler uses as any other table: each
 * object is re-stat'ed by name and culled only if it is the same inode with
 * the same atime (victims.h), so what was touched after the file was
 * written is never culled on its word.  Every field is checked before use;
 * a damaged, truncated, stale or foreign file is refused with the reason.
 *
 * Layout, in the writer's byte order (refused when it is not ours):
 * struct state_hdr; ndirs x { u32 parent, u32 name offset }; names_len
 * bytes of NUL-terminated names; ncand x struct cand (heap.h).
 */
#ifndef CFD_STATE_H
#define CFD_STATE_H

#include <stddef.h>
#include <stdint.h>

struct cand;
struct scan_result;

#define STATE_MAGIC "CFDSTATE"
#define STATE_VERSION 1
#define STATE_BOM 0x01020304u
#define STATE_FILE "cachefilesd.state"		/* in DIR, next to cache/ */
#define STATE_TMP "cachefilesd.state.tmp"
#define STATE_MAX_CAND (1u << 20)		/* 20 MiB of candidates */
#define STATE_MAX_DIRS (1u << 22)
#define STATE_MAX_NAMES (1u << 26)
#define STATE_MAX_AGE_S (7 * 86400)		/* older: stale */
#define STATE_MAX_AHEAD_S 86400		/* a clock set back by more: refused */

struct state_hdr {
	char magic[8];
	uint32_t version, bom;
	uint64_t dev, ino, tag;		/* the cache: fsid (else st_dev), its inode, tag */
	uint64_t written_s;		/* wall clock */
	uint64_t complete_ns;		/* every object older is listed; UINT64_MAX: all */
	uint64_t objects;		/* the scan's object count */
	uint32_t ndirs, ncand, names_len;
	/*
	 * What the scan could not look at (scan_unseen), saturated.  Once a
	 * reserved word that had to be 0: a build from before refuses a file
	 * where it is not (one full scan after a downgrade).
	 */
	uint32_t unseen;
	uint64_t sum;			/* FNV-1a 64 of the file with this field 0 */
};

struct state_key {
	uint64_t dev, ino, tag;
};

struct state_info {
	uint64_t written_s, complete_ns, objects, unseen;
	size_t ncand;
};

uint64_t state_fnv64(const void *p, size_t n, uint64_t h);
#define STATE_FNV_INIT 0xcbf29ce484222325ull

/*
 * Encode r's first (oldest) candidates, at most STATE_MAX_CAND, with the
 * directories they need.  r's candidates must be sorted oldest first (a
 * finished scan, before victims_new reorders them).  full: r's table was
 * filled (older objects may be missing beyond its youngest).  Returns 0
 * and a malloc'ed buffer, or -1 (nothing worth keeping, or too large).
 */
int state_encode(struct scan_result *r, const struct state_key *k, uint64_t now_s,
		 int full, void **buf, size_t *len);
/*
 * What a file of ncand candidates and every directory of r takes at most
 * (ncand capped as the encoder caps it): reserved before it is encoded.
 * state_dir_bytes is r's directories' part, computed once a table.
 */
uint64_t state_dir_bytes(const struct scan_result *r);
uint64_t state_bytes_bound(uint64_t dir_bytes, uint64_t ncand);
/*
 * The same for the list c[0..n), oldest first, of r's candidates (what is
 * left of r's table while it is culled from: victims_copy_left), with r's
 * directories and counts.
 */
int state_encode_list(struct scan_result *r, const struct cand *c, size_t n,
		      const struct state_key *k, uint64_t now_s, int full, void **buf,
		      size_t *len);

enum state_refusal {
	STATE_OK,
	STATE_DAMAGED,		/* size, magic, version, byte order, checksum or content */
	STATE_STALE,		/* more than STATE_MAX_AGE_S ago, or STATE_MAX_AHEAD_S ahead */
	STATE_FOREIGN,		/* another cache, or the same path recreated */
};

/*
 * Decode len bytes into a result for rootfd (see scan_kept_new; -1 in
 * tests).  Returns STATE_OK and *out, or a refusal with *why a short
 * reason (static text).
 */
enum state_refusal state_decode(const void *buf, size_t len, const struct state_key *k,
				uint64_t now_s, int rootfd, struct scan_result **out,
				struct state_info *info, const char **why);

/* Write buf to dirfd/STATE_FILE through STATE_TMP, fsync and rename: 0 or -1 (errno). */
int state_save(int dirfd, const void *buf, size_t len);
/*
 * Read dirfd/STATE_FILE (a regular file, not followed): 0 and a malloc'ed
 * buffer, or -1 with *why the reason, or NULL and errno (ENOENT: none).
 */
int state_load(int dirfd, void **buf, size_t *len, const char **why);
/*
 * Keep only the max oldest candidates of a result state_decode() made (a
 * file written under a larger cull_memory); info follows: the list is then
 * complete only below its youngest.
 */
void state_cut(struct scan_result *r, struct state_info *info, size_t max);

#endif
