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

#endif /* NSL_TSTAMP_H */
