/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's clock as the BPF side needs it, when it is set, and our own timing. */
#ifndef NSL_CLOCK_H
#define NSL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "netstacklat.h"

/* CLOCK_MONOTONIC in nanoseconds: what our own work took. */
static inline int64_t nsl_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ... in milliseconds: deadlines, timeouts, rate limits. */
static inline int64_t nsl_mono_ms(void)
{
	return nsl_mono_ns() / 1000000;
}

/* b - a in seconds (negative when b is earlier). */
static inline double nsl_seconds_between(const struct timespec *a,
					 const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * The kernel's TAI offset (adjtimex) and CLOCK_TAI - CLOCK_MONOTONIC, read
 * as one consistent pair (struct nsl_clock). tai_mono measures the latter
 * (0 or a negative errno): as the BPF programs see the clocks, which is
 * not always as clock_gettime() does (time namespaces). 0 or a negative
 * errno. realtime: kernels without bpf_ktime_get_tai_ns(); tai_mono then
 * measures CLOCK_REALTIME - CLOCK_MONOTONIC, and the offset is its
 * negation (bpf/clock.bpf.h).
 */
typedef int (*nsl_tai_mono_fn)(void *arg, int64_t *ns);
int nsl_clock_read(struct nsl_clock *c, nsl_tai_mono_fn tai_mono, void *arg,
		   bool realtime);

/*
 * A file descriptor that poll() reports readable when the kernel's clock is
 * set (step, TAI offset, leap second); nsl_clock_watch_fired() then says
 * so and rearms it. The open returns the fd or a negative errno.
 */
int nsl_clock_watch_open(void);
bool nsl_clock_watch_fired(int fd);

#endif /* NSL_CLOCK_H */
