// SPDX-License-Identifier: GPL-2.0-only
/*
 * Percentiles and averages of log2 histograms: known answers, and a check
 * against the exact percentile of generated samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "stats.h"

/* Slots for the histograms of a test (each test runs with fresh ones). */
static uint64_t slots[NSL_MAX_SLOTS];

static void fill(struct nsl_report_hist *h, __u32 bucket, uint64_t n)
{
	if (!h->buckets) {
		memset(slots, 0, sizeof(slots));
		h->buckets = slots;
		h->lo = 0;
		h->nr = NSL_MAX_SLOTS;	/* dense: every slot */
	}
	h->buckets[bucket] += n;
	h->count += n;
}

static void test_percentile_table(void **state)
{
	(void)state;
	assert_int_equal(NSL_NR_PERCENTILES, 4);
	assert_true(nsl_percentiles[0] == 0.5);
	assert_true(nsl_percentiles[1] == 0.9);
	assert_true(nsl_percentiles[2] == 0.99);
	assert_true(nsl_percentiles[3] == 0.999);
}

static void test_empty(void **state)
{
	struct nsl_report_hist h = { 0 };
	int i;

	(void)state;
	for (i = 0; i < NSL_NR_PERCENTILES; i++)
		assert_int_equal(nsl_percentile(&h, nsl_percentiles[i]), 0);
	assert_true(nsl_average(&h) == 0);
}

static void test_single_bucket(void **state)
{
	struct nsl_report_hist h = { 0 };
	int i;

	(void)state;
	fill(&h, 5, 7);
	for (i = 0; i < NSL_NR_PERCENTILES; i++)
		assert_int_equal(nsl_percentile(&h, nsl_percentiles[i]), 32);
	assert_int_equal(nsl_percentile(&h, 0), 32);
	assert_int_equal(nsl_percentile(&h, 1), 32);
}

/* Bucket 0 is [0, 1]: its bound is 1, not 0 (which means "empty"). */
static void test_bucket_zero(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 0, 3);
	assert_int_equal(nsl_percentile(&h, 0.5), 1);
}

/* 50 % exactly at the split: rank 50 is the last sample of the first. */
static void test_two_buckets_split(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 3, 50);
	fill(&h, 7, 50);
	assert_int_equal(nsl_percentile(&h, 0.5), 8);
	assert_int_equal(nsl_percentile(&h, 0.51), 128);
	assert_int_equal(nsl_percentile(&h, 0.9), 128);
	/* p = 0 still means the smallest sample, not none */
	assert_int_equal(nsl_percentile(&h, 0), 8);
	assert_int_equal(nsl_percentile(&h, 1), 128);
}

/* Rank ceil(0.999 * 1000) = 999 must not become 1000. */
static void test_p999_of_1000(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 4, 999);
	fill(&h, 9, 1);
	assert_int_equal(nsl_percentile(&h, 0.999), 16);
	assert_int_equal(nsl_percentile(&h, 1), 512);

	/* one more sample and rank 1000.001 -> 1001 is the slow one */
	fill(&h, 9, 1);
	assert_int_equal(nsl_percentile(&h, 0.999), 512);
}

/* 0.07 * 100 is 7.000000000000001 in doubles; the rank is still 7. */
static void test_rank_not_float_rounded(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 2, 7);
	fill(&h, 6, 93);
	assert_int_equal(nsl_percentile(&h, 0.07), 4);
	assert_int_equal(nsl_percentile(&h, 0.071), 64);
}

static void test_last_bucket(void **state)
{
	struct nsl_report_hist h = { 0 };
	int i;

	(void)state;
	fill(&h, NSL_MAX_SLOT, 4);
	for (i = 0; i < NSL_NR_PERCENTILES; i++)
		assert_true(nsl_percentile(&h, nsl_percentiles[i]) ==
			    UINT64_MAX);

	/* the bucket before it still has a bound */
	fill(&h, NSL_MAX_SLOT - 1, 4);
	assert_true(nsl_percentile(&h, 0.5) ==
		    nsl_bucket_upper(NSL_MAX_SLOT - 1));
	assert_true(nsl_percentile(&h, 0.9) == UINT64_MAX);
}

/* Counts beyond 2^32, where a naive p * count loses integer precision. */
static void test_huge_counts(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 10, 999ULL * 1000000000000ULL);
	fill(&h, 20, 1000000000000ULL);
	assert_int_equal(nsl_percentile(&h, 0.999), 1024);
	assert_int_equal(nsl_percentile(&h, 0.9991), 1 << 20);
}

static void test_average(void **state)
{
	struct nsl_report_hist h = { 0 };

	(void)state;
	fill(&h, 10, 3);
	h.sum_ns = 1000;
	assert_float_equal(nsl_average(&h), 1000.0 / 3, 1e-9);
	h.sum_ns = 0;
	assert_float_equal(nsl_average(&h), 0, 0);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A sample from distribution d: 0 uniform-in-octaves, 1 exponential, 2 log-normal. */
static uint64_t draw(int d, uint64_t *seed)
{
	double u = ((double)lcg(seed) + 0.5) / 2147483648.0;	/* (0, 1) */
	double u2 = ((double)lcg(seed) + 0.5) / 2147483648.0;

	switch (d) {
	case 0:	/* 1..1000 ns shifted by 0..19 octaves: 1 ns to 0.5 s */
		return (lcg(seed) % 1000 + 1) << (lcg(seed) % 20);
	case 1:	/* mean 50 us */
		return (uint64_t)(-50000.0 * log(u));
	default: /* median 20 us, a factor e^1.5 either way for 1 sigma */
		return (uint64_t)(20000.0 * exp(1.5 * sqrt(-2 * log(u)) * cos(6.283185307179586 * u2)));
	}
}

/*
 * Against exact percentiles of generated samples from known distributions,
 * at every resolution: the reported value is the upper bound of the very
 * bucket that holds the exact percentile (so it is at least the exact
 * value, and at most one bucket's width above it: a factor 2 at
 * resolution 1, 2^(1/8) = 1.09 at resolution 8).
 */
static void test_against_exact(void **state)
{
	enum { N = 5000 };
	static uint64_t samples[N];
	uint64_t seed = 42, exact, got;

	(void)state;
	for (unsigned int s = 0; s <= NSL_MAX_SCHEMA; s++) {
		for (int d = 0; d < 3; d++) {
			struct nsl_report_hist h = { .schema = s };
			const __u64 *thr = nsl_schema_thresholds(s);

			for (int i = 0; i < N; i++) {
				samples[i] = draw(d, &seed);
				fill(&h, nsl_slot(samples[i], s, thr), 1);
			}
			qsort(samples, N, sizeof(samples[0]), cmp_u64);
			for (int i = 0; i < NSL_NR_PERCENTILES; i++) {
				double p = nsl_percentiles[i];
				/* rank ceil(p * N): p * N is whole for N = 5000 */
				uint64_t rank = (uint64_t)(p * N + 0.5);

				exact = samples[rank - 1];
				got = nsl_percentile(&h, p);
				assert_true(got >= exact);
				assert_true(got == nsl_upper_ns(s, 0, nsl_slot(exact, s, thr)));
				if (s == NSL_MAX_SCHEMA && exact >= 1000)
					assert_true((double)got <= exact * 1.0905077326652577);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_table),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_single_bucket),
		cmocka_unit_test(test_bucket_zero),
		cmocka_unit_test(test_two_buckets_split),
		cmocka_unit_test(test_p999_of_1000),
		cmocka_unit_test(test_rank_not_float_rounded),
		cmocka_unit_test(test_last_bucket),
		cmocka_unit_test(test_huge_counts),
		cmocka_unit_test(test_average),
		cmocka_unit_test(test_against_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
