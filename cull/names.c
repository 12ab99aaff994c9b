// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c: name classification.  The walker relies on names_kind() to
 * decide what it may descend into and what it may offer for culling.
 */
#include "cull/names.h"

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
