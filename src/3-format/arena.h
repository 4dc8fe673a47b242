/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory that lives as long as one protobuf exposition (arena.c). */
#ifndef NSL_ARENA_H
#define NSL_ARENA_H

#include <stdbool.h>
#include <stddef.h>

/* Everything one exposition allocates, freed at once when it is written. */
struct nsl_arena {
	void **ptrs;
	size_t n, cap;
	bool failed;
};


/*
 * Keeps p to be freed with the arena; p, or NULL when p is NULL (out of
 * memory) or the arena failed before: then p is freed, and the arena
 * stays failed.
 */
void *nsl_arena_keep(struct nsl_arena *a, void *p);
/* calloc(n, size) kept in the arena (at least one element); NULL on failure. */
void *nsl_arena_alloc(struct nsl_arena *a, size_t n, size_t size);
/* Frees everything the arena kept. */
void nsl_arena_free(struct nsl_arena *a);

#endif /* NSL_ARENA_H */
