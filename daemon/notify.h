/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.h: messages to the service manager (sd_notify).  Every function is
 * a no-op when NOTIFY_SOCKET is not set, so the daemon calls them freely.
 */
#ifndef CFD_NOTIFY_H
#define CFD_NOTIFY_H

#include <stdint.h>

void notify_ready(void);
/* STATUS=...; an unchanged line is not sent again. */
void notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void notify_watchdog(void);
void notify_stopping(void);
/* The watchdog interval in microseconds when WatchdogSec= is set, else 0. */
uint64_t notify_watchdog_usec(void);

#endif
