// SPDX-License-Identifier: GPL-2.0-or-later
/* Placeholder so the tree links; replaced by the real cull engine. */
#include "engine.h"
#include <stdio.h>
#include <string.h>
struct engine { int dummy; };
static struct engine the_engine;
struct engine *engine_new(const struct config *cfg, int cachefd, struct kchan *k) { (void)cfg; (void)cachefd; (void)k; return &the_engine; }
void engine_free(struct engine *e) { (void)e; }
void engine_reconfigure(struct engine *e, const struct config *cfg) { (void)e; (void)cfg; }
int engine_fd(const struct engine *e) { (void)e; return -1; }
enum engine_next engine_step(struct engine *e, const struct kstate *st, unsigned *delay_ms) { (void)e; (void)st; *delay_ms = 0; return ENGINE_IDLE; }
void engine_status(const struct engine *e, char *buf, size_t len) { (void)e; snprintf(buf, len, "idle"); }
void engine_stats(const struct engine *e, struct engine_stats *out) { (void)e; memset(out, 0, sizeof(*out)); }
