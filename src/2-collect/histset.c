// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader's sets of histograms (histset.h): adding to them, emptying
 * them between reads, freeing them, and the order they are sorted in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "histset.h"

void nsl_free_set(struct nsl_hist_set *s)
{
	free(s->h);
	free(s->slots);
}

int nsl_key_cmp(const void *a, const void *b)
{
	const struct nsl_group_key *x = a, *y = b;

	if (x->hook != y->hook)
		return x->hook < y->hook ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	/* by inode number first, as shown (the cookie above it: its life) */
	if (NSL_NETNS_INO(x->netns) != NSL_NETNS_INO(y->netns))
		return NSL_NETNS_INO(x->netns) < NSL_NETNS_INO(y->netns) ? -1 : 1;
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	return 0;
}

/* Histograms by group: key, then serial (a key's groups in their order). */
int nsl_hist_cmp(const void *a, const void *b)
{
	const struct nsl_report_hist *x = a, *y = b;
	int c = nsl_key_cmp(&x->key, &y->key);

	if (c)
		return c;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/*
 * Moves set s's slots to a buffer of cap slots: each histogram keeps its
 * place in them (a sorted set's histograms point in out of order). A
 * report's histograms may also point into the current totals (a
 * cumulative report's, a new group's in a delta one): those stay.
 */
static int move_slots(struct nsl_hist_set *s, size_t cap)
{
	uint64_t *slots = malloc(cap * sizeof(uint64_t));
	uintptr_t lo = (uintptr_t)s->slots, hi = lo + s->used * sizeof(uint64_t);

	if (!slots)
		return -ENOMEM;
	if (s->used)
		/* then s->slots is set: NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
		memcpy(slots, s->slots, s->used * sizeof(uint64_t));
	for (size_t j = 0; j < s->nr_h && s->slots; j++) {
		uintptr_t b = (uintptr_t)s->h[j].buckets;

		if (b >= lo && b <= hi)
			s->h[j].buckets = slots + (b - lo) / sizeof(uint64_t);
	}
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

/*
 * A new histogram at the end of set s with room for nr slots (not
 * zeroed), or NULL. Arrays grow by doubling.
 */
struct nsl_report_hist *nsl_set_add(struct nsl_hist_set *s, unsigned int nr)
{
	struct nsl_report_hist *h;

	if (s->nr_h == s->cap_h) {
		size_t cap = s->cap_h ? 2 * s->cap_h : 16;

		h = realloc(s->h, cap * sizeof(*h));
		if (!h)
			return NULL;
		s->h = h;
		s->cap_h = cap;
	}
	if (s->cap - s->used < nr || !s->slots) {	/* never NULL: buckets point in */
		size_t cap = s->cap ? 2 * s->cap : 1024;

		while (cap - s->used < nr)
			cap *= 2;
		if (move_slots(s, cap))
			return NULL;
	}
	h = &s->h[s->nr_h++];
	memset(h, 0, sizeof(*h));
	h->buckets = s->slots + s->used;
	h->nr = nr;
	s->used += nr;
	return h;
}

/*
 * Empties set s for a new read. Arrays its last read filled to under a
 * quarter (groups went, a burst of them passed) shrink to twice that
 * first, so that a peak of groups does not stay resident for the rest of
 * the run.
 */
void nsl_set_clear(struct nsl_hist_set *s)
{
	if (s->cap > 4096 && s->used < s->cap / 4) {
		free(s->slots);
		s->cap = s->used > 512 ? 2 * s->used : 1024;
		s->slots = malloc(s->cap * sizeof(uint64_t));
		if (!s->slots)
			s->cap = 0;	/* nsl_set_add() grows it again */
	}
	if (s->cap_h > 64 && s->nr_h < s->cap_h / 4) {
		free(s->h);
		s->cap_h = 2 * s->nr_h;
		s->h = s->cap_h ? malloc(s->cap_h * sizeof(*s->h)) : NULL;
		if (!s->h)
			s->cap_h = 0;
	}
	s->nr_h = s->used = 0;
}
