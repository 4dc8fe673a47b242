/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clock every sample subtracts skb->tstamp (CLOCK_REALTIME, ns) from,
 * without a syscall: a clock BPF can read, minus an offset the loader
 * keeps current in struct nsl_clock (include/netstacklat.h), and the
 * check that the offset is still the kernel's. Two ways, chosen by the
 * loader at load (cfg.clock_mono), the other one dropped by the verifier:
 *
 * - TAI (v6.1+): bpf_ktime_get_tai_ns() minus the kernel's TAI offset.
 *   A clock step moves CLOCK_TAI with CLOCK_REALTIME, so only a new TAI
 *   offset (ADJ_TAI, leap seconds) makes the offset stale.
 * - MONO (v5.10 to v6.0: bpf_ktime_get_tai_ns() came with v6.1, commit
 *   c8996c98f703 "bpf: Add BPF-helper for accessing CLOCK_TAI"):
 *   bpf_ktime_get_ns() minus CLOCK_MONOTONIC - CLOCK_REALTIME. Every step
 *   of the wall clock (settimeofday(), clock_settime(), an NTP step)
 *   makes the offset stale, until the loader follows (its CLOCK_REALTIME
 *   timerfd with TFD_TIMER_CANCEL_ON_SET wakes it at once). Slewing does
 *   not: adjtimex() frequency and offset corrections apply to
 *   CLOCK_MONOTONIC and CLOCK_REALTIME alike (one timekeeper, the offset
 *   between the two, tk->offs_real, changes only in tk_set_wall_to_mono(),
 *   that is on steps and leap seconds; kernel/time/timekeeping.c, v5.10).
 *
 * Both check a suspicious sample (negative, or 1 s and more) the same
 * way: clock_moved() compares the offset of now with the one the loader
 * measured, and counts the sample as clock_step when they differ.
 */
#ifndef NSL_CLOCK_BPF_H
#define NSL_CLOCK_BPF_H

/* Written by the loader while we run: see struct nsl_clock. */
struct nsl_clock nsl_clock = {};

/*
 * MONO only: whether to read CLOCK_REALTIME - CLOCK_MONOTONIC where the
 * kernel keeps it (cfg.offs_real_addr: &tk_core.timekeeper.offs_real, a
 * ktime_t; the loader finds it from /proc/kallsyms and the BTF of struct
 * timekeeper before loading, checks at start that it reads what the
 * loader measured, and leaves this 0 when not: then a step is not told
 * from a slow packet here, and the loader says so). The address itself
 * is in frozen .rodata: writing this can only turn the read on or off.
 */
__u8 nsl_offs_real_on = 0;

/* Wakes the loader when the clock moved (struct nsl_clock). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} clock_events SEC(".maps");

/* Now, in the clock the offset in struct nsl_clock is against. */
static __always_inline __u64 nsl_now(void)
{
	return cfg.clock_mono ? bpf_ktime_get_ns() : bpf_ktime_get_tai_ns();
}

/* MONO: CLOCK_REALTIME - CLOCK_MONOTONIC as the kernel has it now, or 0 */
static __always_inline __s64 nsl_offs_real(void)
{
	__s64 v = 0;

	if (!cfg.offs_real_addr || !nsl_offs_real_on ||
	    bpf_probe_read_kernel(&v, sizeof(v), (void *)cfg.offs_real_addr))
		return 0;
	return v;
}

/*
 * Whether the kernel's clock offsets moved since the loader read them
 * (struct nsl_clock): tai_mono is the loader's measure of CLOCK_TAI -
 * CLOCK_MONOTONIC (TAI) or CLOCK_REALTIME - CLOCK_MONOTONIC (MONO) as
 * BPF sees them; a clock step or a new TAI offset moves it by far more
 * than NSL_CLOCK_SLACK_NS. TAI: the two clocks are read here back to
 * back: a program preempted or interrupted between a clock read of its
 * own and this one would otherwise see its pause as a move. MONO: the
 * kernel's own offset, read as it is (one aligned 8-byte load; a step
 * rewrites it under the timekeeper's seqcount, which a reader that only
 * compares need not take: it sees the old or the new value).
 */
static __always_inline int clock_moved(__s64 tai_mono)
{
	__u64 one = 1;
	__s64 d;

	if (cfg.clock_mono) {
		__s64 now = nsl_offs_real();

		if (!now)
			return 0;	/* cannot tell: see nsl_offs_real_on */
		d = now - tai_mono;
	} else {
		__u64 mono = bpf_ktime_get_ns();

		d = (__s64)(bpf_ktime_get_tai_ns() - mono) - tai_mono;
	}
	if (d <= NSL_CLOCK_SLACK_NS && d >= -NSL_CLOCK_SLACK_NS)
		return 0;
	/* once until the loader has looked: it sleeps in poll() */
	if (!nsl_clock.moved_reported) {
		nsl_clock.moved_reported = 1;
		bpf_ringbuf_output(&clock_events, &one, sizeof(one), 0);
	}
	return 1;
}

/*
 * A sample that came out suspicious (*lat = now_tai - off - tstamp
 * negative, or 1 s and more), looked at again with tai_mono and the
 * offset as one pair: 1 when the kernel's offsets moved since the loader read them
 * (a clock_step), else 0 with *lat as it stands.
 *
 * The loader writes tai_offset_ns, then tai_mono_ns (release stores,
 * nsl_loader_sync_clock()). The pair must never be a tai_mono_ns of after
 * a change with an offset of before it: clock_moved() would find nothing
 * moved and the sample, off by the change, would be recorded. So
 * tai_mono_ns is read first and the offset after it, ordered:
 * - MONO: there is one value, read once by the caller: tai_mono_ns is the
 *   negation of tai_offset_ns (nsl_clock_read()).
 * - TAI: tai_mono_ns is read, then the offset through an address that
 *   depends on the value read (plus a zero the compiler cannot see
 *   through: the verifier knows it is 0), and the latency again with it.
 *   A CPU performs a load whose address depends on an earlier load after
 *   it: x86 keeps loads in order anyway, and arm64 keeps address
 *   dependencies (the order rcu_dereference() relies on). Two plain
 *   loads (the code before issue #33 item 6) were ordered on x86 only.
 *   Not an atomic with BPF_FETCH, a full barrier elsewhere: a kernel
 *   before 5.12 refuses one anywhere in a program, even in a branch it
 *   would drop ("BPF_STX uses reserved fields", found by the 5.10 VM
 *   test). Only suspicious samples get here: the common one reads the
 *   offset alone, one load fewer than before.
 */
static __always_inline int clock_recheck(__u64 now_tai, __u64 tstamp, __s64 off,
					 __s64 *lat)
{
	__s64 tai_mono;
	__u64 dep;

	if (cfg.clock_mono)
		return clock_moved(-off);
	tai_mono = *(volatile __s64 *)&nsl_clock.tai_mono_ns;
	dep = tai_mono;
	asm volatile("%[d] &= 0" : [d] "+r"(dep));
	off = *(volatile __s64 *)((char *)&nsl_clock.tai_offset_ns + dep);
	*lat = (__s64)(now_tai - off - tstamp);
	if (*lat >= 0 && *lat < NSL_CLOCK_CHECK_NS)
		return 0;
	return clock_moved(tai_mono);
}

/*
 * The loader's measure of CLOCK_TAI - CLOCK_MONOTONIC as the programs see
 * them (nsl_loader_sync_clock(), by BPF_PROG_TEST_RUN; never attached).
 * Not the same as userspace's: in a time namespace (unshare --time)
 * clock_gettime(CLOCK_MONOTONIC) carries the namespace's offset, which
 * bpf_ktime_get_ns() does not (kernel/time/namespace.c applies it to
 * userspace's clock reads only), while CLOCK_TAI has no namespace offset.
 * The two monotonic reads around the TAI read give its midpoint.
 *
 * MONO: BPF has no CLOCK_REALTIME, so the probe gives the monotonic
 * clock alone (nsl_clock_probe_mono) and the loader reads CLOCK_REALTIME
 * (no namespace offset either) around the run; it also gives what
 * nsl_offs_real() reads, for the loader's check of the address.
 */
__s64 nsl_clock_probe_tai_mono = 0;
__u64 nsl_clock_probe_mono = 0;
__s64 nsl_clock_probe_offs_real = 0;

SEC("raw_tp")
int nsl_clock_probe(void *ctx)
{
	__u64 m0 = bpf_ktime_get_ns();
	__u64 tai, m1;

	if (cfg.clock_mono) {
		nsl_clock_probe_mono = m0;
		nsl_clock_probe_offs_real = nsl_offs_real();
		return 0;
	}
	tai = bpf_ktime_get_tai_ns();
	m1 = bpf_ktime_get_ns();
	nsl_clock_probe_tai_mono = (__s64)(tai - (m0 + (m1 - m0) / 2));
	return 0;
}

#endif /* NSL_CLOCK_BPF_H */
