/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TCP head-of-line (HOL) blocking decision for tcp-socket-read, as a
 * pure function over numbers read from the socket, so that the host unit
 * tests can drive it with made-up sequence numbers (wraparound included)
 * and the BPF program runs exactly the same code.
 *
 * Kernel behaviour relied on (net/ipv4/tcp_input.c):
 * - tcp_data_queue_ofo() increments tp->rcv_ooopack for every segment it
 *   puts in the out-of-order queue, and never resets it: a read that sees
 *   the counter grow knows new segments arrived out of order since the
 *   previous read, i.e. a hole (loss or reordering) that later data waited
 *   behind.
 * - tp->ooo_last_skb is the highest-sequence skb of the out-of-order queue;
 *   everything up to its end_seq may have waited for the hole to be filled.
 *   When the queue is already drained, everything below rcv_nxt may have.
 * - tp->copied_seq is the read position; the hook runs after the read, so
 *   it is the position the read stopped at.
 */
#ifndef NSL_HOL_H
#define NSL_HOL_H

#include "netstacklat.h"

/* Per-socket state, kept in SK_STORAGE only for sockets that saw OOO data. */
struct nsl_hol_state {
	__u32 last_ooopack;	/* rcv_ooopack at the previous read */
	__u32 end_seq;		/* end of the range that may be HOL-blocked */
	__u32 active;		/* reads are excluded until end_seq is passed */
};

/* What the BPF program read from the socket for one read. */
struct nsl_hol_input {
	__u32 rcv_ooopack;
	__u32 rcv_nxt;
	__u32 copied_seq;
	__u32 rcv_wup;
	__u32 rcv_wnd;
	__u32 ooo_end_seq;	/* end_seq of ooo_last_skb; 0 if unreadable */
	__u32 ooo_empty;	/* out-of-order queue is empty */
};

/* Sequence-space comparison with 32-bit wraparound, as the kernel's before(). */
static __always_inline int nsl_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

static __always_inline __u32 nsl_seq_max(__u32 a, __u32 b)
{
	return nsl_seq_before(a, b) ? b : a;
}

/*
 * Highest sequence number that may be HOL-blocked. ooo_last_skb is read
 * without the socket lock and may already be freed: an end_seq of 0, or one
 * beyond the receive window (nothing can be queued beyond it), is not
 * trusted and replaced by the window end. It is never below rcv_nxt either:
 * all data below rcv_nxt is already in order.
 */
static __always_inline __u32 nsl_hol_range_end(const struct nsl_hol_input *in)
{
	__u32 win_end = nsl_seq_max(in->rcv_wup + in->rcv_wnd, in->rcv_nxt);
	__u32 end;

	if (in->ooo_empty)
		return in->rcv_nxt;
	end = in->ooo_end_seq;
	if (end == 0 || nsl_seq_before(win_end, end))
		return win_end;
	return nsl_seq_max(end, in->rcv_nxt);
}

/*
 * Returns 1 if this read may have been HOL-blocked and must not be recorded,
 * 0 if it is to be recorded. Updates *st. Callers skip this entirely (and
 * record) while rcv_ooopack is 0: the socket never saw OOO data.
 *
 * A read's sample is the timestamp of the last skb it copied from, which
 * holds byte copied_seq - 1. While that byte lies inside the range (up to
 * end_seq, exclusive) the skb may have waited for the hole. Once it lies
 * past the range, the skb arrived in order after the hole was filled (data
 * beyond the range that arrived while the hole was still open would have
 * gone to the out-of-order queue and raised rcv_ooopack), and a segment
 * coalesced into a waiting skb gives it its own, newer timestamp
 * (tcp_try_coalesce()): so that read is recorded, including the one that
 * crosses the end in one go. This is upstream netstacklat's rule.
 */
static __always_inline int nsl_hol_exclude(struct nsl_hol_state *st,
					   const struct nsl_hol_input *in)
{
	if (in->rcv_ooopack != st->last_ooopack) {
		st->last_ooopack = in->rcv_ooopack;
		st->end_seq = nsl_hol_range_end(in);
		st->active = 1;
		/* this read returned data that may have waited already */
		return 1;
	}
	if (!st->active)
		return 0;
	if (nsl_seq_before(st->end_seq, in->copied_seq)) {
		st->active = 0;
		return 0;
	}
	return 1;
}

/*
 * For the standing-queue hook (bpf/standing.bpf.h): whether a TCP receive
 * queue's head, whose bytes end at head_end (TCP_SKB_CB()->end_seq), may
 * hold the stamp of a segment that waited behind a hole, once
 * nsl_hol_exclude() advanced st with the socket's numbers at the look (its
 * copied_seq is the next byte to read). tcp_ofo_queue() moves an
 * out-of-order segment into the queue with its arrival stamp, and
 * tcp_try_coalesce() gives a merged skb the stamp of the segment merged
 * last: its last byte's, head_end - 1. While that byte lies inside the
 * range (below end_seq) the head's age may include the wait for the
 * retransmission; a head that ends past the range took its stamp from a
 * segment that arrived in order after the hole was filled (as for
 * nsl_hol_exclude()'s reads), and its age is the queue's own.
 */
static __always_inline int nsl_hol_head_waited(const struct nsl_hol_state *st,
					       __u32 head_end)
{
	return st->active && !nsl_seq_before(st->end_seq, head_end);
}

#endif /* NSL_HOL_H */
