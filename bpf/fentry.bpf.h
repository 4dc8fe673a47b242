/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The primary attach method: fentry/fexit programs, one thin wrapper per
 * kernel function over the record path. Loaded only where BPF
 * trampolines work (src/0-base/hooks.c lists them per hook).
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_FENTRY_BPF_H
#define NSL_FENTRY_BPF_H

/* ---- primary attach: fentry/fexit ------------------------------------ */

/*
 * The receive functions of the first three hooks take the skb as first
 * argument (ip_rcv_core(skb, net), ip6_rcv_core(skb, dev, net),
 * tcp_v4_rcv(skb), ...): one program per function, all the same body.
 */
#define SKB_FENTRY(func, hook)					\
	SEC("fentry/" #func)					\
	int BPF_PROG(fentry_##func, struct sk_buff *skb)	\
	{							\
		record_skb(skb, hook);				\
		return 0;					\
	}

SKB_FENTRY(ip_rcv_core, NSL_HOOK_IP_START)
SKB_FENTRY(ip6_rcv_core, NSL_HOOK_IP_START)
SKB_FENTRY(tcp_v4_rcv, NSL_HOOK_TCP_START)
SKB_FENTRY(tcp_v6_rcv, NSL_HOOK_TCP_START)
SKB_FENTRY(udp_rcv, NSL_HOOK_UDP_START)
SKB_FENTRY(udpv6_rcv, NSL_HOOK_UDP_START)

/* tcp_queue_rcv() either queued skb or coalesced it into the tail. */
SEC("fexit/tcp_queue_rcv")
int BPF_PROG(fexit_tcp_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	record_enqueued(sk, skb, NSL_HOOK_TCP_SOCK_ENQUEUED);
	return 0;
}

/*
 * udp-socket-enqueued by fentry and fexit on __udp_enqueue_schedule_skb():
 * only its return value says whether the datagram was queued (before
 * v6.18: 0 queued, non-zero dropped: rcvbuf full, no memory), but by then
 * the skb may be gone. The function queues it, releases the queue's lock
 * and calls sk_data_ready() before it returns (v6.1 to v6.17,
 * net/ipv4/udp.c), so a reader on another CPU can take the datagram,
 * consume and free it, and the memory can hold another skb, before the
 * fexit program runs. So the skb is read at entry, while the caller still
 * owns it, into a per-CPU slot, and fexit records it when it was queued,
 * with the clock read at entry: the datagram's wait ends as it is queued,
 * not after the reader was woken (as the fallback's, at sk_data_ready
 * inside this function, a little later).
 * One slot per CPU is enough: the function runs with bottom halves off
 * (softirq RX, or process context under local_bh_disable()), so neither a
 * second call nor a migration comes between the two programs; the skb's
 * address is checked all the same.
 *
 * Since v6.18 it may return 0 before the datagram is queued (a per-NUMA
 * batch another CPU queues, or drops, later): the loader does not use
 * these programs there (NSL_NEED_UDP_QUEUED_ON_RETURN).
 */
struct nsl_rx_snapshot {
	__u64 skb;		/* address, only compared */
	__u64 tstamp;
	__u32 ifindex;		/* skb_iif, with -i/-I */
	__u32 is_rx;		/* nsl_skb_tstamp_is_rx() */
	__u64 entry_tai;	/* nsl_now() at entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nsl_rx_snapshot);
} udp_enqueue_snap SEC(".maps");

SEC("fentry/__udp_enqueue_schedule_skb")
int BPF_PROG(fentry_udp_enqueue_schedule_skb, struct sock *sk,
	     struct sk_buff *skb)
{
	struct nsl_rx_snapshot *snap;
	__u32 zero = 0;

	snap = bpf_map_lookup_elem(&udp_enqueue_snap, &zero);
	if (!snap)
		return 0;
	if (sample_skip(NSL_HOOK_UDP_SOCK_ENQUEUED)) {
		snap->skb = 0;
		return 0;
	}
	snap->skb = (__u64)skb;
	snap->tstamp = skb->tstamp;
	snap->ifindex = need_ifindex() ? skb->skb_iif : 0;
	snap->is_rx = rx_tstamp_is_rx(skb, sk, snap->tstamp);
	snap->entry_tai = nsl_now();
	return 0;
}

SEC("fexit/__udp_enqueue_schedule_skb")
int BPF_PROG(fexit_udp_enqueue_schedule_skb, struct sock *sk,
	     struct sk_buff *skb, int ret)
{
	struct nsl_rx_snapshot *snap;
	__u32 zero = 0;

	snap = bpf_map_lookup_elem(&udp_enqueue_snap, &zero);
	if (!snap || snap->skb != (__u64)skb)
		return 0;
	snap->skb = 0;
	if (ret == 0)
		record_rx_fields(NSL_HOOK_UDP_SOCK_ENQUEUED, snap->tstamp,
				 snap->ifindex, snap->is_rx,
				 cfg.netns_ino || cfg.group_by_netns ?
				 sk_net(sk) : NULL, 0, snap->entry_tai);
	return 0;
}

/*
 * tcp_recvmsg() calls tcp_recv_timestamp() after releasing the socket,
 * once per read that returned data with an RX timestamp (also for
 * MSG_PEEK, MSG_TRUNC, and TCP_ZEROCOPY_RECEIVE through
 * tcp_zc_finalize_rx_tstamp()); tss->ts[0] is the timestamp of the last
 * skb the read copied from (tcp_update_recv_tstamps()), read at entry,
 * before tcp_recv_timestamp() clears it for a socket that did not ask
 * for software timestamps. A struct timespec64 before v7.1, a ktime_t
 * since: nsl_tss_rx_ns() (compat.bpf.h). mptcp_recvmsg() calls it too,
 * with the MPTCP socket. Runs on 5.10 and 6.1 too: no bpf_rdonly_cast().
 */
SEC("fentry/tcp_recv_timestamp")
int BPF_PROG(fentry_tcp_recv_timestamp, struct msghdr *msg, struct sock *sk,
	     struct scm_timestamping_internal *tss)
{
	if (tcp_read_wanted(sk, NULL))
		record_tcp_read(sk, nsl_tss_rx_ns(tss), 0);
	return 0;
}

/*
 * A datagram read from sk: its RX timestamp and receive interface; task
 * the current one where the caller has it (tp_recv_length()), else NULL.
 */
static __always_inline void record_udp_read(struct sock *sk, __u64 ts,
					    __u32 ifindex,
					    struct task_struct *task)
{
	if (sample_skip(NSL_HOOK_UDP_SOCK_READ))
		return;
	if (!reader_selected(sk, task))
		return;
	if (need_ifindex() && !ifindex_selected(ifindex))
		return;
	if (!sk_netns_selected(sk))
		return;
	/* arrived while RX timestamping was off: counted (record_rx_fields()) */
	if ((__s64)ts <= 0) {
		count_event(NSL_HOOK_UDP_SOCK_READ, NSL_CNT_NO_RX_TSTAMP);
		return;
	}
	if (!nsl_read_tstamp_is_rx(ts, cfg.mono_tstamp_limit)) {
		count_event(NSL_HOOK_UDP_SOCK_READ, NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	record_latency(NSL_HOOK_UDP_SOCK_READ, ts, ifindex,
		       cfg.group_by_netns ? sk_net(sk) : NULL);
}

/*
 * udp_recvmsg() and udpv6_recvmsg() (v6.1 to v7.2) end with
 * skb_consume_udp(sk, skb, peeking ? -err : err), err being the bytes
 * returned: len < 0 is a peek, len > 0 a read. len == 0 is either: a read
 * or a peek of an empty datagram, or of 0 bytes (recv(fd, buf, 0, ...)).
 * A read has unlinked the datagram from the queue (__skb_unlink() in
 * __skb_try_recv_from_queue() sets skb->next to NULL); a peek left it
 * queued, with a reference of its own. So a datagram read is one sample,
 * and a peek none. (Only len == 0 pays for the extra load.)
 */
SEC("fentry/skb_consume_udp")
int BPF_PROG(fentry_skb_consume_udp, struct sock *sk, struct sk_buff *skb,
	     int len)
{
	if (len < 0 || (len == 0 && skb->next))
		return 0;
	record_udp_read(sk, skb->tstamp, need_ifindex() ? skb->skb_iif : 0,
			NULL);
	return 0;
}

#endif /* NSL_FENTRY_BPF_H */
