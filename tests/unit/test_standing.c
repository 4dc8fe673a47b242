// SPDX-License-Identifier: GPL-2.0-only
/*
 * Standing queues' state machine (include/standing.h), the code the BPF
 * looks run: a run becomes an episode after an interval above target,
 * standing time counted as it goes adds up to the episode's length, a
 * look below target or an empty queue ends it, TCP's unsure looks end
 * no run at once but bound it (an interval), idle time never counts, and
 * the looks of two CPUs at once neither restart a run nor wrap a length.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "standing.h"

#define MS 1000000ULL
#define TARGET NSL_STANDING_TARGET_NS
#define INTERVAL NSL_STANDING_INTERVAL_NS

/* what the looks gave, added up */
struct sums {
	uint64_t standing_ns;
	uint64_t episodes;	/* ended, with their lengths in lengths[] */
	uint64_t lengths[8];
	uint64_t begun;
	int run_over;		/* of the last look */
};

static void look(struct nsl_standing_state *st, struct sums *s,
		 enum nsl_standing_seen seen, uint64_t now)
{
	struct nsl_standing_out out;

	memset(&out, 0, sizeof(out));
	nsl_standing_look(st, seen, now, INTERVAL, &out);
	s->standing_ns += out.standing_ns;
	s->begun += out.begun;
	if (out.episode_ns && s->episodes < 8)
		s->lengths[s->episodes++] = out.episode_ns;
	s->run_over = out.run_over;
}

/* a head older than target at every ms for 3 s, then an empty queue */
static void test_one_episode_its_length(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};
	uint64_t t0 = 5000 * MS;

	(void)state;
	for (uint64_t t = 0; t <= 3000; t++) {
		look(&st, &s, NSL_STANDING_ABOVE, t0 + t * MS);
		assert_int_equal(s.begun, t >= 10);
		/* counted as it goes: all of it so far, once begun */
		assert_int_equal(s.standing_ns, t >= 10 ? t * MS : 0);
	}
	assert_false(s.run_over);
	look(&st, &s, NSL_STANDING_EMPTY, t0 + 3001 * MS);
	assert_true(s.run_over);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 3000 * MS);
	assert_int_equal(s.standing_ns, s.lengths[0]);
	assert_int_equal(s.begun, 1);
}

/* above target for less than the interval: a burst, no episode */
static void test_burst_is_nothing(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	for (int burst = 0; burst < 5; burst++) {
		uint64_t t0 = (1 + burst) * 1000 * MS;

		for (uint64_t t = 0; t < 9; t++)
			look(&st, &s, NSL_STANDING_ABOVE, t0 + t * MS);
		look(&st, &s, NSL_STANDING_BELOW, t0 + 9 * MS);
		assert_true(s.run_over);
	}
	assert_int_equal(s.begun, 0);
	assert_int_equal(s.episodes, 0);
	assert_int_equal(s.standing_ns, 0);
}

/*
 * A reader stopped: looks only where packets are dropped, far apart. The
 * time between two looks above target counts whole; the idle time after
 * the queue emptied never does.
 */
static void test_sparse_looks_count_whole(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	look(&st, &s, NSL_STANDING_ABOVE, 100 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 600 * MS);
	assert_int_equal(s.begun, 1);
	assert_int_equal(s.standing_ns, 500 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 2100 * MS);
	assert_int_equal(s.standing_ns, 2000 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 2105 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 2000 * MS);
	/* idle: empty looks, however many, add nothing */
	for (uint64_t t = 3000; t < 9000; t += 1000)
		look(&st, &s, NSL_STANDING_EMPTY, t * MS);
	assert_int_equal(s.standing_ns, 2000 * MS);
	assert_int_equal(s.episodes, 1);
}

/*
 * TCP: a look below target with data queued (a coalesced head's stamp is
 * its newest segment's) neither ends a run nor starts one; the empty
 * queue ends it.
 */
static void test_unsure_says_nothing(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	look(&st, &s, NSL_STANDING_UNSURE, 1 * MS);
	assert_true(s.run_over);	/* no run: no state to keep */
	assert_int_equal(st.first_above, 0);
	for (uint64_t t = 10; t <= 200; t += 2) {
		look(&st, &s, NSL_STANDING_ABOVE, t * MS);
		look(&st, &s, NSL_STANDING_UNSURE, (t + 1) * MS);
		assert_false(s.run_over);
	}
	assert_int_equal(s.begun, 1);
	assert_int_equal(s.episodes, 0);
	look(&st, &s, NSL_STANDING_EMPTY, 202 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 190 * MS);
	assert_int_equal(s.standing_ns, 190 * MS);
}

/* a look below target ends an episode; the next run is a new one */
static void test_below_ends_then_again(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	for (uint64_t t = 0; t <= 50; t++)
		look(&st, &s, NSL_STANDING_ABOVE, (1 + t) * MS);
	look(&st, &s, NSL_STANDING_BELOW, 52 * MS);
	for (uint64_t t = 0; t <= 20; t++)
		look(&st, &s, NSL_STANDING_ABOVE, (100 + t) * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 121 * MS);
	assert_int_equal(s.begun, 2);
	assert_int_equal(s.episodes, 2);
	assert_int_equal(s.lengths[0], 50 * MS);
	assert_int_equal(s.lengths[1], 20 * MS);
	assert_int_equal(s.standing_ns, 70 * MS);
}

/* how a look is judged: the target inclusive, TCP's lower bound */
static void test_seen(void **state)
{
	(void)state;
	assert_int_equal(nsl_standing_seen(0, 5 * MS, TARGET, 0), NSL_STANDING_EMPTY);
	assert_int_equal(nsl_standing_seen(0, 5 * MS, TARGET, 1), NSL_STANDING_EMPTY);
	assert_int_equal(nsl_standing_seen(1, TARGET, TARGET, 0), NSL_STANDING_ABOVE);
	assert_int_equal(nsl_standing_seen(1, TARGET - 1, TARGET, 0), NSL_STANDING_BELOW);
	assert_int_equal(nsl_standing_seen(1, TARGET - 1, TARGET, 1), NSL_STANDING_UNSURE);
	assert_int_equal(nsl_standing_seen(1, TARGET, TARGET, 1), NSL_STANDING_ABOVE);
}

/*
 * A look whose now is earlier than the run's last_above: another CPU read
 * its clock later and stored first (include/standing.h). The look counts
 * as if taken at last_above: the run goes on, nothing counted backwards,
 * nothing restarted (a restart lost the begun episode and counted it
 * begun again).
 */
static void test_earlier_now_clamps(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	look(&st, &s, NSL_STANDING_ABOVE, 100 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 120 * MS);
	assert_int_equal(s.standing_ns, 20 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 50 * MS);
	assert_int_equal(st.first_above, 100 * MS);
	assert_int_equal(st.last_above, 120 * MS);
	assert_int_equal(st.begun, 1);
	assert_int_equal(s.standing_ns, 20 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 55 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 20 * MS);
	assert_int_equal(s.begun, 1);
}

/*
 * Two CPUs, the interleaving: softirq (CPU 0) and the reader
 * (CPU 1) look at one socket every 0.1 ms each, and each reads its clock
 * up to 50 us before it loads the state, so half the looks find a later
 * last_above. One episode begun, one ended, its length the run's, the
 * standing time counted its length.
 */
static void test_two_cpus_interleaved(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};
	uint64_t t0 = 1000 * MS, us = 1000;

	(void)state;
	for (uint64_t t = 0; t <= 300 * 1000; t += 100) {
		/* CPU 1 read now at t, CPU 0 at t + 50 and stored first */
		look(&st, &s, NSL_STANDING_ABOVE, t0 + (t + 50) * us);
		look(&st, &s, NSL_STANDING_ABOVE, t0 + t * us);
		assert_int_equal(s.begun, t >= 10 * 1000);
		assert_false(s.run_over);
	}
	look(&st, &s, NSL_STANDING_EMPTY, t0 + 301 * MS);
	assert_int_equal(s.begun, 1);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 300 * MS);	/* from t0 + 50 us on */
	assert_int_equal(s.standing_ns, s.lengths[0]);
}

/*
 * Three looks whose stores crossed (a run ended on one CPU, restarted on
 * another, extended by a third with an older now): last_above below
 * first_above with the episode begun. Neither the episode's length nor
 * the standing time may wrap to about 2^64.
 */
static void test_crossed_stores_never_wrap(void **state)
{
	struct nsl_standing_state st = {
		.first_above = 100 * MS, .last_above = 90 * MS, .begun = 1,
	};
	struct sums s = {};

	(void)state;
	look(&st, &s, NSL_STANDING_EMPTY, 95 * MS);
	assert_true(s.run_over);
	assert_int_equal(s.episodes, 0);	/* a length of 0: none */
	st = (struct nsl_standing_state){
		.first_above = 100 * MS, .last_above = 90 * MS, .begun = 1,
	};
	look(&st, &s, NSL_STANDING_ABOVE, 95 * MS);
	assert_int_equal(s.standing_ns, 0);
	assert_true(st.last_above >= st.first_above);
	look(&st, &s, NSL_STANDING_ABOVE, 105 * MS);
	assert_int_equal(s.standing_ns, 10 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 106 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 10 * MS);
	assert_true(s.standing_ns < 1000 * MS);
}

/*
 * A TCP reader just below line rate (data always queued, the head young:
 * unsure looks every millisecond) that sleeps once a second, for 10 s.
 * Sleeps of 2 ms: runs of 2 ms, no episode, nothing standing; sleeps of
 * 20 ms: ten episodes of 19 ms (the looks above target from 1 ms into the
 * sleep to its end), 190 ms standing. The unsure looks between the sleeps
 * prove the queue moved: no run bridges them into one as long as the flow.
 */
static void sleeper(uint64_t sleep_ms, struct sums *s)
{
	struct nsl_standing_state st = {};
	uint64_t t0 = 1000 * MS;

	for (uint64_t ms = 0; ms < 10000; ms++) {
		uint64_t in = ms % 1000;

		look(&st, s, in >= 1 && in <= sleep_ms ?
		     NSL_STANDING_ABOVE : NSL_STANDING_UNSURE, t0 + ms * MS);
	}
	look(&st, s, NSL_STANDING_EMPTY, t0 + 10000 * MS);
}

static void test_unsure_bounds_the_run(void **state)
{
	struct sums s = {};

	(void)state;
	sleeper(2, &s);
	assert_int_equal(s.begun, 0);
	assert_int_equal(s.episodes, 0);
	assert_int_equal(s.standing_ns, 0);
	memset(&s, 0, sizeof(s));
	sleeper(20, &s);
	assert_int_equal(s.begun, 10);
	assert_int_equal(s.standing_ns, 10 * 19 * MS);
	assert_int_equal(s.episodes, 8);	/* lengths[] holds 8 */
	for (int i = 0; i < 8; i++)
		assert_int_equal(s.lengths[i], 19 * MS);
}

/*
 * A reader that drains where no look sees it (splice): an unsure arrival
 * look, then nothing for a second, then a look above target. The queue
 * moved in between: the run ends at its last look above target, and the
 * new one starts at the new look; the second is not counted.
 */
static void test_moved_then_gap_not_bridged(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	for (uint64_t t = 0; t <= 20; t++)
		look(&st, &s, NSL_STANDING_ABOVE, (100 + t) * MS);
	look(&st, &s, NSL_STANDING_UNSURE, 125 * MS);
	assert_false(s.run_over);
	look(&st, &s, NSL_STANDING_ABOVE, 1125 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 20 * MS);
	assert_false(s.run_over);
	assert_int_equal(st.first_above, 1125 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 1126 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.begun, 1);
	assert_int_equal(s.standing_ns, 20 * MS);
}

/*
 * A head found at 2 s that crossed target at 100 ms (a burst, then
 * silence): the run starts at the crossing, and the look at 2 s begins
 * the episode with all 1.9 s; clamped to the floor (the last report,
 * timestamping on); a crossing past now (a clock of another namespace)
 * starts at now; a run already on is left alone.
 */
static void test_start_at_crossing(void **state)
{
	struct nsl_standing_state st = {};
	struct sums s = {};

	(void)state;
	nsl_standing_start(&st, 100 * MS, 0, 2000 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 2000 * MS);
	assert_int_equal(s.begun, 1);
	assert_int_equal(s.standing_ns, 1900 * MS);
	nsl_standing_start(&st, 1500 * MS, 0, 2100 * MS);	/* on: as it was */
	assert_int_equal(st.first_above, 100 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 2100 * MS);
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.lengths[0], 1900 * MS);

	memset(&s, 0, sizeof(s));
	nsl_standing_start(&st, 100 * MS, 1500 * MS, 2000 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 2000 * MS);
	assert_int_equal(s.standing_ns, 500 * MS);
	look(&st, &s, NSL_STANDING_EMPTY, 2001 * MS);

	memset(&s, 0, sizeof(s));
	nsl_standing_start(&st, 3000 * MS, 0, 2000 * MS);
	assert_int_equal(st.first_above, 2000 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 2000 * MS);
	assert_int_equal(s.begun, 0);
}

/*
 * A socket closed while its queue stands: its run, last extended at
 * 1 s, ends at the close at 1.4 s with the tail counted (0.4 s), its
 * episode of 1.4 s ended; a run not yet an interval long that the close
 * makes one is begun and ended at once; no run: nothing; a stale run
 * (the queue moved, then an interval without a look above target) ends
 * at its last look above target, no tail.
 */
static void test_close_counts_the_tail(void **state)
{
	struct nsl_standing_state st = {};
	struct nsl_standing_out out = {};
	struct sums s = {};

	(void)state;
	look(&st, &s, NSL_STANDING_ABOVE, 0 * MS + 1);
	look(&st, &s, NSL_STANDING_ABOVE, 1000 * MS);
	nsl_standing_close(&st, 1400 * MS, INTERVAL, &out);
	assert_int_equal(s.standing_ns + out.standing_ns, 1400 * MS - 1);
	assert_int_equal(out.episode_ns, 1400 * MS - 1);
	assert_true(out.run_over);
	assert_int_equal(st.first_above, 0);

	memset(&out, 0, sizeof(out));
	look(&st, &s, NSL_STANDING_ABOVE, 2000 * MS);
	nsl_standing_close(&st, 2000 * MS + INTERVAL, INTERVAL, &out);
	assert_int_equal(out.begun, 1);
	assert_int_equal(out.standing_ns, INTERVAL);
	assert_int_equal(out.episode_ns, INTERVAL);

	memset(&out, 0, sizeof(out));
	nsl_standing_close(&st, 3000 * MS, INTERVAL, &out);
	assert_true(out.run_over);
	assert_int_equal(out.standing_ns + out.episode_ns + out.begun, 0);

	/* stale (moved, then an interval with no look above): no tail */
	memset(&s, 0, sizeof(s));
	memset(&out, 0, sizeof(out));
	look(&st, &s, NSL_STANDING_ABOVE, 4000 * MS);
	look(&st, &s, NSL_STANDING_ABOVE, 4100 * MS);
	look(&st, &s, NSL_STANDING_UNSURE, 4101 * MS);
	nsl_standing_close(&st, 4100 * MS + 5 * INTERVAL, INTERVAL, &out);
	assert_int_equal(out.standing_ns, 0);
	assert_int_equal(out.episode_ns, 100 * MS);
	assert_true(out.run_over);
}

/*
 * UDP's two queues (NSL_UDP_OLDEST()): a model of sk_receive_queue and
 * reader_queue, datagrams by their numbers (their age order), and what
 * the reader does between a look's two reads: nothing, a splice of
 * sk_receive_queue onto reader_queue (__skb_recv_udp(),
 * udp_rmem_release()), or a splice and the read of all of it.
 */
enum between { NOTHING, SPLICE, SPLICE_AND_READ };

struct udp_model {
	int receive[8], n_receive;
	int reader[8], n_reader;
	enum between between;
	int charged;		/* sk_rmem_alloc > 0 */
	int reads;		/* queue reads so far, in order */
	int order[3];		/* 'R': sk_receive_queue, 'r': reader_queue, 'c' */
};

static void *udp_read_receive(struct udp_model *m)
{
	m->order[m->reads++] = 'R';
	return m->n_receive ? &m->receive[0] : NULL;
}

static void *udp_read_reader(struct udp_model *m)
{
	m->order[m->reads++] = 'r';
	return m->n_reader ? &m->reader[0] : NULL;
}

/* the reader on the other CPU, between the look's two reads */
static void udp_reader_acts(struct udp_model *m)
{
	if (m->between == NOTHING)
		return;
	for (int i = 0; i < m->n_receive; i++)
		m->reader[m->n_reader++] = m->receive[i];
	m->n_receive = 0;
	if (m->between == SPLICE_AND_READ)
		m->n_reader = 0;
}

/* the look: the reader acts after whichever read the macro does first */
static int udp_look(struct udp_model *m, int **head)
{
	void *h = NULL;
	int which;

	which = NSL_UDP_OLDEST(h,
		({ void *x = udp_read_receive(m); if (m->reads == 1) udp_reader_acts(m); x; }),
		({ void *x = udp_read_reader(m); if (m->reads == 1) udp_reader_acts(m); x; }),
		(m->order[m->reads++] = 'c', m->charged));
	*head = h;
	/* queue_head()'s second read of the queue it found the head in */
	if (which == NSL_UDP_RECEIVE && (!m->n_receive || h != &m->receive[0]))
		return -1;
	if (which == NSL_UDP_READER && (!m->n_reader || h != &m->reader[0]))
		return -1;
	return which;
}

/* what a look gives in each case, and that a splice between its reads
 * cannot make a standing queue look empty (issue 57, item 7) */
static void test_udp_oldest(void **state)
{
	struct udp_model m;
	int *head;

	(void)state;
	/* reader_queue just drained, sk_receive_queue holds 1 and 2: spliced
	 * between the reads, they are found in reader_queue */
	m = (struct udp_model){ .receive = { 1, 2 }, .n_receive = 2, .between = SPLICE,
				.charged = 1 };
	assert_int_equal(udp_look(&m, &head), NSL_UDP_READER);
	assert_int_equal(*head, 1);
	assert_int_equal(m.order[0], 'R');
	assert_int_equal(m.order[1], 'r');
	/* no splice: sk_receive_queue's head */
	m = (struct udp_model){ .receive = { 1, 2 }, .n_receive = 2, .charged = 1 };
	assert_int_equal(udp_look(&m, &head), NSL_UDP_RECEIVE);
	assert_int_equal(*head, 1);
	/* both hold some: reader_queue's, the older */
	m = (struct udp_model){ .reader = { 1 }, .n_reader = 1, .receive = { 2 },
				.n_receive = 1, .charged = 1 };
	assert_int_equal(udp_look(&m, &head), NSL_UDP_READER);
	assert_int_equal(*head, 1);
	/* spliced and read between the reads: the head found first is no
	 * longer queued, which the second read of its queue tells */
	m = (struct udp_model){ .receive = { 1 }, .n_receive = 1,
				.between = SPLICE_AND_READ, .charged = 1 };
	assert_int_equal(udp_look(&m, &head), -1);
	/* both empty: so, and asked about the memory only then; not known
	 * while it still holds anything (a dequeue not yet uncharged) */
	m = (struct udp_model){ 0 };
	assert_int_equal(udp_look(&m, &head), NSL_UDP_EMPTY);
	assert_int_equal(m.reads, 3);
	m = (struct udp_model){ .charged = 1 };
	assert_int_equal(udp_look(&m, &head), -1);
	m = (struct udp_model){ .reader = { 1 }, .n_reader = 1, .charged = 1 };
	assert_int_equal(udp_look(&m, &head), NSL_UDP_READER);
	assert_int_equal(m.reads, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_episode_its_length),
		cmocka_unit_test(test_burst_is_nothing),
		cmocka_unit_test(test_sparse_looks_count_whole),
		cmocka_unit_test(test_unsure_says_nothing),
		cmocka_unit_test(test_below_ends_then_again),
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_earlier_now_clamps),
		cmocka_unit_test(test_two_cpus_interleaved),
		cmocka_unit_test(test_crossed_stores_never_wrap),
		cmocka_unit_test(test_unsure_bounds_the_run),
		cmocka_unit_test(test_moved_then_gap_not_bridged),
		cmocka_unit_test(test_start_at_crossing),
		cmocka_unit_test(test_close_counts_the_tail),
		cmocka_unit_test(test_udp_oldest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
