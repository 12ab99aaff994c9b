/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h: allocation that never returns NULL, bounded string helpers and
 * checked number parsing, shared by every module.
 */
#ifndef CFD_UTIL_H
#define CFD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);

/* Copy src into dst of size n; return -1 (dst untouched) when it does not fit. */
int strlcpy_checked(char *dst, const char *src, size_t n);
/* snprintf that returns -1 on truncation or error, else the length. */
int snprintf_checked(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Parse an unsigned number from s in the given base (0 = C rules) that must
 * span the whole string and lie in [min, max].  Returns 0, or -1 with errno
 * EINVAL (not a number, trailing junk) or ERANGE (out of bounds).
 */
int parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out);

/* a + b, or UINT64_MAX when that overflows. */
uint64_t u64_sat_add(uint64_t a, uint64_t b);

/* Monotonic clock in milliseconds. */
uint64_t now_ms(void);

/*
 * Sleep ms, unless SIGTERM or SIGINT, held blocked, is or becomes
 * pending: then return -1 at once and leave it pending.  For the waits of
 * a start, before the event loop owns the signals.
 */
int nap_unless_stopped(unsigned ms);

/* Is SIGTERM or SIGINT pending? */
int stop_pending(void);

struct timespec;
/*
 * A timestamp in nanoseconds since the epoch, saturated: before the epoch
 * is 0 and after 2554 (where 64 bits of nanoseconds end; tmpfs and btrfs
 * store such atimes) is UINT64_MAX, so it still sorts as the newest.
 */
uint64_t timespec_ns(const struct timespec *ts);
/*
 * An object's access time as the cull order's key: timespec_ns(), but
 * never 0, which the engine, the state file and the age limit read as
 * "no object": the epoch and anything before it count as 1 ns after it.
 */
uint64_t atime_key(const struct timespec *ts);

#endif
