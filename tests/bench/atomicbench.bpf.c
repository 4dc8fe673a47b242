// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a grouped histogram's shared counters cost (issue #26): -I/-C
 * histograms are shared by the CPUs and each sample adds to them with
 * atomic adds (record_latency_at() in bpf/netstacklat.bpf.c: lock xadd on
 * x86). Each program here makes 64 adds to one 8-byte counter and runs
 * under BPF_PROG_TEST_RUN (tests/bench/atomicbench.c) from one CPU or
 * from every CPU at once: shared_atomic into one array value (as
 * group_hist: the line moves between CPUs under contention), percpu_plain
 * into the CPU's own per-CPU value (as the ungrouped hist map),
 * percpu_atomic the same with atomic adds (the standing hooks' adds to it,
 * bpf/record.bpf.h), loop_only without the adds. Between two adds each
 * does some 100 ns of other work (a chain of xorshifts), as a packet's
 * path does between two samples: in
 * a tight loop a CPU would make many adds while it holds the line, and
 * contention would hardly show.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define N 64
#define SPACING 48	/* xorshift rounds between two adds */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} shared SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} own SEC(".maps");

static __always_inline int adds(void *map, int atomic)
{
	__u32 zero = 0;
	__u64 *v = map ? bpf_map_lookup_elem(map, &zero) : NULL;
	__u64 x = 88172645463325252ULL;

	for (int i = 0; i < N; i++) {
		for (int k = 0; k < SPACING; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		if (!v)
			continue;
		/* the work after an add waits for it (as loads after a locked
		 * add do on x86): its latency, a line transfer included, shows */
		if (atomic)
			x += __sync_fetch_and_add(v, 1);
		else
			x += (*(volatile __u64 *)v)++;
	}
	return x & 1;
}

SEC("socket")
int loop_only(struct __sk_buff *skb)
{
	return adds(NULL, 0);
}

SEC("socket")
int shared_atomic(struct __sk_buff *skb)
{
	return adds(&shared, 1);
}

SEC("socket")
int percpu_plain(struct __sk_buff *skb)
{
	return adds(&own, 0);
}

/* the CPU's own value, atomically: the standing hooks' adds (#57 item 9) */
SEC("socket")
int percpu_atomic(struct __sk_buff *skb)
{
	return adds(&own, 1);
}

char LICENSE[] SEC("license") = "GPL";
