// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.c: allocation that never fails silently, bounded strings, numbers.
 */
#include "lib/util.h"
#include "lib/log.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		fatal("malloc %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		fatal("calloc %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		fatalx("reallocarray %zu x %zu bytes: overflow", nmemb, size);
	size = nmemb * size;
	p = realloc(ptr, size > 0 ? size : 1);
	if (p == NULL)
		fatal("realloc %zu x %zu bytes", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("strdup");
	return p;
}

int
strlcpy_checked(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (len >= n)
		return -1;
	memcpy(dst, src, len + 1);
	return 0;
}

int
snprintf_checked(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(dst, n, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= n)
		return -1;
	return r;
}

int
parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and '-'; a config number may not. */
	if (s[0] < '0' || s[0] > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end != '\0') {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
}

int
stop_pending(void)
{
	sigset_t p;

	if (sigpending(&p) == -1)
		return 0;
	return sigismember(&p, SIGTERM) == 1 || sigismember(&p, SIGINT) == 1;
}

/* The time from now to end (monotonic milliseconds), 0 once it has passed. */
static struct timespec
until_ms(uint64_t end)
{
	uint64_t t = now_ms(), left = end > t ? end - t : 0;
	struct timespec ts = { (time_t)(left / 1000), (long)(left % 1000) * 1000000L };

	return ts;
}

int
nap_unless_stopped(unsigned ms)
{
	uint64_t end = now_ms() + ms;
	struct timespec ts;
	sigset_t set;
	int sig;

	stop_signals(&set);
	while (now_ms() < end) {
		ts = until_ms(end);
		/* Taken to be seen, then raised again: the caller's exit path reads it. */
		if ((sig = sigtimedwait(&set, NULL, &ts)) > 0) {
			raise(sig);
			return -1;
		}
		if (sig == -1 && errno != EAGAIN && errno != EINTR) {
			/* Cannot wait on the signals: a plain sleep for the rest. */
			ts = until_ms(end);
			while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
				;
			break;
		}
	}
	return stop_pending() ? -1 : 0;
}

uint64_t
u64_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

uint64_t
atime_key(const struct timespec *ts)
{
	uint64_t ns = timespec_ns(ts);

	return ns != 0 ? ns : 1;
}

uint64_t
timespec_ns(const struct timespec *ts)
{
	uint64_t s;

	if (ts->tv_sec < 0)
		return 0;
	s = (uint64_t)ts->tv_sec;
	if (s > (UINT64_MAX - (uint64_t)ts->tv_nsec) / 1000000000u)
		return UINT64_MAX;
	return s * 1000000000u + (uint64_t)ts->tv_nsec;
}
