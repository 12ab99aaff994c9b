// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control.c: the control socket, served from the event loop.
 *
 * A client goes through three phases: reading its one request (at most
 * CONTROL_REQUEST_MAX bytes within CONTROL_TIMEOUT_MS), waiting for its
 * goal (a cull; the descriptor is still watched, and end of file withdraws
 * the goal), and writing its one reply (non-blocking, abandoned after
 * CONTROL_TIMEOUT_MS).  Then the connection is closed.  Nothing here
 * blocks: a client that never reads or never writes costs one slot of
 * CONTROL_CLIENTS_MAX until its deadline.
 */
#include "daemon/control.h"
#include "cull/control.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <event2/event.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OLDER_THAN_MAX (UINT64_MAX / 1000000000u)	/* seconds that fit in ns */
#define BYTES_MAX ((uint64_t)INT64_MAX)
#define DISCARD_MAX (256 * 1024)	/* unread input taken before a close */
/*
 * A waiting client that shut down its writing side raises no event when it
 * closes at last (its end of file was read already): look this often.
 */
#define HALF_CLOSED_CHECK_MS 1000

/* ---- requests and replies (pure) ---- */

static int
bad(const char **err, const char *msg)
{
	*err = msg;
	return -1;
}

/* A decimal number without sign, leading zeros allowed, in [min, max]. */
static int
number(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (s[0] < '0' || s[0] > '9')
		return -1;
	return parse_u64(s, 10, min, max, v);
}

int
control_parse_request(const char *line, size_t len, struct control_req *req,
		      const char **err)
{
	char buf[CONTROL_REQUEST_MAX];
	char *word[4], *p;
	size_t i, n = 0;
	uint64_t v;

	memset(req, 0, sizeof(*req));
	if (len >= sizeof(buf))
		return bad(err, "request too long");
	for (i = 0; i < len; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			return bad(err, "request is not printable ASCII");
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* Words separated by single spaces: no empty word anywhere. */
	for (p = buf; n < ARRAY_SIZE(word); ) {
		word[n++] = p;
		if ((p = strchr(p, ' ')) == NULL)
			break;
		*p++ = '\0';
	}
	if (p != NULL)
		return bad(err, "too many words");
	for (i = 0; i < n; i++)
		if (word[i][0] == '\0')
			return bad(err, len == 0 ? "empty request" : "words must be separated by single spaces");
	if (strcmp(word[0], "status") == 0 || strcmp(word[0], "rescan") == 0) {
		if (n != 1)
			return bad(err, "this request takes no argument");
		req->verb = word[0][0] == 's' ? CONTROL_STATUS : CONTROL_RESCAN;
		return 0;
	}
	if (strcmp(word[0], "cull") != 0)
		return bad(err, "unknown request");
	req->verb = CONTROL_CULL;
	if (n >= 2 && strcmp(word[1], "to-run") == 0) {
		req->goal.kind = GOAL_RUN_LIMITS;
		return n == 2 ? 0 : bad(err, "cull to-run: takes no value");
	}
	if (n != 3)
		return bad(err, n < 2 ? "cull needs a goal: to-run, free P, bytes N or older-than S"
				      : "cull: wrong number of arguments");
	if (strcmp(word[1], "free") == 0) {
		req->goal.kind = GOAL_FREE_PCT;
		if (number(word[2], 1, 100, &v) == -1)
			return bad(err, "cull free: P must be a whole number from 1 to 100");
	} else if (strcmp(word[1], "bytes") == 0) {
		req->goal.kind = GOAL_BYTES;
		if (number(word[2], 1, BYTES_MAX, &v) == -1)
			return bad(err, "cull bytes: N must be a whole number from 1 to 2^63-1");
	} else if (strcmp(word[1], "older-than") == 0) {
		req->goal.kind = GOAL_OLDER_THAN;
		if (number(word[2], 1, OLDER_THAN_MAX, &v) == -1)
			return bad(err, "cull older-than: S must be a whole number of seconds "
				   "from 1 to 18446744073");
	} else {
		return bad(err, "cull: unknown goal");
	}
	req->goal.value = v;
	return 0;
}

size_t
control_format_error(const char *msg, char *buf, size_t size)
{
	FILE *f = jw_mem_open(buf, size);
	struct jw w;

	if (f == NULL)
		return 0;
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_bool(&w, "ok", 0);
	jw_str(&w, "error", msg);
	jw_obj_end(&w);
	return jw_mem_close(f, buf, size);
}

size_t
control_format_goal(const struct engine_goal_report *r, char *buf, size_t size)
{
	FILE *f = jw_mem_open(buf, size);
	struct jw w;

	if (f == NULL)
		return 0;
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_bool(&w, "ok", 1);
	jw_str(&w, "result", r->state == ENGINE_GOAL_MET ? "met" : "exhausted");
	jw_u64(&w, "culled", r->culled);
	jw_u64(&w, "bytes", r->culled_bytes);
	jw_u64(&w, "ms", r->ms);
	jw_u64(&w, "unseen", r->unseen);
	jw_obj_end(&w);
	return jw_mem_close(f, buf, size);
}

/* ---- the socket ---- */

enum phase { READING, WAITING, WRITING };

struct client {
	struct control *c;
	int fd;
	enum phase phase;
	int goal;			/* WAITING: the engine's goal id */
	const char *refuse;		/* answer this to the request, whatever it is */
	struct event *ev_read, *ev_write, *ev_timer;
	int half_closed;		/* WAITING: it shut down its writing side only */
	char in[CONTROL_REQUEST_MAX];
	size_t inlen;
	char out[CONTROL_REPLY_MAX];
	size_t outlen, outoff;
};

struct control {
	struct event_base *base;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct control_ops ops;
	struct event *ev_accept;
	/*
	 * CONTROL_CLIENTS_MAX served, and as many again refused: a refused
	 * client gets its refusal once its request is in (or its deadline
	 * passed), since a client that is still sending when the daemon closes
	 * sees EPIPE rather than the reply.
	 */
	struct client *clients[2 * CONTROL_CLIENTS_MAX];
};

static int
sockaddr_for(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy_checked(sun->sun_path, path, sizeof(sun->sun_path)) == -1) {
		log_errx("control socket %s: path too long", path);
		return -1;
	}
	return 0;
}

/* The directory that holds path: made 0755 when missing (its parent must exist). */
static int
make_dir(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (strlcpy_checked(dir, path, sizeof(dir)) == -1)
		return -1;
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0) {
		if (chmod(dir, 0755) == -1)	/* whatever the umask */
			log_warn("control socket %s: chmod %s", path, dir);
		log_info("created %s for the control socket", dir);
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	log_err("control socket %s: mkdir %s (only the last directory is made)", path, dir);
	return -1;
}

#define LISTENER_WAIT_MS 10000	/* a previous instance may still be exiting */

/* Does something accept connections at sun?  1 yes, 0 no (refused), -1 error. */
static int
listening(const char *path, const struct sockaddr_un *sun)
{
	int fd, r;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
		log_err("control socket: socket");
		return -1;
	}
	r = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (r == 0 || errno == EAGAIN || errno == EINPROGRESS)
		return 1;
	/* Stale, or gone: a previous instance removes its socket as it exits. */
	if (errno == ECONNREFUSED || errno == ENOENT)
		return 0;
	log_err("control socket %s: connect", path);
	return -1;
}

/*
 * Something is at path: a stale socket goes, anything else stays and we
 * refuse.  A socket that still accepts may belong to an instance that was
 * just killed and is still closing its descriptors (the device's first,
 * which can take a while): wait for it as for the device, then refuse.
 */
static int
clear_stale(const char *path, const struct sockaddr_un *sun)
{
	uint64_t deadline = now_ms() + LISTENER_WAIT_MS;
	struct stat st;
	int r;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		log_err("control socket %s: lstat", path);
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		log_errx("control socket %s: a file that is not a socket is in the way; "
			  "not replacing it (remove it, or set control_socket)", path);
		return -1;
	}
	if ((r = listening(path, sun)) == 1)
		log_notice("control socket %s: another process listens there; waiting up to "
			   "%d s for it to go (a previous instance stopping?)", path,
			   LISTENER_WAIT_MS / 1000);
	while (r == 1 && now_ms() < deadline) {
		if (nap_unless_stopped(100) == -1) {
			log_notice("control socket %s: asked to stop while another process "
				   "listened there; not waiting longer", path);
			return -1;
		}
		r = listening(path, sun);
	}
	if (r == 1) {
		log_errx("control socket %s: another process listens there still, after %d s",
			 path, LISTENER_WAIT_MS / 1000);
		return -1;
	}
	if (r == -1)
		return -1;
	if (unlink(path) == -1) {
		if (errno == ENOENT)
			return 0;	/* its owner removed it while we waited */
		log_err("control socket %s: unlink", path);
		return -1;
	}
	log_info("control socket %s: replacing a stale socket", path);
	return 0;
}

int
control_listen(const char *path)
{
	struct sockaddr_un sun;
	mode_t old;
	int fd, r;

	/*
	 * The directory again after the wait: a previous instance's service
	 * manager may have removed it (RuntimeDirectory=) as that one stopped.
	 */
	if (sockaddr_for(path, &sun) == -1 || make_dir(path) == -1 ||
	    clear_stale(path, &sun) == -1 || make_dir(path) == -1)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
		log_err("control socket: socket");
		return -1;
	}
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (r == -1) {
		log_err("control socket %s: bind", path);
		close(fd);
		return -1;
	}
	if (chmod(path, 0600) == -1 || listen(fd, CONTROL_CLIENTS_MAX) == -1) {
		log_err("control socket %s: listen", path);
		unlink(path);
		close(fd);
		return -1;
	}
	log_debug(1, "control socket %s: listening", path);
	return fd;
}

/*
 * Closing a Unix stream socket with input left unread makes the kernel
 * reset the connection: the client reads its reply, then ECONNRESET
 * instead of the end (socat reports an error after an over-long request).
 * So what is already queued is taken first, within a bound: a client that
 * goes on writing is not waited for.
 */
static void
discard_input(int fd)
{
	char sink[4096];
	size_t total = 0;
	ssize_t n;

	while (total < DISCARD_MAX && (n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
		total += (size_t)n;
}

static void
client_free(struct client *cl)
{
	struct control *c = cl->c;
	size_t i;

	if (cl->phase == WAITING && cl->goal >= 0) {
		log_info("control: the client went away; its goal is withdrawn");
		c->ops.cancel(c->ops.arg, cl->goal);
	}
	for (i = 0; i < ARRAY_SIZE(c->clients); i++)
		if (c->clients[i] == cl)
			c->clients[i] = NULL;
	event_free(cl->ev_read);
	event_free(cl->ev_write);
	event_free(cl->ev_timer);
	discard_input(cl->fd);
	close(cl->fd);
	free(cl);
}

static void
arm_timer(struct client *cl)
{
	struct timeval tv = { CONTROL_TIMEOUT_MS / 1000, (CONTROL_TIMEOUT_MS % 1000) * 1000 };

	evtimer_add(cl->ev_timer, &tv);
}

/* Write what can be written; 1 when the reply is out (or the client gone). */
static int
flush_out(struct client *cl)
{
	while (cl->outoff < cl->outlen) {
		ssize_t n = send(cl->fd, cl->out + cl->outoff, cl->outlen - cl->outoff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			cl->outoff += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return 1;	/* the client is gone: nothing more to do */
	}
	return 1;
}

/* Queue reply (len bytes, without newline) and start writing; the client may be freed. */
static void
reply(struct client *cl, const char *text, size_t len)
{
	if (len == 0 || len + 1 > sizeof(cl->out)) {
		text = "{\"ok\":false,\"error\":\"internal error: reply too long\"}";
		len = strlen(text);
	}
	memcpy(cl->out, text, len);
	cl->out[len] = '\n';
	cl->outlen = len + 1;
	cl->outoff = 0;
	cl->phase = WRITING;
	event_del(cl->ev_read);
	if (flush_out(cl)) {
		client_free(cl);
		return;
	}
	arm_timer(cl);		/* a fresh deadline for the reply */
	event_add(cl->ev_write, NULL);
}

static void
reply_error(struct client *cl, const char *msg)
{
	char buf[512];

	reply(cl, buf, control_format_error(msg, buf, sizeof(buf)));
}

static void
serve(struct client *cl, const char *line, size_t len)
{
	struct control *c = cl->c;
	struct control_req req;
	const char *err = NULL;
	char desc[64];
	int id;

	if (cl->refuse != NULL) {
		reply_error(cl, cl->refuse);
		return;
	}
	if (control_parse_request(line, len, &req, &err) == -1) {
		reply_error(cl, err);
		return;
	}
	switch (req.verb) {
	case CONTROL_STATUS: {
		char *buf = xmalloc(CONTROL_REPLY_MAX);
		size_t n = c->ops.status(c->ops.arg, buf, CONTROL_REPLY_MAX - 1);

		if (n == 0)
			reply_error(cl, "status unavailable");
		else
			reply(cl, buf, n);
		free(buf);
		return;
	}
	case CONTROL_RESCAN:
		if (c->ops.rescan(c->ops.arg, &err) == -1)
			reply_error(cl, err);
		else
			reply(cl, "{\"ok\":true}", strlen("{\"ok\":true}"));
		return;
	case CONTROL_CULL:
		goal_describe(&req.goal, desc, sizeof(desc));
		if ((id = c->ops.cull(c->ops.arg, &req.goal, &err)) < 0) {
			log_info("control: cull %s refused: %s", desc, err);
			reply_error(cl, err);
			return;
		}
		log_info("control: cull %s asked", desc);
		cl->goal = id;
		cl->phase = WAITING;
		evtimer_del(cl->ev_timer);	/* a cull may take minutes */
		control_poll(c);		/* perhaps met already */
		return;
	}
}

/*
 * Has the peer closed its end entirely?  A Unix stream socket reads EOF
 * both when the peer shut down its writing side (socat at the end of its
 * input, still reading) and when it closed; only the latter raises
 * POLLHUP.
 */
static int
peer_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR)) != 0;
}

static void
on_read(evutil_socket_t fd, short what, void *arg)
{
	struct client *cl = arg;
	char *nl;
	ssize_t n;
	size_t i;

	(void)what;
	if (cl->phase == WAITING) {
		char sink[256];

		/* Only the end of the connection matters now; anything sent is dropped. */
		n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0 && !peer_gone(fd)) {
			/* Done sending, still reading: the goal stands, its close is watched. */
			struct timeval tv = { HALF_CLOSED_CHECK_MS / 1000,
					      (HALF_CLOSED_CHECK_MS % 1000) * 1000 };

			cl->half_closed = 1;
			event_del(cl->ev_read);
			evtimer_add(cl->ev_timer, &tv);
			return;
		}
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			client_free(cl);
		return;
	}
	n = recv(fd, cl->in + cl->inlen, sizeof(cl->in) - cl->inlen, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n == 0 && cl->refuse != NULL)
			reply_error(cl, cl->refuse);
		else if (n == 0 && cl->inlen > 0)
			reply_error(cl, "incomplete request: no newline");
		else
			client_free(cl);
		return;
	}
	cl->inlen += (size_t)n;
	if ((nl = memchr(cl->in, '\n', cl->inlen)) != NULL) {
		serve(cl, cl->in, (size_t)(nl - cl->in));
		return;
	}
	if (cl->refuse != NULL) {
		if (cl->inlen == sizeof(cl->in))
			reply_error(cl, cl->refuse);
		return;
	}
	/* Refuse garbage at once rather than wait for a newline that may never come. */
	for (i = 0; i < cl->inlen; i++)
		if (cl->in[i] < 0x20 || cl->in[i] > 0x7e) {
			reply_error(cl, "request is not printable ASCII");
			return;
		}
	if (cl->inlen == sizeof(cl->in))
		reply_error(cl, "request too long");
}

static void
on_write(evutil_socket_t fd, short what, void *arg)
{
	struct client *cl = arg;

	(void)fd;
	(void)what;
	if (flush_out(cl))
		client_free(cl);
}

static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct client *cl = arg;

	(void)fd;
	(void)what;
	if (cl->phase == WAITING) {
		/* Armed only for a half-closed client: has it closed since? */
		struct timeval tv = { HALF_CLOSED_CHECK_MS / 1000,
				      (HALF_CLOSED_CHECK_MS % 1000) * 1000 };

		if (peer_gone(cl->fd))
			client_free(cl);	/* the goal is withdrawn */
		else
			evtimer_add(cl->ev_timer, &tv);
		return;
	}
	if (cl->phase == READING) {
		log_debug(1, "control: no request within %d s", CONTROL_TIMEOUT_MS / 1000);
		reply_error(cl, cl->refuse != NULL ? cl->refuse : "timed out waiting for the request");
	} else {
		log_debug(1, "control: reply not taken within %d s; abandoned",
			  CONTROL_TIMEOUT_MS / 1000);
		client_free(cl);
	}
}

/* Refuse without a slot: one best-effort write, then close. */
static void
refuse(int fd, const char *msg)
{
	char buf[256];
	size_t n = control_format_error(msg, buf, sizeof(buf) - 1);

	buf[n++] = '\n';
	if (send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug(1, "control: refusal not sent: %s", strerror(errno));
	discard_input(fd);	/* a request already sent: an end, not a reset */
	close(fd);
}

static void
on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct control *c = arg;
	struct client *cl;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	const char *why = NULL;
	size_t i, served = 0, slot = ARRAY_SIZE(c->clients);
	int fd;

	(void)what;
	if ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("control socket: accept");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(c->clients); i++) {
		if (c->clients[i] == NULL)
			slot = slot < i ? slot : i;
		else
			served += c->clients[i]->refuse == NULL;
	}
	if (served >= CONTROL_CLIENTS_MAX) {
		log_debug(1, "control: %d clients already; refused", CONTROL_CLIENTS_MAX);
		why = "too many clients";
	}
	if (slot == ARRAY_SIZE(c->clients)) {
		refuse(fd, "too many clients");
		return;
	}
	i = slot;
	cl = xcalloc(1, sizeof(*cl));
	cl->c = c;
	cl->fd = fd;
	cl->goal = -1;
	cl->phase = READING;
	cl->ev_read = event_new(c->base, fd, EV_READ | EV_PERSIST, on_read, cl);
	cl->ev_write = event_new(c->base, fd, EV_WRITE | EV_PERSIST, on_write, cl);
	cl->ev_timer = evtimer_new(c->base, on_timeout, cl);
	if (cl->ev_read == NULL || cl->ev_write == NULL || cl->ev_timer == NULL)
		fatalx("event loop: cannot add a control client");
	c->clients[i] = cl;
	arm_timer(cl);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1 || cred.uid != 0) {
		log_info("control: refused a client (uid %ld): only root is served",
			 clen == sizeof(cred) ? (long)cred.uid : -1L);
		why = "permission denied";
	}
	cl->refuse = why;
	event_add(cl->ev_read, NULL);
}

struct control *
control_new(struct event_base *base, int fd, const char *path, const struct control_ops *ops)
{
	struct control *c = xcalloc(1, sizeof(*c));

	c->base = base;
	c->fd = fd;
	c->ops = *ops;
	if (strlcpy_checked(c->path, path, sizeof(c->path)) == -1)
		c->path[0] = '\0';
	c->ev_accept = event_new(base, fd, EV_READ | EV_PERSIST, on_accept, c);
	if (c->ev_accept == NULL || event_add(c->ev_accept, NULL) == -1)
		fatalx("event loop: cannot watch the control socket");
	return c;
}

void
control_poll(struct control *c)
{
	struct engine_goal_report r;
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < ARRAY_SIZE(c->clients); i++) {
		struct client *cl = c->clients[i];
		const char *err = NULL;
		char buf[256];
		int st;

		if (cl == NULL || cl->phase != WAITING)
			continue;
		st = c->ops.poll(c->ops.arg, cl->goal, &r, &err);
		if (st == 0)
			continue;
		cl->goal = -1;		/* ended or gone: nothing to cancel */
		if (st < 0) {
			reply_error(cl, err);
			continue;
		}
		log_info("control: goal %s: culled %llu objects, %llu bytes in %llu ms",
			 r.state == ENGINE_GOAL_MET ? "met" : "exhausted",
			 (unsigned long long)r.culled, (unsigned long long)r.culled_bytes,
			 (unsigned long long)r.ms);
		reply(cl, buf, control_format_goal(&r, buf, sizeof(buf)));
	}
}

/*
 * The daemon stops (SIGTERM, a dead cache) while cl waits for its goal:
 * tell it so, in one non-blocking try, rather than close without a word
 * and log that it went away.  The engine goes too: nothing to cancel.
 */
static void
client_stopping(struct client *cl)
{
	static const char msg[] =
	    "{\"ok\":false,\"error\":\"the daemon is stopping; the goal is withdrawn\"}\n";

	memcpy(cl->out, msg, sizeof(msg) - 1);
	cl->outlen = sizeof(msg) - 1;
	cl->outoff = 0;
	(void)flush_out(cl);
	cl->goal = -1;
}

void
control_free(struct control *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < ARRAY_SIZE(c->clients); i++) {
		if (c->clients[i] == NULL)
			continue;
		if (c->clients[i]->phase == WAITING)
			client_stopping(c->clients[i]);
		client_free(c->clients[i]);
	}
	event_free(c->ev_accept);
	/*
	 * The name first: once the socket is closed, a new daemon may find the
	 * name stale and bind a socket of its own there, which an unlink after
	 * the close would then remove.
	 */
	if (c->path[0] != '\0' && unlink(c->path) == -1 && errno != ENOENT)
		log_warn("control socket %s: unlink", c->path);
	close(c->fd);
	free(c);
}
