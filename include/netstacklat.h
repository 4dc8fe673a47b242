/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types shared by the BPF programs and the userspace loader: hook ids, the
 * histogram map layout, the counters and the read-only configuration.
 *
 * Included from BPF (after vmlinux.h, so the __u64 family comes from there)
 * and from userspace (where <linux/types.h> provides it).
 */
#ifndef NETSTACKLAT_H
#define NETSTACKLAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

/*
 * The hooks, in the order a packet passes them. Userspace keeps one table
 * (src/0-base/hooks.c) indexed by this enum with names, descriptions and attach
 * candidates; the BPF side only ever uses the number.
 */
enum nsl_hook {
	NSL_HOOK_IP_START,
	NSL_HOOK_TCP_START,
	NSL_HOOK_UDP_START,
	NSL_HOOK_TCP_SOCK_ENQUEUED,
	NSL_HOOK_UDP_SOCK_ENQUEUED,
	NSL_HOOK_TCP_SOCK_READ,
	NSL_HOOK_UDP_SOCK_READ,
	/*
	 * Not in the order a packet passes: added last so that the ids of the
	 * others stay as they were. A packet the host forwards into another
	 * network namespace (a pod's veth) is handed over between ip-start
	 * (in the host) and ip-start (in the pod); off unless enabled.
	 */
	NSL_HOOK_NETNS_HANDOVER,
	/*
	 * Not a packet's step either: a socket's queue standing (CoDel's
	 * sense, include/standing.h), looked at where packets are queued,
	 * read and dropped; the histograms hold finished episodes' lengths.
	 * Opt-in.
	 */
	NSL_HOOK_TCP_STANDING,
	NSL_HOOK_UDP_STANDING,
	NSL_NR_HOOKS,
};

/*
 * Histograms: one per hook, and one more that no hook of its own fills:
 * the TCP reads the HOL filter left out (tcp-socket-read's programs record
 * them there instead of dropping them; only without -y). Its counters are
 * tcp-socket-read's.
 */
#define NSL_HIST_TCP_READ_HOL	NSL_NR_HOOKS
#define NSL_NR_HISTS		(NSL_NR_HOOKS + 1)

/*
 * Whether histogram hist's programs run in the context of the task that
 * reads the packet: the read hooks (a read's system call, or its
 * tracepoint), and the reads the HOL filter left out (tcp-socket-read's
 * programs). Only there is the current task's cgroup the packet's reader's
 * (-C); every other hook runs in softirq, or for the standing hooks in
 * whatever task or softirq looked at the socket.
 */
static __always_inline int nsl_hist_in_reader(__u32 hist)
{
	return hist == NSL_HOOK_TCP_SOCK_READ || hist == NSL_HIST_TCP_READ_HOL ||
	       hist == NSL_HOOK_UDP_SOCK_READ;
}

/*
 * Whether the samples of histogram hist go to groups (group_hist, one
 * histogram a group, shared by the CPUs) or to the hook's own per-CPU
 * histogram (hist), as without -I/-C. The BPF side (hook_hist()) and the
 * reader (src/2-collect/reader.c) ask this one question. -I and -I -n -1
 * group every hook (each sample has an interface, a namespace); -C only
 * those whose samples carry a cgroup: under -C alone every other hook's
 * key would be {hook}, one group whose histogram every receiving CPU
 * writes with atomic adds, and that takes an id of --max-groups for
 * nothing (issue #59).
 */
static __always_inline int nsl_hist_grouped(__u32 hist, int by_ifindex,
					    int by_netns, int by_cgroup)
{
	return by_ifindex || by_netns || (by_cgroup && nsl_hist_in_reader(hist));
}

/*
 * Histograms have slots, one per bucket, in one of two layouts (the
 * resolution, --resolution):
 *
 * - schema 0, the default: right-closed powers of two in nanoseconds.
 *   Slot 0 is [0, 1], slot i is (2^(i-1), 2^i], and the last one
 *   (i = NSL_MAX_SLOT, upper bound 2^34 ns ~ 17 s) also takes everything
 *   above.
 * - schema 1..3 (resolution 2, 4, 8 buckets per power of two): the buckets
 *   of a Prometheus native / OpenTelemetry exponential histogram of that
 *   schema for the value in seconds: bucket index i holds
 *   (2^((i-1)/2^s), 2^(i/2^s)] s. Slot 0 holds exact zeros, slot n >= 1
 *   holds index n - 1 - F_s (F_s in include/schema.h), over the whole
 *   range of a u64 of ns: no bucket is open-ended.
 */
#define NSL_MAX_SLOT 34
#define NSL_NR_BUCKETS (NSL_MAX_SLOT + 1)
/* slots of schema s >= 1: 64 octaves of 2^s, the top edge, the zero slot */
#define NSL_SCHEMA_SLOTS(s) ((64u << (s)) + 2)
#define NSL_MAX_SLOTS NSL_SCHEMA_SLOTS(3)

/*
 * One histogram: its head (the sum of the samples, and a standing-queue
 * hook's live values), then the slots of the layout in use (the maps are
 * sized for it: 8 * (NSL_HIST_HEAD + slots) bytes a value). The sample
 * count is not stored: it is the sum of the slots, which saves a store
 * per sample and cannot disagree with them. The standing values live
 * here, not in the per-hook counters, so that a group has its own and
 * they come and go with it (reclaimed, kept as its final totals) like
 * its slots; 16 bytes a group that only the standing hooks' groups use.
 */
struct nsl_hist {
	__u64 sum_ns;
	__u64 standing_ns;	/* standing hooks: ns sockets spent standing */
	__u64 standing_begun;	/* standing hooks: episodes begun */
	__u64 slots[NSL_MAX_SLOTS];
};
/*
 * struct nsl_hist's head by index, for userspace, which reads a value as
 * u64s (its slots are as many as the layout in use has): NSL_HIST_HEAD of
 * them come before the slots.
 */
enum nsl_hist_head {
	NSL_HIST_SUM,		/* sum_ns */
	NSL_HIST_STANDING_NS,	/* standing_ns */
	NSL_HIST_STANDING_BEGUN, /* standing_begun */
	NSL_HIST_HEAD,
};
_Static_assert(__builtin_offsetof(struct nsl_hist, slots) == NSL_HIST_HEAD * sizeof(__u64) &&
	       __builtin_offsetof(struct nsl_hist, standing_begun) ==
	       NSL_HIST_STANDING_BEGUN * sizeof(__u64), "struct nsl_hist's head by index");

/*
 * A standing-queue hook's values, per histogram (group) in a report: the
 * two of its head, and the sockets standing when the report was read.
 */
enum nsl_standing_value {
	NSL_SV_SECONDS,		/* nsl_hist.standing_ns: counted, in ns */
	NSL_SV_BEGUN,		/* nsl_hist.standing_begun: counted */
	NSL_SV_SOCKETS,		/* standing now: a gauge */
	NSL_NR_SV,
};

/*
 * Key of the per-group histogram map, used only with -I/-C. A field that is
 * not grouped on stays 0, so the same layout serves both groupings.
 */
struct nsl_group_key {
	__u32 hook;
	__u32 ifindex;
	__u64 cgroup;
	/*
	 * -I with -n -1: interface indices are per netns. Its inode number,
	 * and above it the low half of its net_cookie (nsl_netns_key(),
	 * bpf/compat.bpf.h): a namespace that takes a dead one's number is
	 * another group
	 */
	__u64 netns;
};

/* The inode number of a group key's namespace */
#define NSL_NETNS_INO(netns) ((__u32)(netns))

/*
 * -I -n -1: a group whose namespace's inode number the kernel freed, its
 * key already gone from group_ids (bpf/netns_gone.bpf.h), for the reader
 * to retire (src/2-collect/groups.c).
 */
struct nsl_gone_group {
	struct nsl_group_key key;
	__u32 id;
	__u32 pad;
};

/*
 * Samples dropped for reasons the user did not ask for, and samples left out
 * by design but worth knowing about. Per hook, so that a user can see why an
 * early hook stays empty on veth.
 */
enum nsl_counter {
	NSL_CNT_HOL_EXCLUDED,	/* tcp-socket-read: may have been HOL-blocked */
	NSL_CNT_HOL_READ_ERROR, /* tcp-socket-read: a socket field read failed */
	NSL_CNT_NOT_RX_TSTAMP,	/* skb carried a departure (mono) timestamp */
	NSL_CNT_NEGATIVE,	/* timestamp in the future: clock step/skew */
	NSL_CNT_MAP_FULL,	/* no room for a new group in the hist map */
	NSL_CNT_CLOCK_STEP,	/* clock offsets changed since we last read them */
	NSL_CNT_UNCHANGED_TAIL,	/* sk_data_ready: the tail already sampled */
	NSL_CNT_MPTCP_EXCLUDED,	/* tcp-socket-read: MPTCP, HOL state unknown */
	NSL_CNT_QUEUE_EMPTY,	/* sk_data_ready: UDP reader took the datagram */
	NSL_CNT_NO_RX_TSTAMP,	/* tcp-socket-read: the read's skb lost its stamp */
	NSL_CNT_HANDOVER_UNMATCHED, /* netns-handover: no stamp, none remembered */
	NSL_CNT_OWNER_QUOTA,	/* -I -n -1: the netns's owner holds its quota */
	NSL_CNT_NO_STORAGE,	/* standing: a run's socket storage refused */
	/*
	 * standing: a report's walk that failed (counted by the reader,
	 * src/2-collect/reader.c, into the hooks it serves; never by BPF)
	 */
	NSL_CNT_WALK_FAILED,
	NSL_NR_COUNTERS,
};

struct nsl_counters {
	__u64 cnt[NSL_NR_COUNTERS];
};

/* Upper bound of groups (-I/-C): entries of the grouped histogram map. */
#define NSL_MAX_GROUPS 4096
/* Upper bound of entries in each of the -i, -p and -c filter lists. */
#define NSL_MAX_FILTER_ENTRIES 1024
/* PID_MAX_LIMIT (include/linux/threads.h): every pid is below it */
#define NSL_PID_LIMIT 4194304
/* -p's bitmap (filter_pid): a bit per pid, 64 to a word */
#define NSL_PID_WORDS (NSL_PID_LIMIT / 64)

/*
 * "now" in the clock of skb->tstamp (CLOCK_REALTIME) is
 * bpf_ktime_get_tai_ns() - tai_offset_ns: the TAI offset is the kernel's,
 * which NTP daemons set after boot and leap seconds change, so the loader
 * keeps this in writable global data and rewrites it whenever the kernel's
 * offsets change (src/1-setup/clocksync.c, nsl_loader_sync_clock()).
 * tai_mono_ns is CLOCK_TAI - CLOCK_MONOTONIC when tai_offset_ns was read:
 * the BPF side compares it with bpf_ktime_get_tai_ns() - bpf_ktime_get_ns()
 * to tell whether the offsets moved since (a clock step or a new TAI
 * offset), in which case a sample computed with tai_offset_ns cannot be
 * trusted.
 */
struct nsl_clock {
	/*
	 * On kernels without bpf_ktime_get_tai_ns() (cfg.clock_mono), "TAI"
	 * is CLOCK_REALTIME here: tai_mono_ns is CLOCK_REALTIME -
	 * CLOCK_MONOTONIC and tai_offset_ns its negation, so that
	 * bpf_ktime_get_ns() - tai_offset_ns is CLOCK_REALTIME.
	 */
	__s64 tai_mono_ns;
	__s64 tai_offset_ns;
	/*
	 * Set by the BPF side when it first finds the offsets moved, together
	 * with an event on the clock_events ring buffer that wakes the loader;
	 * cleared by the loader once it has followed. (ADJ_TAI does not
	 * cancel CLOCK_REALTIME timerfds, which only watch CLOCK_REALTIME's
	 * offset: this is how the loader learns of it at once.)
	 */
	__u64 moved_reported;
};

/*
 * A stale TAI offset moves a sample by whole seconds (ADJ_TAI and leap
 * seconds change it by whole seconds), so only samples that come out
 * negative or at least this large are checked against tai_mono_ns: the
 * check costs a second clock read, which the common sample never pays.
 */
#define NSL_CLOCK_CHECK_NS 1000000000LL
/* tai_mono_ns may differ by this much (two clock reads apart) and be current */
#define NSL_CLOCK_SLACK_NS 1000000LL

#define NSL_UDP_FREE_FUNCS 3

/*
 * The HOL filter's per-socket state (bpf/maps.bpf.h, hol_lru): sockets
 * with out-of-order data behind them that can be followed at once; 65536
 * entries of 16 + 12 bytes, 6.3 MB with the hash's own (bpftool's
 * memlock, 6.18), whatever the sockets.
 */
#define NSL_HOL_LRU_ENTRIES 65536

/* --sample N: at most this N */
#define NSL_MAX_SAMPLE_EVERY 65536

/*
 * netns-handover: the transmit functions of the devices that hand a packet
 * to another network namespace (veth_xmit, netkit_xmit) and of the bridge
 * (br_dev_xmit: a packet routed to a bridge is handed over at the bridge's
 * veth port), their addresses from /proc/kallsyms, 0 when not loaded; and
 * the forwarded packets whose RX stamp is remembered until then (packets
 * in flight between the forwarding and the hand-over: in the qdiscs of
 * the host's veths).
 */
#define NSL_XMIT_VETH 0
#define NSL_XMIT_NETKIT 1
#define NSL_XMIT_BRIDGE 2
#define NSL_HANDOVER_XMITS 3
#define NSL_HANDOVER_INFLIGHT 32768

/*
 * Read-only configuration, placed in .rodata of the BPF object and set by
 * the loader before load. Options that are off let the verifier drop the
 * code behind them entirely.
 */
struct nsl_config {
	/*
	 * What the programs read for every packet comes first, in 48 bytes:
	 * one or two cache lines, whatever offset the kernel gives the
	 * .rodata map's value (it was 56 mod 64 on 6.18), where the fields
	 * used to be spread over four. The programs together touch several
	 * lines per packet, and a line that other work evicted since the
	 * last packet is a cache miss (docs/performance.md, "tp_data_ready
	 * against its floor").
	 */
	__u64 netns_ino;	/* 0: every namespace */
	__u32 min_queue_len;	/* 0: no queue-length filter */
	__u8 filter_ifindex;	/* -i given: look up ifindex in filter map */
	__u8 filter_pid;	/* -p given */
	__u8 filter_cgroup;	/* -c given */
	__u8 group_by_ifindex;	/* -I */
	__u8 group_by_cgroup;	/* -C */
	__u8 group_by_netns;	/* -I with -n -1: the netns is part of the group */
	__u8 include_hol;	/* -y: do not apply the HOL filter */
	/* bit per hook attached by a fallback (tracepoint or netfilter) method */
	__u16 fallback_hooks;
	/* the histogram layout (schema 0..3) and its slots */
	__u32 schema;
	__u32 nr_slots;
	__u32 sample_every;	/* --sample N: 1 packet in N per hook and CPU */
	/*
	 * bit per hook that is on, whatever its method: a program two
	 * hooks share records only those of its hooks that are on
	 * (tp_data_ready and tp_recv_length serve the standing hooks too)
	 */
	__u16 hooks_on;
	/*
	 * Before v5.18: a tstamp below this is a departure time, not an RX
	 * timestamp (nsl_tstamp_is_rx_by_value(), include/tstamp.h).
	 */
	__u64 mono_tstamp_limit;
	/*
	 * Kernels without bpf_ktime_get_tai_ns() (before v6.1): now is
	 * bpf_ktime_get_ns(), and struct nsl_clock holds CLOCK_REALTIME -
	 * CLOCK_MONOTONIC (bpf/clock.bpf.h).
	 */
	__u8 clock_mono;
	__u32 max_groups;	/* -I/-C: groups that get a histogram */
	/* ---- 48 bytes so far; below, what only some packets need ---- */
	/* the thresholds of schemas 1..3 (--resolution above 1) */
	__u64 schema_thresholds[8];
	/*
	 * udp-socket-read in tracepoint mode: where in the kernel a datagram
	 * that a UDP read returned is freed (skb_consume_udp(), udp_recvmsg(),
	 * udpv6_recvmsg(); start and length each, from /proc/kallsyms).
	 */
	__u64 udp_free_at[NSL_UDP_FREE_FUNCS];
	__u64 udp_free_len[NSL_UDP_FREE_FUNCS];
	/* netns-handover: ndo_start_xmit of the hand-over devices, 0: none */
	__u64 handover_xmit[NSL_HANDOVER_XMITS];
	/*
	 * clock_mono: where the kernel keeps CLOCK_REALTIME -
	 * CLOCK_MONOTONIC (&tk_core.timekeeper.offs_real), or 0. In .rodata,
	 * frozen once loaded: what the process can still write (.bss) only
	 * turns the read on or off (nsl_offs_real_on), so the clock probe a
	 * test run can trigger is no read of an address of its choosing
	 * (issue #32).
	 */
	__u64 offs_real_addr;
	/* -I -n -1: cleanup_net(), the teardown of namespaces (bpf/netns_gone.bpf.h) */
	__u64 cleanup_net;
	/*
	 * -I -n -1: the ids the namespaces of one unprivileged owner may
	 * hold (--owner-quota; 0: no quota), see owner_over_quota()
	 */
	__u32 owner_quota;
	/* the standing hooks: CoDel's target and interval, ns */
	__u64 standing_target_ns;
	__u64 standing_interval_ns;
};

#endif /* NETSTACKLAT_H */
