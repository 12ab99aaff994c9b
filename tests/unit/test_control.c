// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_control.c: the control socket's client against stand-in servers
 * (forked children): a reply, a reply in pieces, silence, a hang-up, an
 * oversized reply, and no server at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cull/control.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], path[96];
static pid_t child;

enum mode { REPLY, PIECES, SILENT, HANGUP, HUGE };

/* Serve one connection as mode says; the request seen is echoed in the reply. */
static void
serve(enum mode m)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char req[CONTROL_REQUEST_MAX + 1] = "";
	int l, c;
	ssize_t n;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(l, 1), 0);
	child = fork();
	assert_true(child >= 0);
	if (child > 0) {
		close(l);
		return;
	}
	c = accept(l, NULL, NULL);
	n = read(c, req, sizeof(req) - 1);
	req[n > 0 ? n - 1 : 0] = '\0';	/* drop the newline */
	switch (m) {
	case REPLY:
		dprintf(c, "{\"ok\":true,\"req\":\"%s\"}\n", req);
		break;
	case PIECES:
		dprintf(c, "{\"ok\":");
		usleep(100000);
		dprintf(c, "false,\"error\":\"no\"}\nignored");
		break;
	case SILENT:
		sleep(5);
		break;
	case HANGUP:
		dprintf(c, "{\"ok\":tr");
		break;
	case HUGE:
		for (int i = 0; i < CONTROL_REPLY_MAX; i++)
			dprintf(c, "x");
		dprintf(c, "\n");
		break;
	}
	_exit(0);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_control.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/control", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	unlink(path);
	return rmdir(dir);
}

static void
test_reply(void **state)
{
	char r[CONTROL_REPLY_MAX];

	(void)state;
	serve(REPLY);
	assert_int_equal(control_call(path, "status", r, sizeof(r), 2000), 0);
	assert_string_equal(r, "{\"ok\":true,\"req\":\"status\"}");
}

static void
test_pieces(void **state)
{
	char r[CONTROL_REPLY_MAX];

	(void)state;
	serve(PIECES);
	assert_int_equal(control_call(path, "cull free 80", r, sizeof(r), 0), 0);
	assert_string_equal(r, "{\"ok\":false,\"error\":\"no\"}");
}

static void
test_timeout(void **state)
{
	char r[64];

	(void)state;
	serve(SILENT);
	assert_int_equal(control_call(path, "status", r, sizeof(r), 200), -1);
	assert_int_equal(errno, ETIMEDOUT);
}

static void
test_hangup_and_huge(void **state)
{
	char r[CONTROL_REPLY_MAX];

	(void)state;
	serve(HANGUP);
	assert_int_equal(control_call(path, "status", r, sizeof(r), 2000), -1);
	assert_int_equal(errno, EPROTO);
	waitpid(child, NULL, 0);
	child = 0;
	unlink(path);
	serve(HUGE);
	assert_int_equal(control_call(path, "status", r, sizeof(r), 2000), -1);
	assert_int_equal(errno, EPROTO);
}

static void
test_no_server_and_bad_request(void **state)
{
	char r[64], big[CONTROL_REQUEST_MAX + 8];

	(void)state;
	assert_int_equal(control_call(path, "status", r, sizeof(r), 100), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(control_call(path, "two\nlines", r, sizeof(r), 100), -1);
	assert_int_equal(errno, EINVAL);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(control_call(path, big, r, sizeof(r), 100), -1);
	assert_int_equal(errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hangup_and_huge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_server_and_bad_request, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
