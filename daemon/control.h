/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h: the daemon's side of the control socket
 * (docs/control-protocol.md; cull/control.h has the client and the limits).
 *
 * One listening Unix stream socket, at most CONTROL_CLIENTS_MAX clients,
 * each served from the daemon's libevent loop with non-blocking I/O and a
 * deadline, so that no client can stall culling or the kernel channel.
 * What a request does is the daemon's business: this module parses it and
 * calls back through struct control_ops.
 */
#ifndef CFD_DAEMON_CONTROL_H
#define CFD_DAEMON_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/engine.h"
#include "cull/goal.h"

#define CONTROL_CLIENTS_MAX 16
#define CONTROL_TIMEOUT_MS 5000		/* for the request, and again for the reply */

enum control_verb {
	CONTROL_STATUS,
	CONTROL_RESCAN,
	CONTROL_CULL,
};

struct control_req {
	enum control_verb verb;
	struct goal goal;		/* CONTROL_CULL */
};

/*
 * Parse one request line of len bytes, without its newline.  Returns 0, or
 * -1 with *err set to a sentence for the reply.  Pure: no I/O.
 */
int control_parse_request(const char *line, size_t len, struct control_req *req,
			  const char **err);

/* Format {"ok":false,"error":msg} into buf (no newline); its length. */
size_t control_format_error(const char *msg, char *buf, size_t size);
/* Format the reply to a goal that ended; its length. */
size_t control_format_goal(const struct engine_goal_report *r, char *buf, size_t size);

struct control_ops {
	void *arg;
	/* The status reply (flat JSON, no newline) into buf; its length, 0 on failure. */
	size_t (*status)(void *arg, char *buf, size_t size);
	/* A goal id >= 0, or -1 with *err set. */
	int (*cull)(void *arg, const struct goal *g, const char **err);
	/* 0 pending, 1 ended (r filled), -1 the goal is gone (*err set). */
	int (*poll)(void *arg, int id, struct engine_goal_report *r, const char **err);
	void (*cancel)(void *arg, int id);
	/* 0 a scan was started or is running, -1 with *err set. */
	int (*rescan)(void *arg, const char **err);
};

struct event_base;
struct control;

/*
 * Create the listening socket at path (mode 0600, its directory made 0755
 * when missing, a stale socket replaced; any other file there is refused).
 * Returns the descriptor, or -1 (logged).
 */
int control_listen(const char *path);
/* Serve fd from base; takes ownership of fd; path is unlinked at control_free(). */
struct control *control_new(struct event_base *base, int fd, const char *path,
			    const struct control_ops *ops);
/* Check the goals of waiting clients: call after each engine step. */
void control_poll(struct control *c);
/* Close every client (cancelling its goal), the socket, and remove it. */
void control_free(struct control *c);

#endif
