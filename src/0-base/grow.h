/* SPDX-License-Identifier: GPL-2.0-only */
/* A growing array's room, one element at a time. */
#ifndef NSL_GROW_H
#define NSL_GROW_H

#include <stdlib.h>

/*
 * Room for one more element in array (of *cap elements of size each, n of
 * them used): doubled (16 at first) when full. The array (moved, maybe),
 * or NULL when out of memory (array as it was). The tables' growing
 * lists (2-collect/learn.c, retire.c).
 */
static inline void *nsl_grow(void *array, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? 2 * *cap : 16;
	void *more;

	if (n < *cap)
		return array;
	more = realloc(array, want * size);
	if (more)
		*cap = want;
	return more;
}

#endif /* NSL_GROW_H */
