/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dead network namespaces, told at once (-I -n -1, issue #32): groups
 * keyed by the inode number of a namespace that is gone leave group_ids
 * as soon as the kernel has torn it down, and the reader retires them at
 * its next tick (src/2-collect/groups.c) instead of after --group-idle.
 * Not a hook: no histogram, no sample; the loader loads it only with
 * -I -n -1 (src/1-setup/object.c) and -l says whether it runs.
 *
 * The kernel has no event for a namespace's death, and the functions
 * that see one (__put_net(), proc_free_inum()) are for kprobes or fentry,
 * which some hosts lack (no CONFIG_KPROBES, no trampolines: the build
 * machine has neither). Tracepoints every host has, and the teardown
 * runs as a work item: __put_net() queues net_cleanup_work on netns_wq,
 * an ordered workqueue (create_singlethread_workqueue("netns")), whose
 * function cleanup_net() tears down every namespace queued so far,
 * unlinks each from net_namespace_list and frees its inode number
 * (v5.10 to v6.17: ns_free_inum() in net_ns_net_exit(), a pernet exit;
 * v6.18: ns_common_free() at its end). So at workqueue_execute_end of a
 * cleanup_net (the tracepoint's function argument, since v5.2), the
 * namespaces on net_namespace_list are the live ones, and a group whose
 * inode number is none of theirs belongs to a dead one: it goes to the
 * reader. cfg.cleanup_net is the function's address (/proc/kallsyms).
 *
 * Exact but for one window: from the moment cleanup_net() frees an
 * inode number to its end (its last step on v6.18; v5.10-v6.17 run the
 * other pernet exits and an rcu_barrier() after it, milliseconds) a new
 * namespace may get the number (proc_alloc_inum() takes the lowest free
 * one) and record: it then continues the dead one's group, as every
 * namespace did before this program. A namespace is put on the list
 * before anything in it can receive (copy_net_ns() returns after), so
 * no live one is taken for dead.
 *
 * Cost: this program runs after every work item of the host, where it
 * compares one argument and returns (docs/hooks.md has the measure);
 * after a cleanup_net it walks the namespaces (NSL_NETNS_WALK_MAX at
 * most: with more, nothing is retired, as before) and group_ids once.
 * No packet pays anything.
 */
#ifndef NSL_NETNS_GONE_BPF_H
#define NSL_NETNS_GONE_BPF_H

/*
 * The groups of freed numbers, for the reader: the key and the id it
 * had (the id stays taken until the reader reclaims it, so a queue of
 * --max-groups never fills: every id is in it at most once, pushed by
 * the delete that removed its key: drop_dead_netns()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, NSL_MAX_GROUPS);
	__uint(value_size, sizeof(struct nsl_gone_group));
} gone_groups SEC(".maps");

/*
 * Namespaces a walk sees at most, and the live ones' table: 16,384
 * entries of 64 bytes, preallocated (1 MiB, with its buckets 1.25 MiB),
 * only with -I -n -1. A host with more keeps --group-idle for all.
 */
#define NSL_NETNS_WALK_MAX 16384

/*
 * The live namespaces' inode numbers -> the walk that last saw them.
 * Preallocated (issue #47 item 2): a raw_tp program is a "trace type" to
 * the verifier of v5.7 to v6.0, which answers one that uses a hash map
 * allocated at run time with WARN_ONCE("trace type BPF program uses
 * run-time allocation") (a tainted kernel; a panic under panic_on_warn)
 * and refuses it under PREEMPT_RT (check_map_prog_compatibility()).
 * Preallocated, an update of the walk takes a free element and allocates
 * nothing. Its entries cost kernel memory from the load on (above; 1
 * entry unless -I -n -1). scripts/check-bpf-maps keeps every trace type
 * program of ours to preallocated hash maps.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_NETNS_WALK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} netns_live SEC(".maps");

/* Walks so far; only cleanup_net()'s ordered workqueue writes it. */
__u64 nsl_netns_walks = 0;

static long drop_dead_netns(struct bpf_map *map, struct nsl_group_key *key,
			    __u32 *id, __u64 *walk)
{
	struct nsl_gone_group g = { .id = *id };
	__u32 inum = key->netns;
	__u64 *seen;

	if (!key->netns)
		return 0;
	seen = bpf_map_lookup_elem(&netns_live, &inum);
	if (seen && *seen == *walk)
		return 0;
	g.key = *key;
	/*
	 * The id goes to the reader only from the delete that removed the
	 * key (htab_map_delete_elem() answers -ENOENT to any other, under
	 * the bucket's lock): the reader may have retired the group itself
	 * (idle, evicted) since the walk began, and then frees the id itself.
	 * Pushed whatever it did, the id came back to the reader twice and
	 * was freed twice (issue #47 item 1). So the queue holds an id once
	 * at most, and a push to it (--max-groups entries) always has room:
	 * no id it should hold is lost either.
	 */
	if (!bpf_map_delete_elem(&group_ids, key)) {
		/*
		 * after the delete, fully ordered (the fetch makes it an
		 * LDADDAL on arm64, a locked add on x86): the CPUs' cached
		 * ids of it go (struct nsl_group_cache)
		 */
		__u64 old = __sync_fetch_and_add(&nsl_groups_gen, 1);

		barrier_var(old);
		bpf_map_push_elem(&gone_groups, &g, 0);
	}
	return 0;
}

static long forget_dead_netns(struct bpf_map *map, __u32 *inum, __u64 *seen,
			      __u64 *walk)
{
	if (*seen != *walk)
		bpf_map_delete_elem(&netns_live, inum);
	return 0;
}

struct netns_walk {
	__u64 head, node;	/* net_namespace_list, and where the walk is */
	__u64 list, inum_at;	/* offsets of list and ns.inum in struct net */
	__u64 walk;
	int done;		/* back at the head */
};

/*
 * One step of the walk, in bpf_loop() (v5.17): a loop of its own would
 * be unrolled by the verifier, which gives up after 8,192 jumps.
 */
static long netns_walk_step(__u32 i, struct netns_walk *w)
{
	__u32 inum;

	if (bpf_probe_read_kernel(&w->node, sizeof(w->node), (void *)w->node))
		return 1;
	if (w->node == w->head) {
		w->done = 1;
		return 1;
	}
	if (bpf_probe_read_kernel(&inum, sizeof(inum), (void *)(w->node - w->list + w->inum_at)) ||
	    bpf_map_update_elem(&netns_live, &inum, &w->walk, BPF_ANY))
		return 1;
	return 0;
}

/*
 * raw_tp, not tp_btf: the verifier lets no tp_btf program read an
 * argument that points to a function (work_func_t: "arg1 type FUNC_PROTO
 * is not a struct").
 */
SEC("raw_tp/workqueue_execute_end")
int BPF_PROG(nsl_netns_gone, void *work, __u64 function)
{
	struct netns_walk w = {
		.list = bpf_core_field_offset(struct net, list),
		.inum_at = bpf_core_field_offset(struct net, ns.inum),
	};
	struct task_struct *task;

	if (function != cfg.cleanup_net)
		return 0;
	/*
	 * A kworker's namespace is init_net, the first one on the list
	 * (net_ns_init() adds it before any other can be made): the node
	 * before it is the list's head, net_namespace_list.
	 */
	task = bpf_get_current_task_btf();
	w.head = w.node = (__u64)task->nsproxy->net_ns->list.prev;
	w.walk = ++nsl_netns_walks;
	bpf_loop(NSL_NETNS_WALK_MAX, netns_walk_step, &w, 0);
	if (!w.done)
		return 0;	/* a read failed, or too many: none is known dead */
	bpf_for_each_map_elem(&group_ids, drop_dead_netns, &w.walk, 0);
	bpf_for_each_map_elem(&netns_live, forget_dead_netns, &w.walk, 0);
	return 0;
}

#endif /* NSL_NETNS_GONE_BPF_H */
