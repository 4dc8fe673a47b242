/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fallback attach method for ip-start, tcp-start and udp-start:
 * netfilter BPF programs (links made by src/1-setup/nflink.c in one network
 * namespace).
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_NETFILTER_BPF_H
#define NSL_NETFILTER_BPF_H

/* ---- fallback attach: netfilter hooks (one network namespace each) ---- */

#define NF_ACCEPT 1
#define NFPROTO_IPV4 2

/*
 * nf_hook_slow() runs these in the order of their priority; the loader
 * puts ip-start first on PRE_ROUTING (before conntrack and defrag) and the
 * L4 hooks last on LOCAL_IN, right before ip_local_deliver_finish() hands
 * the packet to TCP/UDP. They only observe: always NF_ACCEPT.
 */
SEC("netfilter")
int nf_ip_start(struct bpf_nf_ctx *ctx)
{
	record_nf(ctx->skb, NSL_HOOK_IP_START);
	return NF_ACCEPT;
}

/*
 * At LOCAL_IN the network header is in place (ip_rcv_core() and
 * ipv6_rcv() set it); the protocol is iphdr->protocol, or the IPv6 next
 * header (extension headers are not followed: such packets count as
 * neither TCP nor UDP).
 *
 * skb->head is a plain byte pointer the verifier will not let us
 * dereference; bpf_rdonly_cast() (v6.2, for every program type; netfilter
 * programs came in v6.4) types it, and the verifier turns the call into a
 * register move and the field load into an inline fault-tolerant one: no
 * bpf_probe_read_kernel() call per packet (compat.bpf.h declares it).
 */

static __always_inline __u8 nf_l4_protocol(struct bpf_nf_ctx *ctx)
{
	struct sk_buff *skb = ctx->skb;
	void *nh = skb->head + skb->network_header;

	if (ctx->state->pf == NFPROTO_IPV4)
		return ((struct iphdr *)bpf_rdonly_cast(
				nh, bpf_core_type_id_kernel(struct iphdr)))->protocol;
	return ((struct ipv6hdr *)bpf_rdonly_cast(
			nh, bpf_core_type_id_kernel(struct ipv6hdr)))->nexthdr;
}

/* tcp-start and udp-start: one program at LOCAL_IN (see shared_hook_on()). */
SEC("netfilter")
int nf_l4_start(struct bpf_nf_ctx *ctx)
{
	switch (nf_l4_protocol(ctx)) {
	case IPPROTO_TCP:
		if (shared_hook_on(NSL_HOOK_TCP_START))
			record_nf(ctx->skb, NSL_HOOK_TCP_START);
		break;
	case IPPROTO_UDP:
		if (shared_hook_on(NSL_HOOK_UDP_START))
			record_nf(ctx->skb, NSL_HOOK_UDP_START);
		break;
	}
	return NF_ACCEPT;
}

#endif /* NSL_NETFILTER_BPF_H */
