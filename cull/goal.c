// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * goal.c: resolving and checking goals.  Sizes become whole blocks rounded
 * up, so that "free N bytes" never stops short by a fraction of a block.
 */
#include "cull/goal.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

static uint64_t
div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

int
goal_resolve(const struct goal *g, const struct fsfree *f,
	     const struct target *run, uint64_t now_ns, uint64_t now_ms,
	     struct goal_active *out)
{
	uint64_t bsize = f->bsize ? f->bsize : 4096;

	memset(out, 0, sizeof(*out));
	out->asked = *g;
	out->since_ms = now_ms;
	switch (g->kind) {
	case GOAL_RUN_LIMITS:
		out->t = *run;
		return 0;
	case GOAL_FREE_PCT:
		if (g->value == 0 || g->value > 100)
			return -1;
		/* blocks * pct / 100, rounded up, without overflow */
		out->t.bavail = f->blocks / 100 * g->value +
		    div_up(f->blocks % 100 * g->value, 100);
		return 0;
	case GOAL_BYTES:
		if (g->value == 0)
			return -1;
		out->t.bavail = u64_sat_add(f->bavail, div_up(g->value, bsize));
		return 0;
	case GOAL_OLDER_THAN:
		if (g->value == 0)
			return -1;
		out->before_ns = g->value < now_ns / 1000000000u ?
		    now_ns - g->value * 1000000000u : 0;
		return 0;
	case GOAL_NONE:
		break;
	}
	return -1;
}

int
goal_met(const struct goal_active *a, const struct fsfree *f, uint64_t next_atime_ns)
{
	if (a->asked.kind == GOAL_OLDER_THAN)
		return next_atime_ns == 0 || next_atime_ns >= a->before_ns;
	return target_met(&a->t, f);
}

int
goal_wants(const struct goal_active *a, const struct fsfree *f, uint64_t atime_ns)
{
	if (a->asked.kind == GOAL_OLDER_THAN)
		return atime_ns < a->before_ns;
	return !target_met(&a->t, f);
}

const char *
goal_describe(const struct goal *g, char *buf, unsigned len)
{
	unsigned long long v = (unsigned long long)g->value;

	switch (g->kind) {
	case GOAL_RUN_LIMITS:
		snprintf(buf, len, "to-run");
		break;
	case GOAL_FREE_PCT:
		snprintf(buf, len, "free %llu%%", v);
		break;
	case GOAL_BYTES:
		snprintf(buf, len, "bytes %llu", v);
		break;
	case GOAL_OLDER_THAN:
		snprintf(buf, len, "older-than %llus", v);
		break;
	case GOAL_NONE:
		snprintf(buf, len, "none");
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}
