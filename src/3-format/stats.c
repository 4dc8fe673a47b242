// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statistics derived from a log2 histogram. A bucket only says that a sample
 * lies in (2^(i-1), 2^i], so a percentile is reported as the upper bound of
 * the bucket that holds it: "at least a fraction p of the samples took at
 * most this long".
 */
#include "hist.h"
#include "stats.h"

const double nsl_percentiles[NSL_NR_PERCENTILES] = { 0.5, 0.9, 0.99, 0.999 };

/*
 * Fixed-point scale of p. ceil(p * count) in floating point goes wrong when
 * p is not exactly representable: 0.07 * 100 is 7.000000000000001 and its
 * ceiling 8. Rounding p to nine decimals first and doing the rest in
 * integers gives the rank a person computes by hand.
 */
#define P_SCALE 1000000000ULL

/* ceil(p * count), at least 1: the rank (1-based) of the wanted sample. */
static uint64_t percentile_rank(uint64_t count, double p)
{
	uint64_t pm, q, r, rank;

	if (!(p > 0))		/* also catches NaN */
		p = 0;
	if (p > 1)
		p = 1;
	/* p is in [0, 1] here: adding 0.5 and truncating rounds it */
	pm = (uint64_t)(p * (double)P_SCALE + 0.5);

	/*
	 * Split count so that neither product overflows: q * pm <= count
	 * because pm <= P_SCALE, and r * pm < P_SCALE^2 < 2^64.
	 */
	q = count / P_SCALE;
	r = count % P_SCALE;
	rank = q * pm + (r * pm + P_SCALE - 1) / P_SCALE;
	return rank ? rank : 1;
}

uint64_t nsl_percentile(const struct nsl_report_hist *h, double p)
{
	uint64_t rank, seen = 0;
	__u32 i, n = nsl_nr_slots(h->schema);

	if (!h->count)
		return 0;
	rank = percentile_rank(h->count, p);
	for (i = 0; i < n; i++) {
		seen += nsl_report_slot(h, i);
		if (seen >= rank)
			return nsl_upper_ns(h->schema, h->key.hook, i);
	}
	/*
	 * A count larger than the sum of the buckets should not happen;
	 * "above every bound" is then the only honest answer.
	 */
	return UINT64_MAX;
}

double nsl_average(const struct nsl_report_hist *h)
{
	if (!h->count)
		return 0;
	return nsl_sum_ns(h) / (double)h->count;
}

double nsl_cost_avg_ns(const struct nsl_prog_stat *c)
{
	return c->run_cnt ? (double)c->run_time_ns / (double)c->run_cnt : 0.0;
}

double nsl_cost_cpu_share(const struct nsl_prog_stat *c, double interval_s)
{
	return interval_s > 0 ? (double)c->run_time_ns / (interval_s * 1e9) : 0.0;
}
