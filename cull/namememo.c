// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * namememo.c: an open-addressing table of (directory, inode) keys, twice
 * NAMEMEMO_MAX slots so that probes stay short when it is full, the names
 * in one arena that grows by doubling up to NAMEMEMO_BYTES.  One mutex: an
 * add is one probe and one copy, and only objects older than the threshold
 * (a few percent of a scan's) are added.
 */
#include "cull/namememo.h"
#include "lib/util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (2 * NAMEMEMO_MAX)	/* a power of two */
#define EMPTY 0			/* name offset + 1 of a free slot */

struct slot {
	uint64_t ino;
	uint32_t dir;
	uint32_t name;			/* arena offset + 1; EMPTY: a free slot */
};

struct namememo {
	pthread_mutex_t lock;
	_Atomic uint64_t below;
	struct slot *s;			/* under lock, as the rest */
	size_t used;
	char *arena;
	size_t alen, acap;
};

struct namememo *
namememo_new(void)
{
	struct namememo *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	atomic_init(&m->below, 0);
	return m;
}

void
namememo_free(struct namememo *m)
{
	if (m == NULL)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->s);
	free(m->arena);
	free(m);
}

void
namememo_set_below(struct namememo *m, uint64_t atime_ns)
{
	atomic_store_explicit(&m->below, atime_ns, memory_order_relaxed);
}

uint64_t
namememo_below(const struct namememo *m)
{
	return atomic_load_explicit(&m->below, memory_order_relaxed);
}

static size_t
home(uint32_t dir, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)dir << 40) ^ dir) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (SLOTS - 1);
}

/* The slot of the key, or the free one where it would go; lock held, table allocated. */
static struct slot *
lookup(const struct namememo *m, uint32_t dir, uint64_t ino)
{
	size_t i;

	for (i = home(dir, ino);; i = (i + 1) & (SLOTS - 1)) {
		struct slot *s = &m->s[i];

		if (s->name == EMPTY || (s->dir == dir && s->ino == ino))
			return s;
	}
}

/* Room for len more bytes of names: 0, or -1 past NAMEMEMO_BYTES.  Lock held. */
static int
arena_room(struct namememo *m, size_t len)
{
	size_t cap = m->acap ? m->acap : 64 * 1024;

	if (m->alen + len > NAMEMEMO_BYTES)
		return -1;
	while (cap < m->alen + len)
		cap *= 2;
	if (cap > NAMEMEMO_BYTES)
		cap = NAMEMEMO_BYTES;
	if (cap != m->acap) {
		m->arena = xreallocarray(m->arena, cap, 1);
		m->acap = cap;
	}
	return 0;
}

void
namememo_add(struct namememo *m, uint32_t dir, uint64_t ino, const char *name)
{
	size_t len = strlen(name) + 1;
	struct slot *s;

	pthread_mutex_lock(&m->lock);
	if (m->used >= NAMEMEMO_MAX)
		goto out;
	if (m->s == NULL)
		m->s = xcalloc(SLOTS, sizeof(*m->s));
	s = lookup(m, dir, ino);
	if (s->name != EMPTY || arena_room(m, len) < 0)
		goto out;
	memcpy(m->arena + m->alen, name, len);
	s->ino = ino;
	s->dir = dir;
	s->name = (uint32_t)m->alen + 1;
	m->alen += len;
	m->used++;
out:
	pthread_mutex_unlock(&m->lock);
}

int
namememo_get(struct namememo *m, uint32_t dir, uint64_t ino, char *buf, size_t len)
{
	const struct slot *s;
	int found = 0;

	if (m == NULL || len == 0)
		return 0;
	pthread_mutex_lock(&m->lock);
	if (m->s != NULL && (s = lookup(m, dir, ino))->name != EMPTY) {
		const char *name = m->arena + s->name - 1;
		size_t n = strlen(name);

		if (n < len) {
			memcpy(buf, name, n + 1);
			found = 1;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

size_t
namememo_count(struct namememo *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->used;
	pthread_mutex_unlock(&m->lock);
	return n;
}
