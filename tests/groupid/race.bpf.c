// SPDX-License-Identifier: GPL-2.0-only
/*
 * The group id race in the kernel (tests/groupid/race.c runs these under
 * BPF_PROG_TEST_RUN from two threads on two CPUs at once): both CPUs walk
 * the same NKEYS new keys in the same order, so they often add the same key
 * at the same moment. take_new takes ids as netstacklat does
 * (bpf/group_id.bpf.h); take_old is the scheme it replaced (a counter, the
 * loser's id lost), kept as the control that shows the race is hit.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "netstacklat.h"
#include "group_id.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define NKEYS 64
/*
 * one id more per CPU: what a CPU holds while it loses a race is not
 * free; and one for race.c's retirer, between its delete and its push
 */
#define NIDS (NKEYS + 3)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NKEYS);
	__type(key, struct nsl_group_key);
	__type(value, __u32);
} ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, NIDS);
	__uint(value_size, sizeof(__u32));
} free_ids SEC(".maps");

/* runs so far on this CPU: picks the key */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} runs SEC(".maps");

__u64 full = 0;		/* no id for a new key */
__u64 gone = 0;		/* a key retired as it was added: no id either */
__u32 next_id = 0;	/* take_old's counter */

static __always_inline int next_key(struct nsl_group_key *key)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&runs, &zero);

	if (!n)
		return -1;
	key->cgroup = (*n)++ % NKEYS;
	return 0;
}

SEC("socket")
int take_new(struct __sk_buff *skb)
{
	struct nsl_group_key key = {};
	__u32 id;

	if (next_key(&key))
		return 0;
	switch (nsl_group_id(&ids, &free_ids, &key, &id)) {
	case -1:
		__sync_fetch_and_add(&full, 1);
		break;
	case -2:
		__sync_fetch_and_add(&gone, 1);
		break;
	}
	return 0;
}

SEC("socket")
int take_old(struct __sk_buff *skb)
{
	struct nsl_group_key key = {};
	__u32 *id, new_id;

	if (next_key(&key))
		return 0;
	id = bpf_map_lookup_elem(&ids, &key);
	if (id)
		return 0;
	new_id = __sync_fetch_and_add(&next_id, 1);
	if (bpf_map_update_elem(&ids, &key, &new_id, BPF_NOEXIST))
		return 0;	/* the other CPU's id serves; ours is lost */
	return 0;
}
