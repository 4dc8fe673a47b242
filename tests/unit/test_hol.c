// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HOL decision of include/hol.h with made-up sequence numbers: the
 * same function runs in the BPF program.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "hol.h"

/* A socket whose window is [rcv_wup, rcv_wup + 64 KiB). */
static struct nsl_hol_input sock_at(uint32_t rcv_nxt, uint32_t copied)
{
	struct nsl_hol_input in = {
		.rcv_nxt = rcv_nxt,
		.copied_seq = copied,
		.rcv_wup = rcv_nxt,
		.rcv_wnd = 65536,
		.ooo_empty = 1,
	};
	return in;
}

static void test_seq_before_wraps(void **state)
{
	(void)state;
	assert_true(nsl_seq_before(1, 2));
	assert_false(nsl_seq_before(2, 1));
	assert_false(nsl_seq_before(5, 5));
	assert_true(nsl_seq_before(0xfffffff0u, 0x10));
	assert_false(nsl_seq_before(0x10, 0xfffffff0u));
	assert_int_equal(nsl_seq_max(0xfffffff0u, 0x10), 0x10);
}

/* Queue already drained when the read sees the new OOO count: range ends at rcv_nxt. */
static void test_empty_ooo_queue_range_is_rcv_nxt(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 1;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.end_seq, 10000);
	assert_int_equal(st.active, 1);
	assert_int_equal(st.last_ooopack, 1);
}

static void test_active_range_excludes_until_passed(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 3;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 8000;			/* still inside the range */
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.active, 1);
	in.copied_seq = 10000;			/* last byte read: 9999, inside */
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.active, 1);
	in.copied_seq = 12000;			/* first read past it */
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
	assert_int_equal(st.active, 0);
	in.copied_seq = 14000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
}

/*
 * A read that crosses the end of the range in one go returns, last, data
 * that arrived after the hole was filled: recorded, as upstream does (it
 * used to be excluded, one clean read lost per HOL event).
 */
static void test_read_crossing_the_end_is_recorded(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 1;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 8000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 10001;			/* 8000..10000, crossing */
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
	assert_int_equal(st.active, 0);
}

/* A read that returned everything up to the range end is excluded; the next one is not. */
static void test_read_that_covers_the_whole_range(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 10000);

	(void)state;
	in.rcv_ooopack = 1;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 11000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
	assert_int_equal(st.active, 0);
}

static void test_ooo_queue_end_used(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 2;
	in.ooo_empty = 0;
	in.ooo_end_seq = 30000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.end_seq, 30000);
	in.copied_seq = 29999;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 30000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 30001;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
}

/* New OOO segments while a range is active extend it. */
static void test_new_ooo_extends_range(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 1;
	nsl_hol_exclude(&st, &in);
	in.rcv_ooopack = 2;
	in.rcv_nxt = 20000;
	in.rcv_wup = 20000;
	in.copied_seq = 11000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.end_seq, 20000);
	in.copied_seq = 15000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
}

static void test_wraparound(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(0x100, 0xffffff00u);

	(void)state;
	in.rcv_wup = 0xffffff00u;
	in.rcv_ooopack = 1;
	in.ooo_empty = 0;
	in.ooo_end_seq = 0x80;		/* beyond the wrap, inside the window */
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.end_seq, 0x100); /* never below rcv_nxt */
	in.copied_seq = 0xfffffff0u;	/* numerically larger, but before */
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_int_equal(st.active, 1);
	in.copied_seq = 0x100;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	in.copied_seq = 0x200;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
}

/* Stale ooo_last_skb: end_seq 0 or beyond the window is replaced by the window end. */
static void test_sanity_check(void **state)
{
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.ooo_empty = 0;
	in.rcv_wup = 9000;
	in.rcv_wnd = 5000;		/* window end 14000 */
	in.ooo_end_seq = 0;
	assert_int_equal(nsl_hol_range_end(&in), 14000);
	in.ooo_end_seq = 14001;
	assert_int_equal(nsl_hol_range_end(&in), 14000);
	in.ooo_end_seq = 0x80000000u;
	assert_int_equal(nsl_hol_range_end(&in), 14000);
	in.ooo_end_seq = 13000;
	assert_int_equal(nsl_hol_range_end(&in), 13000);
	in.ooo_end_seq = 14000;
	assert_int_equal(nsl_hol_range_end(&in), 14000);
	/* a shrunk window never ends below rcv_nxt */
	in.rcv_wup = 5000;
	in.rcv_wnd = 1000;
	in.ooo_end_seq = 0;
	assert_int_equal(nsl_hol_range_end(&in), 10000);
}

static void test_no_change_no_range(void **state)
{
	struct nsl_hol_state st = { .last_ooopack = 5 };
	struct nsl_hol_input in = sock_at(10000, 9000);

	(void)state;
	in.rcv_ooopack = 5;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
	assert_int_equal(st.active, 0);
}

/*
 * The standing hook's question: a queue head that ends inside the range
 * may carry an out-of-order segment's stamp; one that ends past it, or a
 * range passed (inactive), does not; wraparound as everywhere.
 */
static void test_head_waited(void **state)
{
	struct nsl_hol_state st = { 0 };
	struct nsl_hol_input in = sock_at(10000, 4000);

	(void)state;
	in.rcv_ooopack = 2;
	assert_int_equal(nsl_hol_exclude(&st, &in), 1);
	assert_true(nsl_hol_head_waited(&st, 6000));
	assert_true(nsl_hol_head_waited(&st, 10000));	/* ends at the range's end */
	assert_false(nsl_hol_head_waited(&st, 10001));	/* its last byte arrived after */
	in.copied_seq = 10001;				/* the reader passed the range */
	in.rcv_nxt = 12000;
	assert_int_equal(nsl_hol_exclude(&st, &in), 0);
	assert_false(nsl_hol_head_waited(&st, 11000));
	st.active = 1;
	st.end_seq = 0x10;				/* a range across the wrap */
	assert_true(nsl_hol_head_waited(&st, 0xfffffff0u));
	assert_false(nsl_hol_head_waited(&st, 0x20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_before_wraps),
		cmocka_unit_test(test_empty_ooo_queue_range_is_rcv_nxt),
		cmocka_unit_test(test_active_range_excludes_until_passed),
		cmocka_unit_test(test_read_crossing_the_end_is_recorded),
		cmocka_unit_test(test_read_that_covers_the_whole_range),
		cmocka_unit_test(test_ooo_queue_end_used),
		cmocka_unit_test(test_new_ooo_extends_range),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_sanity_check),
		cmocka_unit_test(test_no_change_no_range),
		cmocka_unit_test(test_head_waited),
	};

	return cmocka_run_group_tests_name("hol", tests, NULL, NULL);
}
