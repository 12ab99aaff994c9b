/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen.h: what the two tree generators (cachegen, vm-gen) share: a seedable
 * xorshift generator, a fatal error helper, and names shaped like 5.17+
 * data objects (70 % E base64 keys and 10 % S hex-word keys of 40 to 90
 * characters, 20 % short D keys), unique because the serial is in each.
 */
#ifndef CFD_BENCH_GEN_H
#define CFD_BENCH_GEN_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t gen_state = 88172645463325252ull;

static inline void
gen_seed(const char *s)
{
	gen_state ^= strtoull(s, NULL, 0) * 2654435761u;
}

static inline uint64_t
rnd(void)
{
	gen_state ^= gen_state << 13;
	gen_state ^= gen_state >> 7;
	gen_state ^= gen_state << 17;
	return gen_state;
}

/* "PROG: OBJ: OP: strerror(errno)", exit 1. */
static inline void __attribute__((noreturn))
gen_die(const char *prog, const char *op, const char *obj)
{
	fprintf(stderr, "%s: %s: %s: %s\n", prog, obj, op, strerror(errno));
	exit(1);
}

static inline void
make_name(char *buf, size_t len, uint64_t serial)
{
	static const char b64[] =
	    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-";
	unsigned kind = (unsigned)(rnd() % 10), n, i;
	int k;

	if (kind < 7) {		/* E + pad digit + base64 of an NFS file handle */
		n = 40 + (unsigned)(rnd() % 51);
		k = snprintf(buf, len, "E%c%llx,", '0' + (int)(rnd() % 3),
			     (unsigned long long)serial);
		for (i = (unsigned)k; i < n && i + 1 < len; i++)
			buf[i] = b64[rnd() % 64];
		buf[i] = '\0';
	} else if (kind < 8) {	/* S + big-endian hex words */
		n = 40 + (unsigned)(rnd() % 51);
		k = snprintf(buf, len, "S%llx", (unsigned long long)serial);
		while ((unsigned)k < n && (size_t)k + 10 < len)
			k += snprintf(buf + k, len - (size_t)k, ",%x", (unsigned)rnd());
	} else {		/* 9p: D + qid path */
		snprintf(buf, len, "D%llx", (unsigned long long)serial);
	}
}

#endif
