// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kcmd.c: the one rule for names sent in a cull or inuse command.
 */
#include "lib/kcmd.h"

#include <limits.h>

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
