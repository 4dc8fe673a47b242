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
 * The standing hooks' episodes at schema 0 (the default resolution):
 * seconds to hours, never less than a look apart, where the packet hooks'
 * latencies are nanoseconds to seconds. With the packets' buckets every
 * episode longer than 2^33 ns (8.6 s) fell into the open-ended last one,
 * so stalls of seconds and of minutes could not be told apart. Their
 * buckets are the same powers of two of ns, NSL_STANDING_SHIFT of them
 * higher up: slot 0 is [0, 2^10] ns, slot i (2^(i-1+10), 2^(i+10)] ns,
 * and the last, open-ended one starts at 2^43 ns (2.4 h). As many slots
 * as the other hooks' (the maps' values are all of one size); the
 * finer schemas already cover every u64 of ns, and stay as they are.
 */
#define NSL_STANDING_SHIFT 10

/* How many powers of two hook's slots at schema are shifted: 0 or the above. */
static __always_inline __u32 nsl_hist_shift(__u32 hook, __u32 schema)
{
	return !schema && (hook == NSL_HOOK_TCP_STANDING ||
			   hook == NSL_HOOK_UDP_STANDING) ? NSL_STANDING_SHIFT : 0;
}

/*
 * nsl_bucket() of ns in units of 2^shift ns, rounded up (no overflow at
 * the top of a u64): slot i holds (2^(i-1+shift), 2^(i+shift)] ns.
 */
static __always_inline __u32 nsl_bucket_shifted(__u64 ns, __u32 shift)
{
	return nsl_bucket((ns >> shift) + !!(ns & ((1ULL << shift) - 1)));
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

/* nsl_slot() for hook's histogram: the standing hooks' shifted at schema 0. */
static __always_inline __u32 nsl_hook_slot(__u32 hook, __u64 ns, __u32 schema,
					   const volatile __u64 *thr)
{
	__u32 shift = nsl_hist_shift(hook, schema);

	return shift ? nsl_bucket_shifted(ns, shift) : nsl_slot(ns, schema, thr);
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

/* nsl_slot_upper() of a slot of hook's histogram (nsl_hook_slot()). */
static __always_inline __u64 nsl_hook_slot_upper(__u32 hook, __u32 schema,
						 const volatile __u64 *thr,
						 __u32 slot)
{
	__u32 shift = nsl_hist_shift(hook, schema);

	if (shift)
		return slot >= NSL_MAX_SLOT ? ~0ULL : nsl_bucket_upper(slot + shift);
	return nsl_slot_upper(schema, thr, slot);
}

#endif /* NSL_HIST_H */
