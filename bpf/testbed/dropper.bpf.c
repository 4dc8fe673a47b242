// SPDX-License-Identifier: GPL-2.0-only
/*
 * Testbed impairment: a tc (cls_bpf, direct-action) program for the
 * receiver's ingress that drops TCP data segments by a chosen rule, because
 * the kernels this project is tested on have no netem.
 *
 * Why the receiver's ingress: a drop on the sender's own egress is reported
 * back to its TCP as a local congestion drop and the segment is sent again
 * at once, so nothing would ever be lost on the wire.
 *
 * Rules (tb_config, set by scripts/testbed.sh with bpftool):
 * - loss: every data segment (retransmissions included) is dropped with a
 *   probability of loss_ppm / 10^6. The decision comes from a counter-based
 *   PRNG, hash(seed, index of the segment in arrival order), so one seed
 *   gives the same drop pattern for the same traffic, and a retransmission
 *   gets a fresh draw (a hash of the sequence number alone would drop it
 *   again and again).
 * - nth: the nth segment of new data is dropped, then the first 'retrans'
 *   segments that carry its first byte again (retransmissions, however the
 *   sender re-cut them); with 'period', again every period new segments
 *   after that. A segment is new when it ends beyond the highest sequence
 *   seen since the last SYN, so retransmissions do not shift the count.
 *   Meant for one connection at a time (select it with 'port').
 *
 * Only segments with payload count: SYN, FIN and pure ACKs always pass.
 * A GSO skb (several segments in one) would be dropped whole; the testbed
 * caps the sender at one segment per skb and counts any that still come.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "testbed.h"

#define TC_ACT_OK 0
#define TC_ACT_SHOT 2
#define ETH_HLEN 14
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define IPPROTO_TCP 6

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TB_CFG_NR);
	__type(key, __u32);
	__type(value, __u64);
} tb_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TB_ST_NR);
	__type(key, __u32);
	__type(value, __u64);
} tb_state SEC(".maps");

static __always_inline __u64 cfg_get(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&tb_config, &key);

	return v ? *v : 0;
}

/*
 * Linux 5.10 (the VM test's oldest kernel) refuses a program with an
 * atomic fetch-and-add or compare-and-swap (BPF_FETCH, v5.12) anywhere in
 * it. dropper-nofetch.bpf.o, built with TB_NO_ATOMIC_FETCH for it, reads,
 * changes and writes instead: two segments of the flow on two CPUs at the
 * same instant could then take one index. The VM test's forced RTO on
 * 5.10 sends one 2000-byte message every 400 ms, and checks the drops.
 */
#ifdef TB_NO_ATOMIC_FETCH
#define tb_fetch_add(p, n) ({ __u64 __old = *(p); *(p) = __old + (n); __old; })
#define tb_cmpxchg(p, o, n) ({ __u64 __cur = *(p); if (__cur == (o)) *(p) = (n); __cur; })
#else
#define tb_fetch_add(p, n) __sync_fetch_and_add(p, n)
#define tb_cmpxchg(p, o, n) __sync_val_compare_and_swap(p, o, n)
#endif

static __always_inline __u64 *state(__u32 key)
{
	return bpf_map_lookup_elem(&tb_state, &key);
}

static __always_inline void state_add(__u32 key, __u64 n)
{
	__u64 *v = state(key);

	if (v)
		__sync_fetch_and_add(v, n);
}

/* splitmix64's finaliser: a well-mixed 64-bit hash of a counter. */
static __always_inline __u64 mix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct tcp_seg {
	__u32 seq;
	__u32 len; /* payload bytes */
	__u16 sport;
	__u16 dport;
	__u8 syn;
};

/* Returns 0 and fills *seg for a TCP segment, -1 for anything else. */
static __always_inline int parse_tcp(struct __sk_buff *skb, struct tcp_seg *seg)
{
	/* a TUN device's packets start with the IP header */
	__u32 l2 = cfg_get(TB_CFG_L2_NONE) ? 0 : ETH_HLEN;
	__u8 l3[40], th[14];
	__u32 l4_off, l3_len;
	__u8 doff;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, l2, l3, 20))
			return -1;
		if ((l3[0] >> 4) != 4 || l3[9] != IPPROTO_TCP)
			return -1;
		/* later fragments carry no TCP header */
		if ((l3[6] & 0x1f) || l3[7])
			return -1;
		l4_off = l2 + (l3[0] & 0xf) * 4;
		l3_len = ((__u32)l3[2] << 8 | l3[3]) - (l3[0] & 0xf) * 4;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		if (bpf_skb_load_bytes(skb, l2, l3, 40))
			return -1;
		/* extension headers are not followed */
		if (l3[6] != IPPROTO_TCP)
			return -1;
		l4_off = l2 + 40;
		l3_len = (__u32)l3[4] << 8 | l3[5];
	} else {
		return -1;
	}
	if (bpf_skb_load_bytes(skb, l4_off, th, sizeof(th)))
		return -1;
	doff = (th[12] >> 4) * 4;
	seg->sport = (__u16)th[0] << 8 | th[1];
	seg->dport = (__u16)th[2] << 8 | th[3];
	seg->seq =
	    (__u32)th[4] << 24 | (__u32)th[5] << 16 | (__u32)th[6] << 8 | th[7];
	seg->len = l3_len > doff ? l3_len - doff : 0;
	seg->syn = th[13] & 0x02;
	return 0;
}

static __always_inline int loss_drop(__u64 index)
{
	__u64 ppm = cfg_get(TB_CFG_LOSS_PPM);

	return mix64(cfg_get(TB_CFG_SEED) ^ mix64(index)) % 1000000 < ppm;
}

/* Does the segment carry byte 'seq' (32-bit wraparound)? */
static __always_inline int seg_covers(const struct tcp_seg *seg, __u32 seq)
{
	return seq - seg->seq < seg->len;
}

/*
 * Is this the first time the segment's last byte is seen? The highest end
 * sequence is kept with bit 32 set once valid; a SYN starts over.
 */
static __always_inline int seg_is_new(const struct tcp_seg *seg)
{
	__u64 *high = state(TB_ST_HIGH_SEQ);
	__u32 end = seg->seq + seg->len;

	if (!high)
		return 0;
	if ((*high >> 32) && (__s32)(end - (__u32)*high) <= 0)
		return 0;
	*high = (1ULL << 32) | end;
	return 1;
}

static __always_inline int nth_drop(const struct tcp_seg *seg)
{
	__u64 nth = cfg_get(TB_CFG_NTH), period = cfg_get(TB_CFG_PERIOD);
	__u64 *target = state(TB_ST_TARGET_SEQ);
	__u64 *left = state(TB_ST_RETRANS_LEFT);
	__u64 *segs = state(TB_ST_NEW_SEGS);
	__u64 index, l;

	if (!target || !left || !segs || !nth)
		return 0;
	l = *left;
	if (l && seg_covers(seg, (__u32)*target) &&
	    tb_cmpxchg(left, l, l - 1) == l) {
		state_add(TB_ST_DROPPED_RETRANS, 1);
		return 1;
	}
	if (!seg_is_new(seg))
		return 0;
	index = tb_fetch_add(segs, 1) + 1;
	if (index != nth &&
	    !(period && index > nth && (index - nth) % period == 0))
		return 0;
	*target = seg->seq;
	*left = cfg_get(TB_CFG_RETRANS);
	return 1;
}

SEC("tc")
int tb_drop(struct __sk_buff *skb)
{
	__u64 mode = cfg_get(TB_CFG_MODE), port = cfg_get(TB_CFG_PORT);
	struct tcp_seg seg;
	__u64 *segs, *high, index;
	int drop;

	if (mode == TB_MODE_OFF || parse_tcp(skb, &seg))
		return TC_ACT_OK;
	if (port && seg.sport != port && seg.dport != port)
		return TC_ACT_OK;
	if (seg.syn) {
		high = state(TB_ST_HIGH_SEQ);
		if (high)
			*high = 0;
	}
	if (!seg.len)
		return TC_ACT_OK;
	if (skb->gso_segs > 1)
		state_add(TB_ST_GSO_SKBS, 1);
	segs = state(TB_ST_DATA_SEGS);
	if (!segs)
		return TC_ACT_OK;
	index = tb_fetch_add(segs, 1) + 1;
	if (mode == TB_MODE_LOSS)
		drop = loss_drop(index);
	else if (mode == TB_MODE_NTH)
		drop = nth_drop(&seg);
	else
		drop = 0;
	if (!drop)
		return TC_ACT_OK;
	state_add(TB_ST_DROPPED, 1);
	return TC_ACT_SHOT;
}
