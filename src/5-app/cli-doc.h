/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What --help and --usage print: argp's option entries and the doc text,
 * apart from the parser (cli.c) that acts on them.
 */
#ifndef NSL_CLI_DOC_H
#define NSL_CLI_DOC_H

#include <argp.h>

/* The keys of the options that have no short name */
enum {
	OPT_COUNT = 0x100,
	OPT_CUMULATIVE,
	OPT_ATTACH,
	OPT_BPF_STATS,
	OPT_USER,
	OPT_MAX_GROUPS,
	OPT_USAGE,
	OPT_LISTEN,
	OPT_RESOLUTION,
	OPT_SAMPLE,
	OPT_APPEND,
	OPT_GROUP_IDLE,
	OPT_SERIES_GRACE,
	OPT_OWNER_QUOTA,
	OPT_STANDING_TARGET,
	OPT_STANDING_INTERVAL,
};

extern const struct argp_option nsl_argp_options[];
extern const char nsl_argp_doc[];
extern const char nsl_argp_args_doc[];

#endif /* NSL_CLI_DOC_H */
