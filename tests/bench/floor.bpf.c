// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor under a per-packet BPF program on this machine, for
 * scripts/bench: what a program that does nothing costs per run at the
 * attach points netstacklat uses, and what reading the clock adds.
 *
 * With BPF run-time statistics on, every run is bracketed by two
 * sched_clock() reads that are charged to the program (and in a VM they are
 * not free), so even an empty program has a measurable run time. Ours minus
 * these is what our code itself costs.
 *
 * The empty programs also come in netstacklat's shape on the IPv4 receive
 * path (one at PRE_ROUTING, two at LOCAL_IN, two on sk_data_ready, one on
 * each read tracepoint): attached without statistics they show what merely
 * running that many programs per packet costs in throughput.
 * tests/bench/floorload.c links netfilter programs whose name starts with
 * nf_pre_ at PRE_ROUTING, the others at LOCAL_IN.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define NF_ACCEPT 1

char LICENSE[] SEC("license") = "GPL";

/* floor_map: the smallest possible "sample", one per-CPU counter */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} floor_cnt SEC(".maps");

SEC("tp_btf/sk_data_ready")
int BPF_PROG(floor_empty, struct sock *sk)
{
	return 0;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(floor_empty2, struct sock *sk)
{
	return 0;
}

/* A helper call cannot be optimised away: its result need not be used. */
SEC("tp_btf/sk_data_ready")
int BPF_PROG(floor_clock, struct sock *sk)
{
	bpf_ktime_get_tai_ns();
	return 0;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(floor_map, struct sock *sk)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&floor_cnt, &zero);

	if (v)
		*v += bpf_ktime_get_tai_ns() & 1;
	return 0;
}

/* The invocation cost is the same for every tp_btf tracepoint: check it. */
SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(floor_empty_cp, const struct sk_buff *skb, int len)
{
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(floor_empty_rl, struct sock *sk, int ret, int flags)
{
	return 0;
}

/* tp_recv_length records a read here: the clock at its attach point */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(floor_clock_rl, struct sock *sk, int ret, int flags)
{
	bpf_ktime_get_tai_ns();
	return 0;
}

/*
 * netns-handover's fallback runs here for every packet any device sends:
 * its cost on the packets it ignores is measured against this.
 */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(floor_empty_xmit, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	return 0;
}

/* Netfilter programs are run by nf_hook_slow(), not by a tracepoint. */
SEC("netfilter")
int nf_pre_empty(struct bpf_nf_ctx *ctx)
{
	return NF_ACCEPT;
}

SEC("netfilter")
int nf_floor_empty(struct bpf_nf_ctx *ctx)
{
	return NF_ACCEPT;
}

SEC("netfilter")
int nf_floor_empty2(struct bpf_nf_ctx *ctx)
{
	return NF_ACCEPT;
}

SEC("netfilter")
int nf_floor_clock(struct bpf_nf_ctx *ctx)
{
	bpf_ktime_get_tai_ns();
	return NF_ACCEPT;
}
