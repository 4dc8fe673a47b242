// SPDX-License-Identifier: GPL-2.0-only
/*
 * --sample's random gap (include/sample.h), the functions the BPF
 * countdown runs: the gap's range, its mean (the rate, 1 in N, must be
 * the fixed countdown's) and its spread over the values of the random
 * number; the generator's known first value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sample.h"

/* r over 2^32 in steps of STEP: uniform enough to see the mean exactly */
#define STEP 4099u

static void test_no_sampling_no_gap(void **state)
{
	(void)state;
	assert_int_equal(nsl_sample_gap(0, 1), 0);
	assert_int_equal(nsl_sample_gap(UINT32_MAX, 1), 0);
	assert_int_equal(nsl_sample_gap(UINT32_MAX, 0), 0);
}

/* from 0 to 2n - 2, both ends reached, at the largest N too */
static void test_range(void **state)
{
	static const uint32_t ns[] = { 2, 3, 8, 16, 64, 1000, NSL_MAX_SAMPLE_EVERY };

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		assert_int_equal(nsl_sample_gap(0, ns[i]), 0);
		assert_int_equal(nsl_sample_gap(UINT32_MAX, ns[i]), 2 * ns[i] - 2);
	}
}

/*
 * Over r spread evenly, the mean gap between two recorded packets
 * (gap + 1) is n to within a thousandth, and every gap value is taken
 * as often as any other, to within a percent: a uniform draw.
 */
static void test_mean_and_spread(void **state)
{
	static const uint32_t ns[] = { 2, 3, 16, 64 };
	static uint64_t seen[2 * 64 - 1];

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint32_t n = ns[i], vals = 2 * n - 1;
		uint64_t sum = 0, cnt = 0, lo = UINT64_MAX, hi = 0;

		memset(seen, 0, sizeof(seen));
		for (uint64_t r = 0; r <= UINT32_MAX; r += STEP) {
			uint32_t g = nsl_sample_gap((uint32_t)r, n);

			assert_true(g < vals);
			seen[g]++;
			sum += g + 1;
			cnt++;
		}
		assert_true(llabs((long long)(sum * 1000 / cnt) - (long long)n * 1000) <= (long long)n);
		for (uint32_t g = 0; g < vals; g++) {
			lo = seen[g] < lo ? seen[g] : lo;
			hi = seen[g] > hi ? seen[g] : hi;
		}
		assert_true((hi - lo) * 100 <= lo);
	}
}

/* the generator: Marsaglia's published first value from 1, never 0 */
static void test_xorshift32(void **state)
{
	uint32_t x = 1;

	(void)state;
	assert_int_equal(nsl_xorshift32(&x), 270369);
	assert_int_equal(x, 270369);
	for (int i = 0; i < 1000000; i++)
		assert_int_not_equal(nsl_xorshift32(&x), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_sampling_no_gap),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_mean_and_spread),
		cmocka_unit_test(test_xorshift32),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
