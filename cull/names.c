// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c: name classification.  The walker relies on these two functions
 * to decide what it may descend into and what it may offer for culling.
 */
#include "cull/names.h"

#include <limits.h>
#include <string.h>

enum name_kind
names_kind(const char *name)
{
	switch (name[0]) {
	case 'D': case 'E': case 'S': case 'T':
		return name[1] != '\0' ? NAME_DATA : NAME_OTHER;
	case 'I': case 'J': case '@': case '+':
		return name[1] != '\0' ? NAME_DIR : NAME_OTHER;
	default:
		return NAME_OTHER;
	}
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	    c == '\f' || c == '\r';
}

/*
 * The kernel cuts the command at the first newline, skips leading blanks of
 * the argument, refuses '/' and hands "", "." and ".." to the VFS, which
 * refuses them; longer than NAME_MAX cannot name a directory entry.
 */
int
names_sendable(const char *name, size_t len)
{
	if (len == 0 || len > NAME_MAX || len + 5 > NAMES_CMD_MAX)
		return 0;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	if (is_space(name[0]))
		return 0;
	if (memchr(name, '/', len) || memchr(name, '\n', len) ||
	    memchr(name, '\0', len))
		return 0;
	return 1;
}
