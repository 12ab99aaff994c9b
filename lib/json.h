/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h: writing JSON, and reading one flat object back.
 *
 * The writer emits compact JSON to a stdio stream (a file, stdout, or
 * fmemopen() over a bounded buffer) and keeps track of commas itself.
 * Strings are written as UTF-8: valid UTF-8 passes through, control
 * characters use JSON's own escapes, and every byte that is not part of
 * valid UTF-8 becomes a backslash, 'x' and two hex digits in the decoded
 * string (JSON text "\\xHH"), while a backslash in the input becomes two
 * (JSON text "\\\\").  Any file name, even one that is not UTF-8, thus
 * round-trips without ambiguity, and every document is valid JSON.
 *
 * The reader understands one flat object of string, number, true, false
 * and null values (what the daemon's control socket sends), enough for a
 * client to pick fields; nested values are skipped.
 */
#ifndef CFD_JSON_H
#define CFD_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 8

struct jw {
	FILE *f;
	int depth;
	unsigned char first[JSON_DEPTH_MAX];	/* nothing written yet at this level */
};

void jw_init(struct jw *w, FILE *f);
void jw_obj_begin(struct jw *w, const char *key);	/* key NULL: an array element or the top */
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *s);
void jw_strn(struct jw *w, const char *key, const char *s, size_t len);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_double(struct jw *w, const char *key, double v, int decimals);
void jw_bool(struct jw *w, const char *key, int v);
void jw_null(struct jw *w, const char *key);

/*
 * The writer over a bounded buffer: jw_mem_close() closes the stream and
 * returns the length written (buf NUL-terminated), or 0 with buf emptied
 * when the document did not fit.
 */
FILE *jw_mem_open(char *buf, size_t size);
size_t jw_mem_close(FILE *f, char *buf, size_t size);

/*
 * Find key in the flat object text and copy its value into out (size
 * bytes): a string unescaped (\\xHH kept as written), anything else as its
 * literal text.  Returns 0, or -1 when the key is absent, the text is not
 * an object, or the value does not fit.
 */
int json_get(const char *obj, const char *key, char *out, size_t size);
/*
 * The same for a string that stands for raw bytes (a path): the writer's
 * convention undone, "\\\\" back to one backslash and "\\xHH" back to
 * the byte.  -1 also when such an escape is malformed or decodes to NUL.
 */
int json_get_bytes(const char *obj, const char *key, char *out, size_t size);
/* The same for an unsigned integer value. */
int json_get_u64(const char *obj, const char *key, uint64_t *v);

#endif
