/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --listen: what /metrics answers. Each scrape reads the maps afresh
 * through a reader of its own, always cumulative, whatever the reports on
 * stdout or -o do, and renders the text exposition or, for scrapers
 * whose Accept header prefers it, the protobuf one (src/3-format/prom*.c).
 * The jailed server (jailchild.c) asks for each answer; the jail's thread
 * renders it here, one at a time.
 */
#ifndef NSL_METRICS_H
#define NSL_METRICS_H

#include <stdbool.h>
#include "bpfstats.h"
#include "groups.h"
#include "jail.h"
#include "loader.h"
#include "options.h"
#include "output.h"
#include "reader.h"
#include "report.h"

struct nsl_metrics {
	const struct nsl_jail *jail;	/* its restarts, for every scrape */
	struct nsl_reader rd;
	struct nsl_bpfstats bs;
	const struct nsl_output *out;	/* its lost reports, for every scrape */
	struct nsl_report rep;
};

/*
 * Sets up m's reader (and the counts of bs's programs) and starts
 * the jailed server on the socket nsl_jail_bind() made; scrapes show
 * out's lost reports. Says what failed. 0 or a negative errno.
 */
int nsl_metrics_start(struct nsl_jail *jail, struct nsl_metrics *m,
		      const struct nsl_loader *l, const bool *attached,
		      const struct nsl_options *o, const struct nsl_bpfstats *bs,
		      struct nsl_groups *g, const struct nsl_output *out);

/* Frees m's reader: after nsl_jail_stop(), when no scrape runs. */
void nsl_metrics_free(struct nsl_metrics *m);

#endif /* NSL_METRICS_H */
