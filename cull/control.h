/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h: the daemon's control socket, as a client sees it, and the
 * limits both sides keep (docs/control-protocol.md has the protocol).
 *
 * One connection carries one request line and gets one reply line: a flat
 * JSON object with "ok" true or false (and "error" when false).
 */
#ifndef CFD_CONTROL_H
#define CFD_CONTROL_H

#include <stddef.h>

#define CONTROL_DEFAULT_PATH "/run/cachefilesd/control"
#define CONTROL_REQUEST_MAX 256		/* bytes, newline included */
#define CONTROL_REPLY_MAX 8192		/* bytes, newline included */

/*
 * Connect to path, send request (no newline), wait up to timeout_ms for the
 * reply (0: no limit, for a cull that may take minutes) and copy it without
 * its newline into reply (size bytes).  Returns 0, or -1 with errno:
 * ENOENT or ECONNREFUSED (no daemon listens), EACCES (not allowed to
 * connect), ETIMEDOUT, EPROTO (the daemon closed without a complete reply,
 * or it did not fit).
 */
int control_call(const char *path, const char *request, char *reply, size_t size,
		 int timeout_ms);

#endif
