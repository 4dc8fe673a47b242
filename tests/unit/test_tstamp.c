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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts_agree),
		cmocka_unit_test(test_known_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
