/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics of a report's histograms and programs (stats.c): the
 * percentiles, averages and costs the formats print.
 */
#ifndef NSL_STATS_H
#define NSL_STATS_H

#include <stdint.h>
#include "report.h"
#include "slots.h"

#define NSL_NR_PERCENTILES 4
extern const double nsl_percentiles[NSL_NR_PERCENTILES]; /* .5 .9 .99 .999 */

/*
 * Upper bound in ns of the bucket holding the sample of rank ceil(p*count),
 * i.e. at least a fraction p of the samples are <= the returned value.
 * Returns 0 for an empty histogram and UINT64_MAX when the rank falls in
 * the open-ended last bucket.
 */
uint64_t nsl_percentile(const struct nsl_report_hist *h, double p);
/* The sum of a histogram's latencies in ns, wraps included. */
static inline double nsl_sum_ns(const struct nsl_report_hist *h)
{
	return (double)h->sum_wraps * 18446744073709551616.0 + (double)h->sum_ns;
}

/* Average in ns (0 for an empty histogram). */
double nsl_average(const struct nsl_report_hist *h);

/* Average ns per run of a program (0 if it did not run). */
double nsl_cost_avg_ns(const struct nsl_prog_stat *c);
/* Time in the program as a fraction of one CPU over interval_s. */
double nsl_cost_cpu_share(const struct nsl_prog_stat *c, double interval_s);

#endif /* NSL_STATS_H */
