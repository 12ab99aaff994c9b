/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h: the status snapshot in the Prometheus text exposition format,
 * written atomically to the metrics_file for node_exporter's textfile
 * collector.  Names follow Prometheus conventions: cachefilesd_ prefix,
 * base units (bytes, seconds), counters end in _total.
 */
#ifndef CFD_METRICS_H
#define CFD_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/engine.h"
#include "daemon/status.h"

#define METRICS_VOLS_MAX 256	/* volumes exported; a cache rarely has more than a few */

/*
 * A label value: backslash, double quote and newline escaped as the format
 * says; other control bytes, DEL and bytes that are not valid UTF-8 become
 * an escaped backslash and "xHH" (the value reads \xHH), as lib/json.h does.
 * Always NUL-terminated; never cuts an escape.  Returns out.
 */
const char *metrics_label(const char *in, char *out, size_t size);
/*
 * A buffer that holds the label of any string of n bytes whole: a byte
 * becomes at most 5 characters (\\xHH in the file).  A shorter one cuts the
 * value, and two names that differ only past the cut give one series.
 */
#define METRICS_LABEL_SIZE(n) (5 * (size_t)(n) + 1)

/* Every metric, for the snapshot s and nvol volumes. */
void metrics_format(FILE *f, const struct status *s, const struct engine_vol *vols,
		    size_t nvol);

/*
 * Write the metrics to path atomically: a temporary file in the same
 * directory, mode 0644 whatever the umask, then a rename.  0, or -1 (logged
 * once per change of errno).
 */
int metrics_write(const char *path, const struct status *s,
		  const struct engine_vol *vols, size_t nvol);

#endif
