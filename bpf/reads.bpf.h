/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TCP reads: the HOL filter's per-socket state and decision
 * (include/hol.h holds the pure logic) and record_tcp_read(), which both
 * attach methods of tcp-socket-read call; which sockets count as TCP
 * readers, and which fallback program serves which hook.
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_READS_BPF_H
#define NSL_READS_BPF_H

/*
 * sk's HOL state in map (an LRU hash keyed by struct nsl_hol_key: hol_lru,
 * the standing hook's standing_hol), created if need be; NULL: none
 */
static __always_inline struct nsl_hol_state *hol_state_in(void *map,
							  struct sock *sk)
{
	struct nsl_hol_key key = {};
	struct nsl_hol_state zero = {}, *st;
	struct socket *sock;

	key.sk = (__u64)sk;
	/* BTF-typed loads: a NULL pointer on the way reads as 0 */
	sock = sk->sk_socket;
	key.ino = sock ? sock->file->f_inode->i_ino : 0;
	st = bpf_map_lookup_elem(map, &key);
	if (st)
		return st;
	/* another CPU may add it first (-EEXIST): its entry serves */
	bpf_map_update_elem(map, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &key);
}

/*
 * tp's numbers for nsl_hol_exclude() with st, in->rcv_ooopack (not 0)
 * read already. Non-zero where ooo_last_skb could not be read.
 */
static __always_inline long hol_input_read(struct tcp_sock *tp,
					   const struct nsl_hol_state *st,
					   struct nsl_hol_input *in)
{
	struct sk_buff *last;

	in->rcv_nxt = tp->rcv_nxt;
	in->copied_seq = tp->copied_seq;
	in->rcv_wup = tp->rcv_wup;
	in->rcv_wnd = tp->rcv_wnd;
	last = tp->ooo_last_skb;
	in->ooo_empty = !tp->out_of_order_queue.rb_node;
	/*
	 * Only needed when a new OOO range starts. The socket lock is not held
	 * here, so last may be freed under us: read it with a fault-tolerant
	 * copy and let the sanity check in nsl_hol_range_end() judge it.
	 * TCP_SKB_CB(skb)->end_seq is the second __u32 of skb->cb.
	 */
	if (in->rcv_ooopack != st->last_ooopack && !in->ooo_empty)
		return bpf_probe_read_kernel(&in->ooo_end_seq,
					     sizeof(in->ooo_end_seq),
					     (void *)last->cb + 4);
	return 0;
}

/*
 * Returns 1 when the read may have waited for a retransmission (or the
 * socket could not be read, which we must treat the same way), and
 * advances the socket's HOL state. Counts the read's fate only when
 * counted (a read --sample leaves out only moves the state). cast: as for
 * nsl_tcp_sk().
 */
static __always_inline int tcp_read_hol_blocked(struct sock *sk, int counted,
						int cast)
{
	struct nsl_hol_input in = {};
	struct nsl_hol_state *st;
	struct tcp_sock *tp;

	tp = nsl_tcp_sk(sk, cast);
	if (!tp)
		goto err;
	in.rcv_ooopack = tp->rcv_ooopack;
	if (!in.rcv_ooopack)
		return 0; /* never saw OOO data: the common, cheap case */

	st = hol_state_in(&hol_lru, sk);
	if (!st || hol_input_read(tp, st, &in))
		goto err;
	if (nsl_hol_exclude(st, &in)) {
		if (counted)
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_HOL_EXCLUDED);
		return 1;
	}
	return 0;
err:
	if (counted)
		count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_HOL_READ_ERROR);
	return 1;
}

/*
 * What the TCP read hooks ask first, before any other work: the socket's
 * namespace (-n) and the reading process and cgroup (-p, -c), the
 * cheapest ways out for the reads of everything else. task: NULL (fentry,
 * 5.10 too: the task is taken only if -p or -c asks, and the constant
 * NULL leaves no bpf_get_current_task_btf() in its code), or where the
 * tracepoint fallback, whose task storage needs the task anyway, gets it:
 * taken after -n, for both (set when this returns 1). Under --sample the
 * countdown comes after them (docs/hooks.md, "Sampling").
 */
static __always_inline int tcp_read_wanted(struct sock *sk,
					   struct task_struct **task)
{
	if (!sk_netns_selected(sk))
		return 0;
	if (!task)
		return task_selected(NULL);
	*task = bpf_get_current_task_btf();	/* v6.3+: it is there */
	return task_selected(*task);
}

/*
 * Whether the other filters select a TCP read of sk (tcp_read_wanted()
 * passed), and ts is an RX timestamp to measure from; *ifindex its
 * interface (with -i/-I). The stamp's failures are counted when counted
 * (a read --sample leaves out counts nothing).
 *
 * A read has no stamp when tcp_collapse() rebuilt the last skb it took
 * (v6.1 to v7.2, net/ipv4/tcp_input.c, from tcp_prune_queue() under
 * receive-buffer pressure, and tcp_collapse_ofo_queue()): the new skb
 * comes from alloc_skb(), so its tstamp is 0, while memcpy() of skb->cb
 * carries has_rxtstamp over. Such a read is counted in no_rx_tstamp
 * (after the filters, as samples are): these are the slowest readers,
 * and a read that returned data is never dropped unseen.
 */
static __always_inline int tcp_read_selected(struct sock *sk, __u64 ts,
					     __u32 *ifindex, int counted)
{
	if (!queue_selected(sk))
		return 0;
	if (need_ifindex()) {
		*ifindex = nsl_sk_rx_ifindex(sk);
		if (!ifindex_selected(*ifindex))
			return 0;
	}
	if ((__s64)ts <= 0) {
		if (counted)
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_NO_RX_TSTAMP);
		return 0;
	}
	if (!nsl_read_tstamp_is_rx(ts, cfg.mono_tstamp_limit)) {
		if (counted)
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_NOT_RX_TSTAMP);
		return 0;
	}
	return 1;
}

/*
 * A TCP read that returned data, which tcp_read_wanted() passed; ts is
 * the RX timestamp of the last skb it took (tcp_update_recv_tstamps() in
 * tcp_recvmsg_locked(), for the skbs whose TCP_SKB_CB()->has_rxtstamp is
 * set), 0 when that skb has none (tcp_read_selected()). cast: as for
 * nsl_tcp_sk().
 *
 * The HOL state advances only with a read that tcp_read_selected()
 * passes: a read no filter selects, or without a stamp, leaves it as it
 * is, and the next read sees the out-of-order count that grew meanwhile
 * (it only ever leaves more out). A read --sample leaves out advances it
 * at the same point, so that the reads a sampled run records are those
 * an unsampled one does, thinned; and so that the sockets of other
 * processes and namespaces get no HOL state (hol_lru) in either.
 */
static __always_inline void record_tcp_read(struct sock *sk, __u64 ts,
					    int cast)
{
	__u32 into = NSL_HOOK_TCP_SOCK_READ;	/* the histogram */
	__u32 ifindex = 0;
	int skip = sample_skip(NSL_HOOK_TCP_SOCK_READ);

	/* no HOL state to advance: a read left out costs no more */
	if (skip && (cfg.include_hol || sk->sk_protocol == IPPROTO_MPTCP))
		return;
	if (!tcp_read_selected(sk, ts, &ifindex, !skip))
		return;
	if (skip) {
		tcp_read_hol_blocked(sk, 0, cast);
		return;
	}
	if (!cfg.include_hol) {
		/*
		 * An MPTCP read (of the MPTCP socket, whose data came over
		 * one or more TCP subflows) may have waited for a subflow's
		 * retransmission or for another subflow; the filter sees no
		 * subflow, so it cannot tell: left out, and counted.
		 * Every read left out goes to a histogram of its own, so that
		 * the two together hold what a -y run would.
		 */
		if (sk->sk_protocol == IPPROTO_MPTCP) {
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_MPTCP_EXCLUDED);
			into = NSL_HIST_TCP_READ_HOL;
		} else if (tcp_read_hol_blocked(sk, 1, cast)) {
			into = NSL_HIST_TCP_READ_HOL;
		}
	}
	record_latency(into, ts, ifindex, cfg.group_by_netns ? sk_net(sk) : NULL);
}

/*
 * TCP reads, and reads of MPTCP sockets (mptcp_recvmsg() calls
 * tcp_recv_timestamp() with the MPTCP socket, and copies skbs that it
 * owns), for fentry and tracepoint mode alike.
 */
static __always_inline int sk_is_tcp_reader(struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	return (family == AF_INET || family == AF_INET6) &&
	       (sk->sk_protocol == IPPROTO_TCP ||
		sk->sk_protocol == IPPROTO_MPTCP);
}

/*
 * Where two hooks fall back to the same attach point (sk_data_ready for
 * both enqueue hooks, netfilter LOCAL_IN for tcp-start and udp-start), one
 * program serves both: one run per event instead of two, the protocol read
 * once. It records a hook only if that hook chose this program (it may be
 * disabled, or attached by fentry): cfg.fallback_hooks has a bit for each
 * hook attached by a fallback method, and as it is constant the verifier
 * drops the branches of the hooks that did not.
 */
static __always_inline int shared_hook_on(__u32 hook)
{
	return cfg.fallback_hooks & (1u << hook);
}

/*
 * Whether hook is on, whatever its method (cfg.hooks_on, constant): for
 * the standing-queue hooks' own programs, which either method may load
 * (tp_udp_fail_queue, tp_standing_close) or only one does. Their looks
 * that ride in programs of other hooks (tp_data_ready, tp_recv_length)
 * ask shared_hook_on() instead: with the standing hook by fentry, its
 * own fentry/fexit programs look at the same calls.
 */
static __always_inline int hook_on(__u32 hook)
{
	return cfg.hooks_on & (1u << hook);
}

#endif /* NSL_READS_BPF_H */
