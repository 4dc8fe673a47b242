/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-version differences, in one place. Each shim names the upstream
 * change that made it necessary; the committed vmlinux.h describes a recent
 * kernel, the ___old flavours describe what came before.
 */
#ifndef NSL_COMPAT_BPF_H
#define NSL_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/*
 * v6.11, "net: Rename mono_delivery_time to tstamp_type for scalabilty":
 * the 1-bit skb->mono_delivery_time became the 2-bit skb->tstamp_type
 * (0 = SKB_CLOCK_REALTIME). Either way a non-zero value means skb->tstamp
 * holds a departure time set by the sender's stack (TCP's EDT), not the
 * wall-clock RX timestamp we subtract from now.
 */
struct sk_buff___old {
	__u8 mono_delivery_time : 1;
} __attribute__((preserve_access_index));

static __always_inline int nsl_skb_tstamp_is_rx(const struct sk_buff *skb)
{
	if (bpf_core_field_exists(skb->tstamp_type))
		return BPF_CORE_READ_BITFIELD(skb, tstamp_type) == 0;
	if (bpf_core_field_exists(((struct sk_buff___old *)skb)->mono_delivery_time))
		return BPF_CORE_READ_BITFIELD((struct sk_buff___old *)skb,
					      mono_delivery_time) == 0;
	return 1; /* before v5.18 there were no delivery times in tstamp */
}

/*
 * v5.16, "tcp: move inet->rx_dst_ifindex to sk->sk_rx_dst_ifindex".
 */
struct inet_sock___old {
	int rx_dst_ifindex;
} __attribute__((preserve_access_index));

static __always_inline __u32 nsl_sk_rx_ifindex(struct sock *sk)
{
	if (bpf_core_field_exists(sk->sk_rx_dst_ifindex))
		return sk->sk_rx_dst_ifindex;
	/* beyond struct sock: a direct load would be refused, probe-read it */
	return BPF_CORE_READ((struct inet_sock___old *)sk, rx_dst_ifindex);
}

#endif /* NSL_COMPAT_BPF_H */
