// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kernel.c: the kernel channel.  State-line parsing edge cases,
 * kernel_explain(), and the channel itself against a scripted peer that
 * speaks the simulator's socket protocol (docs/simulator-protocol.md),
 * reached through the simulator's transport (tests/sim/simtransport.c):
 * command order, error handling, "N" messages and the poll descriptor's
 * readiness, name checks, dead-cache probing, EBUSY/EPERM at open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "kernel/channel.h"
#include "kernel/transport.h"
#include "lib/kcmd.h"
#include "lib/log.h"
#include "tests/sim/simtransport.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FULL "cull=0 frun=1b58 fcull=1388 fstop=3e8 brun=c350 bcull=8ca0 bstop=1f40 " \
	     "freleased=3 breleased=18"

static int
parse(const char *line, struct kstate *st)
{
	return kstate_parse(line, strlen(line), st);
}

static void
test_parse_full(void **state)
{
	struct kstate st;

	(void)state;
	assert_int_equal(parse(FULL, &st), 0);
	assert_int_equal(st.cull, 0);
	assert_int_equal(st.frun, 0x1b58);
	assert_int_equal(st.fcull, 0x1388);
	assert_int_equal(st.fstop, 0x3e8);
	assert_int_equal(st.brun, 0xc350);
	assert_int_equal(st.bcull, 0x8ca0);
	assert_int_equal(st.bstop, 0x1f40);
	assert_int_equal(st.freleased, 3);
	assert_int_equal(st.breleased, 0x18);
	assert_true(st.has_released);
	assert_int_equal(parse("cull=1 frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1", &st), 0);
	assert_int_equal(st.cull, 1);
}

static void
test_parse_old_kernel(void **state)
{
	struct kstate st;

	(void)state;
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(parse("cull=1 frun=a fcull=8 fstop=2 brun=64 bcull=32 bstop=a", &st), 0);
	assert_false(st.has_released);
	assert_int_equal(st.freleased, 0);
	assert_int_equal(st.breleased, 0);
	assert_int_equal(st.brun, 100);
	/* Only one of the two counters: not trusted as a pair. */
	assert_int_equal(parse("cull=0 frun=a fcull=8 fstop=2 brun=64 bcull=32 bstop=a freleased=4", &st), 0);
	assert_false(st.has_released);
}

static void
test_parse_unknown_keys(void **state)
{
	struct kstate st;

	(void)state;
	assert_int_equal(parse("future=zz " FULL " other=1,2,3", &st), 0);
	assert_int_equal(st.brun, 0xc350);
	/* An unknown key still has to look like key=value. */
	assert_int_equal(parse(FULL " future", &st), -1);
	assert_int_equal(parse(FULL " =5", &st), -1);
	/* ... with a value: nothing after the '=' is no token either. */
	assert_int_equal(parse(FULL " future=", &st), -1);
}

static void
test_parse_garbage(void **state)
{
	static const char *const bad[] = {
		"",
		"   ",
		"garbage",
		"cull=0 frun 7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",	/* no '=' */
		"cull=0 frun= fcull=5 fstop=1 brun=7 bcull=5 bstop=1",	/* empty value */
		"cull=2 frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",	/* cull not 0/1 */
		"cull=01 frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",
		"cull=0 frun=0x7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",	/* prefix */
		"cull=0 frun=-7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",
		"cull=0 frun=7g fcull=5 fstop=1 brun=7 bcull=5 bstop=1",
		"cull=0 frun=7 fcull=5 fstop=1 brun=7 bcull=5",		/* bstop missing */
		"frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1",		/* cull missing */
		"cull=0 frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1 breleased=zz",
	};
	struct kstate st;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &st) != -1)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
}

static void
test_parse_numbers(void **state)
{
	struct kstate st;

	(void)state;
	/* 16 hex digits is the most a 64-bit value has. */
	assert_int_equal(parse("cull=0 frun=ffffffffffffffff fcull=5 fstop=1 brun=7 bcull=5 bstop=1", &st), 0);
	assert_true(st.frun == UINT64_MAX);
	assert_int_equal(parse("cull=0 frun=10000000000000000 fcull=5 fstop=1 brun=7 bcull=5 bstop=1", &st), -1);
	assert_int_equal(parse("cull=0 frun=7 fcull=5 fstop=1 brun=7 bcull=5 bstop=1 breleased=00000000000000001", &st), -1);
	/* Upper-case hex is accepted although the kernel prints lower case. */
	assert_int_equal(parse("cull=0 frun=ABCDEF fcull=5 fstop=1 brun=7 bcull=5 bstop=1", &st), 0);
	assert_int_equal(st.frun, 0xabcdef);
}

static void
test_parse_duplicates(void **state)
{
	struct kstate st;

	(void)state;
	assert_int_equal(parse(FULL " frun=1", &st), -1);
	assert_int_equal(parse(FULL " cull=1", &st), -1);
	assert_int_equal(parse(FULL " breleased=1", &st), -1);
	/* Unknown keys may repeat: they are ignored anyway. */
	assert_int_equal(parse(FULL " x=1 x=2", &st), 0);
}

static void
test_parse_bounds(void **state)
{
	static const char nul[] = "cull=0 frun=7 fcull=5 fstop=1 brun=7\0 bcull=5 bstop=1";
	/* In an unknown key's value, which no number parse would refuse. */
	static const char nul_unknown[] = FULL " future=a\0b";
	struct kstate st;

	(void)state;
	/* A trailing newline is tolerated; an embedded NUL is not. */
	assert_int_equal(parse(FULL "\n", &st), 0);
	assert_int_equal(kstate_parse(nul, sizeof(nul) - 1, &st), -1);
	assert_int_equal(kstate_parse(nul_unknown, sizeof(nul_unknown) - 1, &st), -1);
	/* Only len bytes count: cutting the line drops bstop. */
	assert_int_equal(kstate_parse(FULL, strlen("cull=0 frun=1b58 fcull=1388 fstop=3e8 brun=c350 bcull=8ca0"), &st), -1);
	/* Cutting inside a value changes it, within bounds. */
	assert_int_equal(kstate_parse(FULL, strlen(FULL) - 1, &st), 0);
	assert_int_equal(st.breleased, 1);
}

static void
test_explain(void **state)
{
	(void)state;
	assert_non_null(strstr(kernel_explain("bind", EOPNOTSUPP), "xattr"));
	assert_non_null(strstr(kernel_explain("bind", EOPNOTSUPP), "secctx"));
	assert_non_null(strstr(kernel_explain("bind", ENOENT), "missing"));
	assert_non_null(strstr(kernel_explain("secctx", ENOENT), "SELinux"));
	assert_non_null(strstr(kernel_explain("secctx", EOPNOTSUPP), "SELinux"));
	assert_non_null(strstr(kernel_explain("bind", EROFS), "read-only"));
	assert_non_null(strstr(kernel_explain("bind", EBUSY), "already bound"));
	assert_non_null(strstr(kernel_explain("brun", EINVAL), "stop < cull < run"));
	assert_non_null(strstr(kernel_explain("fstop", EINVAL), "stop < cull < run"));
	assert_non_null(strstr(kernel_explain("dir", EEXIST), "already"));
	assert_non_null(strstr(kernel_explain("open", EPERM), "CAP_SYS_ADMIN"));
	assert_non_null(strstr(kernel_explain("open", EBUSY), "withdrawing"));
	assert_non_null(strstr(kernel_explain("frun", EIO), "dead"));
	assert_string_equal(kernel_explain("bind", -EROFS), kernel_explain("bind", EROFS));
	assert_string_equal(kernel_explain("bind", 12345), "unexpected error");
}

/* ---- a scripted peer speaking the simulator protocol ---- */

#define MAXMSG 64

static struct peer {
	char path[108];
	int lfd;
	pthread_t thr;
	int greet[4];		/* errno sent to successive connections; then 0 */
	int nconn;
	volatile int quit;
	char fail_prefix[32];	/* a W message starting with this ... */
	int fail_errno;		/* ... gets this errno */
	int probe_errno;	/* reply to "tag" (after bind, the daemon's probe) */
	int send_n;		/* send "N" before each reply */
	char line[256];		/* the state line for R */
	char msgs[MAXMSG][320];	/* a command with the longest name fits */
	int nmsgs;
	pthread_mutex_t lock;
} peer;

static void
reply(int fd, const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	(void)!send(fd, buf, (size_t)n, MSG_NOSIGNAL);
}

static int
answer(const char *m, size_t n)
{
	if (peer.fail_prefix[0] != '\0' && n - 1 >= strlen(peer.fail_prefix) &&
	    strncmp(m + 1, peer.fail_prefix, strlen(peer.fail_prefix)) == 0)
		return peer.fail_errno;
	if (strncmp(m + 1, "tag ", 4) == 0)
		return peer.probe_errno;
	return 0;
}

static void
serve_conn(int fd)
{
	char m[5000];
	ssize_t n;

	while ((n = recv(fd, m, sizeof(m) - 1, 0)) > 0) {
		m[n] = '\0';
		pthread_mutex_lock(&peer.lock);
		if (peer.nmsgs < MAXMSG) {
			size_t len = (size_t)n < sizeof(peer.msgs[0]) - 1 ?
			    (size_t)n : sizeof(peer.msgs[0]) - 1;

			memcpy(peer.msgs[peer.nmsgs], m, len);
			peer.msgs[peer.nmsgs++][len] = '\0';
		}
		pthread_mutex_unlock(&peer.lock);
		if (peer.send_n)
			reply(fd, "N");
		if (m[0] == 'W') {
			reply(fd, "E%d", answer(m, (size_t)n));
		} else if (m[0] == 'R') {
			reply(fd, "D%s", peer.line);
		}
	}
}

static void *
peer_main(void *arg)
{
	int fd, err;

	(void)arg;
	while ((fd = accept(peer.lfd, NULL, NULL)) >= 0) {
		if (peer.quit) {
			close(fd);
			break;
		}
		err = peer.nconn < 4 ? peer.greet[peer.nconn] : 0;
		peer.nconn++;
		reply(fd, "E%d", err);
		if (err == 0)
			serve_conn(fd);
		close(fd);
	}
	return NULL;
}

static int
peer_setup(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	(void)state;
	memset(&peer, 0, sizeof(peer));
	pthread_mutex_init(&peer.lock, NULL);
	snprintf(peer.path, sizeof(peer.path), "/tmp/test_kernel.%ld.sock", (long)getpid());
	unlink(peer.path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", peer.path);
	peer.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (peer.lfd < 0 || bind(peer.lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(peer.lfd, 4) < 0)
		return -1;
	setenv(SIM_DEVICE_ENV, peer.path, 1);
	strcpy(peer.line, FULL);
	return 0;
}

static void
peer_start(void)
{
	assert_int_equal(pthread_create(&peer.thr, NULL, peer_main, NULL), 0);
}

static int
peer_teardown(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	(void)state;
	/* Wake the peer's accept() with a last connection that tells it to go. */
	peer.quit = 1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", peer.path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 && peer.thr)
		pthread_join(peer.thr, NULL);
	if (fd >= 0)
		close(fd);
	close(peer.lfd);
	unlink(peer.path);
	unsetenv(SIM_DEVICE_ENV);
	return 0;
}

/* Wait until the peer has logged n messages (it runs in its own thread). */
static int
peer_msgs(int n)
{
	int i, got = 0;

	for (i = 0; i < 200 && got < n; i++) {
		pthread_mutex_lock(&peer.lock);
		got = peer.nmsgs;
		pthread_mutex_unlock(&peer.lock);
		if (got < n)
			usleep(5000);
	}
	return got;
}

static void
test_configure_order(void **state)
{
	/*
	 * Written out by hand, not asked of config_limit_commands(): run raised
	 * to 99% and stop lowered to 0% first, so that any final values are
	 * accepted whatever the kernel held before, then cull, run, stop.
	 */
	static const char *const lim[] = {
		"brun 99%", "bstop 0%", "bcull 10%", "brun 20%", "bstop 5%",
		"frun 99%", "fstop 0%", "fcull 5%", "frun 7%", "fstop 1%",
	};
	const int n = (int)(sizeof(lim) / sizeof(lim[0]));
	struct config cfg;
	struct kchan *k;
	int i;

	(void)state;
	peer_start();
	config_defaults(&cfg);
	strcpy(cfg.dir, "/var/cache/fscache");
	strcpy(cfg.tag, "mycache");
	strcpy(cfg.secctx, "system_u:system_r:cachefiles_kernel_t:s0");
	cfg.debug = 7;
	cfg.limit[LIM_BRUN] = 20;
	cfg.limit[LIM_BCULL] = 10;
	cfg.limit[LIM_BSTOP] = 5;
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_configure(k, &cfg), 0);
	assert_int_equal(kernel_bind(k), 0);
	assert_int_equal(peer_msgs(5 + n), 5 + n);
	assert_string_equal(peer.msgs[0], "Wdir /var/cache/fscache");
	assert_string_equal(peer.msgs[1], "Wtag mycache");
	assert_string_equal(peer.msgs[2], "Wsecctx system_u:system_r:cachefiles_kernel_t:s0");
	assert_string_equal(peer.msgs[3], "Wdebug 0x7");
	for (i = 0; i < n; i++)
		assert_string_equal(peer.msgs[4 + i] + 1, lim[i]);
	assert_string_equal(peer.msgs[4 + n], "Wbind");
	kernel_close(k);
}

static void
test_configure_minimal(void **state)
{
	struct config cfg;
	struct kchan *k;

	(void)state;
	peer_start();
	config_defaults(&cfg);
	strcpy(cfg.dir, "/c");
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_configure(k, &cfg), 0);
	kernel_close(k);
	peer_msgs(1);
	/* No tag, secctx or debug lines when they were not given. */
	assert_string_equal(peer.msgs[0], "Wdir /c");
	assert_true(peer.nmsgs < 2 || strncmp(peer.msgs[1], "Wtag", 4) != 0);
	assert_true(peer.nmsgs < 2 || strncmp(peer.msgs[1], "Wsecctx", 7) != 0);
	assert_true(peer.nmsgs < 2 || strncmp(peer.msgs[1], "Wdebug", 6) != 0);
}

/*
 * "debug 0" written in the file goes to the kernel although it is the
 * default: it clears a mask an earlier instance left set.
 */
static void
test_configure_debug_zero(void **state)
{
	static const char text[] = "dir /c\ndebug 0\n";
	struct config cfg;
	struct kchan *k;

	(void)state;
	peer_start();
	config_defaults(&cfg);
	assert_int_equal(config_parse_buffer(&cfg, "t.conf", text, sizeof(text) - 1, NULL, NULL), 0);
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_configure(k, &cfg), 0);
	kernel_close(k);
	assert_true(peer_msgs(2) >= 2);
	assert_string_equal(peer.msgs[0], "Wdir /c");
	assert_string_equal(peer.msgs[1], "Wdebug 0");
}

static void
test_configure_failure_stops(void **state)
{
	struct config cfg;
	struct kchan *k;

	(void)state;
	strcpy(peer.fail_prefix, "tag");
	peer.fail_errno = EEXIST;
	peer_start();
	config_defaults(&cfg);
	strcpy(cfg.dir, "/c");
	strcpy(cfg.tag, "t");
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_configure(k, &cfg), -EEXIST);
	kernel_close(k);
	/* Nothing after the refused command. */
	assert_int_equal(peer_msgs(2), 2);
	usleep(20000);
	assert_int_equal(peer.nmsgs, 2);
}

static void
test_bind_error(void **state)
{
	struct kchan *k;

	(void)state;
	strcpy(peer.fail_prefix, "bind");
	peer.fail_errno = EOPNOTSUPP;
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_bind(k), -EOPNOTSUPP);
	kernel_close(k);
}

/* Is the channel's poll descriptor readable now? */
static int
readable(const struct kchan *k)
{
	struct pollfd p = { .fd = kernel_fd(k), .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void
test_state_and_changes(void **state)
{
	struct kstate st;
	struct kchan *k;

	(void)state;
	peer.send_n = 1;
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_false(readable(k));
	assert_int_equal(kernel_cmd(k, "tag x"), 0);
	assert_true(readable(k));		/* the N before the reply */
	assert_true(readable(k));		/* ... until the state is read */
	assert_int_equal(kernel_read_state(k, &st), 0);
	assert_int_equal(st.bcull, 0x8ca0);
	assert_false(readable(k));		/* a read clears it */
	assert_int_equal(kernel_cmd(k, "tag y"), 0);
	assert_int_equal(kernel_cmd(k, "tag z"), 0);	/* a second N while pending */
	assert_true(readable(k));
	assert_int_equal(kernel_read_state(k, &st), 0);
	assert_false(readable(k));		/* one read clears both */
	strcpy(peer.line, "");
	assert_int_equal(kernel_read_state(k, &st), -ENODATA);
	strcpy(peer.line, "nonsense");
	assert_int_equal(kernel_read_state(k, &st), -EBADMSG);
	kernel_close(k);
}

/* An N queued on the socket, not yet met by any request, also makes the descriptor readable. */
static void
test_queued_change(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct kstate st;
	struct kchan *k;
	int lfd, cfd, status;
	char m[64];
	pid_t pid;

	(void)state;
	/* A peer of our own, driven step by step from this thread. */
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/tmp/test_kernel.q.%ld.sock", (long)getpid());
	unlink(sun.sun_path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cfd = accept(lfd, NULL, NULL);
		reply(cfd, "E0");
		reply(cfd, "N");
		if (recv(cfd, m, sizeof(m), 0) > 0)
			reply(cfd, "D%s", FULL);
		/* wait for the close */
		while (recv(cfd, m, sizeof(m), 0) > 0)
			;
		_exit(0);
	}
	k = kernel_open(&ktransport_sim, sun.sun_path, 0);
	assert_non_null(k);
	{
		struct pollfd p = { .fd = kernel_fd(k), .events = POLLIN };

		assert_int_equal(poll(&p, 1, 2000), 1);	/* the queued N */
	}
	assert_int_equal(kernel_read_state(k, &st), 0);
	assert_false(readable(k));
	kernel_close(k);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(lfd);
	unlink(sun.sun_path);
}

static void
test_cmd_checks(void **state)
{
	char longname[300];
	struct kchan *k;

	(void)state;
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	memset(longname, 'a', 256);
	longname[256] = '\0';
	assert_int_equal(kernel_cull(k, ""), -EINVAL);
	assert_int_equal(kernel_cull(k, "."), -EINVAL);
	assert_int_equal(kernel_cull(k, ".."), -EINVAL);
	assert_int_equal(kernel_cull(k, "a/b"), -EINVAL);
	assert_int_equal(kernel_cull(k, " lead"), -EINVAL);
	assert_int_equal(kernel_cull(k, "new\nline"), -EINVAL);
	assert_int_equal(kernel_inuse(k, longname), -EINVAL);
	assert_int_equal(kernel_cmd(k, "dir a\nbind"), -EINVAL);
	/* None of those reached the device. */
	assert_int_equal(peer.nmsgs, 0);
	longname[255] = '\0';
	assert_int_equal(kernel_inuse(k, longname), 0);
	assert_int_equal(kernel_cull(k, "Dkey"), 0);
	assert_int_equal(peer_msgs(2), 2);
	/* The longest name goes whole: word, one blank, every byte of the name. */
	assert_int_equal(strlen(peer.msgs[0]), strlen("Winuse ") + 255);
	assert_memory_equal(peer.msgs[0], "Winuse aaaa", 11);
	assert_string_equal(peer.msgs[0] + 7, longname);
	assert_string_equal(peer.msgs[1], "Wcull Dkey");
	kernel_close(k);
}

/* The longest command the kernel takes, KCMD_MAX bytes, goes whole; one byte more does not go. */
static void
test_cmd_longest(void **state)
{
	char cmd[KCMD_MAX + 2];
	struct kchan *k;
	int over, longest, sent;

	(void)state;
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	memcpy(cmd, "tag ", 4);
	memset(cmd + 4, 'a', KCMD_MAX + 1 - 4);
	cmd[KCMD_MAX + 1] = '\0';
	over = kernel_cmd(k, "%s", cmd);
	cmd[KCMD_MAX] = '\0';
	longest = kernel_cmd(k, "%s", cmd);
	/* Each write waits for its reply: the peer has logged all it got. */
	sent = peer.nmsgs;
	/* Checked once closed: the peer's thread ends only with the connection. */
	kernel_close(k);
	assert_int_equal(over, -E2BIG);
	assert_int_equal(longest, 0);
	assert_int_equal(sent, 1);
	assert_memory_equal(peer.msgs[0], "Wtag aaaa", 9);
}

static void
test_dead_probe(void **state)
{
	struct kchan *k;

	(void)state;
	strcpy(peer.fail_prefix, "cull");
	peer.fail_errno = EIO;
	peer.probe_errno = EEXIST;	/* alive: the EIO was about the name */
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 0);
	assert_non_null(k);
	assert_int_equal(kernel_cmd(k, "dir /c"), 0);
	assert_int_equal(kernel_cull(k, "x"), -EIO);
	assert_false(kernel_dead(k));
	peer.probe_errno = EIO;		/* now every command fails: dead */
	assert_int_equal(kernel_cull(k, "x"), -EIO);
	assert_true(kernel_dead(k));
	/* The probe is "tag", which the kernel does not log, never "dir". */
	assert_string_equal(peer.msgs[peer.nmsgs - 1], "Wtag CacheFiles");
	kernel_close(k);
}

static void
test_open_busy_then_free(void **state)
{
	struct kchan *k;

	(void)state;
	peer.greet[0] = EBUSY;
	peer.greet[1] = EBUSY;
	peer_start();
	k = kernel_open(&ktransport_sim, NULL, 5000);
	assert_non_null(k);
	assert_int_equal(peer.nconn, 3);
	kernel_close(k);
}

static void
test_open_busy_gives_up(void **state)
{
	(void)state;
	peer.greet[0] = EBUSY;
	peer_start();
	assert_null(kernel_open(&ktransport_sim, NULL, 0));
	assert_int_equal(peer.nconn, 1);
}

static void
test_open_eperm(void **state)
{
	(void)state;
	peer.greet[0] = EPERM;
	peer.greet[1] = EPERM;
	peer_start();
	/* EPERM is not retried, whatever the busy wait. */
	assert_null(kernel_open(&ktransport_sim, NULL, 5000));
	assert_int_equal(peer.nconn, 1);
}

static void
test_open_missing(void **state)
{
	(void)state;
	setenv(SIM_DEVICE_ENV, "/nonexistent/cachefiles-test", 1);
	assert_null(kernel_open(&ktransport_sim, NULL, 0));
	unsetenv(SIM_DEVICE_ENV);
	assert_null(kernel_open(&ktransport_sim, NULL, 0));	/* no path at all */
	assert_null(kernel_open(&ktransport_sim, "/nonexistent/cachefiles-test", 0));
	/* The device transport loads the module only for /dev/cachefiles. */
	assert_null(kernel_open(&ktransport_device, "/nonexistent/cachefiles-test", 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_old_kernel),
		cmocka_unit_test(test_parse_unknown_keys),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_duplicates),
		cmocka_unit_test(test_parse_bounds),
		cmocka_unit_test(test_explain),
		cmocka_unit_test_setup_teardown(test_configure_order, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_configure_minimal, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_configure_debug_zero, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_configure_failure_stops, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_bind_error, peer_setup, peer_teardown),
		cmocka_unit_test(test_queued_change),
		cmocka_unit_test_setup_teardown(test_state_and_changes, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_checks, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_longest, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_dead_probe, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_open_busy_then_free, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_open_busy_gives_up, peer_setup, peer_teardown),
		cmocka_unit_test_setup_teardown(test_open_eperm, peer_setup, peer_teardown),
		cmocka_unit_test(test_open_missing),
	};

	log_init("test_kernel", 1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
