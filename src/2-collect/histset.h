/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sets of report histograms, the reader's totals and deltas: where their
 * slots are kept (grown as needed, shrunk after a peak), and their order,
 * by group key then serial. Called by reader.c, never calling back.
 */
#ifndef NSL_HISTSET_H
#define NSL_HISTSET_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/*
 * Histograms and the slots they point into: each only its range of slots
 * that hold samples (lo, nr), one after the other. Both arrays grow as
 * needed and shrink when a read uses under a quarter of them.
 */
struct nsl_hist_set {
	struct nsl_report_hist *h;
	size_t nr_h, cap_h;
	uint64_t *slots;
	size_t used, cap;
};

/* Frees the arrays of set s. */
void nsl_free_set(struct nsl_hist_set *s);
/* Orders group keys (struct nsl_group_key): hook, ifindex, cgroup, netns. */
int nsl_key_cmp(const void *a, const void *b);
/* Orders histograms (struct nsl_report_hist) by key, then serial. */
int nsl_hist_cmp(const void *a, const void *b);
/* A new histogram at the end of set s, room for nr slots; NULL: no memory. */
struct nsl_report_hist *nsl_set_add(struct nsl_hist_set *s, unsigned int nr);
/* Empties set s for a new read; arrays left mostly unused shrink. */
void nsl_set_clear(struct nsl_hist_set *s);

#endif /* NSL_HISTSET_H */
