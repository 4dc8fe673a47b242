/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Standing queues (tcp-standing-queue, udp-standing-queue): CoDel's
 * definition, per socket. A queue stands once the age of its oldest
 * undelivered packet (now - its RX stamp) has stayed at or above a target
 * for an interval. A pure state machine over "looks" at a socket's queue,
 * so that the host unit tests drive it with made-up times and the BPF
 * program (bpf/standing.bpf.h) runs exactly this code.
 *
 * A look is taken where the queue changes: a packet queued, a read, a
 * datagram dropped for a full buffer. It says the age of the queue's head
 * (the oldest packet still undelivered), or that the queue is empty:
 * - at or above target: a run starts, or goes on. Once the first and the
 *   latest look above target in the run are an interval apart, the run is
 *   an episode (begun). From then on each look adds the time since the
 *   previous one to the standing time, and the first adds the interval it
 *   took to get there: the standing time a socket adds is its episode's
 *   length, counted as it goes (a report written while a queue stands
 *   holds the time it stood in that report);
 * - below target, or an empty queue: the run ends; an episode that ends
 *   goes into the hook's histogram with its length (first to latest look
 *   above target). Idle time, an empty queue, is never counted.
 * Between two looks nothing was queued or read, so a head that was above
 * target stayed where it was and aged: the time between looks counts
 * whole, however long (a reader that stopped, with packets dropped
 * meanwhile, or a TCP sender that stopped at a zero window).
 *
 * TCP's ages are lower bounds: tcp_try_coalesce() (net/ipv4/tcp_input.c)
 * merges a new segment into the tail skb and gives it the new segment's
 * stamp, so a head that took later segments looks younger than its first
 * byte is. A TCP look below target with data queued (unsure) neither
 * starts a run nor ends it at once: it proves only that the queue moved
 * (its head is younger than a head that had stood since last_above would
 * be). An empty queue still ends it.
 *
 * A run that no look at or above target has extended for an interval
 * ends at its last_above, at the first look that is not above target
 * (unsure, or the report's walk: nsl_standing_look()'s stale rule), and
 * at a look above target after an unsure one (the queue moved in
 * between: the gap is not bridged). Readers that drain the queue where
 * no look sees them (TCP's splice through tcp_read_sock(), zero-copy
 * receive, sockmap, kTLS: docs/hooks.md) leave only arrivals' looks, and
 * an arrival behind such a reader sees the segment just queued, young:
 * unsure. Without the rule one look above target made a run that lived
 * as long as the socket, every later look adding the whole gap since the
 * previous one, idle time included. What it costs: an unsure or walk's
 * look that comes an interval after the last look above target, with the
 * head truly standing all along but coalesced young, ends the run early;
 * the next look above target starts another.
 *
 * Two CPUs may look at one socket at once (UDP queues without the socket
 * lock; a reader on another CPU; the walk): each reads its clock before
 * it loads the state, so a look may find a last_above later than its
 * now. That is no clock going back (CLOCK_MONOTONIC does not): the look
 * counts as if taken at last_above (clamped), and never restarts the run,
 * which would lose a begun episode and count it begun again. The stores
 * are not atomic together (tracing programs take no bpf_spin_lock): a
 * third look can leave last_above below first_above; an episode's length
 * is then 0, never last - first wrapped to 2^64.
 */
#ifndef NSL_STANDING_H
#define NSL_STANDING_H

#include "netstacklat.h"

/* CoDel's defaults (RFC 8289): 5 ms and 100 ms there, 1 ms and 10 ms here */
#define NSL_STANDING_TARGET_NS 1000000ULL
#define NSL_STANDING_INTERVAL_NS 10000000ULL

/*
 * A socket's state, in SK_STORAGE while a run lasts (created at the first
 * look above target, deleted when the run ends). Times in CLOCK_MONOTONIC
 * ns; first_above == 0: no run.
 */
struct nsl_standing_state {
	__u64 first_above;	/* the run's first look at or above target */
	__u64 last_above;	/* its latest one */
	__u32 begun;		/* the run is an episode */
	__u32 walked;		/* the report's walks' round that told it */
	__u32 moved;		/* an unsure look since last_above */
	__u32 pad;
};

/* What one look gives: to add to the counters and the histogram. */
struct nsl_standing_out {
	__u64 standing_ns;	/* to standing_queue_seconds */
	__u64 episode_ns;	/* an episode ended: its length (0: none) */
	__u32 begun;		/* an episode began */
	__u32 run_over;		/* no run left: the state may go */
};

/* How a look saw the queue. */
enum nsl_standing_seen {
	NSL_STANDING_EMPTY,	/* nothing queued */
	NSL_STANDING_BELOW,	/* the head's age below target */
	NSL_STANDING_UNSURE,	/* below target, but a lower bound (TCP) */
	NSL_STANDING_ABOVE,	/* at or above target */
};

/* The run ends at its last look above target: an episode's length, 0 if none. */
static __always_inline void nsl_standing_end(struct nsl_standing_state *st,
					     struct nsl_standing_out *out)
{
	/* last_above < first_above: stores of two CPUs crossed (above) */
	if (st->begun && st->last_above > st->first_above)
		out->episode_ns = st->last_above - st->first_above;
	st->first_above = 0;
	st->last_above = 0;
	st->begun = 0;
	st->moved = 0;
	out->run_over = 1;
}

/*
 * One look at now (monotonic ns, never 0), with the state st and interval;
 * fills out (zeroed by the caller).
 */
static __always_inline void nsl_standing_look(struct nsl_standing_state *st,
					      enum nsl_standing_seen seen,
					      __u64 now, __u64 interval,
					      struct nsl_standing_out *out)
{
	__u64 last = st->last_above;

	/* another CPU's later look stored last_above after we read now */
	if (st->first_above && now < last)
		now = last;
	if (seen == NSL_STANDING_UNSURE) {
		if (!st->first_above) {
			out->run_over = 1;
			return;
		}
		/* stale: no look above target for an interval */
		if (now - last >= interval) {
			nsl_standing_end(st, out);
			return;
		}
		st->moved = 1;
		return;
	}
	if (seen != NSL_STANDING_ABOVE) {
		nsl_standing_end(st, out);
		return;
	}
	/* the queue moved, then an interval without a look above target */
	if (st->first_above && st->moved && now - last >= interval)
		nsl_standing_end(st, out);
	if (!st->first_above) {
		st->first_above = now;
		st->last_above = now;
		st->begun = 0;
		st->moved = 0;
		out->run_over = 0;
		return;
	}
	/* first_above > now: a third CPU's restart crossed our stores */
	if (st->first_above > now)
		st->first_above = now;
	if (st->begun) {
		out->standing_ns = now - (last > st->first_above ? last : st->first_above);
	} else if (now - st->first_above >= interval) {
		st->begun = 1;
		out->begun = 1;
		out->standing_ns = now - st->first_above;
	}
	st->last_above = now;
	st->moved = 0;
}

/* How a look with the head's age (ns; queued: not empty) saw the queue. */
static __always_inline enum nsl_standing_seen
nsl_standing_seen(int queued, __u64 age, __u64 target, int lower_bound)
{
	if (!queued)
		return NSL_STANDING_EMPTY;
	if (age >= target)
		return NSL_STANDING_ABOVE;
	return lower_bound ? NSL_STANDING_UNSURE : NSL_STANDING_BELOW;
}

/*
 * A look that finds a head at or above target on a socket with no run
 * (st->first_above == 0): the head did not cross target at this look but
 * at crossed (its stamp + target, or the lower bound of an unstamped head,
 * standing_look()), maybe long before: the stall the looks were not there
 * to see (a queue filled faster than target, then nothing arrived and
 * nobody read, until a walk or a read looked). The run starts there, no
 * earlier than floor (when the tool began timestamping, and the last
 * report: time before it is not put into a later one) and no later than
 * now; the look at now that follows (nsl_standing_look(), ABOVE) then
 * begins the episode if crossed is an interval back, with its time since
 * crossed. A run already on is left as it is.
 */
static __always_inline void nsl_standing_start(struct nsl_standing_state *st,
					       __u64 crossed, __u64 floor,
					       __u64 now)
{
	if (st->first_above)
		return;
	if (crossed < floor)
		crossed = floor;
	if (!crossed || crossed > now)
		crossed = now;
	st->first_above = crossed;
	st->last_above = crossed;
	st->begun = 0;
	st->moved = 0;
}

/*
 * The last look at a socket being closed with a run (TCP: tcp_close()
 * purged the queue before it set TCP_CLOSE, standing_close()): no look
 * saw the queue drain, so its head stood until now. The run is extended
 * to now (the tail: its standing time if begun, or the episode beginning
 * now if the run is an interval long) and ends there, its episode into
 * the histogram. A stale run (the queue moved, then no look above target
 * for an interval: nsl_standing_look()) did not stand to the close: it
 * ends at its last look above target, no tail.
 */
static __always_inline void nsl_standing_close(struct nsl_standing_state *st,
					       __u64 now, __u64 interval,
					       struct nsl_standing_out *out)
{
	if (!st->first_above) {
		out->run_over = 1;
		return;
	}
	if (!(st->moved && now > st->last_above && now - st->last_above >= interval))
		nsl_standing_look(st, NSL_STANDING_ABOVE, now, interval, out);
	nsl_standing_end(st, out);
}

/*
 * UDP's oldest undelivered datagram, from its two queues, read without
 * their locks (bpf/standing.bpf.h, queue_head(), says why this order):
 * READ_RECEIVE, sk_receive_queue's head, is read before READ_READER,
 * reader_queue's (each NULL where empty), because a splice only ever
 * moves datagrams from the first to the second: whatever the first read
 * saw is found by the second, or was read meanwhile. Where both are
 * empty, CHARGED (read only then) says whether the socket's receive
 * memory still holds anything: then the look can say nothing. Sets head
 * to what was found, reader_queue's first (the older), and returns
 * which queue held it (NSL_UDP_READER, NSL_UDP_RECEIVE), NSL_UDP_EMPTY,
 * or -1. A macro, so that the unit tests read with a splice in between.
 */
enum { NSL_UDP_EMPTY, NSL_UDP_READER, NSL_UDP_RECEIVE };

#define NSL_UDP_OLDEST(head, READ_RECEIVE, READ_READER, CHARGED)	\
({									\
	void *__receive = (READ_RECEIVE);				\
	void *__reader = (READ_READER);					\
	int __which = NSL_UDP_EMPTY;					\
									\
	if (__reader) {							\
		(head) = __reader;					\
		__which = NSL_UDP_READER;				\
	} else if (__receive) {						\
		(head) = __receive;					\
		__which = NSL_UDP_RECEIVE;				\
	} else if (CHARGED) {						\
		__which = -1;						\
	}								\
	__which;							\
})

#endif /* NSL_STANDING_H */
