/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The id of a group (-I/-C): shared by bpf/netstacklat.bpf.c and the
 * in-kernel race test (tests/groupid/), so that the test runs this code.
 *
 * Ids come from a queue of free ids (BPF_MAP_TYPE_QUEUE, filled with
 * 0..max_groups-1 by the loader; the reader pushes an id back once it has
 * reclaimed its group, src/2-collect/retire.c). A pop is atomic (the queue's
 * spinlock, kernel/bpf/queue_stack_maps.c), so two CPUs never take the same
 * id; the one of them that loses the race to add the key gives its id back.
 * No id is ever burnt, so the queue runs dry only when every id belongs to
 * a group that exists (or went away less than two report intervals ago).
 */
#ifndef NSL_GROUP_ID_BPF_H
#define NSL_GROUP_ID_BPF_H

#include "netstacklat.h"

#define NSL_EEXIST 17

/*
 * One try at the id of key in ids (a hash of struct nsl_group_key ->
 * __u32), taken from free_ids when key is new. 0 and *id (1 and *id when
 * this call added key with an id it took), or -1 when no id is free (the
 * map is full), or -2 when key vanished meanwhile.
 *
 * The push of an id back never fails here: it goes back to the queue it
 * was popped from, so there is room (max_entries is every id), and the
 * queue's lock is never contended on this CPU by a program of ours
 * (before 6.15 a raw spinlock, failing only in NMI context, which no
 * program of ours runs in; from 6.15 a resilient spinlock that fails only
 * on a deadlock, the same CPU holding it, or a 250 ms timeout:
 * kernel/bpf/queue_stack_maps.c).
 */
static __always_inline int group_id_try(void *ids, void *free_ids,
					const struct nsl_group_key *key,
					__u32 *id)
{
	__u32 *found = bpf_map_lookup_elem(ids, key);
	long err;

	if (found) {
		*id = *found;
		return 0;
	}
	if (bpf_map_pop_elem(free_ids, id)) {
		/* the last id may have gone to another CPU adding key */
		found = bpf_map_lookup_elem(ids, key);
		if (!found)
			return -1;
		*id = *found;
		return 0;
	}
	err = bpf_map_update_elem(ids, key, id, BPF_NOEXIST);
	if (!err)
		return 1;
	/* -EEXIST: another CPU added key first, and its id serves */
	bpf_map_push_elem(free_ids, id, 0);
	if (err != -NSL_EEXIST)
		return -1;
	found = bpf_map_lookup_elem(ids, key);
	if (!found)
		return -2;
	*id = *found;
	return 0;
}

/*
 * The id of key: 0 and *id (1 when this call took *id for key), or -1
 * when no id is free (the map is full).
 * A try finds key vanished (-2) when the reader retired it between
 * another CPU's add, which made ours fail, and our look-up: the group's
 * interface or cgroup went away as its first packets came. The sample
 * then takes a new group (the key is gone, so a second try adds it
 * afresh), which the reader retires in turn: every packet is a sample.
 * Before, it was dropped without a counter (issue #33 item 4). A second
 * -2 needs the reader to retire the same key twice within one program
 * run, which its once-per-interval checks never do; counted as map_full.
 */
static __always_inline int nsl_group_id(void *ids, void *free_ids,
					const struct nsl_group_key *key,
					__u32 *id)
{
	int err = group_id_try(ids, free_ids, key, id);

	if (err == -2)
		err = group_id_try(ids, free_ids, key, id);
	return err == -2 ? -1 : err;
}

#endif /* NSL_GROUP_ID_BPF_H */
