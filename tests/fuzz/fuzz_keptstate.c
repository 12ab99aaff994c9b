// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_keptstate.c: the kept-state loader, state_decode() (cull/state.h).
 *
 * The input is decoded as it is, then again with its checksum made right
 * (so that the fuzzer reaches the body: FNV-1a 64 is not guessed), for the
 * key and clock the seeds were written with.  Whatever is accepted is
 * within bounds: every candidate's directory is in the table, holds data,
 * and opens by a path of names the scanner would enter; the candidates are
 * sorted oldest first.  Saved again and loaded again, it gives the same
 * candidates and paths, and saving that gives the same bytes.
 */
#include "tests/fuzz/fuzz.h"
#include "cull/heap.h"
#include "cull/scan.h"
#include "cull/state.h"

#include <limits.h>
#include <string.h>

#define FUZZ_NOW 1800000000ull
static const struct state_key key = { 1, 2, 3 };

static void
check_result(struct scan_result *r)
{
	struct cand *c = scan_cands(r);
	size_t n = scan_ncand(r), i;
	char path[(NAME_MAX + 1) * 34];

	for (i = 0; i < n; i++) {
		FUZZ_CHECK(c[i].dir < scan_ndirs(r), "candidate %zu: directory %u", i, c[i].dir);
		FUZZ_CHECK(scan_dir_data(r, c[i].dir), "candidate %zu not in a data directory", i);
		FUZZ_CHECK(scan_dir_path(r, c[i].dir, path, sizeof(path)) == 0, "no path");
		FUZZ_CHECK(strstr(path, "..") == NULL || strstr(path, "/../") == NULL, "%s", path);
		FUZZ_CHECK(i == 0 || cand_cmp(&c[i - 1], &c[i]) <= 0, "not sorted at %zu", i);
	}
}

static void
round_trip(struct scan_result *r, const struct state_info *info)
{
	struct scan_result *back;
	struct state_info info2;
	const char *why;
	void *b1, *b2;
	size_t l1, l2, i;
	int full = info->complete_ns != UINT64_MAX;
	char p1[(NAME_MAX + 1) * 34], p2[(NAME_MAX + 1) * 34];

	FUZZ_CHECK(state_encode(r, &key, info->written_s, full, &b1, &l1) == 0, "not saved");
	FUZZ_CHECK(state_decode(b1, l1, &key, FUZZ_NOW, -1, &back, &info2, &why) == STATE_OK,
		   "saved state refused: %s", why);
	FUZZ_CHECK(scan_ncand(back) == scan_ncand(r), "count changed");
	for (i = 0; i < scan_ncand(r); i++) {
		struct cand *a = &scan_cands(r)[i], *b = &scan_cands(back)[i];

		FUZZ_CHECK(cand_atime(a) == cand_atime(b) && cand_ino(a) == cand_ino(b),
			   "candidate %zu changed", i);
		scan_dir_path(r, a->dir, p1, sizeof(p1));
		scan_dir_path(back, b->dir, p2, sizeof(p2));
		FUZZ_CHECK(strcmp(p1, p2) == 0, "path %s became %s", p1, p2);
	}
	FUZZ_CHECK(state_encode(back, &key, info2.written_s, full, &b2, &l2) == 0, "not saved");
	FUZZ_CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0, "saving twice differs");
	free(b1);
	free(b2);
	scan_free(back);
}

static void
one(const uint8_t *data, size_t size)
{
	struct scan_result *r = NULL;
	struct state_info info;
	const char *why = NULL;

	if (state_decode(data, size, &key, FUZZ_NOW, -1, &r, &info, &why) != STATE_OK) {
		FUZZ_CHECK(r == NULL && why != NULL, "refused without a reason");
		return;
	}
	FUZZ_CHECK(info.ncand == scan_ncand(r) && info.ncand > 0, "count");
	check_result(r);
	round_trip(r, &info);
	scan_free(r);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	one(data, size);
	if (size < sizeof(struct state_hdr))
		return 0;
	/* The checksum made right: the body's rules are what is tested. */
	copy = malloc(size);
	memcpy(copy, data, size);
	{
		size_t at = offsetof(struct state_hdr, sum);
		uint64_t zero = 0, h = state_fnv64(copy, at, STATE_FNV_INIT);

		h = state_fnv64(&zero, sizeof(zero), h);
		h = state_fnv64(copy + at + sizeof(zero), size - at - sizeof(zero), h);
		memcpy(copy + at, &h, sizeof(h));
	}
	one(copy, size);
	free(copy);
	return 0;
}
