/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --sample N: how many packets the countdown of sample_skip()
 * (bpf/record.bpf.h) lets pass after each one it records, drawn at
 * random. Pure, so that the host unit tests check its range, mean and
 * generator (tests/unit/test_sample.c), and the BPF program runs the
 * same code.
 *
 * Why at random: a countdown reloaded with N - 1 records exactly every
 * Nth packet a CPU sees of a hook, which locks onto any period in that
 * sequence. The filters (-p, -c, -q, -i, -n) come after the countdown,
 * so the sequence mixes what they select with what they drop: a client
 * and a server in request/response on one CPU read in turn, and at an
 * even N a fixed countdown records every read of one of them and none of
 * the other (by construction; on this project's urgent-data test, whose
 * pairs of sk_data_ready calls do not stay in step on a CPU, it did not
 * lock: 151 samples and 100 unchanged_tail of 301 and 200 at N = 2). A
 * random gap reaches every phase.
 *
 * The random numbers: a xorshift32 generator per CPU and hook, kept in
 * the countdown's own slot, seeded once from bpf_get_prandom_u32(). The
 * helper per recorded packet measured 13-16 ns, the generator under 1 ns
 * (tests/bench/slotbench.bpf.c, docs/performance.md); packets left out
 * pay for neither. Not for anything an adversary must not guess: which
 * packets are recorded was never a secret.
 */
#ifndef NSL_SAMPLE_H
#define NSL_SAMPLE_H

#include "netstacklat.h"

/*
 * The packets to let pass before the next recorded one, from r, uniform
 * over 32 bits: uniform in [0, 2n - 2] (mean n - 1), so the gap between
 * two recorded packets is uniform in [1, 2n - 1], of mean n: the same
 * rate as the fixed countdown, with a third of the variance of
 * recording each packet with probability 1/n (n(n - 1)/3 against
 * n(n - 1)). A multiply and a shift, no division: each value is taken
 * by floor or ceil of 2^32 / (2n - 1) values of r, a bias below
 * 2n / 2^32. n <= NSL_MAX_SAMPLE_EVERY, so 2n - 1 fits.
 */
static __always_inline __u32 nsl_sample_gap(__u32 r, __u32 n)
{
	if (n <= 1)
		return 0;
	return (__u32)(((__u64)r * (2 * n - 1)) >> 32);
}

/*
 * Marsaglia's xorshift32 (shifts 13, 17, 5): every state but 0 follows
 * every other, period 2^32 - 1; *x must not be 0. Returns the new state.
 */
static __always_inline __u32 nsl_xorshift32(__u32 *x)
{
	__u32 v = *x;

	v ^= v << 13;
	v ^= v >> 17;
	v ^= v << 5;
	*x = v;
	return v;
}

#endif /* NSL_SAMPLE_H */
