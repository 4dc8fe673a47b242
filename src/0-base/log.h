/* SPDX-License-Identifier: GPL-2.0-only */
/* Messages on stderr, for every stage; -v adds the debug ones (log.c). */
#ifndef NSL_LOG_H
#define NSL_LOG_H

#include <stdbool.h>
#include <stdio.h>

extern bool nsl_verbose;
/* libbpf's warnings too are for -v only (while the loader retries loads) */
extern bool nsl_libbpf_quiet;

/* One line on stderr, prefixed with the tool's name. */
#define pr_warn(fmt, ...) fprintf(stderr, "netstacklat: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) fprintf(stderr, "netstacklat: " fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)                                              \
	do {                                                            \
		if (nsl_verbose)                                        \
			fprintf(stderr, "netstacklat: " fmt, ##__VA_ARGS__); \
	} while (0)

#endif /* NSL_LOG_H */
