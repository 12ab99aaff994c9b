// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify.c: sd_notify on libsystemd.  Failures are logged once at debug
 * level: a missing service manager must never stop the daemon.
 */
#include "daemon/notify.h"
#include "lib/log.h"

#include <systemd/sd-daemon.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATUS_MAX 512

static char last_status[STATUS_MAX + 8];

static int
enabled(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s != NULL && s[0] != '\0';
}

static void
send_msg(const char *msg)
{
	int r;

	if (!enabled())
		return;
	r = sd_notify(0, msg);
	if (r < 0)
		log_debug(1, "sd_notify \"%s\": %s", msg, strerror(-r));
}

void
notify_ready(void)
{
	char msg[64];

	/* MAINPID matters when a detached child reports for its parent. */
	snprintf(msg, sizeof(msg), "READY=1\nMAINPID=%ld", (long)getpid());
	send_msg(msg);
}

void
notify_status(const char *fmt, ...)
{
	char msg[STATUS_MAX + 8];
	va_list ap;

	if (!enabled())
		return;
	memcpy(msg, "STATUS=", 7);
	va_start(ap, fmt);
	vsnprintf(msg + 7, sizeof(msg) - 7, fmt, ap);
	va_end(ap);
	if (strcmp(msg + 7, last_status) == 0)
		return;
	snprintf(last_status, sizeof(last_status), "%s", msg + 7);
	send_msg(msg);
}

void
notify_watchdog(void)
{
	send_msg("WATCHDOG=1");
}

void
notify_stopping(void)
{
	send_msg("STOPPING=1");
}

uint64_t
notify_watchdog_usec(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}
