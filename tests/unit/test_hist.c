// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bucket index at every edge, for the log2 buckets and the native schemas:
 * the BPF side runs this same header. (scripts/gen-schema-thresholds
 * --check, run by make test, checks the thresholds themselves in exact
 * integer arithmetic.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
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

static const __u64 thr[NSL_MAX_SCHEMA + 1][8] = NSL_SCHEMA_THRESHOLDS;
static const int schema_f[NSL_MAX_SCHEMA + 1] = NSL_SCHEMA_F;

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/*
 * Every value lies in its slot's range: above the previous slot's largest
 * value, at most its own (the two from the same thresholds); slots never
 * go down as values go up; and the native index agrees with the schema's
 * definition, bucket i = (1e9 * 2^((i-1)/2^s), 1e9 * 2^(i/2^s)] ns,
 * computed in long double (to within its precision).
 */
static void check_value(__u32 s, uint64_t v)
{
	__u32 slot = nsl_slot(v, s, thr[s]);
	long double k = 1 << s, i, lo, hi;

	assert_true(slot < NSL_SCHEMA_SLOTS(s));
	assert_true(v <= nsl_slot_upper(s, thr[s], slot));
	if (slot)
		assert_true(v > nsl_slot_upper(s, thr[s], slot - 1));
	if (!v) {
		assert_int_equal(slot, 0);
		return;
	}
	i = (long double)slot - 1 - schema_f[s];
	hi = 1e9L * exp2l(i / k);
	lo = 1e9L * exp2l((i - 1) / k);
	assert_true((long double)v <= hi * (1 + 1e-15L));
	assert_true((long double)v > lo * (1 - 1e-15L));
}

static void test_schema_slots(void **state)
{
	uint64_t seed = 7;

	(void)state;
	for (__u32 s = 1; s <= NSL_MAX_SCHEMA; s++) {
		__u32 prev = 0;

		check_value(s, 0);
		/* every ns up to 4096, then random values of every size */
		for (uint64_t v = 1; v <= 4096; v++) {
			__u32 slot = nsl_slot(v, s, thr[s]);

			check_value(s, v);
			assert_true(slot >= prev);
			prev = slot;
		}
		for (int n = 0; n < 200000; n++)
			check_value(s, lcg(&seed) >> (lcg(&seed) % 64));
		check_value(s, UINT64_MAX);
	}
}

/* The bounds that are whole: 1 s * 2^n lies in the bucket it ends (right-closed). */
static void test_schema_exact_bounds(void **state)
{
	(void)state;
	for (__u32 s = 1; s <= NSL_MAX_SCHEMA; s++) {
		for (int n = -9; n <= 24; n++) {
			uint64_t b = n < 0 ? 1000000000ULL >> -n : 1000000000ULL << n;
			__u32 slot = nsl_slot(b, s, thr[s]);

			assert_int_equal((int)slot - 1 - schema_f[s], n << s);
			assert_true(nsl_slot_upper(s, thr[s], slot) == b);
			assert_int_equal(nsl_slot(b + 1, s, thr[s]), slot + 1);
		}
	}
}

/* Resolution 8: buckets are at most 2^(1/8) (9.05 %) wide, once ns resolve them. */
static void test_schema_width(void **state)
{
	(void)state;
	for (__u32 s = 1; s <= NSL_MAX_SCHEMA; s++) {
		double max = exp2(1.0 / (1 << s));

		for (__u32 slot = 2; slot < NSL_SCHEMA_SLOTS(s) - 1; slot++) {
			double lo = (double)nsl_slot_upper(s, thr[s], slot - 1);
			double hi = (double)nsl_slot_upper(s, thr[s], slot);

			/* le is a floor: a bound may sit up to 1 ns above it */
			if (lo >= 1000)
				assert_true(hi / lo <= max * (1 + 1 / lo + 1e-15));
		}
	}
}

/*
 * The standing hooks' episodes at the default resolution (issue 57 item
 * 12): 20 s and 40 s, two minutes and ten, an hour, each in a bucket of its
 * own, bounded; where the packet hooks' put every one of them in the
 * open-ended last bucket (above 2^33 ns, 8.6 s). Their edges as right-closed
 * as the packet hooks', the bounds the formats print (nsl_hook_slot_upper())
 * the same the BPF side sorts by; the finer schemas as for every hook.
 */
static void test_standing_slots(void **state)
{
	static const uint64_t s_ns = 1000000000ULL;
	const uint64_t eps[] = { 20 * s_ns, 40 * s_ns, 120 * s_ns, 600 * s_ns, 3600 * s_ns };
	__u32 prev = 0;

	(void)state;
	for (unsigned int h = 0; h < NSL_NR_HISTS; h++)
		assert_int_equal(nsl_hist_shift(h, 0), h == NSL_HOOK_TCP_STANDING ||
					h == NSL_HOOK_UDP_STANDING ? NSL_STANDING_SHIFT : 0);
	for (unsigned int i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		__u32 slot = nsl_hook_slot(NSL_HOOK_UDP_STANDING, eps[i], 0, thr[0]);

		assert_true(slot > prev && slot < NSL_MAX_SLOT);
		assert_true(eps[i] <= nsl_hook_slot_upper(NSL_HOOK_UDP_STANDING, 0, thr[0], slot));
		assert_true(eps[i] > nsl_hook_slot_upper(NSL_HOOK_UDP_STANDING, 0, thr[0], slot - 1));
		assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, eps[i], 0, thr[0]), slot);
		/* a packet hook's: all in the last */
		assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_SOCK_READ, eps[i], 0, thr[0]),
				 NSL_MAX_SLOT);
		prev = slot;
	}
	for (__u32 i = 1; i < NSL_MAX_SLOT; i++) {
		uint64_t edge = nsl_hook_slot_upper(NSL_HOOK_TCP_STANDING, 0, thr[0], i);

		assert_true(edge == (uint64_t)1 << (i + NSL_STANDING_SHIFT));
		assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, edge, 0, thr[0]), i);
		assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, edge + 1, 0, thr[0]), i + 1);
		assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, edge - 1, 0, thr[0]), i);
	}
	assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, 0, 0, thr[0]), 0);
	assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, 1024, 0, thr[0]), 0);
	assert_int_equal(nsl_hook_slot(NSL_HOOK_TCP_STANDING, UINT64_MAX, 0, thr[0]),
			 NSL_MAX_SLOT);
	assert_true(nsl_hook_slot_upper(NSL_HOOK_TCP_STANDING, 0, thr[0], NSL_MAX_SLOT) ==
		    UINT64_MAX);
	/* the finer schemas: the standing hooks' slots are every hook's */
	for (__u32 sc = 1; sc <= NSL_MAX_SCHEMA; sc++) {
		assert_int_equal(nsl_hist_shift(NSL_HOOK_UDP_STANDING, sc), 0);
		assert_int_equal(nsl_hook_slot(NSL_HOOK_UDP_STANDING, 20 * s_ns, sc, thr[sc]),
				 nsl_slot(20 * s_ns, sc, thr[sc]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values),
		cmocka_unit_test(test_every_edge),
		cmocka_unit_test(test_last_bucket_takes_the_rest),
		cmocka_unit_test(test_fls),
		cmocka_unit_test(test_standing_slots),
		cmocka_unit_test(test_schema_slots),
		cmocka_unit_test(test_schema_exact_bounds),
		cmocka_unit_test(test_schema_width),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
