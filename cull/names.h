/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.h: what an entry of the cache tree is, judged by its name.  Whether
 * a name can be sent in a "cull NAME" command is lib/kcmd.h's rule.
 *
 * Layouts (kernel-interface reference, section 5): since 5.17 data objects
 * live in cache/I<volume>/@xx/ and are named D, E, S or T followed by the
 * encoded key; before 5.17 index directories (I, J), fan-out (@) and
 * long-key (+) directories nest, with D/E/S/T data files at any depth.
 */
#ifndef CFD_NAMES_H
#define CFD_NAMES_H

#include <stddef.h>

#define NAMES_MAX_DEPTH 32	/* deepest directory below cache/ we enter */

enum name_kind {
	NAME_DATA,	/* D, E, S, T: a data object if it is a regular file */
	NAME_DIR,	/* I, J, @, +: a directory we may enter */
	NAME_OTHER,	/* anything else: never touched */
};

enum name_kind names_kind(const char *name);

#endif
