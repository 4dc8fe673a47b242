// SPDX-License-Identifier: GPL-2.0-only
/*
 * include/tstamp.h: for one skb->tstamp, the old layout of struct
 * scm_timestamping_internal (a struct timespec64, as the kernel's
 * ns_to_timespec64() makes it) converted by nsl_timespec64_ns() must give
 * the value the new layout (ktime_t, v7.1) holds as it is, so that
 * tcp-socket-read records the same samples on either kernel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "tstamp.h"

struct ts64 {
	int64_t tv_sec;
	int64_t tv_nsec;
};

/* The kernel's ns_to_timespec64() (kernel/time/time.c), rewritten here. */
static struct ts64 kernel_ns_to_timespec64(int64_t nsec)
{
	struct ts64 ts = { 0, 0 };
	int32_t rem;

	if (!nsec)
		return ts;
	ts.tv_sec = nsec / (int64_t)NSL_NSEC_PER_SEC;
	rem = (int32_t)(nsec % (int64_t)NSL_NSEC_PER_SEC);
	if (rem < 0) {
		ts.tv_sec--;
		rem += NSL_NSEC_PER_SEC;
	}
	ts.tv_nsec = rem;
	return ts;
}

/* old layout -> ns == new layout, for one skb->tstamp */
static void assert_layouts_agree(int64_t ktime)
{
	struct ts64 ts = kernel_ns_to_timespec64(ktime);

	assert_int_equal((int64_t)nsl_timespec64_ns(ts.tv_sec, ts.tv_nsec), ktime);
}

static void test_layouts_agree(void **state)
{
	static const int64_t stamps[] = {
		0,			/* no timestamp: skipped as <= 0 */
		1,
		999999999,		/* all nanoseconds, no second */
		1000000000,
		1000000001,
		1795000000123456789,	/* a wall clock of 2026 */
		4102444800999999999,	/* 2100, past 2^62 ns */
		INT64_MAX,
		-1,			/* before 1970: stays negative, skipped */
		-1000000000,
		-1500000000,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++)
		assert_layouts_agree(stamps[i]);
}

/* A wrong scale (us, ms) or a dropped tv_nsec shows here. */
static void test_known_values(void **state)
{
	(void)state;
	assert_int_equal(nsl_timespec64_ns(0, 0), 0);
	assert_int_equal(nsl_timespec64_ns(0, 999999999), 999999999);
	assert_int_equal(nsl_timespec64_ns(1, 0), 1000000000);
	assert_int_equal(nsl_timespec64_ns(1795000000, 123456789), 1795000000123456789ULL);
	/* one second before the epoch plus half a second: -0.5 s */
	assert_int_equal((int64_t)nsl_timespec64_ns(-1, 500000000), -500000000);
}

/*
 * Before v5.18 a departure time (CLOCK_MONOTONIC, ns since boot) is told
 * from an RX timestamp (CLOCK_REALTIME) by value: below half of
 * CLOCK_REALTIME - CLOCK_MONOTONIC is a departure time.
 */
#define NS_PER_DAY (86400ULL * NSL_NSEC_PER_SEC)
#define NS_PER_YEAR (365ULL * NS_PER_DAY)

static void test_mono_by_value(void **state)
{
	/* booted a day ago, on 2026-11-24 (1795996800 s since 1970) */
	uint64_t mono = NS_PER_DAY, real = 1795996800ULL * NSL_NSEC_PER_SEC;
	uint64_t limit = nsl_mono_tstamp_limit((int64_t)(real - mono));

	(void)state;
	/* the limit is in the middle: 28 years from either side */
	assert_true(limit > 28 * NS_PER_YEAR && limit < 29 * NS_PER_YEAR);
	/* departure times: now, up to a second ahead (pacing), a year up */
	assert_false(nsl_tstamp_is_rx_by_value(mono, limit));
	assert_false(nsl_tstamp_is_rx_by_value(mono + NSL_NSEC_PER_SEC, limit));
	assert_false(nsl_tstamp_is_rx_by_value(NS_PER_YEAR, limit));
	assert_false(nsl_tstamp_is_rx_by_value(27 * NS_PER_YEAR, limit));
	/* RX timestamps: now, a minute ago, 20 years ago */
	assert_true(nsl_tstamp_is_rx_by_value(real, limit));
	assert_true(nsl_tstamp_is_rx_by_value(real - 60 * NSL_NSEC_PER_SEC, limit));
	assert_true(nsl_tstamp_is_rx_by_value(real - 20 * NS_PER_YEAR, limit));
	/* a wall clock never set (1970 + uptime): no limit, all RX */
	assert_int_equal(nsl_mono_tstamp_limit(0), 0);
	assert_int_equal(nsl_mono_tstamp_limit(-5), 0);
	assert_true(nsl_tstamp_is_rx_by_value(1, nsl_mono_tstamp_limit(0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts_agree),
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_mono_by_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
