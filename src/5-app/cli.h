/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line: argv into the options of a run (src/0-base/options.h).
 * cli.c holds argp's tables, the dispatcher and what the options mean
 * together; cli-values.c parses the values with a syntax of their own.
 */
#ifndef NSL_CLI_H
#define NSL_CLI_H

#include "options.h"

/*
 * Parses argv into *o (defaults first). argp_flags is passed to argp_parse
 * (ARGP_NO_EXIT in the unit tests, so that --help returns). Errors are not
 * printed: on failure o->errmsg names the option and the problem. Returns
 * 0 or an errno.
 */
int nsl_parse_options(int argc, char **argv, struct nsl_options *o,
		      unsigned int argp_flags);

/* Frees what parsing allocated (-c's cgroup paths, cli-values.c). */
void nsl_free_options(struct nsl_options *o);

#endif /* NSL_CLI_H */
