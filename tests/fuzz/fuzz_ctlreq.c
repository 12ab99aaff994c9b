// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_ctlreq.c: the control socket's request parser,
 * control_parse_request(), fed any bytes a client could send.
 *
 * Properties: it never reads past len (libFuzzer's copy is exactly len
 * bytes); a refusal always says why; an accepted request is one of the
 * documented verbs, a cull's goal is in its documented range, and the
 * request written back in its canonical words parses to the same thing.
 */
#include "tests/fuzz/fuzz.h"
#include "daemon/control.h"
#include "cull/goal.h"

#include <inttypes.h>
#include <string.h>

static const char *const kind_words[] = {
	[GOAL_RUN_LIMITS] = "to-run",
	[GOAL_FREE_PCT] = "free",
	[GOAL_BYTES] = "bytes",
	[GOAL_OLDER_THAN] = "older-than",
};

static size_t
canonical(const struct control_req *r, char *buf, size_t size)
{
	int n;

	switch (r->verb) {
	case CONTROL_STATUS:
		n = snprintf(buf, size, "status");
		break;
	case CONTROL_RESCAN:
		n = snprintf(buf, size, "rescan");
		break;
	case CONTROL_CULL:
		if (r->goal.kind == GOAL_RUN_LIMITS)
			n = snprintf(buf, size, "cull to-run");
		else
			n = snprintf(buf, size, "cull %s %" PRIu64, kind_words[r->goal.kind],
				     r->goal.value);
		break;
	default:
		n = -1;
	}
	FUZZ_CHECK(n > 0 && (size_t)n < size, "verb %d", (int)r->verb);
	return (size_t)n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct control_req req, again;
	const char *err = NULL;
	char line[128];
	size_t n;

	memset(&req, 0, sizeof(req));
	if (control_parse_request((const char *)data, size, &req, &err) != 0) {
		FUZZ_CHECK(err != NULL && err[0] != '\0', "a refusal without a reason");
		return 0;
	}
	FUZZ_CHECK(req.verb == CONTROL_STATUS || req.verb == CONTROL_RESCAN ||
		   req.verb == CONTROL_CULL, "verb %d", (int)req.verb);
	if (req.verb == CONTROL_CULL) {
		FUZZ_CHECK(req.goal.kind != GOAL_NONE &&
			   (unsigned)req.goal.kind <= GOAL_OLDER_THAN, "goal kind %d",
			   (int)req.goal.kind);
		if (req.goal.kind == GOAL_FREE_PCT)
			FUZZ_CHECK(req.goal.value >= 1 && req.goal.value <= 100,
				   "free %" PRIu64, req.goal.value);
		if (req.goal.kind == GOAL_BYTES || req.goal.kind == GOAL_OLDER_THAN)
			FUZZ_CHECK(req.goal.value > 0, "a zero %s", kind_words[req.goal.kind]);
	}
	n = canonical(&req, line, sizeof(line));
	memset(&again, 0, sizeof(again));
	FUZZ_CHECK(control_parse_request(line, n, &again, &err) == 0,
		   "the canonical form \"%s\" is refused: %s", line, err);
	FUZZ_CHECK(again.verb == req.verb && (req.verb != CONTROL_CULL ||
		   (again.goal.kind == req.goal.kind && again.goal.value == req.goal.value)),
		   "\"%s\" parses otherwise", line);
	return 0;
}
