// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * escape.c: the one way text from outside is made fit for a log line.
 */
#include "lib/escape.h"

size_t
escape_text(const char *s, char *out, size_t size)
{
	static const char digits[] = "01234567";
	size_t i, o = 0;

	if (size == 0)
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (o + 1 >= size)
				break;
			out[o++] = (char)c;
		} else {
			if (o + 4 >= size)
				break;
			out[o++] = '\\';
			out[o++] = digits[c >> 6];
			out[o++] = digits[(c >> 3) & 7];
			out[o++] = digits[c & 7];
		}
	}
	out[o] = '\0';
	return i;
}

const char *
escaped(const char *s, char *out, size_t size)
{
	escape_text(s, out, size);
	return out;
}
