// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c: syslog or stderr, with debug levels and a rate limit on repeated
 * warnings so that a persistent fault cannot flood the journal.
 */
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#define LOG_LINE_MAX 1024
#define REPEAT_WINDOW_S 60	/* identical warnings within this window ... */
#define REPEAT_BURST 3		/* ... are shown this many times, then counted */

static int log_stderr = 1;
static int log_debug_level;
static const char *log_ident = "cachefilesd";

static struct {
	char msg[LOG_LINE_MAX];
	time_t first;
	unsigned count;
} last;

void
log_init(const char *ident, int to_stderr, int debug_level)
{
	log_ident = ident;
	log_stderr = to_stderr;
	log_debug_level = debug_level;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

int
log_get_debug(void)
{
	return log_debug_level;
}

/*
 * Control bytes written as "\ooo", as escape.h writes them: a path put in a
 * line unescaped (a directory from the configuration) can neither end the
 * line nor send a terminal sequence.  Names escaped already have none left.
 */
static const char *
controls_escaped(const char *msg, char *out, size_t size)
{
	size_t o = 0;

	for (; *msg != '\0' && o + 5 <= size; msg++) {
		unsigned char c = (unsigned char)*msg;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\%03o", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

static void
emit(int pri, const char *msg)
{
	char safe[4 * LOG_LINE_MAX + 64];

	controls_escaped(msg, safe, sizeof(safe));
	if (log_stderr) {
		fprintf(stderr, "%s: %s\n", log_ident, safe);
		fflush(stderr);
	} else {
		syslog(pri, "%s", safe);
	}
}

/* Returns 1 when msg is a repeat that must be suppressed. */
static int
rate_limited(const char *msg)
{
	time_t now = time(NULL);

	if (strcmp(msg, last.msg) == 0 && now - last.first < REPEAT_WINDOW_S) {
		if (++last.count == REPEAT_BURST + 1) {
			char note[LOG_LINE_MAX + 64];
			snprintf(note, sizeof(note),
				 "last message repeated; suppressing repeats for %d s",
				 REPEAT_WINDOW_S);
			emit(LOG_WARNING, note);
		}
		return last.count > REPEAT_BURST;
	}
	if (last.count > REPEAT_BURST) {
		char note[128];
		snprintf(note, sizeof(note), "previous message repeated %u times",
			 last.count);
		emit(LOG_WARNING, note);
	}
	snprintf(last.msg, sizeof(last.msg), "%s", msg);
	last.first = now;
	last.count = 1;
	return 0;
}

static void __attribute__((format(printf, 3, 0)))
vlog(int pri, int with_errno, const char *fmt, va_list ap)
{
	char msg[LOG_LINE_MAX];
	int saved = errno;
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (with_errno && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(saved));
	if (pri <= LOG_WARNING && rate_limited(msg))
		goto out;
	emit(pri, msg);
out:
	errno = saved;
}

void
log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 1, fmt, ap);
	va_end(ap);
}

void
log_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 0, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, 1, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, 0, fmt, ap);
	va_end(ap);
}

void
log_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_NOTICE, 0, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, 0, fmt, ap);
	va_end(ap);
}

void
log_debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_debug_level)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, 0, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 1, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
