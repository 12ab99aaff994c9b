// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simfault.c: fault injection for the kernel simulator.
 *
 * A rule names the operations it applies to, what it does to them and when:
 *
 *   OP ACTION... [nth=N | every=K] [p=P seed=S] [match=WORD] [count=C]
 *
 * OP is "read", "write" (any command), "any" (both), "probe" (the daemon's
 * liveness probe, a "tag" command after bind, which no other rule touches)
 * or a command word ("cull", "inuse", "bind", ...).  ACTION is an errno (a
 * name such as EBUSY or a number), "malformed" (reads: a state line no
 * parser accepts) and/or "slow=MS" (the reply waits MS ms; "50ms" works).
 * Without a schedule a rule fires on every operation it matches; nth=N fires
 * once, on the Nth match from now; every=K on every Kth; p=P with a seed
 * fires with probability P from a generator of its own (splitmix64), so a
 * run is reproducible whatever other rules do; count=C ends a rule after C
 * faults.  match=WORD limits a rule to commands whose text contains WORD.
 *
 * An injected error replaces the operation: the command is not carried out,
 * and a read has no side effects (the released counters and the
 * state-changed flag are kept).  Every fault is logged as "FAULT: ...".
 */
#include "tests/sim/sim.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RULES_MAX 16
#define SLOW_MAX_MS 10000

struct rule {
	char op[16];
	int err;			/* errno to give, 0 none */
	int malformed;			/* reads: a malformed line */
	unsigned slow_ms;
	unsigned long nth, every, count;
	int has_p;
	double p;
	uint64_t seed, rng;
	char match[64];
	unsigned long seen, hits;
	char text[192];			/* the rule as given, for the log */
};

static struct rule rules[RULES_MAX];
static int nrules;
static unsigned long injected;

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int
errno_named(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s >= '0' && *s <= '9' && *end == '\0' && v > 0 && v < 4096)
		return (int)v;
	for (int e = 1; e < 200; e++) {
		const char *name = strerrorname_np(e);

		if (name != NULL && strcmp(name, s) == 0)
			return e;
	}
	return -1;
}

static int
parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*v = strtoul(s, &end, 10);
	return *end == '\0' ? 0 : -1;
}

/* Parse one rule; 0, or -1 with a reason in why. */
static int
parse_rule(const char *spec, struct rule *r, char *why, size_t whysz)
{
	char buf[192], *save = NULL, *tok;
	int first = 1, action = 0;

	memset(r, 0, sizeof(*r));
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(why, whysz, "rule too long");
		return -1;
	}
	snprintf(r->text, sizeof(r->text), "%s", spec);
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long v;

		if (first) {
			if (strlen(tok) >= sizeof(r->op) || eq != NULL) {
				snprintf(why, whysz, "bad operation %s", tok);
				return -1;
			}
			snprintf(r->op, sizeof(r->op), "%s", tok);
			first = 0;
			continue;
		}
		if (eq == NULL) {
			if (strcmp(tok, "malformed") == 0) {
				r->malformed = 1;
			} else if ((r->err = errno_named(tok)) < 0) {
				snprintf(why, whysz, "unknown errno %s", tok);
				return -1;
			}
			action = 1;
			continue;
		}
		*eq++ = '\0';
		if (strcmp(tok, "slow") == 0) {
			char *end;

			v = strtoul(eq, &end, 10);
			if (end == eq || (*end != '\0' && strcmp(end, "ms") != 0) || v > SLOW_MAX_MS) {
				snprintf(why, whysz, "slow=MS, at most %d", SLOW_MAX_MS);
				return -1;
			}
			r->slow_ms = (unsigned)v;
			action = 1;
		} else if (strcmp(tok, "nth") == 0) {
			if (parse_ulong(eq, &r->nth) < 0 || r->nth == 0)
				goto bad;
		} else if (strcmp(tok, "every") == 0) {
			if (parse_ulong(eq, &r->every) < 0 || r->every == 0)
				goto bad;
		} else if (strcmp(tok, "count") == 0) {
			if (parse_ulong(eq, &r->count) < 0 || r->count == 0)
				goto bad;
		} else if (strcmp(tok, "seed") == 0) {
			if (parse_ulong(eq, &v) < 0)
				goto bad;
			r->seed = v;
		} else if (strcmp(tok, "p") == 0) {
			char *end;

			r->p = strtod(eq, &end);
			if (end == eq || *end != '\0' || !(r->p >= 0.0 && r->p <= 1.0))
				goto bad;
			r->has_p = 1;
		} else if (strcmp(tok, "match") == 0) {
			if (*eq == '\0' || strlen(eq) >= sizeof(r->match))
				goto bad;
			snprintf(r->match, sizeof(r->match), "%s", eq);
		} else {
			snprintf(why, whysz, "unknown key %s", tok);
			return -1;
		}
		continue;
bad:
		snprintf(why, whysz, "bad value for %s", tok);
		return -1;
	}
	if (first) {
		snprintf(why, whysz, "usage: fault OP ERRNO|malformed|slow=MS [nth=N|every=K] "
			 "[p=P seed=S] [match=WORD] [count=C]");
		return -1;
	}
	if (!action) {
		snprintf(why, whysz, "no action (an errno, malformed or slow=MS)");
		return -1;
	}
	if (r->nth && r->every) {
		snprintf(why, whysz, "nth and every together");
		return -1;
	}
	if (r->malformed && strcmp(r->op, "read") != 0 && strcmp(r->op, "any") != 0) {
		snprintf(why, whysz, "malformed applies to reads only");
		return -1;
	}
	if (r->match[0] != '\0' && strcmp(r->op, "read") == 0) {
		snprintf(why, whysz, "match= applies to commands only");
		return -1;
	}
	r->rng = r->seed;
	return 0;
}

int
fault_add(const char *spec, char *why, size_t whysz)
{
	struct rule r;

	if (parse_rule(spec, &r, why, whysz) < 0)
		return -1;
	if (nrules == RULES_MAX) {
		snprintf(why, whysz, "at most %d rules", RULES_MAX);
		return -1;
	}
	rules[nrules++] = r;
	sim_log("fault: rule %d: %s%s", nrules, spec,
		r.has_p ? "" : " (no p=: deterministic)");
	return nrules;
}

int
fault_clear(void)
{
	int n = nrules;

	nrules = 0;
	sim_log("fault: %d rules cleared (%lu faults injected so far)", n, injected);
	return n;
}

unsigned long
fault_injected(void)
{
	return injected;
}

int
fault_list(char *out, size_t sz)
{
	int n = snprintf(out, sz, "rules=%d injected=%lu", nrules, injected);

	for (int i = 0; i < nrules && n >= 0 && (size_t)n < sz; i++)
		n += snprintf(out + n, sz - (size_t)n, "; %d: %s seen=%lu hits=%lu", i + 1,
			      rules[i].text, rules[i].seen, rules[i].hits);
	return 0;
}

/* Does rule r apply to this operation?  word is the command word, NULL for a read. */
static int
applies(const struct rule *r, const char *word, const char *cmd, int probe)
{
	if (probe)
		return strcmp(r->op, "probe") == 0;
	if (strcmp(r->op, "probe") == 0)
		return 0;
	if (word == NULL)
		return strcmp(r->op, "read") == 0 || (strcmp(r->op, "any") == 0 && r->match[0] == '\0');
	if (strcmp(r->op, "write") != 0 && strcmp(r->op, "any") != 0 && strcmp(r->op, word) != 0)
		return 0;
	if (r->match[0] != '\0' && strstr(cmd, r->match) == NULL)
		return 0;
	if (r->malformed && r->err == 0 && r->slow_ms == 0)
		return 0;	/* a malformed-only "any" rule leaves commands alone */
	return 1;
}

static int
fires(struct rule *r)
{
	r->seen++;
	if (r->count && r->hits >= r->count)
		return 0;
	if (r->nth && r->seen != r->nth)
		return 0;
	if (r->every && r->seen % r->every != 0)
		return 0;
	if (r->has_p && (double)(splitmix64(&r->rng) >> 11) * 0x1.0p-53 >= r->p)
		return 0;
	r->hits++;
	return 1;
}

/*
 * One operation: word and cmd name a command (NULL for a read).  Sleeps for
 * slow rules; returns the errno to inject, or 0; *malformed for reads.
 */
static int
decide(const char *word, const char *cmd, int probe, int *malformed)
{
	unsigned slow = 0;
	int err = 0;

	*malformed = 0;
	for (int i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];

		if (!applies(r, word, cmd, probe) || !fires(r))
			continue;
		injected++;
		if (r->slow_ms > slow)
			slow = r->slow_ms;
		if (err == 0 && !*malformed) {
			if (word == NULL && r->malformed)
				*malformed = 1;
			else if (r->err)
				err = r->err;
		}
		sim_log("FAULT: rule %d (%s) hit %lu: %s%.*s%s%s%s", i + 1, r->text, r->hits,
			word == NULL ? "read" : probe ? "probe \"" : "write \"",
			word == NULL ? 0 : 200, word == NULL ? "" : cmd, word == NULL ? "" : "\"",
			r->slow_ms ? " delayed" : "",
			word == NULL && r->malformed ? " malformed" :
			r->err ? " failed" : "");
	}
	if (slow)
		usleep(slow * 1000U);
	return err;
}

int
fault_on_write(const char *cmd, const char *word, int probe)
{
	int malformed;

	if (nrules == 0)
		return 0;
	return decide(word, cmd, probe, &malformed);
}

int
fault_on_read(int *malformed)
{
	*malformed = 0;
	if (nrules == 0)
		return 0;
	return decide(NULL, NULL, 0, malformed);
}
