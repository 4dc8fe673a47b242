// SPDX-License-Identifier: GPL-2.0-only
/*
 * What finding a sample's bucket costs, without the noise of the network
 * stack: each program finds the buckets of the same 256 pseudo-random
 * latencies (1 ns to 16.8 ms, spread over the octaves) and runs under
 * BPF_PROG_TEST_RUN (tests/bench/slotbench.c), which times many runs in
 * the kernel. loop_only does everything but the bucket; slot_log2 adds
 * nsl_slot() at resolution 1, slot_schema3 at resolution 8, with the
 * thresholds in read-only data as netstacklat's cfg holds them; and
 * --sample's random reload (below).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "hist.h"
#include "sample.h"

const volatile __u64 thr[8] = {};

#define N 256
#define SEED 88172645463325252ULL

/* xorshift64 */
static __always_inline __u64 next(__u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* a latency below 2^24 ns, its octave chosen by 4 of the random bits */
static __always_inline __u64 latency(__u64 r)
{
	return (r >> 40) >> (r & 15);
}

/*
 * The 256 latencies of a run, summed (schema < 0) or their slots in the
 * schema summed: the sum keeps the compiler from dropping the work.
 */
static __always_inline int lookups(int schema)
{
	__u64 x = SEED, s = 0;

	for (int i = 0; i < N; i++) {
		__u64 lat = latency(next(&x));

		s += schema < 0 ? lat : nsl_slot(lat, schema, thr);
	}
	return s & 1;
}

SEC("socket")
int loop_only(struct __sk_buff *skb)
{
	return lookups(-1);
}

SEC("socket")
int slot_log2(struct __sk_buff *skb)
{
	return lookups(0);
}

SEC("socket")
int slot_schema3(struct __sk_buff *skb)
{
	return lookups(3);
}

/*
 * --sample's random reload (sample_skip(), bpf/record.bpf.h): what a
 * recorded packet pays for a countdown drawn at random rather than set
 * to N - 1, 256 times per run (N = 64), on top of loop_only:
 * sample_reload as the tool draws it, from the xorshift32 state kept in
 * memory (here a global; in the tool the countdown's per-CPU slot), and
 * sample_reload_helper from bpf_get_prandom_u32(), the helper call the
 * tool makes once per slot to seed it.
 */
__u32 rng = 1;

SEC("socket")
int sample_reload(struct __sk_buff *skb)
{
	__u64 x = SEED, s = 0;

	for (int i = 0; i < N; i++) {
		s += latency(next(&x)) + nsl_sample_gap(nsl_xorshift32(&rng), 64);
		/* the state goes to memory and back each time, as the slot's */
		asm volatile("" ::: "memory");
	}
	return s & 1;
}

SEC("socket")
int sample_reload_helper(struct __sk_buff *skb)
{
	__u64 x = SEED, s = 0;

	for (int i = 0; i < N; i++)
		s += latency(next(&x)) + nsl_sample_gap(bpf_get_prandom_u32(), 64);
	return s & 1;
}

char LICENSE[] SEC("license") = "GPL";
