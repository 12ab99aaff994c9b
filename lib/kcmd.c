// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kcmd.c: the one rule for names sent in a cull or inuse command.
 */
#include "lib/kcmd.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#define CULL_WORD "cull "

/* The kernel's isspace() over the ASCII range, independent of the locale. */
static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	    c == '\f' || c == '\r';
}

/* The rules on the name as a whole, once its bytes are known to be fine. */
static int
whole_ok(const char *name, size_t len)
{
	if (len == 0 || len > NAME_MAX || sizeof(CULL_WORD) - 1 + len > KCMD_MAX)
		return 0;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return 0;
	return !is_blank(name[0]);
}

/*
 * One plain loop over the bytes rather than strlen() and three memchr():
 * the scan checks every name of the cache, and one pass costs 15-20 %
 * less a name than four under the VM benchmark's emulated CPU and about
 * 13 % less on the host (bench/namecheck).
 */
int
kcmd_name_ok(const char *name, size_t len)
{
	size_t i;

	/* The length first: no byte past NAME_MAX is read, whatever len says. */
	if (!whole_ok(name, len))
		return 0;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == '\n' || name[i] == '\0')
			return 0;
	return 1;
}

size_t
kcmd_name_len(const char *name)
{
	size_t i;

	/* At most NAME_MAX + 1 bytes: one more already makes the name too long. */
	for (i = 0; i <= NAME_MAX && name[i] != '\0'; i++)
		if (name[i] == '/' || name[i] == '\n')
			return 0;
	return whole_ok(name, i) ? i : 0;
}

/*
 * Bytes of w equal to c come out with their top bit set; so may a byte
 * above such a byte (the borrow), never one when none is: a hit only says
 * where to look byte by byte.
 */
static uint64_t
has_byte(uint64_t w, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t x = w ^ (ones * c);

	return (x - ones) & ~x & (ones << 7);
}

/*
 * Eight bytes a step while no byte of the word is NUL, '/' or a newline,
 * in plain integer operations, which an emulated CPU runs cheaply too: 47
 * ns a name against 123 for one loop over the bytes under qemu64 user-mode
 * emulation, 20 against 39 on the host (bench/namecheck).  That loop was a
 * third of the scan's user instructions (callgrind, 200,000 objects).
 * Only bytes below room are read, so a memory checker has nothing to say.
 */
size_t
kcmd_name_len_in(const char *name, size_t room)
{
	size_t i = 0, lim = room < NAME_MAX + 1 ? room : NAME_MAX + 1;

	for (; i + 8 <= lim; i += 8) {
		uint64_t w, hit;

		memcpy(&w, name + i, sizeof(w));
		hit = has_byte(w, '\0') | has_byte(w, '/') | has_byte(w, '\n');
		if (hit == 0)
			continue;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* The lowest hit is a true one, and the lowest byte comes first. */
		i += (size_t)__builtin_ctzll(hit) / 8;
		return name[i] == '\0' && whole_ok(name, i) ? i : 0;
#else
		break;	/* the loop below finds it */
#endif
	}
	for (; i < lim && name[i] != '\0'; i++)
		if (name[i] == '\n' || name[i] == '/')
			return 0;
	/* i == lim: no end within room, or longer than NAME_MAX */
	return i < lim && whole_ok(name, i) ? i : 0;
}
