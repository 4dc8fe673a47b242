/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -I -n -1 and -C: the ids one unprivileged owner's network namespaces
 * and cgroups may hold (issue #32 item 4). Any local user may make
 * network namespaces (an unprivileged user namespace first, as Debian
 * allows), and cgroups in a subtree delegated to it, and keep thousands
 * alive and busy, each a group of its own: without a bound one user
 * takes every id and every new pod's samples go to map_full. (A cgroup's
 * owner: cgroup_owner() below.)
 *
 * The owner of a namespace is the user that made the first user
 * namespace below the initial one on the way to it: net->user_ns, then
 * ->parent until ->level is 1, and that one's ->owner (a kuid, in the
 * initial namespace's terms; include/linux/user_namespace.h, v5.10 to
 * v7.2). A namespace nested deeper, or made under a mapped uid of a
 * subordinate range, still counts for the user that started it. The
 * initial user namespace's namespaces (ip netns add, a container
 * runtime's pods) and those whose first user namespace root made (a
 * runtime's user-namespaced pods) have no owner: no quota.
 *
 * An owner holds taken - released ids: owner_taken counts the ids its
 * namespaces and cgroups took (here, atomically), owner_released those the reader
 * gave back (src/2-collect/retire.c, the only writer), so that neither
 * side writes the other's count. id_owner[id] says whose an id is, for
 * the reader. Looked at only when a key has no id yet: a packet of a
 * group with its id pays nothing; one refused for its owner's quota
 * pays the walk and two look-ups each time (that owner's own traffic).
 * Two CPUs may pass the check at once: an owner may hold a few ids more
 * than its quota (one per CPU at most).
 */
#ifndef NSL_OWNER_QUOTA_BPF_H
#define NSL_OWNER_QUOTA_BPF_H

/*
 * Owners are never forgotten (a count the reader removed while a CPU
 * adds to it would lose that id); allocated as they come, and a host
 * with more users than this that make namespaces has owners beyond it
 * without a quota. 1 entry without a quota (the loader).
 */
#define NSL_OWNERS_MAX 65536

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_OWNERS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);	/* the owner's uid + 1 */
	__type(value, __u64);
} owner_taken SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NSL_OWNERS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u64);
} owner_released SEC(".maps");

/* id -> its owner's uid + 1; 0: none (the reader clears it); --max-groups */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSL_MAX_GROUPS);
	__type(key, __u32);
	__type(value, __u32);
} id_owner SEC(".maps");

/* user namespaces nest 32 deep at most (MAX_USER_NS_LEVEL) */
#define NSL_USER_NS_LEVELS 33

/*
 * The owner of net (see above): its first user namespace's owner's uid +
 * 1; where root made that namespace (a runtime's user-namespaced
 * container or pod: LXD, Incus, Kubernetes' hostUsers: false), the
 * namespace itself, as its inode number, so that what such a container
 * makes is charged to it (issue #47 item 3: before, to no one). Inode
 * numbers of namespaces are from PROC_DYNAMIC_FIRST (0xf0000000,
 * proc_alloc_inum()) on, above the uids an owner has (uid + 1). 0 for
 * the initial namespace's.
 */
static __always_inline __u32 netns_owner(struct net *net)
{
	struct user_namespace *ns = net->user_ns;
	__u32 uid;

	for (int i = 0; i < NSL_USER_NS_LEVELS && ns; i++) {
		int level = ns->level;

		if (level > 1) {
			ns = ns->parent;
			continue;
		}
		if (level < 1)
			return 0;
		uid = ns->owner.val;
		return uid ? uid + 1 : ns->ns.inum;
	}
	return 0;
}

/* the levels of cgroups the owner's walk goes up at most */
#define NSL_CGROUP_WALK 32

/*
 * -C: the owner's uid + 1 of the reading task's cgroup (the one whose id
 * bpf_get_current_cgroup_id() gives), 0 when root owns it and all above
 * it. A cgroup directory's owner is its creator's fsuid unless root's
 * (cgroup_mkdir() -> cgroup_kn_set_ugid(), kernel/cgroup/cgroup.c, v5.10
 * to v7.2), and a delegation (systemd's Delegate=, user@.service) chowns
 * its subtree's top to the user. Below that top the user may chown its
 * cgroups to any uid of its own: in a rootless user namespace to its
 * 65,536 subordinate uids, or make them from processes running as those.
 * So the owner is the topmost directory on the way up that a user other
 * than root owns (the delegation's top), not the cgroup's own (issue #47
 * item 3: before, each subordinate uid had a quota of its own). An owner
 * lives in the kernfs node's attributes (kn->iattr, made by the first
 * kernfs_setattr(); NULL: never set, root's). A cgroup's parent is its
 * self css's (struct cgroup begins with it). Probe reads, NSL_CGROUP_WALK
 * levels at most (a tenant that nests readers deeper below its top is
 * charged to what it owns within them): only a new key's path comes here.
 */
static __always_inline __u32 cgroup_owner(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct cgroup *cg = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	__u32 owner = 0;

	for (int i = 0; i < NSL_CGROUP_WALK && cg; i++) {
		struct kernfs_iattrs *ia = BPF_CORE_READ(cg, kn, iattr);
		__u32 uid = 0;

		if (ia && !bpf_core_read(&uid, sizeof(uid), &ia->ia_uid.val) && uid)
			owner = uid;
		cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	}
	return owner ? owner + 1 : 0;
}

/* Whether owner (uid + 1) holds its quota of ids already. */
static __always_inline int owner_over_quota(__u32 owner)
{
	__u64 *taken = bpf_map_lookup_elem(&owner_taken, &owner);
	__u64 *released, t, r;

	if (!taken)
		return 0;
	released = bpf_map_lookup_elem(&owner_released, &owner);
	t = *taken;
	r = released ? *released : 0;
	/* released is never ahead (an id is released after its take) */
	return t > r && t - r >= cfg.owner_quota;
}

/* Counts one more id taken by owner (uid + 1); 0, or -1 when it cannot. */
static __always_inline int owner_count(__u32 owner)
{
	__u64 one = 1, *taken = bpf_map_lookup_elem(&owner_taken, &owner);

	if (!taken) {
		if (!bpf_map_update_elem(&owner_taken, &owner, &one, BPF_NOEXIST))
			return 0;
		/* another CPU made the entry first, or the table is full */
		taken = bpf_map_lookup_elem(&owner_taken, &owner);
		if (!taken)
			return -1;
	}
	__sync_fetch_and_add(taken, 1);
	return 0;
}

/*
 * id went to a namespace or cgroup of owner (uid + 1): counted, and marked for the
 * reader to release when it reclaims the id (only an id counted is
 * marked, so that released never passes taken).
 */
static __always_inline void owner_took(__u32 owner, __u32 id)
{
	if (!owner_count(owner))
		bpf_map_update_elem(&id_owner, &id, &owner, BPF_ANY);
}

#endif /* NSL_OWNER_QUOTA_BPF_H */
