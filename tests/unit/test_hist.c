// SPDX-License-Identifier: GPL-2.0-only
/* Bucket index at every edge: the BPF side runs this same header. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "hist.h"

static void test_small_values(void **state)
{
	(void)state;
	assert_int_equal(nsl_bucket(0), 0);
	assert_int_equal(nsl_bucket(1), 0);
	assert_int_equal(nsl_bucket(2), 1);
	assert_int_equal(nsl_bucket(3), 2);
	assert_int_equal(nsl_bucket(4), 2);
	assert_int_equal(nsl_bucket(5), 3);
}

/* Right-closed buckets: 2^i is the last value of bucket i, 2^i + 1 the first of i + 1. */
static void test_every_edge(void **state)
{
	(void)state;
	for (uint32_t i = 1; i < NSL_MAX_SLOT; i++) {
		uint64_t edge = (uint64_t)1 << i;

		assert_int_equal(nsl_bucket(edge), i);
		assert_int_equal(nsl_bucket(edge - 1), i == 1 ? 0 : i);
		assert_int_equal(nsl_bucket(edge + 1), i + 1);
		assert_true(nsl_bucket_upper(i) == edge);
	}
}

static void test_last_bucket_takes_the_rest(void **state)
{
	(void)state;
	assert_int_equal(nsl_bucket((uint64_t)1 << NSL_MAX_SLOT), NSL_MAX_SLOT);
	assert_int_equal(nsl_bucket(((uint64_t)1 << NSL_MAX_SLOT) + 1), NSL_MAX_SLOT);
	assert_int_equal(nsl_bucket((uint64_t)1 << 40), NSL_MAX_SLOT);
	assert_int_equal(nsl_bucket(UINT64_MAX), NSL_MAX_SLOT);
}

static void test_fls(void **state)
{
	(void)state;
	assert_int_equal(nsl_fls64(0), 0);
	assert_int_equal(nsl_fls64(1), 1);
	assert_int_equal(nsl_fls64(UINT64_MAX), 64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(nsl_fls64((uint64_t)1 << i), i + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values),
		cmocka_unit_test(test_every_edge),
		cmocka_unit_test(test_last_bucket_takes_the_rest),
		cmocka_unit_test(test_fls),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
