// SPDX-License-Identifier: GPL-2.0-or-later
/* Placeholder so the tree links; replaced by the real parser. */
#include "config.h"
#include <string.h>
void config_defaults(struct config *cfg) { memset(cfg, 0, sizeof(*cfg)); }
int config_parse_buffer(struct config *cfg, const char *file, const char *buf, size_t len, config_error_fn fn, void *arg) { (void)file; (void)buf; (void)len; (void)fn; (void)arg; config_defaults(cfg); return 0; }
int config_load(struct config *cfg, const char *path, config_error_fn fn, void *arg) { return config_parse_buffer(cfg, path, "", 0, fn, arg); }
void config_dump(const struct config *cfg, FILE *out) { (void)cfg; (void)out; }
int config_given(const struct config *cfg, const char *name) { (void)cfg; (void)name; return 0; }
int config_limit_commands(const struct config *cfg, char cmds[][CFG_LIMIT_CMD_MAX], int max) { (void)cfg; (void)cmds; (void)max; return 0; }
int config_ndirectives(void) { return 0; }
const char *config_directive_name(int i) { (void)i; return ""; }
const char *config_directive_help(int i) { (void)i; return ""; }
