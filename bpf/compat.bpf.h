/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-version differences, in one place. Each shim names the upstream
 * change that made it necessary; the committed vmlinux.h describes a recent
 * kernel, the ___old flavours describe what came before.
 */
#ifndef NSL_COMPAT_BPF_H
#define NSL_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "tstamp.h"

/*
 * v6.11, "net: Rename mono_delivery_time to tstamp_type for scalabilty":
 * the 1-bit skb->mono_delivery_time became the 2-bit skb->tstamp_type
 * (0 = SKB_CLOCK_REALTIME). Either way a non-zero value means skb->tstamp
 * holds a departure time set by the sender's stack (TCP's EDT), not the
 * wall-clock RX timestamp we subtract from now.
 */
struct sk_buff___old {
	__u8 mono_delivery_time : 1;
} __attribute__((preserve_access_index));

/*
 * Before v5.18 (commit a1ac9c8acec1, "net: Add skb->mono_delivery_time to
 * distinguish mono delivery_time from (rcv) timestamp") there is neither
 * field, and TCP's departure times (EDT, CLOCK_MONOTONIC, v4.20) stay in
 * skb->tstamp where nothing clears them: v5.10's skb_scrub_packet()
 * clears tstamp when a packet changes namespace (veth, xnet), and
 * loopback_xmit() clears it always, but a veth pair or a bridge inside
 * one namespace passes it on, and netif_rx()'s net_timestamp_check()
 * stamps only an skb whose tstamp is 0. Then the value tells
 * (nsl_tstamp_is_rx_by_value(), include/tstamp.h: the rule and its
 * margin); mono_limit is the loader's limit for it (cfg.mono_tstamp_limit).
 */
static __always_inline int nsl_skb_tstamp_is_rx(const struct sk_buff *skb,
						__u64 mono_limit)
{
	if (bpf_core_field_exists(skb->tstamp_type))
		return BPF_CORE_READ_BITFIELD(skb, tstamp_type) == 0;
	if (bpf_core_field_exists(((struct sk_buff___old *)skb)->mono_delivery_time))
		return BPF_CORE_READ_BITFIELD((struct sk_buff___old *)skb,
					      mono_delivery_time) == 0;
	return nsl_tstamp_is_rx_by_value(skb->tstamp, mono_limit);
}

/*
 * The read hooks get a timestamp, not an skb (tcp_recv_timestamp()'s
 * tss->ts[0]; a datagram's tstamp). Since v5.18 a departure time never
 * reaches them: ip_local_deliver_finish() calls skb_clear_delivery_time(),
 * which replaces it by ktime_get_real() (or 0) before TCP and UDP see the
 * skb (v6.1 net/ipv4/ip_input.c). Before, nothing did (v5.10
 * ip_local_deliver_finish() leaves tstamp alone), so a departure time
 * that arrived (see nsl_skb_tstamp_is_rx()) is queued and read with it,
 * and would be recorded as some 56 years: told by value too.
 */
static __always_inline int nsl_read_tstamp_is_rx(__u64 ts, __u64 mono_limit)
{
	if (bpf_core_field_exists(struct sk_buff, tstamp_type) ||
	    bpf_core_field_exists(struct sk_buff___old, mono_delivery_time))
		return 1;
	return nsl_tstamp_is_rx_by_value(ts, mono_limit);
}

/*
 * Whether a queued head's own stamp is an RX stamp (issue 57, item 8),
 * for the standing hooks' looks at a queue read without its lock
 * (bpf/standing.bpf.h, queue_head()): a head freed under the look and
 * reused for a TX skb carries a departure time (skb_mstamp_ns, TCP's
 * EDT: CLOCK_MONOTONIC), an age of decades taken as an RX stamp. A
 * queued head went through ip_local_deliver_finish()'s
 * skb_clear_delivery_time() (v5.18+: tstamp_type REALTIME, 0), so its
 * own tstamp_type (v6.11+) or mono_delivery_time (v5.18 to v6.10) is 0;
 * before v5.18 the flag does not exist and the value tells
 * (nsl_tstamp_is_rx_by_value(), with mono_limit). ts: its tstamp, read
 * already; 0 (no stamp at all) passes, the caller's to judge. READ_BITFIELD:
 * BPF_CORE_READ_BITFIELD for a BTF pointer, BPF_CORE_READ_BITFIELD_PROBED
 * for a plain value (a probe read's). A macro for the two; the testbed's
 * stamptype program (test_standing_head_stamp_type) runs it on an skb
 * given each kind of stamp.
 */
#define NSL_HEAD_STAMP_IS_RX(head, ts, mono_limit, READ_BITFIELD)		\
({									\
	int __rx;							\
									\
	if (bpf_core_field_exists(struct sk_buff, tstamp_type))		\
		__rx = READ_BITFIELD(head, tstamp_type) == 0;		\
	else if (bpf_core_field_exists(struct sk_buff___old,		\
				       mono_delivery_time))		\
		__rx = READ_BITFIELD((struct sk_buff___old *)(head),	\
				     mono_delivery_time) == 0;		\
	else								\
		__rx = !(ts) || nsl_tstamp_is_rx_by_value(ts, mono_limit); \
	__rx && (__s64)(ts) >= 0;					\
})

/*
 * v5.16, "tcp: move inet->rx_dst_ifindex to sk->sk_rx_dst_ifindex".
 */
struct inet_sock___old {
	int rx_dst_ifindex;
} __attribute__((preserve_access_index));

static __always_inline __u32 nsl_sk_rx_ifindex(struct sock *sk)
{
	if (bpf_core_field_exists(sk->sk_rx_dst_ifindex))
		return sk->sk_rx_dst_ifindex;
	/* beyond struct sock: a direct load would be refused, probe-read it */
	return BPF_CORE_READ((struct inet_sock___old *)sk, rx_dst_ifindex);
}

/*
 * v7.1, "net: use ktime_t in struct scm_timestamping_internal" (commit
 * c66e0f453d1a): tcp_recv_timestamp()'s tss->ts[] held struct timespec64
 * before (the committed vmlinux.h describes that layout), and holds
 * ktime_t since: skb->tstamp as it is, ns of CLOCK_REALTIME. A CO-RE read
 * of ts[0].tv_sec cannot be relocated on the new kernels ("failed to
 * resolve CO-RE relocation ... scm_timestamping_internal.ts[0]"), which
 * cost tcp-socket-read its fentry method there.
 *
 * Both layouts are spelled out as flavours, whatever vmlinux.h says. A
 * field relocation matches a member only if its type is compatible
 * (libbpf's bpf_core_fields_are_compat(): an integer element never
 * matches a struct one, nor the other way round), so exactly one of the
 * two ts[0] exists on a kernel; for the ktime_t one its size is checked
 * too (8 bytes: the s64 the value is). Both tests are constants libbpf
 * writes at load, so the verifier drops the other branch, whose failed
 * relocation is never reached: no run-time branch. A third layout fails
 * both and the old read: the program is refused at load and the hook
 * moves on to its fallback, which the VM test's table of expected
 * methods per kernel reports as a failure.
 */
struct scm_timestamping_internal___timespec64 {
	struct timespec64 ts[3];
} __attribute__((preserve_access_index));

struct scm_timestamping_internal___ktime {
	ktime_t ts[3];
} __attribute__((preserve_access_index));

/* tss->ts[0] (the software RX timestamp) in ns, 0 when there is none */
static __always_inline __u64 nsl_tss_rx_ns(struct scm_timestamping_internal *tss)
{
	struct scm_timestamping_internal___ktime *k = (void *)tss;
	struct scm_timestamping_internal___timespec64 *o = (void *)tss;

	if (bpf_core_field_exists(k->ts[0]) &&
	    bpf_core_field_size(k->ts[0]) == sizeof(__s64))
		return k->ts[0];
	return nsl_timespec64_ns(o->ts[0].tv_sec, o->ts[0].tv_nsec);
}

/*
 * v6.2, "bpf: Add a kfunc for generic type cast" (bpf_rdonly_cast(), for
 * every program type): the verifier turns the call into a register move
 * and the loads through its result into inline fault-tolerant ones. __weak:
 * an object that calls it still loads its other programs where the kernel
 * lacks it; but the 5.10 and 6.1 verifiers refuse a program that calls a
 * kfunc they do not know even in dead code, so only programs that need a
 * newer kernel anyway may call it.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * sk, whose sk_protocol the caller found to be IPPROTO_TCP, as the
 * tcp_sock it is (a socket being read is a full one). With cast (a
 * constant: the caller needs v6.3 and so has bpf_rdonly_cast()) without a
 * call; else by bpf_skc_to_tcp_sock(), a helper call, which on a host
 * with return-thunk mitigations (AMD's SRSO "safe RET", this project's
 * machines) costs some 20 ns a read: docs/performance.md. NULL: the
 * helper refused.
 */
static __always_inline struct tcp_sock *nsl_tcp_sk(struct sock *sk, int cast)
{
	if (cast)
		return bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	return bpf_skc_to_tcp_sock(sk);
}

/*
 * The current task, BTF-typed, to read its process and cgroup from
 * (filters.bpf.h), where the kernel has bpf_get_current_task_btf() (v5.11,
 * "bpf: Add bpf_get_current_task_btf helper"); NULL on 5.10, whose callers
 * fall back to a helper per field. Asked of the kernel's own enum, so the
 * verifier drops the branch that cannot run (an unknown helper is refused
 * only where it is reached, unlike a kfunc).
 *
 * Why not bpf_get_current_pid_tgid() and bpf_get_current_cgroup_id(): one
 * task serves both fields and a program's task-storage lookup, and from
 * v7.0 (commit eaedea154eb9, "bpf, x86: inline bpf_get_current_task() for
 * x86_64", in the verifier's do_misc_fixups()) this call is a per-CPU load
 * on x86-64: the fields then cost loads only, where those helpers stay
 * calls (some 20 ns each on a host with return-thunk mitigations).
 */
static __always_inline struct task_struct *nsl_current_task(void)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id,
				       BPF_FUNC_get_current_task_btf))
		return bpf_get_current_task_btf();
	return NULL;
}

/*
 * A network namespace's key for -I -n -1's groups: its inode number, and
 * in the upper half the low 32 bits of its net_cookie. proc_alloc_inum()
 * hands out the lowest free inode number, so a namespace made after one
 * died takes the dead one's number at once, and the walk of dead
 * namespaces may miss the death (bpf/netns_gone.bpf.h: off without
 * /proc/kallsyms' addresses, refused, or in its window): its cookie
 * tells it apart. v5.12 (commit 3d368ab87cf6, "net: initialize
 * net->net_cookie at netns setup"): a u64 that setup_net() takes from a
 * global 64-bit counter, so a new namespace's differs from every earlier
 * one's (the low 32 bits repeat after 2^32 namespaces). v5.7 to v5.11: an
 * atomic64_t made on first ask (bpf_get_netns_cookie() and the like),
 * mostly never: 0 there, the inode number alone, as before. The reader
 * shows the inode number (NSL_NETNS_INO()).
 */
struct net___atomic_cookie {
	atomic64_t net_cookie;
} __attribute__((preserve_access_index));

static __always_inline __u64 nsl_netns_key(struct net *net)
{
	__u64 cookie = 0;

	if (bpf_core_field_exists(net->net_cookie))
		cookie = net->net_cookie;
	else if (bpf_core_field_exists(((struct net___atomic_cookie *)net)->net_cookie))
		cookie = ((struct net___atomic_cookie *)net)->net_cookie.counter;
	return (__u64)net->ns.inum | cookie << 32;
}

/*
 * The current task's process (tgid) and cgroup (its cgroup v2 id: what
 * bpf_get_current_cgroup_id() reads, task_dfl_cgroup(current)->kn->id,
 * under the RCU read lock every tracing program runs in; kn->id is a u64
 * from v5.5). task: nsl_current_task(), or a copy of it; NULL (5.10): the
 * helper answers.
 */
static __always_inline __u32 nsl_task_tgid(struct task_struct *task)
{
	return task ? task->tgid : bpf_get_current_pid_tgid() >> 32;
}

static __always_inline __u64 nsl_task_cgroup_id(struct task_struct *task)
{
	return task ? task->cgroups->dfl_cgrp->kn->id :
		      bpf_get_current_cgroup_id();
}

#endif /* NSL_COMPAT_BPF_H */
