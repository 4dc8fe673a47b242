// SPDX-License-Identifier: GPL-2.0-only
/*
 * netstacklat BPF side: thin hook programs, one shared record path.
 *
 * Data flow: hook program -> record_*() (timestamp check, filters, HOL
 * filter) -> record_latency() -> histogram map. Userspace reads the maps.
 *
 * Every hook has an ordered list of attach methods (src/hooks.c); the
 * loader enables only the programs of the method it picked for each hook,
 * so the fentry and the tracepoint programs of one hook never both run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "compat.bpf.h"
#include "netstacklat.h"
#include "hist.h"
#include "hol.h"
#include "group_id.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_UDPLITE 136
#define IPPROTO_MPTCP 262

char LICENSE[] SEC("license") = "GPL";

const volatile struct nsl_config cfg = {};

#include "clock.bpf.h"

/*
 * The histogram maps hold struct nsl_hist values cut to the slots of the
 * schema in use: the loader sets value_size (8 * (1 + slots)), so they are
 * declared by size, without a BTF value type that would fix it.
 *
 * Ungrouped histograms: one per hook (and NSL_HIST_TCP_READ_HOL), per CPU,
 * so one lookup and no atomics.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HISTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct nsl_hist));
} hist SEC(".maps");

/*
 * Grouped histograms (-I/-C): a group key gets an id, a free one, the
 * first time it records; group_hist[id] is its histogram, shared by
 * all CPUs (atomic adds). So the kernel memory is max_groups histograms
 * of the schema's size, whatever the number of CPUs (a per-CPU map would
 * multiply it by them: 150 MB for 4096 log2 groups on 128 CPUs). The
 * loader sets max_entries of the three to --max-groups (1 when not
 * grouping) and fills free_ids; group_hist is mmapable, so the reader
 * reads it without a system call. Groups whose cgroup, interface or
 * namespace went away are reclaimed by the reader (src/groups.c): it
 * deletes the key, and a report interval later, when no program can
 * still hold the old id, zeroes the histogram and pushes the id back.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_GROUPS);
	__type(key, struct nsl_group_key);
	__type(value, __u32);
} group_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSL_MAX_GROUPS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct nsl_hist));
} group_hist SEC(".maps");

/* The ids no group holds (bpf/group_id.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, NSL_MAX_GROUPS);
	__uint(value_size, sizeof(__u32));
} free_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HOOKS);
	__type(key, __u32);
	__type(value, struct nsl_counters);
} counters SEC(".maps");

/*
 * --sample N: per CPU and hook, how many packets to let pass before the
 * next one is recorded (see sample_skip()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HOOKS);
	__type(key, __u32);
	__type(value, __u32);
} sample_left SEC(".maps");

/* Filter sets; only looked up when the matching cfg.filter_* is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} filter_ifindex SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} filter_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_FILTER_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} filter_cgroup SEC(".maps");

/* HOL filter state, created only for TCP sockets that saw OOO segments. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nsl_hol_state);
} hol_state SEC(".maps");

/*
 * The same state where tracing programs cannot call bpf_sk_storage_get()
 * (before v5.11, commit 8e4597c627fb "bpf: Allow using bpf_sk_storage in
 * FENTRY/FEXIT/RAW_TP"; cfg.hol_lru): an LRU hash keyed by the socket.
 * Its address alone would let a new socket inherit a closed one's state
 * (nothing removes an entry when a socket is freed, and the allocator
 * hands its memory out again), so the key also holds the inode number of
 * the socket's file (sock_alloc() gives each a new one, get_next_ino():
 * the same address and number again only after 2^32 sockets). A socket
 * without a file (a kernel socket) has 0 there. The loader sizes it
 * (NSL_HOL_LRU_ENTRIES when used, else 1). When it is full, the entry of
 * the socket read least recently goes: if that socket reads again with
 * out-of-order segments behind it, its state starts from zero, which
 * nsl_hol_exclude() takes as new out-of-order data: that read is left out
 * (counted in hol_excluded), never recorded wrongly.
 */
struct nsl_hol_key {
	__u64 sk;	/* address, only compared */
	__u64 ino;	/* the socket file's inode number */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NSL_HOL_LRU_ENTRIES);
	__type(key, struct nsl_hol_key);
	__type(value, struct nsl_hol_state);
} hol_lru SEC(".maps");

/*
 * The enqueue hooks in tracepoint mode: the receive-queue tail that
 * sk_data_ready last sampled on a socket (see tp_data_ready()), in a
 * table of NSL_TAIL_SLOTS indexed by a hash of the socket's address, not
 * per socket: socket storage cost 288-292 bytes of kernel memory per
 * socket (a struct bpf_local_storage and an element, measured with
 * scripts/sockmem), 290 MB on a host with a million sockets; this table
 * is 1.5 MB whatever the sockets. Two sockets that share a slot only
 * forget each other's last tail: a repeated call then samples the tail
 * again (a sample too many, never one lost); a tail is never taken for
 * sampled unless this very (socket, skb, tstamp) was stored. The loader
 * gives the table one slot when no enqueue hook uses the tracepoint (then
 * tp_data_ready() does not run).
 */
#define NSL_TAIL_SLOTS_SHIFT 16
#define NSL_TAIL_SLOTS (1u << NSL_TAIL_SLOTS_SHIFT)

struct nsl_tail_state {
	__u64 sk;	/* the socket (its address less &nsl_clock), only compared */
	__u64 skb;	/* address of the tail skb, only compared */
	__u64 tstamp;	/* its tstamp: TCP coalescing keeps the skb, not this */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSL_TAIL_SLOTS);
	__type(key, __u32);
	__type(value, struct nsl_tail_state);
} tail_state SEC(".maps");

/*
 * The read hooks in tracepoint mode: what a recvmsg() read, kept per task
 * until sock_recv_length says the recvmsg() returned. Per task and not per
 * CPU: tcp_recvmsg() may sleep between copies and wake elsewhere.
 */
struct nsl_read_state {
	__u64 tcp_tstamp;	/* the last skb a TCP read copied */
	__u64 tcp_sk;		/* address of its socket, only compared */
	__u64 udp_tstamp;	/* the datagram a UDP read consumed */
	__u32 udp_ifindex;	/* its skb_iif, with -i/-I */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nsl_read_state);
} read_state SEC(".maps");

/*
 * Counts an event of hook, or of the hook whose histogram hook is (the
 * reads the HOL filter left out are tcp-socket-read's).
 */
static __always_inline void count_event(__u32 hook, enum nsl_counter c)
{
	struct nsl_counters *v;

	if (hook == NSL_HIST_TCP_READ_HOL)
		hook = NSL_HOOK_TCP_SOCK_READ;
	v = bpf_map_lookup_elem(&counters, &hook);

	if (v && c < NSL_NR_COUNTERS)
		v->cnt[c]++;
}

/*
 * --sample N: whether hook leaves this packet out. Each CPU records one
 * packet in N of each hook, the first of every N, by a countdown: no
 * random numbers, no atomics (the slot is the CPU's own; programs run
 * with migration off, and where a task-context program is preempted
 * between the load and the store by another run on its CPU, one packet
 * more or less is recorded: the rate stays 1 in N). Asked first, before any other
 * work of the hook, so that a packet left out costs a map lookup and a
 * decrement. Whatever state a hook keeps per socket still follows every
 * packet (the HOL filter's: record_tcp_read(); the enqueue fallback's
 * tail: tp_data_ready()), so that the packets recorded are the ones an
 * unsampled run would record, thinned. With cfg.sample_every <= 1 the
 * verifier drops all of it.
 */
static __always_inline int sample_skip(__u32 hook)
{
	__u32 *left;

	if (cfg.sample_every <= 1)
		return 0;
	left = bpf_map_lookup_elem(&sample_left, &hook);
	if (!left)
		return 0;
	if (*left) {
		(*left)--;
		return 1;
	}
	*left = cfg.sample_every - 1;
	return 0;
}

static __always_inline struct nsl_hist *group_hist_get(__u32 hook,
						       __u32 ifindex,
						       __u64 netns)
{
	struct nsl_group_key key = { .hook = hook, .netns = netns };
	__u32 id;
	int err;

	if (cfg.group_by_ifindex)
		key.ifindex = ifindex;
	/*
	 * only the read hooks run in the context of the reading process,
	 * and so do the reads the HOL filter left out (tcp-socket-read's)
	 */
	if (cfg.group_by_cgroup && (hook == NSL_HOOK_TCP_SOCK_READ ||
				    hook == NSL_HIST_TCP_READ_HOL ||
				    hook == NSL_HOOK_UDP_SOCK_READ))
		key.cgroup = bpf_get_current_cgroup_id();

	err = nsl_group_id(&group_ids, &free_ids, &key, &id);
	if (err == -1)
		goto full;
	if (err)
		return NULL;	/* retired as we added it: the group is gone */
	return bpf_map_lookup_elem(&group_hist, &id);
full:
	count_event(hook, NSL_CNT_MAP_FULL);
	return NULL;
}

/*
 * tstamp is skb->tstamp as the kernel set it at RX: CLOCK_REALTIME in ns
 * (net_timestamp_check()/__net_timestamp()). now_tai is nsl_now() at the
 * moment the sample stands for; minus the offset of struct nsl_clock it
 * is the same clock as tstamp, without a syscall (clock.bpf.h).
 */
static __always_inline void record_latency_at(__u32 hook, __u64 tstamp,
					      __u64 now_tai, __u32 ifindex,
					      __u64 netns)
{
	/*
	 * tai_mono_ns is read before tai_offset_ns and the loader writes them
	 * in the other order: an offset read here is never newer than the
	 * tai_mono_ns it is checked against (x86: loads and stores are not
	 * reordered with each other).
	 */
	__s64 tai_mono = *(volatile __s64 *)&nsl_clock.tai_mono_ns;
	__s64 lat = (__s64)(now_tai - *(volatile __s64 *)&nsl_clock.tai_offset_ns -
			    tstamp);
	struct nsl_hist *h;
	__u64 slot;

	if (lat < 0 || lat >= NSL_CLOCK_CHECK_NS) {
		if (clock_moved(tai_mono)) {
			count_event(hook, NSL_CNT_CLOCK_STEP);
			return;
		}
		if (lat < 0) {
			count_event(hook, NSL_CNT_NEGATIVE);
			return;
		}
	}
	if (cfg.group_by_ifindex || cfg.group_by_cgroup)
		h = group_hist_get(hook, ifindex, netns);
	else
		h = bpf_map_lookup_elem(&hist, &hook);
	if (!h)
		return;
	slot = nsl_slot(lat, cfg.schema, cfg.schema_thresholds);
	/*
	 * The map values hold cfg.nr_slots slots (a constant the verifier
	 * knows), and nsl_slot() never exceeds them; but the compiler would
	 * drop a check it can prove redundant, and the 6.1 verifier then loses
	 * the bound across the 32-bit zero-extension ("unbounded memory
	 * access"; found by the VM test). The barrier keeps the check, on the
	 * register indexed with.
	 */
	barrier_var(slot);
	if (slot >= cfg.nr_slots || slot >= NSL_MAX_SLOTS)
		return;
	if (cfg.group_by_ifindex || cfg.group_by_cgroup) {
		/* shared by all CPUs */
		__sync_fetch_and_add(&h->slots[slot], 1);
		__sync_fetch_and_add(&h->sum_ns, lat);
	} else {
		h->slots[slot]++;
		h->sum_ns += lat;
	}
}

/* The latency of tstamp now. */
static __always_inline void record_latency(__u32 hook, __u64 tstamp,
					   __u32 ifindex, __u64 netns)
{
	record_latency_at(hook, tstamp, nsl_now(), ifindex, netns);
}

/* skb_iif and the socket's RX ifindex are read only when -i or -I needs them. */
static __always_inline int need_ifindex(void)
{
	return cfg.filter_ifindex || cfg.group_by_ifindex;
}

static __always_inline int ifindex_selected(__u32 ifindex)
{
	return !cfg.filter_ifindex ||
	       bpf_map_lookup_elem(&filter_ifindex, &ifindex);
}

/*
 * The programs get BTF-typed pointers (fentry/tp_btf arguments, the
 * netfilter context), so fields are read with plain loads that the
 * verifier turns into fault-tolerant ones and libbpf relocates (CO-RE via
 * vmlinux.h's preserve_access_index): no bpf_probe_read_kernel() call per
 * field on the per-packet path.
 */
static __always_inline __u64 sk_netns(struct sock *sk)
{
	return sk->__sk_common.skc_net.net->ns.inum;
}

static __always_inline int sk_netns_selected(struct sock *sk)
{
	return !cfg.netns_ino || sk_netns(sk) == cfg.netns_ino;
}

/*
 * The namespace of an skb on its way in: the socket's once it is queued
 * (sk), else the device's. Read only with -n (filter) or -I -n -1 (group
 * key). (One helper for both with a NULL skb from the socket-only callers
 * is rejected by the 6.1 verifier: it follows the sk == NULL branch into a
 * NULL skb; the callers here always have an skb.)
 */
static __always_inline __u64 rx_netns(struct sock *sk, struct sk_buff *skb)
{
	return sk ? sk_netns(sk) : skb->dev->nd_net.net->ns.inum;
}

/*
 * -q: what is still queued on sk when the read hook runs, i.e. after the
 * read (upstream's meaning): tcp_recv_timestamp() runs at the end of
 * tcp_recvmsg_locked(), after sk_eat_skb() unlinked every skb it used up;
 * skb_consume_udp() after __skb_recv_udp() unlinked the datagram; the
 * fallback's sock_recv_length after recvmsg returned. TCP counts skbs
 * (coalesced segments), UDP datagrams. UDP has two queues: softirq appends
 * to sk_receive_queue, and __skb_recv_udp() reads from udp_sk(sk)->
 * reader_queue, splicing all of sk_receive_queue into it when it runs dry
 * (v4.13+). A lagging UDP reader's backlog is mostly in reader_queue, so
 * it counts too. Read with a CO-RE probe read: the verifier types sk as
 * struct sock, which ends before reader_queue (only with -q, on UDP).
 */
static __always_inline __u32 sk_queued(struct sock *sk)
{
	__u32 n = sk->sk_receive_queue.qlen;

	if (sk->sk_protocol == IPPROTO_UDP || sk->sk_protocol == IPPROTO_UDPLITE)
		n += BPF_CORE_READ((struct udp_sock *)sk, reader_queue.qlen);
	return n;
}

/* The filters that only make sense in the reading process's context. */
static __always_inline int reader_selected(struct sock *sk)
{
	if (cfg.min_queue_len && sk_queued(sk) < cfg.min_queue_len)
		return 0;
	if (cfg.filter_pid) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (!bpf_map_lookup_elem(&filter_pid, &tgid))
			return 0;
	}
	if (cfg.filter_cgroup) {
		__u64 cg = bpf_get_current_cgroup_id();

		if (!bpf_map_lookup_elem(&filter_cgroup, &cg))
			return 0;
	}
	return 1;
}

/*
 * The hooks that see an skb on its way in, from its fields: ts is its
 * tstamp, 0 when RX timestamping was off when it arrived (nothing to
 * measure); ifindex its skb_iif (read only with -i/-I); is_rx whether
 * tstamp is an RX timestamp (nsl_skb_tstamp_is_rx()); netns its namespace
 * (read only with -n or -I -n -1), already checked when netns_known;
 * now_tai the moment the sample stands for (nsl_now()), or 0
 * for now: the clock is read only for a sample that passed the filters.
 */
static __always_inline void record_rx_fields(__u32 hook, __u64 ts,
					     __u32 ifindex, int is_rx,
					     __u64 netns, int netns_known,
					     __u64 now_tai)
{
	if ((__s64)ts <= 0)
		return;
	if (need_ifindex() && !ifindex_selected(ifindex))
		return;
	if (!netns_known && cfg.netns_ino && netns != cfg.netns_ino)
		return;
	/* after the filters: counters cover what -i/-n select, as samples do */
	if (!is_rx) {
		count_event(hook, NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	record_latency_at(hook, ts, now_tai ?: nsl_now(), ifindex,
			  cfg.group_by_netns ? netns : 0);
}

/* skb on its way in; sk the socket it was queued on, NULL before it has one */
static __always_inline void record_rx(struct sk_buff *skb, struct sock *sk,
				      __u32 hook, int netns_known)
{
	__u64 netns = 0;

	if (sample_skip(hook))
		return;
	if ((!netns_known && cfg.netns_ino) || cfg.group_by_netns)
		netns = rx_netns(sk, skb);
	record_rx_fields(hook, skb->tstamp, need_ifindex() ? skb->skb_iif : 0,
			 nsl_skb_tstamp_is_rx(skb, cfg.mono_tstamp_limit), netns,
			 netns_known, 0);
}

static __always_inline void record_skb(struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, NULL, hook, 0);
}

/*
 * Netfilter programs run only for packets of the namespace their link was
 * made in (nf_hook_slow() walks state->net's hook entries), and the loader
 * makes them in the namespace -n selects: no namespace to check.
 */
static __always_inline void record_nf(struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, NULL, hook, 1);
}

/* Enqueue hooks: the skb has just been put on sk's receive queue. */
static __always_inline void record_enqueued(struct sock *sk,
					    struct sk_buff *skb, __u32 hook)
{
	record_rx(skb, sk, hook, 0);
}

/* sk's HOL state, created if need be (hol_state, or hol_lru); NULL: none */
static __always_inline struct nsl_hol_state *hol_state_get(struct sock *sk)
{
	struct nsl_hol_key key = {};
	struct nsl_hol_state zero = {}, *st;
	struct socket *sock;

	if (!cfg.hol_lru)
		return bpf_sk_storage_get(&hol_state, sk, NULL,
					  BPF_SK_STORAGE_GET_F_CREATE);
	key.sk = (__u64)sk;
	/* BTF-typed loads: a NULL pointer on the way reads as 0 */
	sock = sk->sk_socket;
	key.ino = sock ? sock->file->f_inode->i_ino : 0;
	st = bpf_map_lookup_elem(&hol_lru, &key);
	if (st)
		return st;
	/* another CPU may add it first (-EEXIST): its entry serves */
	bpf_map_update_elem(&hol_lru, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&hol_lru, &key);
}

/*
 * Returns 1 when the read may have waited for a retransmission (or the
 * socket could not be read, which we must treat the same way), and
 * advances the socket's HOL state. Counts the read's fate only when
 * counted (a read --sample leaves out only moves the state).
 */
static __always_inline int tcp_read_hol_blocked(struct sock *sk, int counted)
{
	struct nsl_hol_input in = {};
	struct nsl_hol_state *st;
	struct tcp_sock *tp;
	struct sk_buff *last;

	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		goto err;
	in.rcv_ooopack = tp->rcv_ooopack;
	if (!in.rcv_ooopack)
		return 0; /* never saw OOO data: the common, cheap case */

	st = hol_state_get(sk);
	if (!st)
		goto err;
	in.rcv_nxt = tp->rcv_nxt;
	in.copied_seq = tp->copied_seq;
	in.rcv_wup = tp->rcv_wup;
	in.rcv_wnd = tp->rcv_wnd;
	last = tp->ooo_last_skb;
	in.ooo_empty = !tp->out_of_order_queue.rb_node;
	/*
	 * Only needed when a new OOO range starts. The socket lock is not held
	 * here, so last may be freed under us: read it with a fault-tolerant
	 * copy and let the sanity check in nsl_hol_range_end() judge it.
	 * TCP_SKB_CB(skb)->end_seq is the second __u32 of skb->cb.
	 */
	if (in.rcv_ooopack != st->last_ooopack && !in.ooo_empty &&
	    bpf_probe_read_kernel(&in.ooo_end_seq, sizeof(in.ooo_end_seq),
				  (void *)last->cb + 4))
		goto err;
	if (nsl_hol_exclude(st, &in)) {
		if (counted)
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_HOL_EXCLUDED);
		return 1;
	}
	return 0;
err:
	if (counted)
		count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_HOL_READ_ERROR);
	return 1;
}

/*
 * A TCP read that returned data; ts is the RX timestamp of the last skb it
 * took (tcp_update_recv_tstamps() in tcp_recvmsg_locked(), for the skbs
 * whose TCP_SKB_CB()->has_rxtstamp is set), 0 when that skb has none.
 *
 * It has none when tcp_collapse() rebuilt it (v6.1 to v7.2, net/ipv4/
 * tcp_input.c, from tcp_prune_queue() under receive-buffer pressure, and
 * tcp_collapse_ofo_queue()): the new skb comes from alloc_skb(), so its
 * tstamp is 0, while memcpy() of skb->cb carries has_rxtstamp over. Such
 * a read is counted in no_rx_tstamp (after the filters, as samples are):
 * these are the slowest readers, and a read that returned data is never
 * dropped unseen. The HOL state is then left as it is: the next read
 * sees the out-of-order count that grew meanwhile (it only ever leaves
 * more out).
 */
static __always_inline void record_tcp_read(struct sock *sk, __u64 ts)
{
	__u32 into = NSL_HOOK_TCP_SOCK_READ;	/* the histogram */
	__u32 ifindex = 0;

	if (sample_skip(NSL_HOOK_TCP_SOCK_READ)) {
		/* the HOL state follows every read (sample_skip()) */
		if (!cfg.include_hol && sk->sk_protocol != IPPROTO_MPTCP)
			tcp_read_hol_blocked(sk, 0);
		return;
	}
	if (!reader_selected(sk))
		return;
	if (need_ifindex()) {
		ifindex = nsl_sk_rx_ifindex(sk);
		if (!ifindex_selected(ifindex))
			return;
	}
	if (!sk_netns_selected(sk))
		return;
	if ((__s64)ts <= 0) {
		count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_NO_RX_TSTAMP);
		return;
	}
	if (!nsl_read_tstamp_is_rx(ts, cfg.mono_tstamp_limit)) {
		count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	if (!cfg.include_hol) {
		/*
		 * An MPTCP read (of the MPTCP socket, whose data came over
		 * one or more TCP subflows) may have waited for a subflow's
		 * retransmission or for another subflow; the filter sees no
		 * subflow, so it cannot tell: left out, and counted.
		 * Every read left out goes to a histogram of its own, so that
		 * the two together hold what a -y run would.
		 */
		if (sk->sk_protocol == IPPROTO_MPTCP) {
			count_event(NSL_HOOK_TCP_SOCK_READ, NSL_CNT_MPTCP_EXCLUDED);
			into = NSL_HIST_TCP_READ_HOL;
		} else if (tcp_read_hol_blocked(sk, 1)) {
			into = NSL_HIST_TCP_READ_HOL;
		}
	}
	record_latency(into, ts, ifindex, cfg.group_by_netns ? sk_netns(sk) : 0);
}

/*
 * TCP reads, and reads of MPTCP sockets (mptcp_recvmsg() calls
 * tcp_recv_timestamp() with the MPTCP socket, and copies skbs that it
 * owns), for fentry and tracepoint mode alike.
 */
static __always_inline int sk_is_tcp_reader(struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	return (family == AF_INET || family == AF_INET6) &&
	       (sk->sk_protocol == IPPROTO_TCP ||
		sk->sk_protocol == IPPROTO_MPTCP);
}

/*
 * Where two hooks fall back to the same attach point (sk_data_ready for
 * both enqueue hooks, netfilter LOCAL_IN for tcp-start and udp-start), one
 * program serves both: one run per event instead of two, the protocol read
 * once. It records a hook only if that hook chose this program (it may be
 * disabled, or attached by fentry): cfg.fallback_hooks has a bit for each
 * hook attached by a fallback method, and as it is constant the verifier
 * drops the branches of the hooks that did not.
 */
static __always_inline int shared_hook_on(__u32 hook)
{
	return cfg.fallback_hooks & (1u << hook);
}

/* ---- primary attach: fentry/fexit ------------------------------------ */

/*
 * The receive functions of the first three hooks take the skb as first
 * argument (ip_rcv_core(skb, net), ip6_rcv_core(skb, dev, net),
 * tcp_v4_rcv(skb), ...): one program per function, all the same body.
 */
#define SKB_FENTRY(func, hook)					\
	SEC("fentry/" #func)					\
	int BPF_PROG(fentry_##func, struct sk_buff *skb)	\
	{							\
		record_skb(skb, hook);				\
		return 0;					\
	}

SKB_FENTRY(ip_rcv_core, NSL_HOOK_IP_START)
SKB_FENTRY(ip6_rcv_core, NSL_HOOK_IP_START)
SKB_FENTRY(tcp_v4_rcv, NSL_HOOK_TCP_START)
SKB_FENTRY(tcp_v6_rcv, NSL_HOOK_TCP_START)
SKB_FENTRY(udp_rcv, NSL_HOOK_UDP_START)
SKB_FENTRY(udpv6_rcv, NSL_HOOK_UDP_START)

/* tcp_queue_rcv() either queued skb or coalesced it into the tail. */
SEC("fexit/tcp_queue_rcv")
int BPF_PROG(fexit_tcp_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	record_enqueued(sk, skb, NSL_HOOK_TCP_SOCK_ENQUEUED);
	return 0;
}

/*
 * udp-socket-enqueued by fentry and fexit on __udp_enqueue_schedule_skb():
 * only its return value says whether the datagram was queued (before
 * v6.18: 0 queued, non-zero dropped: rcvbuf full, no memory), but by then
 * the skb may be gone. The function queues it, releases the queue's lock
 * and calls sk_data_ready() before it returns (v6.1 to v6.17,
 * net/ipv4/udp.c), so a reader on another CPU can take the datagram,
 * consume and free it, and the memory can hold another skb, before the
 * fexit program runs. So the skb is read at entry, while the caller still
 * owns it, into a per-CPU slot, and fexit records it when it was queued,
 * with the clock read at entry: the datagram's wait ends as it is queued,
 * not after the reader was woken (as the fallback's, at sk_data_ready
 * inside this function, a little later).
 * One slot per CPU is enough: the function runs with bottom halves off
 * (softirq RX, or process context under local_bh_disable()), so neither a
 * second call nor a migration comes between the two programs; the skb's
 * address is checked all the same.
 *
 * Since v6.18 it may return 0 before the datagram is queued (a per-NUMA
 * batch another CPU queues, or drops, later): the loader does not use
 * these programs there (NSL_NEED_UDP_QUEUED_ON_RETURN).
 */
struct nsl_rx_snapshot {
	__u64 skb;		/* address, only compared */
	__u64 tstamp;
	__u32 ifindex;		/* skb_iif, with -i/-I */
	__u32 is_rx;		/* nsl_skb_tstamp_is_rx() */
	__u64 entry_tai;	/* nsl_now() at entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nsl_rx_snapshot);
} udp_enqueue_snap SEC(".maps");

SEC("fentry/__udp_enqueue_schedule_skb")
int BPF_PROG(fentry_udp_enqueue_schedule_skb, struct sock *sk,
	     struct sk_buff *skb)
{
	struct nsl_rx_snapshot *snap;
	__u32 zero = 0;

	snap = bpf_map_lookup_elem(&udp_enqueue_snap, &zero);
	if (!snap)
		return 0;
	if (sample_skip(NSL_HOOK_UDP_SOCK_ENQUEUED)) {
		snap->skb = 0;
		return 0;
	}
	snap->skb = (__u64)skb;
	snap->tstamp = skb->tstamp;
	snap->ifindex = need_ifindex() ? skb->skb_iif : 0;
	snap->is_rx = nsl_skb_tstamp_is_rx(skb, cfg.mono_tstamp_limit);
	snap->entry_tai = nsl_now();
	return 0;
}

SEC("fexit/__udp_enqueue_schedule_skb")
int BPF_PROG(fexit_udp_enqueue_schedule_skb, struct sock *sk,
	     struct sk_buff *skb, int ret)
{
	struct nsl_rx_snapshot *snap;
	__u32 zero = 0;

	snap = bpf_map_lookup_elem(&udp_enqueue_snap, &zero);
	if (!snap || snap->skb != (__u64)skb)
		return 0;
	snap->skb = 0;
	if (ret == 0)
		record_rx_fields(NSL_HOOK_UDP_SOCK_ENQUEUED, snap->tstamp,
				 snap->ifindex, snap->is_rx,
				 cfg.netns_ino || cfg.group_by_netns ?
				 sk_netns(sk) : 0, 0, snap->entry_tai);
	return 0;
}

/*
 * tcp_recvmsg() calls tcp_recv_timestamp() after releasing the socket,
 * once per read that returned data with an RX timestamp (also for
 * MSG_PEEK, MSG_TRUNC, and TCP_ZEROCOPY_RECEIVE through
 * tcp_zc_finalize_rx_tstamp()); tss->ts[0] is the timestamp of the last
 * skb the read copied from (tcp_update_recv_tstamps()), read at entry,
 * before tcp_recv_timestamp() clears it for a socket that did not ask
 * for software timestamps. A struct timespec64 before v7.1, a ktime_t
 * since: nsl_tss_rx_ns() (compat.bpf.h). mptcp_recvmsg() calls it too,
 * with the MPTCP socket.
 */
SEC("fentry/tcp_recv_timestamp")
int BPF_PROG(fentry_tcp_recv_timestamp, struct msghdr *msg, struct sock *sk,
	     struct scm_timestamping_internal *tss)
{
	record_tcp_read(sk, nsl_tss_rx_ns(tss));
	return 0;
}

/* A datagram read from sk: its RX timestamp and receive interface. */
static __always_inline void record_udp_read(struct sock *sk, __u64 ts,
					    __u32 ifindex)
{
	if (sample_skip(NSL_HOOK_UDP_SOCK_READ))
		return;
	if ((__s64)ts <= 0 || !reader_selected(sk))
		return;
	if (need_ifindex() && !ifindex_selected(ifindex))
		return;
	if (!sk_netns_selected(sk))
		return;
	if (!nsl_read_tstamp_is_rx(ts, cfg.mono_tstamp_limit)) {
		count_event(NSL_HOOK_UDP_SOCK_READ, NSL_CNT_NOT_RX_TSTAMP);
		return;
	}
	record_latency(NSL_HOOK_UDP_SOCK_READ, ts, ifindex,
		       cfg.group_by_netns ? sk_netns(sk) : 0);
}

/*
 * udp_recvmsg() and udpv6_recvmsg() (v6.1 to v7.2) end with
 * skb_consume_udp(sk, skb, peeking ? -err : err), err being the bytes
 * returned: len < 0 is a peek, len > 0 a read. len == 0 is either: a read
 * or a peek of an empty datagram, or of 0 bytes (recv(fd, buf, 0, ...)).
 * A read has unlinked the datagram from the queue (__skb_unlink() in
 * __skb_try_recv_from_queue() sets skb->next to NULL); a peek left it
 * queued, with a reference of its own. So a datagram read is one sample,
 * and a peek none. (Only len == 0 pays for the extra load.)
 */
SEC("fentry/skb_consume_udp")
int BPF_PROG(fentry_skb_consume_udp, struct sock *sk, struct sk_buff *skb,
	     int len)
{
	if (len < 0 || (len == 0 && skb->next))
		return 0;
	record_udp_read(sk, skb->tstamp, need_ifindex() ? skb->skb_iif : 0);
	return 0;
}

/* ---- fallback attach: BTF tracepoints --------------------------------- */

/*
 * Whether tail, the tail of sk's receive queue, was not sampled yet: the
 * socket's slot of tail_state remembers the last tail sampled, with its
 * timestamp (TCP coalescing merges a new segment into the tail skb and
 * gives it the new timestamp: a new sample under the same address).
 * Socket addresses are slab objects, at least 64-byte aligned: the
 * multiplicative (Fibonacci) hash mixes the bits above those into the
 * slot number.
 */
static __always_inline int tail_is_new(struct sock *sk, struct sk_buff *tail,
				       __u64 tstamp, __u32 hook)
{
	/*
	 * The verifier lets no arithmetic but pointer - pointer (a scalar
	 * for programs that may see kernel addresses) touch sk: its
	 * distance from one of our globals, the same for every socket.
	 */
	__u64 a = (__u64)sk - (__u64)&nsl_clock;
	__u32 slot = (a * 0x9E3779B97F4A7C15ULL) >> (64 - NSL_TAIL_SLOTS_SHIFT);
	struct nsl_tail_state *st;

	st = bpf_map_lookup_elem(&tail_state, &slot);
	if (!st)
		return 1;
	if (st->sk == a && st->skb == (__u64)tail && st->tstamp == tstamp) {
		count_event(hook, NSL_CNT_UNCHANGED_TAIL);
		return 0;
	}
	st->sk = a;
	st->skb = (__u64)tail;
	st->tstamp = tstamp;
	return 1;
}

/*
 * sock_def_readable() fires sk_data_ready (and so do the data_ready
 * callbacks of sunrpc, kTLS, MPTCP subflows, ... before they call it as
 * well), for every socket family: filter on inet TCP/UDP. The skb just
 * queued is the tail of sk_receive_queue (for TCP a coalesced skb carries
 * the newest timestamp, as tcp_try_coalesce() moves it over).
 *
 * But the tracepoint also fires when nothing was queued, and then the
 * tail is one sampled before (v6.12, net/ipv4/tcp_input.c): the in-order
 * and the out-of-order receive-memory drops (tcp_data_queue(),
 * tcp_data_queue_ofo()), urgent data (tcp_urg(), before the segment is
 * queued), tcp_set_rcvlowat(); and callbacks that chain to
 * sock_def_readable() fire it twice per packet. And since v6.18 UDP
 * queues a batch of datagrams and calls sk_data_ready once per datagram
 * after it (__udp_enqueue_schedule_skb(), per-NUMA llist): the same tail
 * each time. So a tail is sampled once per socket (tail_is_new()); the
 * repeats are counted in unchanged_tail.
 */
SEC("tp_btf/sk_data_ready")
int BPF_PROG(tp_data_ready, struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;
	struct sk_buff *tail;
	__u32 hook;
	__u64 ts;

	if (family != AF_INET && family != AF_INET6)
		return 0;
	switch (sk->sk_protocol) {
	case IPPROTO_TCP:
		hook = NSL_HOOK_TCP_SOCK_ENQUEUED;
		break;
	case IPPROTO_UDP:
		hook = NSL_HOOK_UDP_SOCK_ENQUEUED;
		break;
	default:
		return 0;
	}
	/* before the per-socket storage: other namespaces' sockets get none */
	if (!shared_hook_on(hook) || !sk_netns_selected(sk))
		return 0;
	/*
	 * UDP queues without the socket lock and calls sk_data_ready after
	 * releasing the queue's: a reader on another CPU may already have
	 * taken the datagram (a newer one at the tail is unchanged_tail at
	 * its own call). TCP calls it under the socket lock, which readers
	 * hold too; an empty TCP queue is a listener's or a drop's call.
	 */
	if (!sk->sk_receive_queue.qlen) {
		if (hook == NSL_HOOK_UDP_SOCK_ENQUEUED)
			count_event(hook, NSL_CNT_QUEUE_EMPTY);
		return 0;
	}
	tail = sk->sk_receive_queue.prev;
	if (!tail)
		return 0;
	ts = tail->tstamp;
	if ((__s64)ts <= 0 || !tail_is_new(sk, tail, ts, hook))
		return 0;
	record_rx(tail, sk, hook, 1);
	return 0;
}

/*
 * Whether TCP gave skb an RX timestamp when it arrived (TCP_SKB_CB()->
 * has_rxtstamp, set in tcp_v4_fill_cb()/tcp_v6_fill_cb() when tstamp or
 * the hardware stamp was set). Probe-read: skb->cb is a char array to the
 * verifier. Only asked for skbs whose tstamp is 0 (see record_tcp_read()).
 */
static __always_inline int tcp_skb_has_rxtstamp(const struct sk_buff *skb)
{
	struct tcp_skb_cb *cb = (void *)skb->cb;

	return BPF_CORE_READ_BITFIELD_PROBED(cb, has_rxtstamp);
}

/*
 * skb_copy_datagram_iter() fires this for every skb tcp_recvmsg_locked()
 * copies (and for other sockets' copies, which sock_recv_length below
 * ignores by comparing the socket). TCP receive-queue skbs are owned by
 * their socket (skb_set_owner_r() in tcp_queue_rcv()), so skb->sk says
 * whose read this is. Keep the last timestamp, as tcp_recvmsg does in tss:
 * it takes those of the skbs with has_rxtstamp only, including a collapsed
 * skb's 0 (record_tcp_read()), so this does the same.
 */
SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(tp_tcp_copy_datagram, const struct sk_buff *skb, int len)
{
	struct nsl_read_state *rs;
	struct sock *sk = skb->sk;
	__u64 ts = skb->tstamp;

	if (!sk || !sk_is_tcp_reader(sk))
		return 0;
	if ((__s64)ts <= 0 && !tcp_skb_has_rxtstamp(skb))
		return 0;
	rs = bpf_task_storage_get(&read_state, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!rs)
		return 0;
	rs->tcp_tstamp = ts;
	rs->tcp_sk = (__u64)sk;
	return 0;
}

/*
 * udp-socket-read without trampolines, v6.3 to v6.17: a datagram that
 * udp_recvmsg()/udpv6_recvmsg() read is freed in skb_consume_udp() by
 * __consume_stateless_skb(), which fires consume_skb with its return
 * address as location (v6.3, "net: add location to trace_consume_skb()"):
 * inside skb_consume_udp(), or inside the recvmsg function when the
 * compiler made the free a tail call. Neither recvmsg function calls
 * consume_skb() itself. So a location in one of these three functions
 * (their addresses from /proc/kallsyms, in cfg) is the datagram this task
 * is reading; anything else (every skb freed on the system) leaves at
 * once. Not when peeking (skb_consume_udp() then drops a reference and
 * frees nothing), and not on v6.18+, where UDP defers the free to the CPU
 * that allocated the skb (skb_attempt_defer_free()); the loader knows.
 */
SEC("tp_btf/consume_skb")
int BPF_PROG(tp_udp_consume_skb, struct sk_buff *skb, void *location)
{
	__u64 at = (__u64)location;
	struct nsl_read_state *rs;

	if (at - cfg.udp_free_at[0] >= cfg.udp_free_len[0] &&
	    at - cfg.udp_free_at[1] >= cfg.udp_free_len[1] &&
	    at - cfg.udp_free_at[2] >= cfg.udp_free_len[2])
		return 0;
	rs = bpf_task_storage_get(&read_state, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!rs)
		return 0;
	rs->udp_tstamp = skb->tstamp;
	if (need_ifindex())
		rs->udp_ifindex = skb->skb_iif;
	return 0;
}

#define MSG_ERRQUEUE 0x2000

/*
 * sock_recvmsg_nosec() fires sock_recv_length once per recvmsg, after the
 * protocol's recvmsg returned (socket lock released, as for fentry on
 * tcp_recv_timestamp): one read, one sample. One program for both read
 * hooks (see shared_hook_on()).
 *
 * A read of the error queue (MSG_ERRQUEUE: TX timestamps and the like,
 * which sock_queue_err_skb() queues as skbs owned by the socket) copies
 * with skb_copy_datagram_msg() too, so it fired the copy tracepoint with
 * the timestamp of a sent packet; tcp_recvmsg() hands such reads to
 * inet_recv_error() before tcp_recvmsg_locked(), so fentry on
 * tcp_recv_timestamp never sees them. Neither do we.
 */
/*
 * What a read of hook's protocol left in the task's read state, taken: the
 * slot is cleared, so that it serves one read. Returns the state (*ts its
 * timestamp, *sk the TCP read's socket), or NULL when the hook is not ours or nothing was left. TCP's
 * slot is marked by its socket, as a collapsed skb leaves a 0 stamp that
 * is a read all the same (record_tcp_read()).
 */
static __always_inline struct nsl_read_state *read_state_take(__u32 hook,
							      __u64 *ts,
							      __u64 *sk)
{
	struct nsl_read_state *rs;
	__u64 *slot, *mark;

	if (!shared_hook_on(hook))
		return NULL;
	rs = bpf_task_storage_get(&read_state, bpf_get_current_task_btf(), 0, 0);
	if (!rs)
		return NULL;
	if (hook == NSL_HOOK_UDP_SOCK_READ) {
		slot = &rs->udp_tstamp;
		mark = slot;
	} else {
		slot = &rs->tcp_tstamp;
		mark = &rs->tcp_sk;
	}
	if (!*mark)
		return NULL;
	*ts = *slot;
	*sk = rs->tcp_sk;
	*slot = 0;
	*mark = 0;
	return rs;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(tp_recv_length, struct sock *sk, int ret, int flags)
{
	__u16 proto = sk->sk_protocol;
	struct nsl_read_state *rs;
	__u64 ts, read_sk;

	/*
	 * Every recvmsg() of every socket fires this: leave the others at
	 * once, before the task-storage lookup. A TCP read that returns data
	 * has copied it, and a UDP read has consumed its datagram, so the
	 * state is always fresh by then.
	 */
	if (proto == IPPROTO_TCP || proto == IPPROTO_MPTCP) {
		rs = read_state_take(NSL_HOOK_TCP_SOCK_READ, &ts, &read_sk);
		if (rs && ret > 0 && read_sk == (__u64)sk &&
		    !(flags & MSG_ERRQUEUE))
			record_tcp_read(sk, ts);
	} else if (proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE) {
		rs = read_state_take(NSL_HOOK_UDP_SOCK_READ, &ts, &read_sk);
		/* 0 is a read too: of an empty datagram */
		if (rs && ret >= 0 && !(flags & MSG_ERRQUEUE))
			record_udp_read(sk, ts, rs->udp_ifindex);
	}
	return 0;
}

/* ---- fallback attach: netfilter hooks (one network namespace each) ---- */

#define NF_ACCEPT 1
#define NFPROTO_IPV4 2

/*
 * nf_hook_slow() runs these in the order of their priority; the loader
 * puts ip-start first on PRE_ROUTING (before conntrack and defrag) and the
 * L4 hooks last on LOCAL_IN, right before ip_local_deliver_finish() hands
 * the packet to TCP/UDP. They only observe: always NF_ACCEPT.
 */
SEC("netfilter")
int nf_ip_start(struct bpf_nf_ctx *ctx)
{
	record_nf(ctx->skb, NSL_HOOK_IP_START);
	return NF_ACCEPT;
}

/*
 * At LOCAL_IN the network header is in place (ip_rcv_core() and
 * ipv6_rcv() set it); the protocol is iphdr->protocol, or the IPv6 next
 * header (extension headers are not followed: such packets count as
 * neither TCP nor UDP).
 *
 * skb->head is a plain byte pointer the verifier will not let us
 * dereference; bpf_rdonly_cast() (v6.2, for every program type; netfilter
 * programs came in v6.4) types it, and the verifier turns the call into a
 * register move and the field load into an inline fault-tolerant one: no
 * bpf_probe_read_kernel() call per packet. __weak: kernels without it
 * still load the other programs of this object.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline __u8 nf_l4_protocol(struct bpf_nf_ctx *ctx)
{
	struct sk_buff *skb = ctx->skb;
	void *nh = skb->head + skb->network_header;

	if (ctx->state->pf == NFPROTO_IPV4)
		return ((struct iphdr *)bpf_rdonly_cast(
				nh, bpf_core_type_id_kernel(struct iphdr)))->protocol;
	return ((struct ipv6hdr *)bpf_rdonly_cast(
			nh, bpf_core_type_id_kernel(struct ipv6hdr)))->nexthdr;
}

/* tcp-start and udp-start: one program at LOCAL_IN (see shared_hook_on()). */
SEC("netfilter")
int nf_l4_start(struct bpf_nf_ctx *ctx)
{
	switch (nf_l4_protocol(ctx)) {
	case IPPROTO_TCP:
		if (shared_hook_on(NSL_HOOK_TCP_START))
			record_nf(ctx->skb, NSL_HOOK_TCP_START);
		break;
	case IPPROTO_UDP:
		if (shared_hook_on(NSL_HOOK_UDP_START))
			record_nf(ctx->skb, NSL_HOOK_UDP_START);
		break;
	}
	return NF_ACCEPT;
}

/* netns-handover: its own map and programs, over the record path above */
#include "handover.bpf.h"
