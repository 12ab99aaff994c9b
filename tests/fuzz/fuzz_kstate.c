// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_kstate.c: the kernel's state line, kstate_parse().
 *
 * Any input of len bytes is parsed in place (libFuzzer's copy is exactly
 * len bytes, so ASan sees a read past the end).  When it parses, cull is 0
 * or 1, and the line the kernel would write for those values (lower-case
 * hex, the released counters only when reported) parses back to the same
 * values; so does the same line in upper-case hex with tabs and a trailing
 * newline, and with an unknown token in front.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/channel.h"

#include <inttypes.h>
#include <string.h>

static size_t
format(char *buf, size_t size, const struct kstate *st, int upper)
{
	int n;

	if (upper)
		n = snprintf(buf, size, "cull=%d\tfrun=%" PRIX64 "\tfcull=%" PRIX64
			     "\tfstop=%" PRIX64 "\tbrun=%" PRIX64 "\tbcull=%" PRIX64
			     "\tbstop=%" PRIX64, st->cull, st->frun, st->fcull,
			     st->fstop, st->brun, st->bcull, st->bstop);
	else
		n = snprintf(buf, size, "cull=%d frun=%" PRIx64 " fcull=%" PRIx64
			     " fstop=%" PRIx64 " brun=%" PRIx64 " bcull=%" PRIx64
			     " bstop=%" PRIx64, st->cull, st->frun, st->fcull,
			     st->fstop, st->brun, st->bcull, st->bstop);
	if (st->has_released && upper)
		n += snprintf(buf + n, size - (size_t)n, "\tfreleased=%" PRIX64
			      "\tbreleased=%" PRIX64, st->freleased, st->breleased);
	else if (st->has_released)
		n += snprintf(buf + n, size - (size_t)n, " freleased=%" PRIx64
			      " breleased=%" PRIx64, st->freleased, st->breleased);
	if (upper)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	FUZZ_CHECK(n > 0 && (size_t)n < size, "line of %d bytes", n);
	return (size_t)n;
}

static int
same(const struct kstate *a, const struct kstate *b)
{
	return a->cull == b->cull && a->frun == b->frun && a->fcull == b->fcull &&
	    a->fstop == b->fstop && a->brun == b->brun && a->bcull == b->bcull &&
	    a->bstop == b->bstop && a->has_released == b->has_released &&
	    (!a->has_released ||
	     (a->freleased == b->freleased && a->breleased == b->breleased));
}

static void
round_trip(const struct kstate *st, const char *line, size_t len)
{
	struct kstate again;
	char *copy = malloc(len ? len : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, line, len);	/* exactly len bytes, for ASan */
	FUZZ_CHECK(kstate_parse(copy, len, &again) == 0, "'%.*s' is refused",
		   (int)len, line);
	FUZZ_CHECK(same(st, &again), "'%.*s' parses to other values",
		   (int)len, line);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kstate st;
	char line[KSTATE_BUF + 64];
	size_t n;

	if (size > KSTATE_BUF)
		return -1;	/* one read of the device is at most this */
	if (kstate_parse((const char *)data, size, &st) != 0)
		return 0;
	FUZZ_CHECK(st.cull == 0 || st.cull == 1, "cull=%d", st.cull);
	n = format(line, sizeof(line), &st, 0);
	round_trip(&st, line, n);
	n = format(line, sizeof(line), &st, 1);
	round_trip(&st, line, n);
	memmove(line + 6, line, n);
	memcpy(line, "new=x ", 6);
	round_trip(&st, line, n + 6);
	return 0;
}
