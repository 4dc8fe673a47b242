// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arena of the protobuf exposition (prom_pb.c): its messages point at
 * one another and at their strings, so each piece is kept here and all
 * are freed together once the exposition is written.
 */
#include <stdlib.h>
#include "arena.h"

void *nsl_arena_keep(struct nsl_arena *a, void *p)
{
	if (!p || a->failed)
		goto fail;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		void **ptrs = realloc(a->ptrs, cap * sizeof(*ptrs));

		if (!ptrs)
			goto fail;
		a->ptrs = ptrs;
		a->cap = cap;
	}
	a->ptrs[a->n++] = p;
	return p;
fail:
	free(p);
	a->failed = true;
	return NULL;
}

void *nsl_arena_alloc(struct nsl_arena *a, size_t n, size_t size)
{
	return nsl_arena_keep(a, calloc(n ? n : 1, size));
}

void nsl_arena_free(struct nsl_arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->ptrs[i]);
	free(a->ptrs);
}
