/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The maps of the BPF side, in one place: the histograms (ungrouped per
 * CPU, grouped shared by the CPUs), the group ids, the counters, the
 * --sample countdowns, the filter sets, the HOL filter's per-socket state,
 * the enqueue fallback's last tails and the read fallback's per-task
 * state. Userspace sizes them (src/1-setup/object.c) and reads them
 * (src/2-collect/reader.c). Part of bpf/netstacklat.bpf.c (included
 * there, in this order).
 */
#ifndef NSL_MAPS_BPF_H
#define NSL_MAPS_BPF_H

/*
 * The histogram maps hold struct nsl_hist values cut to the slots of the
 * schema in use: the loader sets value_size (8 * (1 + slots)), so they are
 * declared by size, without a BTF value type that would fix it.
 *
 * Ungrouped histograms: one per hook (and NSL_HIST_TCP_READ_HOL), per CPU,
 * so one lookup and no atomics. Under -C they serve every hook but the
 * read hooks (nsl_hist_grouped()): the others' samples carry no cgroup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HISTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct nsl_hist));
} hist SEC(".maps");

/*
 * Grouped histograms (-I, and the read hooks' under -C): a group key gets
 * an id, a free one, the first time it records; group_hist[id] is its
 * histogram, shared by all CPUs (atomic adds). So the kernel memory is
 * max_groups histograms of the schema's size, whatever the number of
 * CPUs (a per-CPU map would multiply it by them: 150 MB for 4096 log2
 * groups on 128 CPUs). The loader sets max_entries of the three to
 * --max-groups (1 when not grouping) and fills free_ids; group_hist is
 * mmapable, so the reader reads it without a system call. Groups whose
 * cgroup, interface or namespace went away are reclaimed by the reader
 * (src/2-collect/retire.c): it deletes the key, and a report interval later, when no program can
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

/*
 * -I/-C: the last key each CPU found the id of, per histogram, so that a
 * sample of the same group as the one before on its CPU (most: the same
 * hook, cgroup, interface) skips the hash look-up in group_ids (a helper
 * call that hashes and compares the 24-byte key: 75-80 ns of a recorded
 * sample with -C in make bench-http on a 2-CPU VM, docs/performance.md,
 * issue #59). An entry serves only while nsl_groups_gen is what it was
 * when the id was found: whoever deletes a key of group_ids bumps it
 * after, with a fully ordered add (the reader's retire and evict,
 * src/2-collect/retire.c; the walk of dead namespaces,
 * bpf/netns_gone.bpf.h). A run that reads the old generation holds the
 * id as one that looked it up before the delete does (the reader zeroes
 * and reuses it a report interval later); one that reads the new one
 * looks up after the delete (group_hist_get() orders the look-up after
 * the load of the generation), so an entry filled from a key found is
 * never of a generation after its delete. seq makes an entry whole or
 * ignored (group_cache_get(), _put()).
 */
struct nsl_group_cache {
	__u64 seq;	/* 0: never written; odd: being written; even: whole */
	__u64 gen;	/* nsl_groups_gen when id was found */
	struct nsl_group_key key;
	__u32 id;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HISTS);
	__type(key, __u32);
	__type(value, struct nsl_group_cache);
} group_cache SEC(".maps");

/* Bumped after a key of group_ids is deleted: see struct nsl_group_cache. */
__u64 nsl_groups_gen = 0;

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
 * next one is recorded, and the generator that draws it (see
 * sample_skip()).
 */
struct nsl_sample_slot {
	__u32 left;
	__u32 rng;	/* xorshift32 state; 0 until the first recorded packet */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSL_NR_HOOKS);
	__type(key, __u32);
	__type(value, struct nsl_sample_slot);
} sample_left SEC(".maps");

/* Filter sets; only looked up when the matching cfg.filter_* is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} filter_ifindex SEC(".maps");

/*
 * -p: the selected processes (tgid) as a bitmap, bit tgid % 64 of word
 * tgid / 64. An array, whose lookup the verifier inlines, where a hash
 * lookup is a call (pid_selected(): the difference is some 60 ns a read
 * on this project's machines). 512 KiB with -p, one word without
 * (nsl_loader_open()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSL_PID_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} filter_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_MAX_FILTER_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} filter_cgroup SEC(".maps");

/*
 * -c's last answers on this CPU: the last cgroup id found in filter_cgroup
 * and the last found not to be (cgroup_selected()). The set never changes
 * once attached, so an answer never goes stale; each is one 8-byte word,
 * written whole, so a program that preempts another on its CPU reads an
 * id and its answer together. 0: none yet (no cgroup has id 0).
 */
struct nsl_cgroup_seen {
	__u64 selected;
	__u64 refused;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nsl_cgroup_seen);
} cgroup_seen SEC(".maps");

/*
 * The HOL filter's state, for the TCP sockets that saw out-of-order
 * segments (tcp_read_hol_blocked()): an LRU hash keyed by the socket, of
 * a fixed size whatever the sockets. Socket storage, its home before,
 * charged 264 bytes to every such socket for the rest of its life
 * (docs/performance.md, "Kernel memory per socket": 264 MB at a million
 * sockets), and tracing programs cannot use it before v5.11 (commit
 * 8e4597c627fb "bpf: Allow using bpf_sk_storage in FENTRY/FEXIT/RAW_TP"),
 * where this hash served already: one design on every kernel now.
 * The socket's address alone would let a new socket inherit a closed one's state
 * (nothing removes an entry when a socket is freed, and the allocator
 * hands its memory out again), so the key also holds the inode number of
 * the socket's file (sock_alloc() gives each a new one, get_next_ino():
 * the same address and number again only after 2^32 sockets). A socket
 * without a file (a kernel socket) has 0 there. When it is full, the entry of
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
	__u32 udp_consumed;	/* a UDP read consumed one: its stamp may be 0 */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nsl_read_state);
} read_state SEC(".maps");

#endif /* NSL_MAPS_BPF_H */
