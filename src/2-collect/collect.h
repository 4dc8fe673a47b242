/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The collection stage set up from what the set-up stage loaded: which
 * histograms the reports cover, the table of groups (-I/-C) and the map
 * readers (reports and /metrics each have one), all from the loaded
 * object's maps and the options.
 */
#ifndef NSL_COLLECT_H
#define NSL_COLLECT_H

#include <stdbool.h>
#include "groups.h"
#include "loader.h"
#include "options.h"
#include "reader.h"

/*
 * Per histogram (NSL_NR_HISTS): whether reports cover it. The hooks that
 * run, not those asked for; and the HOL filter's left-out reads beside
 * tcp-socket-read when it filters.
 */
void nsl_collect_attached(const struct nsl_loader *l, const struct nsl_options *o,
			  bool *attached);

/* The table of groups, when grouping (-I/-C); nothing otherwise. */
int nsl_collect_groups_init(struct nsl_groups *g, const struct nsl_loader *l,
			    const struct nsl_options *o);

/*
 * A reader of the loaded maps, with the hooks' status for every report;
 * g is the table of groups (used when grouping). For Prometheus (a
 * -F prometheus report or /metrics), nsl_collect_for_prometheus() after.
 */
int nsl_collect_reader_init(struct nsl_reader *rd, const struct nsl_loader *l,
			    const bool *attached, const struct nsl_options *o,
			    bool cumulative, struct nsl_groups *g);

/*
 * Prometheus keeps a reclaimed group's final totals --series-grace
 * seconds, so that the last increase is scraped before the series ends.
 */
void nsl_collect_for_prometheus(struct nsl_reader *rd, const struct nsl_options *o);

#endif /* NSL_COLLECT_H */
