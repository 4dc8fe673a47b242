/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fallback attach method for the enqueue and read hooks: BTF
 * tracepoints (sk_data_ready, skb_copy_datagram_iovec, consume_skb,
 * sock_recv_length), with the state each needs to give one sample per
 * packet or per read, as the fentry programs do.
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_TRACEPOINT_BPF_H
#define NSL_TRACEPOINT_BPF_H

/* ---- fallback attach: BTF tracepoints --------------------------------- */

/*
 * Whether tail, the tail of sk's receive queue, was not sampled yet: the
 * socket's slot of tail_state remembers the last tail sampled, with its
 * timestamp (TCP coalescing merges a new segment into the tail skb and
 * gives it the new timestamp: a new sample under the same address). A
 * repeat is counted (unchanged_tail) when counted: when --sample did not
 * leave this call out.
 * Socket addresses are slab objects, at least 64-byte aligned: the
 * multiplicative (Fibonacci) hash mixes the bits above those into the
 * slot number.
 */
static __always_inline int tail_is_new(struct sock *sk, struct sk_buff *tail,
				       __u64 tstamp, __u32 hook, int counted)
{
	/*
	 * The verifier lets no arithmetic but pointer - pointer (a scalar
	 * for programs that may see kernel addresses) touch sk: its
	 * distance from one of our globals, the same for every socket.
	 */
	__u64 a = (__u64)sk - (__u64)&nsl_clock;
	__u32 slot = (a * 0x9E3779B97F4A7C15ULL) >> (64 - NSL_TAIL_SLOTS_SHIFT);
	struct nsl_tail_state *st;

	st = bpf_map_lookup_elem(&tail_state, &slot);
	if (!st)
		return 1;
	if (st->sk == a && st->skb == (__u64)tail && st->tstamp == tstamp) {
		if (counted)
			count_event(hook, NSL_CNT_UNCHANGED_TAIL);
		return 0;
	}
	st->sk = a;
	st->skb = (__u64)tail;
	st->tstamp = tstamp;
	return 1;
}

/*
 * make bench's floor in context (scripts/bench, ours_ctxfloor): in a build
 * with NSL_BENCH_CLOCK_ONLY the two recording tracepoint programs read the
 * clock and return, every other program as in the tool, sharing the caches
 * as they do. Never in the tool: 0, and the compiler drops the test.
 */
static __always_inline int bench_clock_only(void)
{
#ifdef NSL_BENCH_CLOCK_ONLY
	if (bpf_ktime_get_tai_ns() == 1)	/* the result used: never dropped */
		count_event(NSL_HOOK_TCP_SOCK_ENQUEUED, NSL_CNT_NEGATIVE);
	return 1;
#else
	return 0;
#endif
}

/*
 * sock_def_readable() fires sk_data_ready (and so do the data_ready
 * callbacks of sunrpc, kTLS, MPTCP subflows, ... before they call it as
 * well), for every socket family: filter on inet TCP/UDP. The skb just
 * queued is the tail of sk_receive_queue (for TCP a coalesced skb carries
 * the newest timestamp, as tcp_try_coalesce() moves it over).
 *
 * But the tracepoint also fires when nothing was queued, and then the
 * tail is one sampled before (v6.12, net/ipv4/tcp_input.c): the in-order
 * and the out-of-order receive-memory drops (tcp_data_queue(),
 * tcp_data_queue_ofo()), urgent data (tcp_urg(), before the segment is
 * queued), tcp_set_rcvlowat(); and callbacks that chain to
 * sock_def_readable() fire it twice per packet. And since v6.18 UDP
 * queues a batch of datagrams and calls sk_data_ready once per datagram
 * after it (__udp_enqueue_schedule_skb(), per-NUMA llist): the same tail
 * each time. So a tail is sampled once per socket (tail_is_new()); the
 * repeats are counted in unchanged_tail.
 *
 * Under --sample every call of the hook is a packet to the countdown,
 * whatever it turns out to be (a sample, unchanged_tail, queue_empty), and
 * a call left out counts nothing: so samples and counters are thinned
 * alike, and each scaled by N estimates the unsampled run's. The last
 * tail still follows every call, so that a call that is looked at sees a
 * repeat as a repeat.
 */
SEC("tp_btf/sk_data_ready")
int BPF_PROG(tp_data_ready, struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;
	__u32 hook, standing;
	struct sk_buff *tail;
	__u64 ts;
	int skip;

	if (bench_clock_only())
		return 0;
	if (family != AF_INET && family != AF_INET6)
		return 0;
	switch (sk->sk_protocol) {
	case IPPROTO_TCP:
		hook = NSL_HOOK_TCP_SOCK_ENQUEUED;
		standing = NSL_HOOK_TCP_STANDING;
		break;
	case IPPROTO_UDP:
		hook = NSL_HOOK_UDP_SOCK_ENQUEUED;
		standing = NSL_HOOK_UDP_STANDING;
		break;
	default:
		return 0;
	}
	/*
	 * before the per-socket storage: other namespaces' sockets get none.
	 * The standing hook looks here only where it took this method
	 * (shared_hook_on(), a constant per protocol): where it took fentry,
	 * fentry_sock_def_readable looks at the same call of
	 * sock_def_readable(), and this program is loaded for an enqueue
	 * hook that fell back (udp-socket-enqueued from 6.18): a second
	 * look at each arrival, dead code here, which the verifier drops
	 * (issue #57 item 10).
	 */
	if ((!shared_hook_on(hook) && !shared_hook_on(standing)) ||
	    !sk_netns_selected(sk))
		return 0;
	/*
	 * Every call is a look, the drops' and the batch's repeats too: a
	 * TCP reader that stopped has its queue looked at by the drops of
	 * what its peer still sends (tcp_data_queue() fires this on them).
	 */
	if (shared_hook_on(standing))
		standing_look(sk, standing, 0);
	if (!shared_hook_on(hook))
		return 0;
	/*
	 * UDP queues without the socket lock and calls sk_data_ready after
	 * releasing the queue's: a reader on another CPU may already have
	 * taken the datagram (a newer one at the tail is unchanged_tail at
	 * its own call). TCP calls it under the socket lock, which readers
	 * hold too; an empty TCP queue is a listener's or a drop's call.
	 * Empty is told by the tail alone, read once: an empty sk_buff_head
	 * points at itself (__skb_queue_head_init()), and a reader that
	 * empties the queue between a look at qlen and one at .prev leaves
	 * .prev at the head, whose bytes are struct sock's, not an skb's
	 * (issue #33 item 7: 35 of 1.8 million datagrams counted
	 * no_rx_tstamp so, with a reader draining on the other CPU).
	 */
	tail = sk->sk_receive_queue.prev;
	if (tail == (struct sk_buff *)&sk->sk_receive_queue || !tail) {
		if (hook == NSL_HOOK_UDP_SOCK_ENQUEUED && !sample_skip(hook))
			count_event(hook, NSL_CNT_QUEUE_EMPTY);
		return 0;
	}
	ts = tail->tstamp;
	/*
	 * A UDP tail without a stamp is a datagram that arrived while RX
	 * timestamping was off: record_rx_picked() counts it (no_rx_tstamp),
	 * once per tail. A TCP one may be no packet at all: a drop's call finds
	 * the tail tcp_collapse() rebuilt without a stamp (the reads count
	 * those, as no_rx_tstamp of tcp-socket-read).
	 */
	if ((__s64)ts <= 0 && hook == NSL_HOOK_TCP_SOCK_ENQUEUED)
		return 0;
	skip = sample_skip(hook);
	if (!tail_is_new(sk, tail, ts, hook, !skip) || skip)
		return 0;
	record_rx_picked(tail, sk, hook, 1);
	return 0;
}

/*
 * Whether TCP gave skb an RX timestamp when it arrived (TCP_SKB_CB()->
 * has_rxtstamp, set in tcp_v4_fill_cb()/tcp_v6_fill_cb() when tstamp or
 * the hardware stamp was set). Probe-read: skb->cb is a char array to the
 * verifier. Only asked for skbs whose tstamp is 0 (see record_tcp_read()).
 */
static __always_inline int tcp_skb_has_rxtstamp(const struct sk_buff *skb)
{
	struct tcp_skb_cb *cb = (void *)skb->cb;

	return BPF_CORE_READ_BITFIELD_PROBED(cb, has_rxtstamp);
}

/*
 * skb_copy_datagram_iter() fires this for every skb tcp_recvmsg_locked()
 * copies (and for other sockets' copies, which sock_recv_length below
 * ignores by comparing the socket). TCP receive-queue skbs are owned by
 * their socket (skb_set_owner_r() in tcp_queue_rcv()), so skb->sk says
 * whose read this is. Keep the last timestamp, as tcp_recvmsg does in tss:
 * it takes those of the skbs with has_rxtstamp only, including a collapsed
 * skb's 0 (record_tcp_read()), so this does the same. Only for a socket
 * in the namespace -n selects, and a process -p selects: tp_recv_length()
 * leaves the reads of the others before it looks for state, so they need
 * none (the same socket's namespace and the same task's process, asked at
 * both ends); a bit of an array costs less than the task-storage lookup
 * it spares, and the task is needed for that lookup anyway. Not -c,
 * although the task's cgroup is a few loads more: a task can change
 * cgroups between a copy and its read, and a copy left out there would
 * leave the read an older copy's state to take (one whose read -c
 * refused, so never took it), an old stamp measured as this read's. So a
 * copy of a selected process is always kept, and tp_recv_length() asks
 * -c before it takes any (a refused task's state is never taken; its
 * next copy replaces it).
 */
SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(tp_tcp_copy_datagram, const struct sk_buff *skb, int len)
{
	struct nsl_read_state *rs;
	struct task_struct *task;
	struct sock *sk = skb->sk;
	__u64 ts = skb->tstamp;

	if (!sk || !sk_is_tcp_reader(sk) || !sk_netns_selected(sk))
		return 0;
	if ((__s64)ts <= 0 && !tcp_skb_has_rxtstamp(skb))
		return 0;
	task = bpf_get_current_task_btf();
	if (!pid_selected(task))
		return 0;
	rs = bpf_task_storage_get(&read_state, task, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!rs)
		return 0;
	rs->tcp_tstamp = ts;
	rs->tcp_sk = (__u64)sk;
	return 0;
}

/*
 * udp-socket-read without trampolines, v6.3 to v6.17: a datagram that
 * udp_recvmsg()/udpv6_recvmsg() read is freed in skb_consume_udp() by
 * __consume_stateless_skb(), which fires consume_skb with its return
 * address as location (v6.3, "net: add location to trace_consume_skb()"):
 * inside skb_consume_udp(), or inside the recvmsg function when the
 * compiler made the free a tail call. Neither recvmsg function calls
 * consume_skb() itself. So a location in one of these three functions
 * (their addresses from /proc/kallsyms, in cfg) is the datagram this task
 * is reading; anything else (every skb freed on the system) leaves at
 * once. Not when peeking (skb_consume_udp() then drops a reference and
 * frees nothing), and not on v6.18+, where UDP defers the free to the CPU
 * that allocated the skb (skb_attempt_defer_free()); the loader knows.
 */
SEC("tp_btf/consume_skb")
int BPF_PROG(tp_udp_consume_skb, struct sk_buff *skb, void *location)
{
	__u64 at = (__u64)location;
	struct nsl_read_state *rs;

	if (at - cfg.udp_free_at[0] >= cfg.udp_free_len[0] &&
	    at - cfg.udp_free_at[1] >= cfg.udp_free_len[1] &&
	    at - cfg.udp_free_at[2] >= cfg.udp_free_len[2])
		return 0;
	rs = bpf_task_storage_get(&read_state, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!rs)
		return 0;
	rs->udp_tstamp = skb->tstamp;
	rs->udp_consumed = 1;
	if (need_ifindex())
		rs->udp_ifindex = skb->skb_iif;
	return 0;
}

#define MSG_ERRQUEUE 0x2000

/*
 * sock_recvmsg_nosec() fires sock_recv_length once per recvmsg, after the
 * protocol's recvmsg returned (socket lock released, as for fentry on
 * tcp_recv_timestamp): one read, one sample. One program for both read
 * hooks (see shared_hook_on()).
 *
 * A read of the error queue (MSG_ERRQUEUE: TX timestamps and the like,
 * which sock_queue_err_skb() queues as skbs owned by the socket) copies
 * with skb_copy_datagram_msg() too, so it fired the copy tracepoint with
 * the timestamp of a sent packet; tcp_recvmsg() hands such reads to
 * inet_recv_error() before tcp_recvmsg_locked(), so fentry on
 * tcp_recv_timestamp never sees them. Neither do we.
 */
/*
 * What a read of hook's protocol (one that is on: shared_hook_on(), asked
 * by the caller before it takes the task) left in task's read state
 * (task: the current one), taken: the slot is cleared, so that it serves
 * one read. Returns the state (*ts its timestamp, *sk the TCP read's
 * socket), or NULL when nothing was left. A slot is marked apart from its
 * stamp, since a 0 stamp is a read all the same, which the record counts
 * (no_rx_tstamp): TCP's by its socket (a collapsed skb:
 * record_tcp_read()), UDP's by udp_consumed (a datagram queued while RX
 * timestamping was off; issue #47 item 4: marked by its stamp, such a
 * read was dropped without a count, where fentry counts it).
 */
static __always_inline struct nsl_read_state *
read_state_take(__u32 hook, struct task_struct *task, __u64 *ts, __u64 *sk)
{
	struct nsl_read_state *rs;

	rs = bpf_task_storage_get(&read_state, task, 0, 0);
	if (!rs)
		return NULL;
	if (hook == NSL_HOOK_UDP_SOCK_READ) {
		if (!rs->udp_consumed)
			return NULL;
		*ts = rs->udp_tstamp;
		rs->udp_tstamp = 0;
		rs->udp_consumed = 0;
		return rs;
	}
	if (!rs->tcp_sk)
		return NULL;
	*ts = rs->tcp_tstamp;
	*sk = rs->tcp_sk;
	rs->tcp_tstamp = 0;
	rs->tcp_sk = 0;
	return rs;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(tp_recv_length, struct sock *sk, int ret, int flags)
{
	__u16 proto = sk->sk_protocol;
	struct nsl_read_state *rs;
	struct task_struct *task;
	__u64 ts, read_sk;

	if (bench_clock_only())
		return 0;
	/*
	 * Every recvmsg() of every socket fires this: leave the others at
	 * once, before the task is taken (a call before v7.0) and its
	 * storage looked up. So too TCP reads that tcp_read_wanted()
	 * refuses, which takes the task once for the filters and the state
	 * (another namespace or process: no state, as tp_tcp_copy_datagram()
	 * keeps none for them; another cgroup: its state is never taken, and
	 * the task's next copy replaces it), and those that returned
	 * nothing: once
	 * tcp_recvmsg_locked() copied any bytes it returns their number, so
	 * such a read copied nothing (an event loop's read that found the
	 * queue empty: -EAGAIN), and left no state but where its first copy
	 * faulted (-EFAULT: the stamp of the skb it tried, which the next
	 * read of that skb replaces). A TCP read that returns data has
	 * copied it, and a UDP read has consumed its datagram, so the state
	 * is always fresh by then. sock_recv_length came with v6.3:
	 * bpf_rdonly_cast() and bpf_get_current_task_btf() are there.
	 */
	/*
	 * The standing hooks look at the queue after every read, those
	 * that found it empty too (-EAGAIN): what the read left is the
	 * queue's new head, or an empty queue that ends a run. Only a
	 * standing hook that took this method (shared_hook_on()): one that
	 * took fentry looks in its fexit of recvmsg, and this program is
	 * here for a read hook that fell back.
	 */
	if ((proto == IPPROTO_TCP && shared_hook_on(NSL_HOOK_TCP_STANDING)) ||
	    (proto == IPPROTO_UDP && shared_hook_on(NSL_HOOK_UDP_STANDING))) {
		if (sk_netns_selected(sk))
			standing_look(sk, proto == IPPROTO_TCP ?
				      NSL_HOOK_TCP_STANDING :
				      NSL_HOOK_UDP_STANDING, 0);
	}
	if (proto == IPPROTO_TCP || proto == IPPROTO_MPTCP) {
		if (ret <= 0 || !shared_hook_on(NSL_HOOK_TCP_SOCK_READ) ||
		    !tcp_read_wanted(sk, &task))
			return 0;
		rs = read_state_take(NSL_HOOK_TCP_SOCK_READ, task, &ts,
				     &read_sk);
		if (rs && read_sk == (__u64)sk && !(flags & MSG_ERRQUEUE))
			record_tcp_read(sk, ts, 1);
	} else if (proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE) {
		/* on 6.18+ udp-socket-read has no fallback: off, no call */
		if (!shared_hook_on(NSL_HOOK_UDP_SOCK_READ))
			return 0;
		task = bpf_get_current_task_btf();
		rs = read_state_take(NSL_HOOK_UDP_SOCK_READ, task, &ts,
				     &read_sk);
		/* 0 is a read too: of an empty datagram */
		if (rs && ret >= 0 && !(flags & MSG_ERRQUEUE))
			record_udp_read(sk, ts, rs->udp_ifindex, task);
	}
	return 0;
}

#endif /* NSL_TRACEPOINT_BPF_H */
