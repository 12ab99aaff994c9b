// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_state.c: the kept-state codec (cull/state.c).  A round trip gives
 * the same candidates and directories, and the count of what the scan
 * could not look at; every kind of damage is refused
 * with its reason: any flipped byte, any truncation, a byte more, another
 * magic, version or byte order, another cache, a stale file, and content
 * that checks out but breaks the rules (names, parents, order).  A list
 * longer than a file holds is cut to its oldest, in the bytes the engine
 * reserved for it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/heap.h"
#include "cull/scan.h"
#include "cull/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOW 1800000000ull
static const struct state_key key = { 0x803, 4242, 0x1234 };

/* Root, Ivol, Ivol/@00, Ivol/@01, and n candidates over the two fan-outs. */
static struct scan_result *
sample(size_t n)
{
	struct scan_result *r = scan_kept_new(-1);
	struct cand *v = calloc(n, sizeof(*v));
	uint32_t root, vol, a, b;
	size_t i;

	assert_non_null(r);
	root = scan_kept_dir(r, UINT32_MAX, "");
	vol = scan_kept_dir(r, root, "Ivol");
	a = scan_kept_dir(r, vol, "@00");
	b = scan_kept_dir(r, vol, "@01");
	(void)scan_kept_dir(r, vol, "@02");	/* no candidate: not kept */
	for (i = 0; i < n; i++)
		cand_set(&v[i], 1000000000ull * (i + 1), 100 + i, i % 2 ? b : a);
	scan_kept_cands(r, v, n);
	return r;
}

static void
resum(unsigned char *buf, size_t len)
{
	struct state_hdr h;
	uint64_t zero = 0, s;

	memcpy(&h, buf, sizeof(h));
	s = state_fnv64(buf, offsetof(struct state_hdr, sum), STATE_FNV_INIT);
	s = state_fnv64(&zero, sizeof(zero), s);
	s = state_fnv64(buf + sizeof(h), len - sizeof(h), s);
	h.sum = s;
	memcpy(buf, &h, sizeof(h));
}

static enum state_refusal
decode(const void *buf, size_t len, uint64_t now, const char **why)
{
	struct scan_result *r = NULL;
	enum state_refusal x = state_decode(buf, len, &key, now, -1, &r, NULL, why);

	if (x == STATE_OK)
		assert_non_null(r);
	else
		assert_null(r);
	scan_free(r);
	return x;
}

static void
test_round_trip(void **state)
{
	struct scan_result *r = sample(50), *back;
	struct state_info info;
	const char *why;
	char p1[64], p2[64];
	size_t len, i;
	void *buf;

	(void)state;
	assert_int_equal(state_encode(r, &key, NOW, 0, &buf, &len), 0);
	assert_int_equal(state_decode(buf, len, &key, NOW + 60, -1, &back, &info, &why), STATE_OK);
	assert_int_equal(info.ncand, 50);
	assert_int_equal(info.written_s, NOW);
	assert_true(info.complete_ns == UINT64_MAX);
	assert_true(info.unseen == 0 && scan_unseen(scan_stats(back)) == 0);
	assert_int_equal(scan_ncand(back), 50);
	assert_int_equal(scan_ndirs(back), 4);	/* @02 had no candidate */
	for (i = 0; i < 50; i++) {
		struct cand *a = &scan_cands(r)[i], *b = &scan_cands(back)[i];

		assert_true(cand_atime(a) == cand_atime(b));
		assert_true(cand_ino(a) == cand_ino(b));
		assert_int_equal(scan_dir_path(r, a->dir, p1, sizeof(p1)), 0);
		assert_int_equal(scan_dir_path(back, b->dir, p2, sizeof(p2)), 0);
		assert_string_equal(p1, p2);
	}
	scan_free(back);
	free(buf);
	/* A full table: complete only below its youngest. */
	assert_int_equal(state_encode(r, &key, NOW, 1, &buf, &len), 0);
	assert_int_equal(state_decode(buf, len, &key, NOW, -1, &back, &info, &why), STATE_OK);
	assert_true(info.complete_ns == 50 * 1000000000ull);
	scan_free(back);
	free(buf);
	/*
	 * What the scan could not look at goes with its table, so that an age
	 * goal answered from it after a restart is not called met; a count
	 * beyond the field is kept as its largest value.
	 */
	scan_kept_unseen(r, 7);
	assert_int_equal(state_encode(r, &key, NOW, 0, &buf, &len), 0);
	assert_int_equal(state_decode(buf, len, &key, NOW, -1, &back, &info, &why), STATE_OK);
	assert_true(info.unseen == 7 && scan_unseen(scan_stats(back)) == 7);
	scan_free(back);
	/* Cut to the 20 oldest (cull_memory lowered since): complete below the 20th. */
	assert_int_equal(state_decode(buf, len, &key, NOW, -1, &back, &info, &why), STATE_OK);
	state_cut(back, &info, 20);
	assert_int_equal(info.ncand, 20);
	assert_int_equal(scan_ncand(back), 20);
	assert_true(info.complete_ns == 20 * 1000000000ull);
	assert_true(cand_atime(&scan_cands(back)[19]) == 20 * 1000000000ull);
	state_cut(back, &info, 30);		/* no more than it has */
	assert_int_equal(scan_ncand(back), 20);
	scan_free(back);
	free(buf);
	scan_kept_unseen(r, 1ull << 40);
	assert_int_equal(state_encode(r, &key, NOW, 0, &buf, &len), 0);
	assert_int_equal(state_decode(buf, len, &key, NOW, -1, &back, &info, &why), STATE_OK);
	assert_true(info.unseen == UINT32_MAX && scan_unseen(scan_stats(back)) == UINT32_MAX);
	scan_free(back);
	free(buf);
	scan_free(r);
	/* Nothing to keep: nothing written. */
	r = sample(0);
	assert_int_equal(state_encode(r, &key, NOW, 0, &buf, &len), -1);
	scan_free(r);
}

/*
 * A list longer than a file holds: its oldest STATE_MAX_CAND are kept,
 * complete below the last of them, in exactly the bytes the engine
 * reserves for it beforehand (state_bytes_bound), which are no more for
 * a longer list.
 */
static void
test_long_list_capped_within_bound(void **state)
{
	struct scan_result *r = scan_kept_new(-1), *back;
	size_t n = (size_t)STATE_MAX_CAND + 3, len, i;
	struct cand *c = calloc(n, sizeof(*c));
	uint64_t dirs, bound;
	struct state_info info;
	uint32_t root, vol, a, b;
	const char *why;
	void *buf;

	(void)state;
	assert_non_null(c);
	root = scan_kept_dir(r, UINT32_MAX, "");
	vol = scan_kept_dir(r, root, "Ivol");
	a = scan_kept_dir(r, vol, "@00");
	b = scan_kept_dir(r, vol, "@01");
	for (i = 0; i < n; i++)
		cand_set(&c[i], 1000000000ull * (i + 1), 100 + i, i % 2 ? b : a);
	dirs = state_dir_bytes(r);
	assert_int_equal(dirs, 4 * 8 + 1 + 5 + 4 + 4);
	bound = state_bytes_bound(dirs, n);
	assert_true(bound == state_bytes_bound(dirs, STATE_MAX_CAND));
	assert_true(bound == state_bytes_bound(dirs, STATE_MAX_CAND - 1) + sizeof(struct cand));
	assert_int_equal(state_encode_list(r, c, n, &key, NOW, 0, &buf, &len), 0);
	assert_int_equal(len, bound);
	assert_int_equal(state_decode(buf, len, &key, NOW, -1, &back, &info, &why), STATE_OK);
	assert_int_equal(info.ncand, STATE_MAX_CAND);
	assert_true(info.complete_ns == cand_atime(&c[STATE_MAX_CAND - 1]));
	scan_free(back);
	free(buf);
	free(c);
	scan_free(r);
}

static void
test_every_flip_and_cut_is_refused(void **state)
{
	struct scan_result *r = sample(20);
	unsigned char *buf, *copy;
	const char *why;
	size_t len, i;
	void *p;

	(void)state;
	assert_int_equal(state_encode(r, &key, NOW, 0, &p, &len), 0);
	buf = p;
	copy = malloc(len + 1);
	for (i = 0; i < len; i++) {
		memcpy(copy, buf, len);
		copy[i] ^= 0x40;
		assert_int_not_equal(decode(copy, len, NOW, &why), STATE_OK);
	}
	for (i = 0; i < len; i++)
		assert_int_equal(decode(buf, i, NOW, &why), STATE_DAMAGED);
	memcpy(copy, buf, len);
	copy[len] = 0;
	assert_int_equal(decode(copy, len + 1, NOW, &why), STATE_DAMAGED);
	assert_string_equal(why, "damaged: truncated or too long");
	assert_int_equal(decode(buf, len, NOW, &why), STATE_OK);
	free(copy);
	free(buf);
	scan_free(r);
}

/* Change the header with f, sum again: refused for the right reason. */
static void
header_case(void (*f)(struct state_hdr *), enum state_refusal want, const char *reason,
	    uint64_t now)
{
	struct scan_result *r = sample(10);
	struct state_hdr h;
	const char *why;
	size_t len;
	void *p;

	assert_int_equal(state_encode(r, &key, NOW, 0, &p, &len), 0);
	memcpy(&h, p, sizeof(h));
	f(&h);
	memcpy(p, &h, sizeof(h));
	resum(p, len);
	assert_int_equal(decode(p, len, now, &why), want);
	if (want != STATE_OK)
		assert_non_null(strstr(why, reason));
	free(p);
	scan_free(r);
}

static void h_none(struct state_hdr *h) { (void)h; }
static void h_magic(struct state_hdr *h) { h->magic[0] = 'X'; }
static void h_version(struct state_hdr *h) { h->version = 2; }
static void h_bom(struct state_hdr *h) { h->bom = 0x04030201u; }
static void h_dev(struct state_hdr *h) { h->dev++; }
static void h_ino(struct state_hdr *h) { h->ino++; }
static void h_tag(struct state_hdr *h) { h->tag++; }
static void h_ncand(struct state_hdr *h) { h->ncand = STATE_MAX_CAND + 1; }

static void
test_header_refusals(void **state)
{
	(void)state;
	header_case(h_magic, STATE_DAMAGED, "magic", NOW);
	header_case(h_version, STATE_DAMAGED, "version", NOW);
	header_case(h_bom, STATE_DAMAGED, "byte order", NOW);
	header_case(h_dev, STATE_FOREIGN, "another cache", NOW);
	header_case(h_ino, STATE_FOREIGN, "another cache", NOW);
	header_case(h_tag, STATE_FOREIGN, "another cache", NOW);
	header_case(h_ncand, STATE_DAMAGED, "range", NOW);
	/* More than a day in the future (a clock set back far), or a week ago: stale. */
	header_case(h_none, STATE_STALE, "future", NOW - STATE_MAX_AHEAD_S - 1);
	header_case(h_none, STATE_OK, "", NOW - STATE_MAX_AHEAD_S);
	header_case(h_none, STATE_OK, "", NOW - 1);
	header_case(h_none, STATE_STALE, "stale", NOW + STATE_MAX_AGE_S + 1);
	header_case(h_none, STATE_OK, "", NOW + STATE_MAX_AGE_S);
}

/* Content that sums right but breaks a rule. */
static void
body_case(void (*f)(unsigned char *body, const struct state_hdr *h), const char *reason)
{
	struct scan_result *r = sample(10);
	struct state_hdr h;
	const char *why;
	size_t len;
	void *p;

	assert_int_equal(state_encode(r, &key, NOW, 0, &p, &len), 0);
	memcpy(&h, p, sizeof(h));
	f((unsigned char *)p + sizeof(h), &h);
	resum(p, len);
	assert_int_equal(decode(p, len, NOW, &why), STATE_DAMAGED);
	assert_non_null(strstr(why, reason));
	free(p);
	scan_free(r);
}

/* Candidate i of the body; the file packs them with no alignment, hence memcpy. */
static unsigned char *
cand_at(unsigned char *body, const struct state_hdr *h, size_t i)
{
	return body + (size_t)h->ndirs * 8 + h->names_len + i * sizeof(struct cand);
}

static void
set_cand_dir(unsigned char *body, const struct state_hdr *h, size_t i, uint32_t dir)
{
	struct cand c;

	memcpy(&c, cand_at(body, h, i), sizeof(c));
	c.dir = dir;
	memcpy(cand_at(body, h, i), &c, sizeof(c));
}

static void
b_unsorted(unsigned char *body, const struct state_hdr *h)
{
	struct cand a, b;

	memcpy(&a, cand_at(body, h, 0), sizeof(a));
	memcpy(&b, cand_at(body, h, 1), sizeof(b));
	memcpy(cand_at(body, h, 0), &b, sizeof(b));
	memcpy(cand_at(body, h, 1), &a, sizeof(a));
}

static void
b_cand_in_root(unsigned char *body, const struct state_hdr *h)
{
	set_cand_dir(body, h, 3, 0);
}

static void
b_cand_dir_range(unsigned char *body, const struct state_hdr *h)
{
	set_cand_dir(body, h, 3, h->ndirs);
}

static void
b_name_dotdot(unsigned char *body, const struct state_hdr *h)
{
	memcpy(body + (size_t)h->ndirs * 8 + 1, "..\0\0", 5);	/* "Ivol" */
}

static void
b_name_other(unsigned char *body, const struct state_hdr *h)
{
	body[(size_t)h->ndirs * 8 + 1] = 'X';	/* "Xvol": not a directory we enter */
}

static void
b_name_slash(unsigned char *body, const struct state_hdr *h)
{
	body[(size_t)h->ndirs * 8 + 2] = '/';
}

static void
b_parent_forward(unsigned char *body, const struct state_hdr *h)
{
	uint32_t p = 3;

	(void)h;
	memcpy(body + 2 * 8, &p, sizeof(p));	/* dir 2's parent after it */
}

static void
b_root_named(unsigned char *body, const struct state_hdr *h)
{
	uint32_t off = 1;

	(void)h;
	memcpy(body + 4, &off, sizeof(off));	/* the root named "Ivol" */
}

static void
b_unterminated(unsigned char *body, const struct state_hdr *h)
{
	body[(size_t)h->ndirs * 8 + h->names_len - 1] = 'x';
}

static void
test_body_refusals(void **state)
{
	(void)state;
	body_case(b_unsorted, "candidates");
	body_case(b_cand_in_root, "candidates");
	body_case(b_cand_dir_range, "candidates");
	body_case(b_name_dotdot, "directory table");
	body_case(b_name_slash, "directory table");
	body_case(b_name_other, "directory table");
	body_case(b_parent_forward, "directory table");
	body_case(b_root_named, "directory table");
	body_case(b_unterminated, "not terminated");
}

/* The file: written through a temporary and a rename, read back; not followed. */
static void
test_save_and_load(void **state)
{
	char dir[] = "/tmp/test_state.XXXXXX";
	struct scan_result *r = sample(5);
	const char *why;
	void *buf, *back;
	size_t len, blen;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(state_load(fd, &back, &blen, &why), -1);
	assert_null(why);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(state_encode(r, &key, NOW, 0, &buf, &len), 0);
	assert_int_equal(state_save(fd, buf, len), 0);
	assert_int_equal(faccessat(fd, STATE_TMP, F_OK, 0), -1);
	assert_int_equal(state_load(fd, &back, &blen, &why), 0);
	assert_int_equal(blen, len);
	assert_memory_equal(back, buf, len);
	free(back);
	/* A leftover temporary file is replaced. */
	close(openat(fd, STATE_TMP, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(state_save(fd, buf, len), 0);
	/* A symlink in its place is not followed; nor is anything but a file read. */
	assert_int_equal(unlinkat(fd, STATE_FILE, 0), 0);
	assert_int_equal(symlinkat("/etc/passwd", fd, STATE_FILE), 0);
	assert_int_equal(state_load(fd, &back, &blen, &why), -1);
	assert_non_null(why);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(unlinkat(fd, STATE_FILE, 0), 0);
	assert_int_equal(mkfifoat(fd, STATE_FILE, 0600), 0);
	assert_int_equal(state_load(fd, &back, &blen, &why), -1);
	assert_non_null(why);
	assert_string_equal(why, "not a regular file");
	assert_int_equal(unlinkat(fd, STATE_FILE, 0), 0);
	close(fd);
	assert_int_equal(rmdir(dir), 0);
	free(buf);
	scan_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_long_list_capped_within_bound),
		cmocka_unit_test(test_every_flip_and_cut_is_refused),
		cmocka_unit_test(test_header_refusals),
		cmocka_unit_test(test_body_refusals),
		cmocka_unit_test(test_save_and_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
