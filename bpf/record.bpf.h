/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a sample is recorded: the counters of what is left out, the
 * --sample question, the group a sample goes to, and the histogram
 * update with the clock (record_latency_at()). Every hook ends here.
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_RECORD_BPF_H
#define NSL_RECORD_BPF_H

/*
 * Counts n (an event: 1) in counter c of hook, or of the hook whose
 * histogram hook is (the reads the HOL filter left out are
 * tcp-socket-read's). A CPU's own counters, added to as its histograms
 * are (hist_field_add_ctx() says when a plain add is safe): the standing
 * hooks count from softirq and from process context on one CPU (their
 * no_storage, clock_step, negative, map_full), so theirs are locked
 * adds, as their histograms' are; rare events, so the cost is nil.
 */
static __always_inline void count_add(__u32 hook, enum nsl_counter c,
				      __u64 n)
{
	struct nsl_counters *v;

	if (hook == NSL_HIST_TCP_READ_HOL)
		hook = NSL_HOOK_TCP_SOCK_READ;
	v = bpf_map_lookup_elem(&counters, &hook);

	if (!v || c >= NSL_NR_COUNTERS)
		return;
	if (hook == NSL_HOOK_TCP_STANDING || hook == NSL_HOOK_UDP_STANDING)
		__sync_fetch_and_add(&v->cnt[c], n);
	else
		v->cnt[c] += n;
}

static __always_inline void count_event(__u32 hook, enum nsl_counter c)
{
	count_add(hook, c, 1);
}

/*
 * --sample N: whether hook leaves this packet out. Each CPU records one
 * packet in N of each hook on average, by a countdown: after each packet
 * it records it lets a random 0 to 2N - 2 pass (nsl_sample_gap() of the
 * slot's own generator, include/sample.h, which says why at random and
 * what it costs), no atomics (the slot is the CPU's own; programs run
 * with migration off, and where a task-context program is preempted
 * between the load and the store by another run on its CPU, one packet
 * more or less is recorded: the rate stays 1 in N). Asked first, before any other work of the hook, so that
 * a packet left out costs a map lookup and a decrement; the random
 * number is drawn only for a packet recorded. Whatever state a hook
 * keeps per socket or per packet still follows every packet (the HOL
 * filter's: record_tcp_read(); the enqueue fallback's tail:
 * tp_data_ready(); the hand-over's remembered stamps: record_handover()),
 * so that the packets recorded are the ones an unsampled run would
 * record, thinned; and the counters of a packet left out are not
 * counted, so that they are thinned alike. With cfg.sample_every <= 1
 * the verifier drops all of it.
 */
static __always_inline int sample_skip(__u32 hook)
{
	struct nsl_sample_slot *s;

	if (cfg.sample_every <= 1)
		return 0;
	s = bpf_map_lookup_elem(&sample_left, &hook);
	if (!s)
		return 0;
	if (s->left) {
		s->left--;
		return 1;
	}
	if (!s->rng)	/* the slot's first recorded packet: seeded once */
		s->rng = bpf_get_prandom_u32() | 1;
	s->left = nsl_sample_gap(nsl_xorshift32(&s->rng), cfg.sample_every);
	return 0;
}

/*
 * Whether the group cache entry c holds key's id, found in generation gen:
 * 1 and *id. An entry is written by the programs of one histogram, on one
 * CPU (a per-CPU map); where one of them runs in the middle of another
 * there (a softirq's program on an interrupt's way out over a process-
 * context one, as the standing hooks' looks do: hist_field_add_ctx(); or
 * a task preempting another under a preemptible kernel: migration is off,
 * preemption not), seq tells: an odd seq is an entry half written, and a
 * seq that changed between the first load and the last is one rewritten
 * under this reader. The program order of the loads is enough on one CPU;
 * the compiler's is kept by the barrier.
 */
static __always_inline int group_cache_get(struct nsl_group_cache *c,
					   const struct nsl_group_key *key,
					   __u64 gen, __u32 *id)
{
	__u64 seq = *(volatile __u64 *)&c->seq;

	if (!seq || (seq & 1) || c->gen != gen ||
	    c->key.cgroup != key->cgroup || c->key.ifindex != key->ifindex ||
	    c->key.netns != key->netns || c->key.hook != key->hook)
		return 0;
	*id = c->id;
	asm volatile("" ::: "memory");
	return *(volatile __u64 *)&c->seq == seq;
}

/*
 * Keeps key's id in c (as group_cache_get() reads it): only where no other
 * writer is in the middle (an odd seq), and only one at a time (the
 * compare-and-exchange that makes seq odd; v5.12, which -I and -C need
 * anyway); seq only grows, so a reader never takes an old seq for its own.
 */
static __always_inline void group_cache_put(struct nsl_group_cache *c,
					    const struct nsl_group_key *key,
					    __u64 gen, __u32 id)
{
	__u64 seq = *(volatile __u64 *)&c->seq;

	if ((seq & 1) || __sync_val_compare_and_swap(&c->seq, seq, seq + 1) != seq)
		return;
	c->gen = gen;
	c->key = *key;
	c->id = id;
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&c->seq = seq + 2;
}

/*
 * The histogram of the sample's group; net its namespace with -I -n -1,
 * else NULL. A key new to group_ids whose namespace's owner (or, with
 * -C, whose cgroup's owner) holds its --owner-quota of ids already gets
 * none (counted), before it can take one (bpf/owner_quota.bpf.h).
 */
static __always_inline struct nsl_hist *group_hist_get(__u32 hook,
						       __u32 ifindex,
						       struct net *net)
{
	struct nsl_group_key key = { .hook = hook };
	__u32 id, owner = 0, *found;
	struct nsl_group_cache *c;
	int err, by_cgroup = 0;
	__u64 gen, dep;

	if (net)
		key.netns = nsl_netns_key(net);
	if (cfg.group_by_ifindex)
		key.ifindex = ifindex;
	/* only the read hooks run in the context of the reading process */
	if (cfg.group_by_cgroup && nsl_hist_in_reader(hook)) {
		key.cgroup = nsl_task_cgroup_id(nsl_current_task());
		by_cgroup = 1;
	}

	/* the commonest case: this CPU's last sample of hook was key's */
	gen = *(volatile __u64 *)&nsl_groups_gen;
	c = bpf_map_lookup_elem(&group_cache, &hook);
	if (c && group_cache_get(c, &key, gen, &id))
		return bpf_map_lookup_elem(&group_hist, &id);
	/*
	 * the common case: the key has its id (one look-up, as ever), looked
	 * up after the generation was read: through an address that depends
	 * on it (plus a zero the compiler cannot see through, as in
	 * clock_recheck()), which arm64 keeps in order as x86 does any loads
	 */
	dep = gen;
	asm volatile("%[d] &= 0" : [d] "+r"(dep));
	found = bpf_map_lookup_elem(&group_ids, (char *)&key + dep);
	if (found) {
		id = *found;
		if (c)
			group_cache_put(c, &key, gen, id);
		return bpf_map_lookup_elem(&group_hist, &id);
	}
	if (cfg.owner_quota) {
		if (net)
			owner = netns_owner(net);
		if (!owner && by_cgroup)
			owner = cgroup_owner();
		if (owner && owner_over_quota(owner)) {
			count_event(hook, NSL_CNT_OWNER_QUOTA);
			return NULL;
		}
	}
	err = nsl_group_id(&group_ids, &free_ids, &key, &id);
	if (err < 0) {
		count_event(hook, NSL_CNT_MAP_FULL);
		return NULL;
	}
	if (err > 0 && owner)
		owner_took(owner, id);
	if (c)
		group_cache_put(c, &key, gen, id);
	return bpf_map_lookup_elem(&group_hist, &id);
}

/*
 * Whether hook's samples go to a group's histogram, shared by all CPUs
 * (nsl_hist_grouped(): every hook under -I, the read hooks under -C), or
 * to the hook's own on this CPU. cfg is constant to the verifier: where
 * hook is too, it keeps one of the two ways only.
 */
static __always_inline int hist_grouped(__u32 hook)
{
	return nsl_hist_grouped(hook, cfg.group_by_ifindex, cfg.group_by_netns,
				cfg.group_by_cgroup);
}

/*
 * The histogram a sample of hook goes to, grouped as hist_grouped(hook)
 * says: its group's (ifindex, net as for group_hist_get()), or the hook's
 * own on this CPU; NULL where there is none. Every caller passes net
 * non-NULL exactly when cfg.group_by_netns (record_rx_fields(), the
 * reads, the fentry UDP read, the hand-over, standing_add()).
 */
static __always_inline struct nsl_hist *hook_hist(__u32 hook, __u32 ifindex,
						  struct net *net, int grouped)
{
	if (grouped)
		return group_hist_get(hook, ifindex, net);
	return bpf_map_lookup_elem(&hist, &hook);
}

/*
 * Adds n to a field of a histogram of hook_hist(): atomically where the
 * caller says so (atomic): a group's histogram, shared by every CPU
 * (grouped), or a histogram whose writers on one CPU may interrupt one
 * another there (the standing hooks', grouped or not).
 *
 * A CPU's own histogram (the hist map: a hook that is not grouped, also
 * under -C) takes a plain load, add and store, safe only while nothing
 * else writes it between the load and the store. A program runs with
 * migration off, not with interrupts off: in process context (a system
 * call's fentry/fexit, the sock_recv_length tracepoint, the reports'
 * iterators) an interrupt may come between the two, and on its way out
 * run softirqs (irq_exit()), whose programs may
 * add to the same field; the process's store then writes back the value
 * it loaded, and their add is lost. The kernel keeps a program from
 * nesting in itself on a CPU (prog->active: from 5.12 for fentry/fexit,
 * 6.1 for tp_btf; docs/hooks.md, "Runs the kernel skips"): it skips the
 * nested run (recursion_misses) rather than let it tear the first. So
 * the lost add needs two programs that write one histogram, one of them
 * in process context. Read for each histogram:
 * - the standing hooks': yes. Their looks come from softirq (arrivals:
 *   fentry_sock_def_readable or tp_data_ready; drops: tp_udp_fail_queue;
 *   a reset's TCP_CLOSE: tp_standing_close) and from process context
 *   (reads: fexit of recvmsg or tp_recv_length; a close; the reports'
 *   walks, whose adds are the largest, up to an interval a socket): their
 *   adds are atomic (standing_add()). On a CPU's own line, uncontended, a
 *   locked add costs about 1 ns against 0.5 for a plain one (docs/
 *   performance.md, item 9);
 * - every other hook's: one program writes it (a hook's one recording
 *   program, or the one program two hooks share: tp_data_ready,
 *   tp_recv_length, nf_l4_start), so it cannot interrupt itself, from
 *   5.12 (fentry/fexit) and 6.1 (tp_btf; every tracepoint these hooks use
 *   is 6.3 or later). The one writer in both contexts, fexit_tcp_queue_rcv
 *   (TCP's backlog: __release_sock() runs tcp_v4_do_rcv() in process
 *   context, bottom halves on), nests in itself only on 5.10 and 5.11,
 *   whose trampolines run a nested program: a lost sample there, rare (a
 *   softirq in a window of one instruction), left plain as the packet
 *   path's cost is kept. tcp-socket-read's HOL histogram has the same one
 *   program as tcp-socket-read.
 */
static __always_inline void hist_field_add_ctx(__u64 *field, __u64 n,
					       int atomic)
{
	if (atomic)
		__sync_fetch_and_add(field, n);
	else
		*field += n;
}

/*
 * Adds the value v (ns) to the histogram h of hook_hist(), in slot (its
 * nsl_slot(); the standing hooks' own at schema 0, nsl_hook_slot());
 * atomic as for hist_field_add_ctx().
 */
static __always_inline void hist_slot_add(struct nsl_hist *h, __u64 slot,
					  __u64 v, int atomic)
{

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
	hist_field_add_ctx(&h->slots[slot], 1, atomic);
	hist_field_add_ctx(&h->sum_ns, v, atomic);
}

/*
 * Adds the value v (ns) to hook's histogram, or to that of its group
 * (ifindex, net as for group_hist_get()): a packet hook's, whose one
 * program cannot interrupt itself (hist_field_add_ctx()), so atomic only
 * where grouped.
 */
static __always_inline void hist_add(__u32 hook, __u64 v, __u32 ifindex,
				     struct net *net)
{
	int grouped = hist_grouped(hook);
	struct nsl_hist *h = hook_hist(hook, ifindex, net, grouped);

	if (h)
		hist_slot_add(h, nsl_slot(v, cfg.schema, cfg.schema_thresholds),
			      v, grouped);
}

/*
 * tstamp is skb->tstamp as the kernel set it at RX: CLOCK_REALTIME in ns
 * (net_timestamp_check()/__net_timestamp()). now_tai is nsl_now() at the
 * moment the sample stands for; minus the offset of struct nsl_clock it
 * is the same clock as tstamp, without a syscall (clock.bpf.h). Gives
 * the time from tstamp to now_tai in *lat, or -1 where it cannot be
 * trusted (counted for hook).
 */
static __always_inline int latency_at(__u32 hook, __u64 tstamp,
				      __u64 now_tai, __s64 *lat)
{
	__s64 off = *(volatile __s64 *)&nsl_clock.tai_offset_ns;

	*lat = (__s64)(now_tai - off - tstamp);
	/* the common sample reads the offset alone: see clock_recheck() */
	if (*lat < 0 || *lat >= NSL_CLOCK_CHECK_NS) {
		if (clock_recheck(now_tai, tstamp, off, lat)) {
			count_event(hook, NSL_CNT_CLOCK_STEP);
			return -1;
		}
		if (*lat < 0) {
			count_event(hook, NSL_CNT_NEGATIVE);
			return -1;
		}
	}
	return 0;
}

static __always_inline void record_latency_at(__u32 hook, __u64 tstamp,
					      __u64 now_tai, __u32 ifindex,
					      struct net *net)
{
	__s64 lat;

	if (!latency_at(hook, tstamp, now_tai, &lat))
		hist_add(hook, lat, ifindex, net);
}

/* The latency of tstamp now. */
static __always_inline void record_latency(__u32 hook, __u64 tstamp,
					   __u32 ifindex, struct net *net)
{
	record_latency_at(hook, tstamp, nsl_now(), ifindex, net);
}

#endif /* NSL_RECORD_BPF_H */
