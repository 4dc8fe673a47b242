// SPDX-License-Identifier: GPL-2.0-only
/*
 * Testbed: NSL_HEAD_STAMP_IS_RX() (bpf/compat.bpf.h), the standing hooks'
 * check of a queue head's own stamp type (issue 57, item 8: a head freed
 * under a look and reused for a TX skb carries a departure time), run by
 * BPF_PROG_TEST_RUN on the skb the kernel builds for it
 * (test_standing.sh, test_standing_head_stamp_type: bpftool prog run).
 * bpf_skb_set_tstamp() (v5.18) gives the skb each kind of stamp: a
 * departure time (BPF_SKB_TSTAMP_DELIVERY_MONO, from v6.11
 * BPF_SKB_CLOCK_MONOTONIC: 1), which the check must refuse, and a
 * realtime one (BPF_SKB_CLOCK_REALTIME, 0, v6.11+; before, only 0 with
 * BPF_SKB_TSTAMP_UNSPEC), which it must pass; bpf_cast_to_kern_ctx()
 * (v6.2) gives the struct sk_buff to read them from, as a BTF pointer
 * (BPF_CORE_READ_BITFIELD) and through probe reads (..._PROBED), the
 * two ways queue_head() reads a head.
 *
 * The return value: bit 0 and 1, the departure time refused (BTF load,
 * probe read); bit 2 and 3, the realtime stamp passed; 15 is right.
 * 100 + n: bpf_skb_set_tstamp() refused step n.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* in the limit's place: a departure time must be told by its type */
#define NO_VALUE_RULE 0

SEC("tc")
int stamp_type(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	__u64 ts;
	int ret = 0;

	if (bpf_skb_set_tstamp(ctx, bpf_ktime_get_ns(), 1))
		return 101;
	ts = skb->tstamp;
	if (!NSL_HEAD_STAMP_IS_RX(skb, ts, NO_VALUE_RULE, BPF_CORE_READ_BITFIELD))
		ret |= 1;
	if (!NSL_HEAD_STAMP_IS_RX(skb, ts, NO_VALUE_RULE, BPF_CORE_READ_BITFIELD_PROBED))
		ret |= 2;
	/* a realtime stamp where the kernel takes one (v6.11+), else none */
	if (bpf_skb_set_tstamp(ctx, 1800000000000000000ULL, 0) &&
	    bpf_skb_set_tstamp(ctx, 0, 0))
		return 102;
	ts = skb->tstamp;
	if (NSL_HEAD_STAMP_IS_RX(skb, ts, NO_VALUE_RULE, BPF_CORE_READ_BITFIELD))
		ret |= 4;
	if (NSL_HEAD_STAMP_IS_RX(skb, ts, NO_VALUE_RULE, BPF_CORE_READ_BITFIELD_PROBED))
		ret |= 8;
	return ret;
}
