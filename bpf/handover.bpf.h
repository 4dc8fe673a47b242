/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netns-handover: the host's share of a container's latency, from the
 * packet's RX stamp to the moment the host hands it to another network
 * namespace (a pod behind veth or netkit). Included by netstacklat.bpf.c,
 * after its record path.
 *
 * The kernel behaviour this relies on (Debian's 6.1, 6.12 and 7.2):
 *
 * - A routed packet loses its RX stamp before it reaches the veth:
 *   ip_forward_finish() and ip6_forward_finish() call skb_clear_tstamp()
 *   (net/ipv4/ip_forward.c, net/ipv6/ip6_output.c), which leaves only a
 *   sender's departure time (tstamp_type / mono_delivery_time set). The
 *   NF_INET_FORWARD hook runs before them, in ip_forward()/ip6_forward(),
 *   after skb_cow() (which gives a cloned skb a new head). Then
 *   dst_output() -> neighbour -> dev_queue_xmit(): the packet may wait in
 *   the veth's qdisc (tbf, fq, ...) and be sent by another CPU.
 * - Sending: dev_hard_start_xmit() -> xmit_one() fires net_dev_start_xmit
 *   with the skb and the device, then calls its ndo_start_xmit: veth_xmit()
 *   -> veth_forward_skb() -> __dev_forward_skb(peer, skb) (skb->dev still
 *   the host's end) -> skb_scrub_packet(skb, xnet), whose skb_clear_tstamp()
 *   clears an RX stamp the packet may still carry; netif_rx() in the pod
 *   stamps it again. netkit_xmit() (6.7+) clears it too
 *   (netkit_prep_forward()), without __dev_forward_skb().
 *
 * So the RX stamp is remembered where the packet is forwarded, keyed by
 * the skb's address, and taken back at the hand-over: the skb is the same
 * object all along (the qdisc queues it, nothing copies it), and its head
 * (the data buffer) tells a reused skb apart from a packet dropped on the
 * way. A packet dropped on the way takes its entry with it
 * (tp_handover_drop). Only packets routed to a hand-over device are
 * remembered. A packet that reaches the device
 * with its own RX stamp still set (nothing on its way cleared it) is
 * measured from it directly.
 *
 * Packets routed to a bridge (docker0, cni0) whose ports are the pods'
 * veths are remembered there too, and handed over at the port (fwd_xmit()).
 *
 * Not seen: packets the host segments or fragments on the way (new skbs:
 * counted in handover_unmatched); packets the host bridges without
 * routing them, from a NIC enslaved to the bridge or from one pod to
 * another on the same bridge (br_forward_finish() clears the stamp and
 * no IP FORWARD hook of this tool ran: handover_unmatched); and
 * datapaths that skip the host's stack: bpf_redirect_peer() from the
 * NIC's tc ingress (Cilium) moves the packet into the pod with
 * skb_scrub_packet(skb, false), which keeps the stamp (skb_do_redirect(),
 * net/core/filter.c, 6.1 to 7.2): there no hand-over happens, and the
 * pod's hooks measure from the NIC's stamp themselves.
 */
#ifndef NSL_HANDOVER_BPF_H
#define NSL_HANDOVER_BPF_H

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD

#include <bpf/bpf_endian.h>

/* The RX stamp of a forwarded packet, kept until its hand-over. */
struct nsl_fwd_stamp {
	__u64 tstamp;
	__u64 head;	/* skb->head when forwarded: a reused skb has another */
};

/*
 * Sized for the packets in flight between forwarding and hand-over (the
 * loader shrinks it to nothing when the hook is off); an LRU so that
 * entries of packets dropped on the way age out by themselves.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NSL_HANDOVER_INFLIGHT);
	__type(key, __u64);
	__type(value, struct nsl_fwd_stamp);
} handover_stamps SEC(".maps");

/*
 * Whether a device whose ndo_start_xmit is xmit hands packets to another
 * namespace: veth's or netkit's (cfg.handover_xmit, from /proc/kallsyms;
 * the modules must be loaded when the tool starts).
 */
static __always_inline int handover_xmit(__u64 xmit)
{
	return xmit && (xmit == cfg.handover_xmit[NSL_XMIT_VETH] ||
			xmit == cfg.handover_xmit[NSL_XMIT_NETKIT]);
}

/*
 * Whether a packet routed to the device whose ndo_start_xmit is xmit is
 * on its way to a hand-over: the device hands over itself, or it is a
 * bridge (br_dev_xmit(), docker0 or cni0 with the pods' veths as ports).
 * A packet routed to a bridge goes br_dev_xmit() -> br_forward() (or
 * br_flood()) -> __br_forward(): skb->dev becomes the port, then
 * br_forward_finish() -> br_dev_queue_push_xmit() -> dev_queue_xmit() on
 * the port, the same skb (v6.1 to v7.2, net/bridge/br_device.c,
 * br_forward.c): the port's hand-over finds the stamp remembered here.
 * Flooded to several ports (a destination not yet learnt), all but the
 * last get a clone (deliver_clone(): another skb), which is counted as
 * handover_unmatched. One the bridge sends out of a port that does not
 * hand over (a NIC) is no sample: its entry ages out of the LRU. With
 * br_netfilter, the IP FORWARD hook also runs for packets the bridge
 * forwards between its ports (br_nf_forward_ip(), the bridge as the
 * output device): the fallback then measures one pod's packets to
 * another from the first pod's veth crossing; fentry does not see them.
 */
static __always_inline int fwd_xmit(__u64 xmit)
{
	return handover_xmit(xmit) ||
	       (xmit && xmit == cfg.handover_xmit[NSL_XMIT_BRIDGE]);
}

/* A BTF-typed device's ndo_start_xmit, 0 for none: two loads */
static __always_inline __u64 dev_xmit(const struct net_device *dev)
{
	return dev ? (__u64)dev->netdev_ops->ndo_start_xmit : 0;
}

/*
 * handover_xmit() for a device: two loads and two compares, the whole
 * cost of the tracepoint program on other devices' packets.
 */
static __always_inline int handover_dev(const struct net_device *dev)
{
	return handover_xmit(dev_xmit(dev));
}

/* skb is being forwarded to a device that hands over: remember its stamp */
static __always_inline void handover_remember(struct sk_buff *skb)
{
	struct nsl_fwd_stamp v;
	__u64 key = (__u64)skb;

	v.tstamp = skb->tstamp;
	/* a departure time survives skb_clear_tstamp(): nothing to keep */
	if ((__s64)v.tstamp <= 0 ||
	    !nsl_skb_tstamp_is_rx(skb, cfg.mono_tstamp_limit))
		return;
	v.head = (__u64)skb->head;
	bpf_map_update_elem(&handover_stamps, &key, &v, BPF_ANY);
}

/*
 * skb is handed over by dev (the host's end). Packets the host sends
 * itself were never received: not this hook's. Those of local sockets
 * have skb->sk set (a forwarded packet has none: ip_forward() drops
 * those); those without a socket (IPv6 neighbour discovery and MLD,
 * ICMP errors: new skbs) have skb_iif 0, which __netif_receive_skb_core()
 * sets for every packet received (v6.1 to v7.2, net/core/dev.c) and
 * forwarding keeps. (Seen: a new bridge's IPv6 link-local traffic to its
 * port counted as handover_unmatched.) A packet veth sent back comes
 * again with skb_iif 0 too: from v6.16 veth_xmit() returns
 * NETDEV_TX_BUSY when the peer's NAPI ring is full and this end has a
 * qdisc, which sends the same skb again later (dev_requeue_skb()), and
 * its first attempt's __dev_forward_skb() -> skb_scrub_packet() zeroed
 * skb_iif (and the stamp): the first attempt is the sample, the retry
 * neither a sample nor a counter (test_handover_requeued: 10 to 189
 * requeues a run, one sample per datagram, none unmatched; issue #33
 * item 5 expected the retry to count handover_unmatched). Counters and
 * samples cover what -i/-n select, the device being the host's end of
 * the pair.
 */
static __always_inline void record_handover(const struct sk_buff *skb,
					    const struct net_device *dev)
{
	struct nsl_fwd_stamp *st;
	__u64 key = (__u64)skb, ts;
	__u32 ifindex = 0;
	__u16 proto;
	int own;

	if (!handover_dev(dev) || skb->sk || !skb->skb_iif)
		return;
	proto = skb->protocol;
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return;
	ts = skb->tstamp;
	own = ts != 0;
	if (!own) {
		/*
		 * taken back (and the entry freed) before --sample and the
		 * filters: a packet either leaves out frees it all the same,
		 * where the LRU would evict it only by pushing out entries
		 * of packets still in flight
		 */
		st = bpf_map_lookup_elem(&handover_stamps, &key);
		if (st) {
			if (st->head == (__u64)skb->head)
				ts = st->tstamp;
			bpf_map_delete_elem(&handover_stamps, &key);
		}
	}
	/*
	 * One hand-over is one packet to the countdown: both programs run
	 * with bottom halves off (__dev_queue_xmit() under
	 * rcu_read_lock_bh(), or net_tx_action()'s qdisc run, then
	 * dev_hard_start_xmit() -> xmit_one(), which fires
	 * net_dev_start_xmit and calls veth_xmit() -> __dev_forward_skb(); v6.1
	 * to v7.2, net/core/dev.c), so nothing runs between the per-CPU
	 * countdown's load and store on this CPU.
	 */
	if (sample_skip(NSL_HOOK_NETNS_HANDOVER))
		return;
	if (need_ifindex()) {
		ifindex = dev->ifindex;
		if (!ifindex_selected(ifindex))
			return;
	}
	if (cfg.netns_ino && dev->nd_net.net->ns.inum != cfg.netns_ino)
		return;
	if (!ts) {
		count_event(NSL_HOOK_NETNS_HANDOVER, NSL_CNT_HANDOVER_UNMATCHED);
		return;
	}
	/* a remembered stamp is an RX one: handover_remember() keeps no other */
	if (own && !nsl_skb_tstamp_is_rx(skb, cfg.mono_tstamp_limit)) {
		count_event(NSL_HOOK_NETNS_HANDOVER, NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	record_latency(NSL_HOOK_NETNS_HANDOVER, ts, ifindex,
		       cfg.group_by_netns ? dev->nd_net.net : NULL);
}

/* ---- fentry: the forwarding functions and __dev_forward_skb() -------- */

/*
 * Whether a routed skb leaves by a device that hands over:
 * skb_dst(skb)->dev. _skb_refdst is a number with SKB_DST_NOREF in its low
 * bit, so the chain from it is read with probe reads (a BTF pointer it is
 * not: the verifier refuses a plain load through it, as 6.12 did).
 */
static __always_inline int fwd_to_handover(struct sk_buff *skb)
{
	struct dst_entry *dst = (void *)(skb->_skb_refdst & ~1UL);

	return fwd_xmit((__u64)BPF_CORE_READ(dst, dev, netdev_ops,
					     ndo_start_xmit));
}

/*
 * IPv4: ip_forward_finish(net, sk, skb), past the FORWARD hook, right
 * before skb_clear_tstamp().
 */
SEC("fentry/ip_forward_finish")
int BPF_PROG(fentry_ip_forward_finish, struct net *net, struct sock *sk,
	     struct sk_buff *skb)
{
	if (fwd_to_handover(skb))
		handover_remember(skb);
	return 0;
}

/*
 * IPv6: ip6_forward(skb), the entry of the forward path (dst_input()),
 * routed already. Not ip6_forward_finish(): a static inline, which 6.12
 * lists in BTF but whose fentry attach fails (EBUSY, found by the VM
 * test). Earlier than IPv4's point: a packet ip6_forward() then drops
 * leaves an entry for the LRU to evict, and one its skb_cow() gives a
 * new head (a cloned skb: a packet socket on the input device took a
 * copy) is not matched at the hand-over (handover_unmatched).
 */
SEC("fentry/ip6_forward")
int BPF_PROG(fentry_ip6_forward, struct sk_buff *skb)
{
	if (fwd_to_handover(skb))
		handover_remember(skb);
	return 0;
}

/*
 * veth_xmit() -> __dev_forward_skb(peer, skb), before the scrub; skb->dev
 * is the host's end. Other callers (ipvlan, macvlan) fail handover_dev().
 * netkit does not come here: fentry mode does not see it.
 */
SEC("fentry/__dev_forward_skb")
int BPF_PROG(fentry_dev_forward_skb, struct net_device *peer,
	     struct sk_buff *skb)
{
	record_handover(skb, skb->dev);
	return 0;
}

/* ---- fallback: netfilter FORWARD and net_dev_start_xmit -------------- */

/*
 * NF_INET_FORWARD, IPv4 and IPv6, at the last priority (after the
 * ruleset: a packet it drops is not remembered), in the namespace -n
 * selects: the host's. state->out is the device the packet is routed to.
 */
SEC("netfilter")
int nf_handover_forward(struct bpf_nf_ctx *ctx)
{
	if (fwd_xmit(dev_xmit(ctx->state->out)))
		handover_remember(ctx->skb);
	return NF_ACCEPT;
}

/*
 * Every packet sent by every device fires this (xmit_one(), after the
 * qdisc): leave the others' at once (handover_dev()).
 */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(tp_handover_xmit, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	record_handover(skb, dev);
	return 0;
}

/* ---- both: a remembered packet dropped on the way ------------------- */

/*
 * A packet remembered and then dropped (a qdisc over its limit, tbf; a
 * neighbour that never resolves; a full veth ring) left its entry until
 * the LRU pushed it out, and a later skb at the same address with the
 * same head (the slab caches hand out the object freed last first) that
 * reaches a hand-over without being remembered (bridged from pod to pod)
 * was measured from that stale stamp (issue #33 item 5). kfree_skb fires
 * for every drop: kfree_skb() (v5.10), kfree_skb_reason() (v5.17), and
 * from v6.12 sk_skb_reason_drop(), which fires consume_skb instead for
 * SKB_CONSUMED; the list and deferred (dev_kfree_skb_irq) frees go
 * through the same (net/core/skbuff.c, net/core/dev.c). So the entry
 * goes with its packet.
 */
SEC("tp_btf/kfree_skb")
int BPF_PROG(tp_handover_drop, struct sk_buff *skb)
{
	__u64 key = (__u64)skb;
	struct nsl_fwd_stamp *st;

	/*
	 * A remembered packet lost its stamp when it was forwarded
	 * (ip_forward_finish(), ip6_forward_finish(): skb_clear_tstamp());
	 * a stamped one (a full socket buffer's drop, the common kind) is
	 * not ours: one load, no look-up (98 ns per drop with the look-up
	 * for all, under a flood of socket-buffer drops). What this leaves
	 * to the LRU: IPv6 packets fentry remembered at ip6_forward()'s
	 * entry and that function dropped.
	 */
	if (skb->tstamp)
		return 0;
	st = bpf_map_lookup_elem(&handover_stamps, &key);
	if (st && st->head == (__u64)skb->head)
		bpf_map_delete_elem(&handover_stamps, &key);
	return 0;
}

#endif /* NSL_HANDOVER_BPF_H */
