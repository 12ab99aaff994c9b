/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.h: text from outside (file names, configuration values) made safe
 * for a log line, a terminal or the journal.
 *
 * Control bytes (< 0x20), backslash and bytes >= 0x7f are written as a
 * backslash and three octal digits ("\012"), everything else as is, so a
 * name can neither forge a line nor hide behind a terminal sequence, and the
 * original bytes can be read back.  The output is always NUL-terminated and
 * truncation never cuts an escape in half.
 */
#ifndef CFD_ESCAPE_H
#define CFD_ESCAPE_H

#include <stddef.h>

/* Room for n bytes of input escaped in full, with the NUL. */
#define ESCAPE_SIZE(n) (4 * (n) + 1)

/*
 * Escape s into out (size bytes, at least 1).  Returns how many bytes of s
 * are represented in out: s[return] == '\0' when nothing was cut.
 */
size_t escape_text(const char *s, char *out, size_t size);
/* The same, returning out, for use as a printf argument. */
const char *escaped(const char *s, char *out, size_t size);

#endif
