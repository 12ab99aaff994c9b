// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state.c: the kept-state codec and its file (the format is in state.h).
 */
#include "cull/state.h"
#include "cull/heap.h"
#include "cull/names.h"
#include "cull/scan.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(struct state_hdr) == 88, "no padding in the header");
_Static_assert(sizeof(struct cand) == 20, "20-byte candidates");

uint64_t
state_fnv64(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t
file_sum(const unsigned char *buf, size_t len)
{
	static const uint64_t zero;
	size_t at = offsetof(struct state_hdr, sum);
	uint64_t h = state_fnv64(buf, at, STATE_FNV_INIT);

	h = state_fnv64(&zero, sizeof(zero), h);
	return state_fnv64(buf + at + sizeof(zero), len - at - sizeof(zero), h);
}

int
state_encode(struct scan_result *r, const struct state_key *k, uint64_t now_s,
	     int full, void **out, size_t *outlen)
{
	return state_encode_list(r, scan_cands(r), scan_ncand(r), k, now_s, full, out, outlen);
}

uint64_t
state_dir_bytes(const struct scan_result *r)
{
	uint64_t n = 0;
	size_t i;

	/* a record of two uint32_t and the name with its NUL, as encoded */
	for (i = 0; i < scan_ndirs(r); i++)
		n += 8 + strlen(scan_dir_name(r, (uint32_t)i)) + 1;
	return n;
}

uint64_t
state_bytes_bound(uint64_t dir_bytes, uint64_t ncand)
{
	if (ncand > STATE_MAX_CAND)
		ncand = STATE_MAX_CAND;
	return sizeof(struct state_hdr) + dir_bytes + ncand * sizeof(struct cand);
}

int
state_encode_list(struct scan_result *r, const struct cand *c, size_t nlist,
		  const struct state_key *k, uint64_t now_s, int full, void **out,
		  size_t *outlen)
{
	size_t n = nlist, nd = scan_ndirs(r), i, len;
	uint32_t *map, ndirs = 0, names = 0;
	struct state_hdr h;
	unsigned char *buf, *p;

	if (n > STATE_MAX_CAND)
		n = STATE_MAX_CAND;
	if (n == 0 || nd == 0 || nd > STATE_MAX_DIRS)
		return -1;
	/* Mark the directories the candidates need, and their parents. */
	map = xreallocarray(NULL, nd, sizeof(*map));
	memset(map, 0, nd * sizeof(*map));
	map[0] = 1;
	for (i = 0; i < n; i++) {
		uint32_t d = c[i].dir;

		while (d != UINT32_MAX && d < nd && !map[d]) {
			map[d] = 1;
			d = scan_dir_parent(r, d);
		}
	}
	/* Parents come before their children: number them in order. */
	for (i = 0; i < nd; i++)
		if (map[i]) {
			map[i] = ++ndirs;	/* index + 1 */
			names += (uint32_t)strlen(scan_dir_name(r, (uint32_t)i)) + 1;
		}
	if (names > STATE_MAX_NAMES) {
		free(map);
		return -1;
	}
	len = sizeof(h) + (size_t)ndirs * 8 + names + n * sizeof(struct cand);
	buf = xmalloc(len);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, STATE_MAGIC, sizeof(h.magic));
	h.version = STATE_VERSION;
	h.bom = STATE_BOM;
	h.dev = k->dev;
	h.ino = k->ino;
	h.tag = k->tag;
	h.written_s = now_s;
	h.complete_ns = !full && n == nlist ? UINT64_MAX : cand_atime(&c[n - 1]);
	h.objects = scan_stats(r)->objects;
	h.unseen = scan_unseen(scan_stats(r)) < UINT32_MAX ? (uint32_t)scan_unseen(scan_stats(r)) :
	    UINT32_MAX;
	h.ndirs = ndirs;
	h.ncand = (uint32_t)n;
	h.names_len = names;
	p = buf + sizeof(h);
	names = 0;
	for (i = 0; i < nd; i++) {
		const char *name;
		uint32_t rec[2], parent;
		size_t l;

		if (!map[i])
			continue;
		parent = scan_dir_parent(r, (uint32_t)i);
		rec[0] = parent == UINT32_MAX ? UINT32_MAX : map[parent] - 1;
		rec[1] = names;
		memcpy(p, rec, sizeof(rec));
		p += sizeof(rec);
		name = scan_dir_name(r, (uint32_t)i);
		l = strlen(name) + 1;
		memcpy(buf + sizeof(h) + (size_t)ndirs * 8 + names, name, l);
		names += (uint32_t)l;
	}
	p = buf + sizeof(h) + (size_t)ndirs * 8 + names;
	for (i = 0; i < n; i++) {
		struct cand x = c[i];

		x.dir = map[x.dir] - 1;
		memcpy(p + i * sizeof(x), &x, sizeof(x));
	}
	free(map);
	memcpy(buf, &h, sizeof(h));
	h.sum = file_sum(buf, len);
	memcpy(buf, &h, sizeof(h));
	*out = buf;
	*outlen = len;
	return 0;
}

enum state_refusal
state_decode(const void *data, size_t len, const struct state_key *k, uint64_t now_s,
	     int rootfd, struct scan_result **out, struct state_info *info, const char **why)
{
	const unsigned char *buf = data;
	const unsigned char *dirs, *names, *cands;
	struct scan_result *r;
	struct state_hdr h;
	struct cand *v;
	size_t i, need;

	*out = NULL;
	*why = "damaged: shorter than its header";
	if (len < sizeof(h))
		return STATE_DAMAGED;
	memcpy(&h, buf, sizeof(h));
	*why = "damaged: not a state file (magic)";
	if (memcmp(h.magic, STATE_MAGIC, sizeof(h.magic)) != 0)
		return STATE_DAMAGED;
	*why = "damaged: another byte order";
	if (h.bom != STATE_BOM)
		return STATE_DAMAGED;
	*why = "damaged: unknown version";
	if (h.version != STATE_VERSION)
		return STATE_DAMAGED;
	*why = "damaged: counts out of range";
	if (h.ndirs == 0 || h.ndirs > STATE_MAX_DIRS || h.ncand == 0 ||
	    h.ncand > STATE_MAX_CAND || h.names_len == 0 || h.names_len > STATE_MAX_NAMES)
		return STATE_DAMAGED;
	need = sizeof(h) + (size_t)h.ndirs * 8 + h.names_len + (size_t)h.ncand * sizeof(struct cand);
	*why = "damaged: truncated or too long";
	if (len != need)
		return STATE_DAMAGED;
	*why = "damaged: checksum";
	if (file_sum(buf, len) != h.sum)
		return STATE_DAMAGED;
	*why = "from another cache";
	if (h.dev != k->dev || h.ino != k->ino || h.tag != k->tag)
		return STATE_FOREIGN;
	/*
	 * Every object is checked again before its cull: the age only bounds
	 * how much checking a file may cost.  A clock set back a little (a
	 * boot before the time is synchronised) keeps the file.
	 */
	*why = "written in the future: the clock was set back";
	if (h.written_s > now_s && h.written_s - now_s > STATE_MAX_AHEAD_S)
		return STATE_STALE;
	*why = "stale";
	if (now_s > h.written_s && now_s - h.written_s > STATE_MAX_AGE_S)
		return STATE_STALE;

	dirs = buf + sizeof(h);
	names = dirs + (size_t)h.ndirs * 8;
	cands = names + h.names_len;
	*why = "damaged: names not terminated";
	if (names[h.names_len - 1] != '\0')
		return STATE_DAMAGED;
	if ((r = scan_kept_new(rootfd)) == NULL) {
		*why = "the cache directory cannot be examined";
		return STATE_DAMAGED;
	}
	*why = "damaged: directory table";
	for (i = 0; i < h.ndirs; i++) {
		uint32_t rec[2];
		const char *name;
		size_t l;

		memcpy(rec, dirs + i * 8, sizeof(rec));
		if (rec[1] >= h.names_len)
			goto bad;
		name = (const char *)names + rec[1];
		l = strlen(name);	/* terminated: the last byte is NUL */
		if (i == 0) {
			if (rec[0] != UINT32_MAX || l != 0)
				goto bad;
		} else if (rec[0] >= i || l == 0 || l > NAME_MAX ||
			   names_kind(name) != NAME_DIR || memchr(name, '/', l) != NULL ||
			   scan_dir_depth(r, rec[0]) + 1 > NAMES_MAX_DEPTH) {
			goto bad;
		}
		scan_kept_dir(r, rec[0], name);
	}
	*why = "damaged: candidates";
	v = xreallocarray(NULL, h.ncand, sizeof(*v));
	memcpy(v, cands, (size_t)h.ncand * sizeof(*v));
	scan_kept_cands(r, v, h.ncand);
	scan_kept_unseen(r, h.unseen);
	for (i = 0; i < h.ncand; i++)
		if (v[i].dir >= h.ndirs || !scan_dir_data(r, v[i].dir) || cand_atime(&v[i]) == 0 ||
		    (i > 0 && cand_cmp(&v[i - 1], &v[i]) > 0))
			goto bad;
	if (info != NULL) {
		info->written_s = h.written_s;
		info->complete_ns = h.complete_ns;
		info->objects = h.objects;
		info->unseen = h.unseen;
		info->ncand = h.ncand;
	}
	*why = NULL;
	*out = r;
	return STATE_OK;
bad:
	scan_free(r);
	return STATE_DAMAGED;
}

static int
write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
state_save(int dirfd, const void *buf, size_t len)
{
	int fd, saved;

	/* One daemon per cache (the kernel binds one): a leftover is ours to replace. */
	if (unlinkat(dirfd, STATE_TMP, 0) < 0 && errno != ENOENT)
		return -1;
	fd = openat(dirfd, STATE_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlinkat(dirfd, STATE_TMP, 0);
		errno = saved;
		return -1;
	}
	if (close(fd) < 0 || renameat(dirfd, STATE_TMP, dirfd, STATE_FILE) < 0) {
		saved = errno;
		unlinkat(dirfd, STATE_TMP, 0);
		errno = saved;
		return -1;
	}
	(void)fsync(dirfd);	/* best effort: the rename reaches the disk */
	return 0;
}

void
state_cut(struct scan_result *r, struct state_info *info, size_t max)
{
	if (max == 0 || info->ncand <= max)
		return;
	scan_kept_truncate(r, max);
	info->ncand = max;
	info->complete_ns = cand_atime(&scan_cands(r)[max - 1]);
}

int
state_load(int dirfd, void **out, size_t *outlen, const char **why)
{
	size_t max = sizeof(struct state_hdr) + (size_t)STATE_MAX_DIRS * 8 + STATE_MAX_NAMES +
	    (size_t)STATE_MAX_CAND * sizeof(struct cand);
	unsigned char *buf;
	struct stat sb;
	size_t got = 0;
	int fd = openat(dirfd, STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	*why = NULL;
	if (fd < 0) {
		if (errno == ELOOP)
			*why = "a symbolic link, not followed";
		else if (errno == ENXIO)
			*why = "not a regular file";	/* a socket */
		return -1;
	}
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode))
		*why = "not a regular file";
	else if (sb.st_size < 0 || (uint64_t)sb.st_size > max)
		*why = "larger than a state file can be";
	if (*why != NULL) {
		close(fd);
		return -1;
	}
	buf = xmalloc((size_t)sb.st_size + 1);
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*out = buf;
	*outlen = got;	/* a short read shows as truncated */
	return 0;
}
