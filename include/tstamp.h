/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An RX timestamp in the form a kernel structure hands it over, turned
 * into what every sample subtracts from now: CLOCK_REALTIME in ns, the
 * value of skb->tstamp. Pure, so that the host unit tests check it, and
 * the BPF program runs the same code.
 *
 * Kernel behaviour relied on: before v7.1, tcp_update_recv_tstamps() put
 * ktime_to_timespec64(skb->tstamp) into tss->ts[0] (a struct timespec64:
 * ns_to_timespec64(), tv_nsec always in [0, 1e9), tv_sec rounded down,
 * also for a negative time); since v7.1 ("net: use ktime_t in struct
 * scm_timestamping_internal") it puts skb->tstamp there as it is. So
 * for one skb, nsl_timespec64_ns(old layout) equals the new layout's
 * value (tests/unit/test_tstamp.c), and a reader sees the same samples
 * on either kernel (bpf/compat.bpf.h picks the layout at load).
 */
#ifndef NSL_TSTAMP_H
#define NSL_TSTAMP_H

#include "netstacklat.h"

#define NSL_NSEC_PER_SEC 1000000000ULL

/*
 * timespec64 -> ns, the inverse of the kernel's ns_to_timespec64(). In
 * unsigned arithmetic: the bits are those of the signed result (a time
 * before 1970 comes out negative as an __s64, and is skipped as such).
 */
static __always_inline __u64 nsl_timespec64_ns(__s64 tv_sec, __s64 tv_nsec)
{
	return (__u64)tv_sec * NSL_NSEC_PER_SEC + (__u64)tv_nsec;
}

/*
 * Before v5.18 ("net: Add skb->mono_delivery_time to distinguish mono
 * delivery_time from (rcv) timestamp", commit a1ac9c8acec1) nothing in
 * the skb says whether skb->tstamp is an RX timestamp (CLOCK_REALTIME,
 * ns since 1970: about 1.8e18 in 2027) or the departure time TCP gave
 * it for pacing (EDT, v4.20: CLOCK_MONOTONIC, ns since boot: 8.6e13 a
 * day up, 3.2e16 a year). So it is told by value: a tstamp below
 * limit, half of CLOCK_REALTIME - CLOCK_MONOTONIC when the tool started
 * (the loader's nsl_mono_tstamp_limit()), is a departure time. The margin
 * is decades either way: a departure time reaches the limit only after
 * an uptime of half the time since 1970 (28 years in 2026), and an RX
 * timestamp falls below it only when the wall clock reads earlier than
 * half that far from 1970, i.e. was never set (then the limit is near 0
 * and every stamp counts as RX: the samples are wrong anyway).
 */
static __always_inline int nsl_tstamp_is_rx_by_value(__u64 tstamp, __u64 limit)
{
	return tstamp >= limit;
}

/* The limit of nsl_tstamp_is_rx_by_value() for a clock state. */
static __always_inline __u64 nsl_mono_tstamp_limit(__s64 realtime_minus_mono)
{
	return realtime_minus_mono > 0 ? (__u64)realtime_minus_mono / 2 : 0;
}

#endif /* NSL_TSTAMP_H */
