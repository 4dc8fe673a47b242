/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bucket index of a latency, shared by the BPF programs (hot path) and the
 * host unit tests. No loops and no helpers, so it is cheap for the verifier
 * and the JIT alike.
 */
#ifndef NSL_HIST_H
#define NSL_HIST_H

#include "netstacklat.h"
#include "schema.h"

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

/* Inclusive upper bound of log2 bucket i in ns (the last one is open-ended). */
static __always_inline __u64 nsl_bucket_upper(__u32 i)
{
	return (__u64)1 << i;
}

/*
 * The slot of a latency of ns nanoseconds in a histogram of the schema
 * (struct nsl_hist): for schema 0 the log2 bucket; for schema s >= 1 the
 * bucket of the native histogram, found exactly with integer compares
 * (scripts/gen-schema-thresholds explains why): in octave e of ns the
 * bounds sit at the same places as in every octave, so x, the bits of ns
 * moved to the top of 64, is compared with the schema's thresholds thr
 * (2^s of them, the others UINT64_MAX). No loop and no helper: eight
 * compares and adds, whatever the schema.
 */
static __always_inline __u32 nsl_slot(__u64 ns, __u32 schema,
				      const volatile __u64 *thr)
{
	__u32 e, c;
	__u64 x;

	if (!schema)
		return nsl_bucket(ns);
	if (!ns)
		return 0;
	e = nsl_fls64(ns) - 1;
	x = ns << (63 - e);
	c = (x > thr[0]) + (x > thr[1]) + (x > thr[2]) + (x > thr[3]) +
	    (x > thr[4]) + (x > thr[5]) + (x > thr[6]) + (x > thr[7]);
	return (e << schema) + c + 1;
}

/* Slots of a histogram of the schema. */
static __always_inline __u32 nsl_nr_slots(__u32 schema)
{
	return schema ? NSL_SCHEMA_SLOTS(schema) : NSL_NR_BUCKETS;
}

/* Bytes of a struct nsl_hist cut to the slots of the schema (a map value). */
static __always_inline __u32 nsl_hist_size(__u32 schema)
{
	return sizeof(__u64) * (NSL_HIST_HEAD + nsl_nr_slots(schema));
}

/*
 * The largest latency in ns that slot holds (an integer, since samples
 * are: for schema s >= 1 the floor of the bucket's bound 1e9 * 2^(i/2^s)),
 * or UINT64_MAX for the open-ended last log2 bucket and the slot above a
 * u64. The same thresholds as nsl_slot(), so the two cannot disagree.
 */
static __always_inline __u64 nsl_slot_upper(__u32 schema,
					    const volatile __u64 *thr,
					    __u32 slot)
{
	__u32 e, c;

	if (!schema)
		return slot >= NSL_MAX_SLOT ? ~0ULL : nsl_bucket_upper(slot);
	if (!slot)
		return 0;
	e = (slot - 1) >> schema;
	c = (slot - 1) & ((1u << schema) - 1);
	return e > 63 ? ~0ULL : thr[c] >> (63 - e);
}

#endif /* NSL_HIST_H */
