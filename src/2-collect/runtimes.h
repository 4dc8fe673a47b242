/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The container runtimes whose containers are named (docs/containers.md),
 * one row each: where each keeps its state, and how a container's names
 * are read from it by id. Adding a runtime is one file (rt_*.c) and one
 * row here.
 */
#ifndef NSL_RUNTIMES_H
#define NSL_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include "report.h"

struct nsl_runtime {
	const char *name;		/* the runtime label's value */
	/*
	 * Fills c's names (and pod's) from the runtime's state for c->id;
	 * false where the runtime keeps no container of that id
	 */
	bool (*names)(struct nsl_container *c);
	/* the directories its state lies under (NULL-terminated) */
	const char *const *state_dirs;
};

extern const struct nsl_runtime *const nsl_runtimes[];
extern const size_t nsl_nr_runtimes;

/* The row of runtime name, or NULL */
const struct nsl_runtime *nsl_runtime_named(const char *name);

/*
 * Every directory that some runtime keeps state under (each once), for
 * the namer's confinement: up to max into dirs; returns how many there
 * are. Paths as the runtimes write them (NSL_TEST_STATE_ROOT not applied).
 */
size_t nsl_runtime_state_dirs(const char **dirs, size_t max);

#endif /* NSL_RUNTIMES_H */
