// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kcmd.c: the one rule for names sent in a cull or inuse command.
 */
#include "lib/kcmd.h"

#include <limits.h>
#include <string.h>

#define CULL_WORD "cull "

/* The kernel's isspace() over the ASCII range, independent of the locale. */
static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	    c == '\f' || c == '\r';
}

int
kcmd_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > NAME_MAX || sizeof(CULL_WORD) - 1 + len > KCMD_MAX)
		return 0;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return 0;
	if (is_blank(name[0]))
		return 0;
	if (memchr(name, '/', len) != NULL || memchr(name, '\n', len) != NULL ||
	    memchr(name, '\0', len) != NULL)
		return 0;
	return 1;
}
