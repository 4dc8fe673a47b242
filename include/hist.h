/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bucket index of a latency, shared by the BPF programs (hot path) and the
 * host unit tests. No loops and no helpers, so it is cheap for the verifier
 * and the JIT alike.
 */
#ifndef NSL_HIST_H
#define NSL_HIST_H

#include "netstacklat.h"

/* Number of significant bits of v (0 for 0), by binary search on halves. */
static __always_inline __u32 nsl_fls64(__u64 v)
{
	__u32 n = 0;

	if (v >> 32) { n += 32; v >>= 32; }
	if (v >> 16) { n += 16; v >>= 16; }
	if (v >> 8) { n += 8; v >>= 8; }
	if (v >> 4) { n += 4; v >>= 4; }
	if (v >> 2) { n += 2; v >>= 2; }
	if (v >> 1) { n += 1; v >>= 1; }
	return n + (__u32)v;
}

/*
 * Bucket 0 holds [0, 1]; bucket i holds (2^(i-1), 2^i], i.e. i is
 * ceil(log2(ns)) = fls(ns - 1); everything beyond 2^(NSL_MAX_SLOT-1)
 * lands in the last bucket.
 */
static __always_inline __u32 nsl_bucket(__u64 ns)
{
	__u32 slot;

	if (ns <= 1)
		return 0;
	slot = nsl_fls64(ns - 1);
	return slot > NSL_MAX_SLOT ? NSL_MAX_SLOT : slot;
}

/* Inclusive upper bound of bucket i in ns (the last one is open-ended). */
static __always_inline __u64 nsl_bucket_upper(__u32 i)
{
	return (__u64)1 << i;
}

#endif /* NSL_HIST_H */
