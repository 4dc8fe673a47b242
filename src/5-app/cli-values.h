/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the command line: cli.c (the tables, the dispatcher, what
 * the options mean together) calls the handlers of cli-values.c (the
 * values with a syntax of their own); both share the parse's state.
 */
#ifndef NSL_CLI_VALUES_H
#define NSL_CLI_VALUES_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include "options.h"

struct parse_state {
	struct nsl_options *o;
	bool enable_given, disable_given;
	bool interval_given, count_given;
	bool format_given, listen_given;
	bool standing_given;
	unsigned int nr_positional;
};

/* Records the message; the caller prints it (one line) and exits. EINVAL. */
int __attribute__((format(printf, 2, 3)))
nsl_opt_fail(struct argp_state *state, const char *fmt, ...);
/* Whole-string unsigned integer in [min, max]; no sign, no junk, no overflow. */
int nsl_opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The handlers: argp's key, the argument; 0 or an errno. */
/* -r and --count, or the positional INTERVAL and COUNT */
int nsl_opt_schedule(struct argp_state *state, int key, char *arg);
/* -e, -d: the hooks to keep, or to leave out */
int nsl_opt_hooks(struct argp_state *state, int key, char *arg);
/* -p, -i, -c: the filters' lists */
int nsl_opt_filter(struct argp_state *state, int key, char *arg);
/* --listen [ADDR:]PORT */
int nsl_opt_listen(struct argp_state *state, int key, char *s);
/* --standing-target, --standing-interval SECONDS */
int nsl_opt_standing(struct argp_state *state, int key, char *arg);
/* -n 0, -1, an inode number or a path */
int nsl_opt_netns(struct argp_state *state, int key, char *s);

#endif /* NSL_CLI_VALUES_H */
