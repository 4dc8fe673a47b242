// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF side's clock (struct nsl_clock) kept in step with the kernel's:
 * CLOCK_TAI - CLOCK_MONOTONIC as the programs see it (a test run of one of
 * ours), the TAI offset with it (clock.c), written into the object at
 * attach and again whenever the clock was set (the timerfd of clock.c) or
 * the BPF side found that it moved (a ring buffer event). Apart from
 * clock.c: in one file with it, clang-tidy's analyzer follows
 * nsl_clock_read() into probe_tai_mono() and, not knowing that -errno is
 * not 0 when errno is not, reports values read uninitialised that never
 * are (make check).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "loader.h"
#include "log.h"
#include "setup.h"
#include "netstacklat.skel.h"

/*
 * CLOCK_TAI - CLOCK_MONOTONIC as the programs see them: nsl_clock_probe
 * run once (BPF_PROG_TEST_RUN; raw_tp programs can be run so since v5.10,
 * and the command needs no capability, only the program's fd). Without
 * bpf_ktime_get_tai_ns() (l->clock_mono): CLOCK_REALTIME -
 * CLOCK_MONOTONIC, the monotonic clock the program read against the
 * midpoint of two CLOCK_REALTIME reads around the run (a system call
 * apart: microseconds, but as much as the run takes when the loader is
 * preempted), and in *kernel what nsl_offs_real() read in the same run
 * (0 when it is off).
 */
static int probe_offsets(struct nsl_loader *l, int64_t *ns, int64_t *kernel)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct netstacklat_bpf__bss *bss = l->skel->bss;
	struct timespec r0, r1;
	int64_t real;

	clock_gettime(CLOCK_REALTIME, &r0);
	if (bpf_prog_test_run_opts(bpf_program__fd(l->skel->progs.nsl_clock_probe),
				   &opts))
		return errno ? -errno : -EIO;	/* never 0: *ns is unset */
	if (!l->clock_mono) {
		*ns = __atomic_load_n(&bss->nsl_clock_probe_tai_mono, __ATOMIC_ACQUIRE);
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &r1);
	real = (r0.tv_sec * 1000000000LL + r0.tv_nsec) / 2 +
	       (r1.tv_sec * 1000000000LL + r1.tv_nsec) / 2;
	*ns = real - (int64_t)__atomic_load_n(&bss->nsl_clock_probe_mono, __ATOMIC_ACQUIRE);
	*kernel = __atomic_load_n(&bss->nsl_clock_probe_offs_real, __ATOMIC_ACQUIRE);
	return 0;
}

/*
 * What struct nsl_clock gets. MONO with the kernel's offs_real readable
 * (nsl_offs_real_on, checked by nsl_check_offs_real()): that value itself,
 * exact. ktime_get_real(), which stamps skb->tstamp, is the monotonic
 * time of tk->tkr_mono plus tk->offs_real, and bpf_ktime_get_ns()
 * (ktime_get_mono_fast_ns()) reads the same tkr_mono (kernel/time/
 * timekeeping.c, v5.10 to v6.0): so a sample is now + offs_real - tstamp
 * to the nanosecond, where the userspace midpoint was off by up to half
 * the test run (issue #33 item 6).
 */
static int probe_tai_mono(void *arg, int64_t *ns)
{
	struct nsl_loader *l = arg;
	int64_t kernel = 0;
	int err = probe_offsets(l, ns, &kernel);

	if (!err && kernel && l->skel->bss->nsl_offs_real_on)
		*ns = kernel;
	return err;
}

/*
 * The kernel's offs_real as the BPF side reads it (nsl_offs_real()) must
 * be what the loader measured (realtime - mono, within the slack), or it
 * is not the field it was taken for: then the BPF side does without
 * (nsl_offs_real_on stays 0), the offset is the midpoint estimate, and a
 * clock step between the loader's reads is not told from a slow packet.
 * Said once, with the reason.
 */
void nsl_check_offs_real(struct nsl_loader *l)
{
	struct netstacklat_bpf__bss *bss = l->skel->bss;
	int64_t measured = 0, got = 0;

	if (!l->clock_mono)
		return;
	if (l->offs_real_addr) {
		bss->nsl_offs_real_on = 1;
		if (!probe_offsets(l, &measured, &got)) {
			if (got && llabs(got - measured) <= NSL_CLOCK_SLACK_NS) {
				pr_debug("clock: CLOCK_REALTIME - CLOCK_MONOTONIC is the kernel's (tk_core.timekeeper.offs_real, %lld ns; userspace's estimate %+lld ns off)\n",
					 (long long)got, (long long)(measured - got));
				return;
			}
			pr_debug("tk_core.timekeeper.offs_real reads %lld ns, measured %lld ns\n",
				 (long long)got, (long long)measured);
		}
		bss->nsl_offs_real_on = 0;
	}
	pr_warn("no bpf_ktime_get_tai_ns() (Linux 6.1) and the kernel's "
		"CLOCK_REALTIME offset (tk_core in /proc/kallsyms) cannot be "
		"read: a clock step is followed within a report interval, and "
		"samples taken meanwhile are off by the step\n");
}

int nsl_loader_sync_clock(struct nsl_loader *l)
{
	struct nsl_clock now, *c = &l->skel->bss->nsl_clock;
	int err = nsl_clock_read(&now, probe_tai_mono, l, l->clock_mono);

	if (err) {
		/* at start the caller says it; later once, not every interval */
		if (l->clock_set && !l->clock_warned)
			pr_warn("cannot read the kernel's clock offsets: %s (samples "
				"of 1 s or more may count as clock_step)\n",
				strerror(-err));
		l->clock_warned = l->clock_set;
		return err;
	}
	/*
	 * Looked at: the BPF side may report a move again. Also when nothing
	 * moved: a false alarm (a program interrupted between its two clock
	 * reads for longer than the slack) must not keep it from reporting
	 * the next real one.
	 */
	__atomic_store_n(&c->moved_reported, 0, __ATOMIC_RELEASE);
	if (l->clock_set && (l->clock_mono || now.tai_offset_ns == c->tai_offset_ns) &&
	    llabs(now.tai_mono_ns - c->tai_mono_ns) <= NSL_CLOCK_SLACK_NS / 2)
		return 0;
	if (l->clock_set && l->clock_mono)
		pr_debug("the clock was set: CLOCK_REALTIME - CLOCK_MONOTONIC moved by %lld ns\n",
			 (long long)(now.tai_mono_ns - c->tai_mono_ns));
	else if (l->clock_set && now.tai_offset_ns != c->tai_offset_ns)
		pr_info("the kernel's TAI offset changed from %lld to %lld s: "
			"following it (samples taken meanwhile are counted in "
			"clock_step)\n", (long long)(c->tai_offset_ns / 1000000000),
			(long long)(now.tai_offset_ns / 1000000000));
	else if (l->clock_set)
		pr_debug("the clock was set: CLOCK_TAI - CLOCK_MONOTONIC moved by %lld ns\n",
			 (long long)(now.tai_mono_ns - c->tai_mono_ns));
	/* the offset first: see record_latency() in the BPF program */
	__atomic_store_n(&c->tai_offset_ns, now.tai_offset_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&c->tai_mono_ns, now.tai_mono_ns, __ATOMIC_RELEASE);
	l->clock_set = true;
	return 1;
}

static int ignore_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

int nsl_loader_clock_event_fd(struct nsl_loader *l)
{
	if (!l->clock_events) {
		l->clock_events = ring_buffer__new(bpf_map__fd(l->skel->maps.clock_events),
						   ignore_event, NULL, NULL);
		if (!l->clock_events)
			return -errno;
	}
	return ring_buffer__epoll_fd(l->clock_events);
}

int nsl_loader_clock_event(struct nsl_loader *l)
{
	ring_buffer__consume(l->clock_events);
	return nsl_loader_sync_clock(l);
}
