// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's clock as the BPF side needs it: its TAI offset (adjtimex())
 * and CLOCK_TAI - CLOCK_MONOTONIC read as one pair, and a timerfd that
 * poll() reports when the clock is set (clock_was_set() cancels it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include "clock.h"

/*
 * adjtimex() with no modes only reads. CLOCK_TAI - CLOCK_MONOTONIC is
 * measured (by tai_mono, as the BPF programs see the two clocks) before
 * and after it, so that a clock change in between is noticed and the pair
 * read again: the two must describe the same clock state.
 *
 * realtime (kernels without bpf_ktime_get_tai_ns(), bpf/clock.bpf.h):
 * tai_mono measures CLOCK_REALTIME - CLOCK_MONOTONIC instead, and the
 * offset is its negation; no adjtimex(). Measured twice all the same: a
 * step between the two reads is read again.
 */
int nsl_clock_read(struct nsl_clock *c, nsl_tai_mono_fn tai_mono, void *arg,
		   bool realtime)
{
	for (int tries = 0; tries < 5; tries++) {
		struct timex tx = { 0 };
		int64_t before, after;
		int err = tai_mono(arg, &before);

		if (err)
			return err;
		if (!realtime && adjtimex(&tx) < 0)
			return -errno;
		err = tai_mono(arg, &after);
		if (err)
			return err;
		c->tai_offset_ns = realtime ? -after : (int64_t)tx.tai * 1000000000LL;
		c->tai_mono_ns = after;
		if (llabs(after - before) <= NSL_CLOCK_SLACK_NS / 2)
			return 0;
	}
	return -EAGAIN;	/* the clock keeps being set: try again later */
}

/*
 * A CLOCK_REALTIME timer that never expires, armed with
 * TFD_TIMER_CANCEL_ON_SET: the kernel cancels it (read() fails with
 * ECANCELED, poll() reports it readable) whenever clock_was_set() runs,
 * which settimeofday(), clock_settime(), adjtimex() changing the TAI
 * offset and leap seconds all do (kernel/time/timekeeping.c,
 * kernel/time/hrtimer.c: clock_was_set() -> timerfd_clock_was_set()).
 */
static int clock_watch_arm(int fd)
{
	struct itimerspec never = { .it_value = { .tv_sec = INT32_MAX } };

	return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			       &never, NULL) ? -errno : 0;
}

int nsl_clock_watch_open(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = clock_watch_arm(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

bool nsl_clock_watch_fired(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) >= 0 || errno != ECANCELED)
		return false;
	clock_watch_arm(fd);
	return true;
}
