/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The filters (-i, -n, -p, -c, -q) and the way in for a packet seen with
 * its skb (record_rx() and its callers per kind of hook): the cheapest
 * test first, then the histogram (record.bpf.h).
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_FILTERS_BPF_H
#define NSL_FILTERS_BPF_H

/* skb_iif and the socket's RX ifindex are read only when -i or -I needs them. */
static __always_inline int need_ifindex(void)
{
	return cfg.filter_ifindex || cfg.group_by_ifindex;
}

static __always_inline int ifindex_selected(__u32 ifindex)
{
	return !cfg.filter_ifindex ||
	       bpf_map_lookup_elem(&filter_ifindex, &ifindex);
}

/*
 * The programs get BTF-typed pointers (fentry/tp_btf arguments, the
 * netfilter context), so fields are read with plain loads that the
 * verifier turns into fault-tolerant ones and libbpf relocates (CO-RE via
 * vmlinux.h's preserve_access_index): no bpf_probe_read_kernel() call per
 * field on the per-packet path.
 */
static __always_inline struct net *sk_net(struct sock *sk)
{
	return sk->__sk_common.skc_net.net;
}

static __always_inline __u64 sk_netns(struct sock *sk)
{
	return sk_net(sk)->ns.inum;
}

static __always_inline int sk_netns_selected(struct sock *sk)
{
	return !cfg.netns_ino || sk_netns(sk) == cfg.netns_ino;
}

/*
 * The namespace of an skb on its way in: the socket's once it is queued
 * (sk), else the device's. Read only with -n (filter) or -I -n -1 (group
 * key). (One helper for both with a NULL skb from the socket-only callers
 * is rejected by the 6.1 verifier: it follows the sk == NULL branch into a
 * NULL skb; the callers here always have an skb.)
 */
static __always_inline struct net *rx_net(struct sock *sk, struct sk_buff *skb)
{
	return sk ? sk_net(sk) : skb->dev->nd_net.net;
}

/*
 * -q: what is still queued on sk when the read hook runs, i.e. after the
 * read (upstream's meaning): tcp_recv_timestamp() runs at the end of
 * tcp_recvmsg_locked(), after sk_eat_skb() unlinked every skb it used up;
 * skb_consume_udp() after __skb_recv_udp() unlinked the datagram; the
 * fallback's sock_recv_length after recvmsg returned. TCP counts skbs
 * (coalesced segments), UDP datagrams. UDP has two queues: softirq appends
 * to sk_receive_queue, and __skb_recv_udp() reads from udp_sk(sk)->
 * reader_queue, splicing all of sk_receive_queue into it when it runs dry
 * (v4.13+). A lagging UDP reader's backlog is mostly in reader_queue, so
 * it counts too. Read with a CO-RE probe read: the verifier types sk as
 * struct sock, which ends before reader_queue (only with -q, on UDP).
 */
static __always_inline __u32 sk_queued(struct sock *sk)
{
	__u32 n = sk->sk_receive_queue.qlen;

	if (sk->sk_protocol == IPPROTO_UDP || sk->sk_protocol == IPPROTO_UDPLITE)
		n += BPF_CORE_READ((struct udp_sock *)sk, reader_queue.qlen);
	return n;
}

/* -p: whether task (the current one) belongs to a selected process */
static __always_inline int pid_selected(struct task_struct *task)
{
	__u32 tgid, word;
	__u64 *bits;

	if (!cfg.filter_pid)
		return 1;
	tgid = nsl_task_tgid(task);
	word = tgid / 64;
	bits = bpf_map_lookup_elem(&filter_pid, &word);
	return bits && (*bits & (1ULL << (tgid % 64)));
}

/*
 * -c: whether task (the current one) is in a selected cgroup. The hash
 * lookup, some 40 ns, is asked only for an id other than this CPU's last
 * two answers (cgroup_seen): a CPU mostly runs the same few tasks.
 */
static __always_inline int cgroup_selected(struct task_struct *task)
{
	struct nsl_cgroup_seen *seen;
	__u32 zero = 0;
	__u64 cg;
	int sel;

	if (!cfg.filter_cgroup)
		return 1;
	cg = nsl_task_cgroup_id(task);
	seen = bpf_map_lookup_elem(&cgroup_seen, &zero);
	if (seen && cg == seen->selected)
		return 1;
	if (seen && cg == seen->refused)
		return 0;
	sel = bpf_map_lookup_elem(&filter_cgroup, &cg) != NULL;
	if (seen) {
		if (sel)
			seen->selected = cg;
		else
			seen->refused = cg;
	}
	return sel;
}

/*
 * -p and -c: whether the reading task is one of the selected processes,
 * in one of the selected cgroups. The same for every read of a task (but
 * for a move to another cgroup): the TCP read hooks ask it before any
 * other work (tp_recv_length(), fentry_tcp_recv_timestamp()). task: the
 * current task where the caller has it already (the tracepoint fallback,
 * which needs it for its task storage), else NULL, and it is taken here
 * only when -p or -c asks.
 */
static __always_inline int task_selected(struct task_struct *task)
{
	if (!cfg.filter_pid && !cfg.filter_cgroup)
		return 1;
	if (!task)
		task = nsl_current_task();
	return pid_selected(task) && cgroup_selected(task);
}

/* -q: the socket's queue after the read */
static __always_inline int queue_selected(struct sock *sk)
{
	return !cfg.min_queue_len || sk_queued(sk) >= cfg.min_queue_len;
}

/*
 * The filters that only make sense in the reading process's context; task
 * as for task_selected().
 */
static __always_inline int reader_selected(struct sock *sk,
					   struct task_struct *task)
{
	return queue_selected(sk) && task_selected(task);
}

/*
 * The hooks that see an skb on its way in, from its fields: ts is its
 * tstamp, 0 when RX timestamping was off when it arrived (nothing to
 * measure: no_rx_tstamp); ifindex its skb_iif (read only with -i/-I);
 * is_rx whether tstamp is an RX timestamp (nsl_skb_tstamp_is_rx());
 * net its namespace (read only with -n or -I -n -1, else NULL), already
 * checked when netns_known; now_tai the moment the sample stands for (nsl_now()),
 * or 0 for now: the clock is read only for a sample that passed the
 * filters.
 */
static __always_inline void record_rx_fields(__u32 hook, __u64 ts,
					     __u32 ifindex, int is_rx,
					     struct net *net, int netns_known,
					     __u64 now_tai)
{
	if (need_ifindex() && !ifindex_selected(ifindex))
		return;
	if (!netns_known && cfg.netns_ino && net->ns.inum != cfg.netns_ino)
		return;
	/*
	 * after the filters: counters cover what -i/-n select, as samples
	 * do. No stamp at all: the packet arrived while the kernel's RX
	 * timestamping was off (nsl_rx_timestamps_wait()): counted, so that
	 * every packet a hook sees is a sample or a counter.
	 */
	if ((__s64)ts <= 0 || !is_rx) {
		count_event(hook, (__s64)ts <= 0 ? NSL_CNT_NO_RX_TSTAMP :
						   NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	record_latency_at(hook, ts, now_tai ?: nsl_now(), ifindex,
			  cfg.group_by_netns ? net : NULL);
}

/*
 * Whether skb->tstamp is an RX timestamp, for an skb that sk's receive
 * queue holds (sk set) or that is on its way there (NULL). Queued, it came
 * through ip_local_deliver_finish()/ip6_input_finish(), which call
 * skb_clear_delivery_time() (v5.18 to v7.2, net/ipv4/ip_input.c,
 * net/ipv6/ip6_input.c): a departure time was replaced there by
 * ktime_get_real() (or 0) and tstamp_type set to REALTIME, so what holds
 * for the read hooks holds here (nsl_read_tstamp_is_rx(): a constant 1
 * where the kernel has the flag, the value rule before), and skb's
 * tstamp_type byte, on a cache line of its own, is not read per packet.
 */
static __always_inline int rx_tstamp_is_rx(struct sk_buff *skb,
					   struct sock *sk, __u64 ts)
{
	if (sk)
		return nsl_read_tstamp_is_rx(ts, cfg.mono_tstamp_limit);
	return nsl_skb_tstamp_is_rx(skb, cfg.mono_tstamp_limit);
}

/*
 * skb on its way in, which --sample did not leave out (sample_skip()
 * asked already); sk the socket it was queued on, NULL before it has one
 */
static __always_inline void record_rx_picked(struct sk_buff *skb,
					     struct sock *sk, __u32 hook,
					     int netns_known)
{
	struct net *net = NULL;
	__u64 ts;

	if ((!netns_known && cfg.netns_ino) || cfg.group_by_netns)
		net = rx_net(sk, skb);
	ts = skb->tstamp;
	record_rx_fields(hook, ts, need_ifindex() ? skb->skb_iif : 0,
			 rx_tstamp_is_rx(skb, sk, ts), net, netns_known, 0);
}

/* skb on its way in; sk the socket it was queued on, NULL before it has one */
static __always_inline void record_rx(struct sk_buff *skb, struct sock *sk,
				      __u32 hook, int netns_known)
{
	if (!sample_skip(hook))
		record_rx_picked(skb, sk, hook, netns_known);
}

static __always_inline void record_skb(struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, NULL, hook, 0);
}

/*
 * Netfilter programs run only for packets of the namespace their link was
 * made in (nf_hook_slow() walks state->net's hook entries), and the loader
 * makes them in the namespace -n selects: no namespace to check.
 */
static __always_inline void record_nf(struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, NULL, hook, 1);
}

/* Enqueue hooks: the skb has just been put on sk's receive queue. */
static __always_inline void record_enqueued(struct sock *sk,
					    struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, sk, hook, 0);
}

#endif /* NSL_FILTERS_BPF_H */
