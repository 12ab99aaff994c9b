/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h: the /etc/cachefilesd.conf grammar.
 *
 * Every directive is declared once, in the table in config.c (name, kind,
 * bounds, default, one-line help); parsing, validation, the canonical dump
 * and the man page test all come from it.  Parsing has no side effects: it
 * fills a struct config and reports each mistake as "FILE:LINE: message"
 * through a callback, and goes on so that all mistakes are reported at once.
 */
#ifndef CFD_CONFIG_H
#define CFD_CONFIG_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#define CFG_DEFAULT_PATH "/etc/cachefilesd.conf"
#define CFG_TAG_MAX 256
#define CFG_SECCTX_MAX 1024
#define CFG_DIR_MAX (PATH_MAX - 10)	/* dir must be shorter: room for "/graveyard" */
#define CFG_FILE_MAX (1024 * 1024)	/* a longer configuration file is refused */
#define CFG_FILE_MAX_TEXT "1 MiB"
#define CFG_CULL_AGE_MAX (3650 * 86400ULL)	/* cull_age at most 3650d */
#define CFG_SOCKET_MAX 108		/* sizeof(sun_path): control_socket is shorter */
#define CFG_SOCKET_DEFAULT "/run/cachefilesd/control"

/* The six limits, in percent of the cache filesystem's blocks and files. */
enum cfg_limit { LIM_BRUN, LIM_BCULL, LIM_BSTOP, LIM_FRUN, LIM_FCULL, LIM_FSTOP, LIM_COUNT };
/* Its directive's name: "brun" ... "fstop". */
const char *config_limit_name(enum cfg_limit l);

struct config {
	char dir[PATH_MAX];		/* absolute path of the cache root */
	char tag[CFG_TAG_MAX];		/* "" = not given (kernel default CacheFiles) */
	char secctx[CFG_SECCTX_MAX];	/* "" = not given */
	unsigned limit[LIM_COUNT];	/* percent; defaults 7/5/1 as the kernel */
	uint64_t debug;			/* kernel debug mask */
	unsigned culltable;		/* accepted for compatibility (log2, 12..20) */
	int nocull;			/* bind and never cull */
	int64_t resume_blocks;		/* accepted for compatibility; -1 = "-" */
	int64_t resume_files;
	uint64_t cull_age;		/* seconds; 0 = no age limit */
	uint64_t cull_memory;		/* bytes the candidate table may use */
	unsigned scan_threads;		/* parallel stat threads for a scan */
	int cull_early;			/* cull before a scan ends (default yes) */
	int state_file;			/* keep DIR/cachefilesd.state (default yes) */
	char control_socket[CFG_SOCKET_MAX];	/* "" = none */
	char metrics_file[PATH_MAX];	/* "" = no metrics file */
	uint64_t given;			/* bit i set: table entry i appeared in the file */
};

typedef void (*config_error_fn)(void *arg, const char *msg);

void config_defaults(struct config *cfg);

/*
 * Parse len bytes of buf as the file named file.  Each error is formatted as
 * "FILE:LINE: message" and passed to fn (when fn is NULL, to stderr).
 * Returns the number of errors; 0 means cfg is complete and valid.
 */
int config_parse_buffer(struct config *cfg, const char *file, const char *buf,
			size_t len, config_error_fn fn, void *arg);
/* Read path (bounded size) and parse it; open/read failures count as errors. */
int config_load(struct config *cfg, const char *path, config_error_fn fn, void *arg);
/* The same for a file whose dir may be missing: the directory is named elsewhere. */
int config_load_nodir(struct config *cfg, const char *path, config_error_fn fn, void *arg);

/* The configuration in canonical form: one directive a line, table order. */
void config_dump(const struct config *cfg, FILE *out);

/* Was the directive called name given in the file? */
int config_given(const struct config *cfg, const char *name);

/*
 * The limit commands ("brun 10%", ...) in an order that the kernel accepts
 * from any valid starting point, since it checks each value against the
 * ones in force.  Writes up to max lines of CFG_LIMIT_CMD_MAX bytes and
 * returns how many.
 */
#define CFG_LIMIT_CMD_MAX 16
#define CFG_LIMIT_CMDS 10
int config_limit_commands(const struct config *cfg,
			  char cmds[][CFG_LIMIT_CMD_MAX], int max);

/*
 * Values in the file's own forms, for tools that take them on a command
 * line: a duration N[s|m|h|d|w] in seconds, a size N[K|M|G] in bytes (no
 * suffix: seconds, bytes), within [min, max].  0, or -1 with errno EINVAL
 * (syntax) or ERANGE (out of bounds).
 */
int config_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *v);
int config_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* Directive table, for --help-like listings and the man page test. */
int config_ndirectives(void);
const char *config_directive_name(int i);
const char *config_directive_help(int i);
/* The argument synopsis, e.g. "N%"; "" for a directive without argument. */
const char *config_directive_args(int i);

#endif
