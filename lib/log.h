/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h: the one logging vocabulary of cachefilesd and its tools.
 *
 * Messages go to syslog (facility daemon) when the daemon runs detached, or
 * to stderr with -s or in the tools.  The -d count sets how much debug
 * output is shown: level 1 gives decisions (scan, cull, reload), level 2
 * per-batch detail, level 3 raw kernel traffic.
 *
 * log_err(), log_warn() and fatal() append ": strerror(errno)"; the x variants do not.
 * Callers name the object and the operation, for example
 *   log_warn("%s: open", path);
 * Identical warnings repeated within a short window are rate-limited.
 */
#ifndef CFD_LOG_H
#define CFD_LOG_H

#include <stdarg.h>

#define LOG_FMT(a, b) __attribute__((format(printf, a, b)))

void log_init(const char *ident, int to_stderr, int debug_level);
int log_get_debug(void);

/*
 * A failure that ends the daemon, at error priority as 0.10.10 logged
 * its fatal errors (journalctl -p err finds it); the caller cleans up and
 * exits.  Everything it survives is a warning.
 */
void log_err(const char *fmt, ...) LOG_FMT(1, 2);
void log_errx(const char *fmt, ...) LOG_FMT(1, 2);
void log_warn(const char *fmt, ...) LOG_FMT(1, 2);
void log_warnx(const char *fmt, ...) LOG_FMT(1, 2);
void log_notice(const char *fmt, ...) LOG_FMT(1, 2);
void log_info(const char *fmt, ...) LOG_FMT(1, 2);
/* Shown only when the -d count is at least level (1..3). */
void log_debug(int level, const char *fmt, ...) LOG_FMT(2, 3);
/* Log at error priority, then exit(1). */
void fatal(const char *fmt, ...) LOG_FMT(1, 2) __attribute__((noreturn));
void fatalx(const char *fmt, ...) LOG_FMT(1, 2) __attribute__((noreturn));

#endif
