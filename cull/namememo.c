// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * namememo.c: an open-addressing table of (directory, inode) keys, twice
 * NAMEMEMO_MAX slots so that probes stay short when it is full, with the
 * names in one growing arena.  Allocated on the first want, so a scan that
 * never culls early costs nothing.
 */
#include "cull/namememo.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS (2 * NAMEMEMO_MAX)	/* a power of two */
#define EMPTY UINT32_MAX		/* no directory has that index */

struct slot {
	uint64_t ino;
	uint32_t dir;			/* EMPTY: a free slot */
	uint32_t name;			/* arena offset + 1; 0 = wanted, not named yet */
};

struct namememo {
	struct slot *s;
	size_t used;
	struct strarena names;
};

struct namememo *
namememo_new(void)
{
	return xcalloc(1, sizeof(struct namememo));
}

void
namememo_free(struct namememo *m)
{
	if (m == NULL)
		return;
	free(m->s);
	free(m->names.buf);
	free(m);
}

static size_t
home(uint32_t dir, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)dir << 40) ^ dir) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (SLOTS - 1);
}

/* The slot of the key, or the free one where it would go; NULL when absent from an unallocated table. */
static struct slot *
lookup(const struct namememo *m, uint32_t dir, uint64_t ino)
{
	size_t i;

	if (m->s == NULL)
		return NULL;
	for (i = home(dir, ino);; i = (i + 1) & (SLOTS - 1)) {
		struct slot *s = &m->s[i];

		if (s->dir == EMPTY || (s->dir == dir && s->ino == ino))
			return s;
	}
}

void
namememo_want(struct namememo *m, uint32_t dir, uint64_t ino)
{
	struct slot *s;

	if (dir == EMPTY || m->used >= NAMEMEMO_MAX)
		return;
	if (m->s == NULL) {
		m->s = xreallocarray(NULL, SLOTS, sizeof(*m->s));
		memset(m->s, 0xff, SLOTS * sizeof(*m->s));
	}
	s = lookup(m, dir, ino);
	if (s->dir != EMPTY)
		return;
	s->dir = dir;
	s->ino = ino;
	s->name = 0;
	m->used++;
}

void
namememo_offer(struct namememo *m, uint32_t dir, uint64_t ino, const char *name)
{
	struct slot *s = lookup(m, dir, ino);

	if (s == NULL || s->dir == EMPTY || s->name != 0)
		return;
	s->name = (uint32_t)strarena_add(&m->names, name) + 1;
}

const char *
namememo_find(const struct namememo *m, uint32_t dir, uint64_t ino)
{
	const struct slot *s = m ? lookup(m, dir, ino) : NULL;

	return s && s->dir != EMPTY && s->name != 0 ? m->names.buf + s->name - 1 : NULL;
}
