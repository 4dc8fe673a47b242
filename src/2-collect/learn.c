// SPDX-License-Identifier: GPL-2.0-only
/*
 * What comes into the table of groups (groups.h), learnt outside its
 * lock before the tick (nsl_groups_learn()): new keys of group_ids, the
 * groups of dead namespaces the BPF side drained, and cgroups found late,
 * each named (its cgroup's path and container, its interface's name, its
 * namespace's container) by the namer, which may take seconds; the tick
 * (groups.c) adds them under the lock. Only the report thread changes
 * the table: it reads it here without the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "groups.h"
#include "grow.h"
#include "retire.h"
#include "log.h"
#include "cgnames.h"
#include "clock.h"

/*
 * -I: whether the interfaces grouped are followed to where they lead
 * (peers.c): with a route netlink socket in their namespace (the loader
 * makes one in -n PATH's, targets.c), or in the tool's own.
 */
static bool links_followed(const struct nsl_groups *g)
{
	return g->c.group_ifindex &&
	       (g->c.links_fd >= 0 || (g->self_netns && g->c.own_netns == g->self_netns));
}

int nsl_groups_start_namer(struct nsl_groups *g)
{
	struct stat st;

	/* the namer's namespace: where it can ask interfaces where they lead */
	if (!stat("/proc/self/ns/net", &st))
		g->self_netns = st.st_ino;
	/* only where something can be named */
	if (geteuid() != 0 || (!g->c.group_cgroup && !g->c.group_netns && !links_followed(g)))
		return 0;
	return nsl_namer_start(&g->namer, g->c.links_fd);
}

/*
 * A new group of key, holding id, named (its cgroup's path and container,
 * its interface's name) but in no table yet: outside the lock, before
 * the tick (nsl_groups_learn()). NULL when out of memory.
 */
static struct nsl_group *fresh_group(struct nsl_groups *g, const struct nsl_group_key *key,
				     uint32_t id)
{
	struct nsl_group *gr = calloc(1, sizeof(*gr));

	if (!gr)
		return NULL;
	gr->key = *key;
	gr->id = id;
	gr->state = NSL_GROUP_LIVE;
	if (g->c.group_cgroup && key->cgroup)
		gr->cgroup_path = nsl_cgroup_path(key->cgroup, false);
	/* once: a series' labels stay what they were when it began */
	if (gr->cgroup_path)
		gr->container = nsl_namer_cgroup(&g->namer, gr->cgroup_path);
	if (g->c.group_ifindex && key->ifindex)
		nsl_ifindex_exists(g, gr);	/* its name */
	return gr;
}

static int add_fresh(struct nsl_groups *g, struct nsl_group *gr)
{
	void *more;

	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	more = nsl_grow(g->fresh, &g->cap_fresh, g->nr_fresh, sizeof(*g->fresh));
	if (!more)
		return -ENOMEM;
	g->fresh = more;
	g->fresh[g->nr_fresh++] = gr;
	return 0;
}

/* The fresh group holding id, or NULL. */
static struct nsl_group *fresh_of(const struct nsl_groups *g, uint32_t id)
{
	for (size_t i = 0; i < g->nr_fresh; i++)
		if (g->fresh[i]->id == id)
			return g->fresh[i];
	return NULL;
}

/*
 * Which way a new group's container is named, where its cgroup named
 * none: by its network namespace (-I -n -1, another namespace than the
 * tool's), or by the namespace its interface leads to (-I, an interface
 * of the namespace measured, the tool's own or -n PATH's: a pod's veth
 * seen from the node); 0: not.
 */
static char naming_of(const struct nsl_groups *g, const struct nsl_group *gr)
{
	bool own = !g->c.group_netns || NSL_NETNS_INO(gr->key.netns) == g->c.own_netns;

	if (gr->container)
		return 0;
	if (!own)
		return gr->key.netns ? 'N' : 0;
	return gr->key.ifindex && links_followed(g) ? 'I' : 0;
}

/*
 * The containers of new groups that no cgroup named, by their namespaces
 * or their interfaces' peers: one batch of each kind for all the groups a
 * tick found (a walk of /proc each: containers.c, peers.c), asked of the
 * namer (namer.h). Once, as the cgroup's: a series' labels stay.
 */
static void name_new(struct nsl_groups *g, struct nsl_group **fresh, size_t n)
{
	struct nsl_netns_ask *ask = calloc(n, sizeof(*ask));
	/* arrays of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	struct nsl_group **asked = calloc(n, sizeof(*asked));
	uint32_t *ifindex = calloc(n, sizeof(*ifindex));
	static const char kinds[] = { 'N', 'I' };

	for (size_t t = 0; ask && asked && ifindex && t < sizeof(kinds); t++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			struct nsl_group *gr = fresh[i];

			if (naming_of(g, gr) != kinds[t])
				continue;
			asked[k] = gr;
			ifindex[k] = gr->key.ifindex;
			ask[k++].ino = NSL_NETNS_INO(gr->key.netns);
		}
		if (k && kinds[t] == 'N')
			nsl_namer_netns(&g->namer, ask, k);
		else if (k)
			nsl_namer_links(&g->namer, ifindex, ask, k);
		for (size_t i = 0; i < k; i++)
			asked[i]->container = ask[i].c;
	}
	free(ifindex);
	free(asked);
	free(ask);
}

/*
 * New keys in group_ids: new groups (their ids were free until now),
 * named, into fresh[]. Only this thread changes by_id: read without the
 * lock.
 */
static int learn_new(struct nsl_groups *g)
{
	struct nsl_group_key key, next;
	size_t from = g->nr_fresh;
	int err;

	for (err = bpf_map_get_next_key(g->c.ids_fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(g->c.ids_fd, &key, &next)) {
		struct nsl_group *gr;
		__u32 id;

		key = next;
		if (bpf_map_lookup_elem(g->c.ids_fd, &key, &id) || id >= g->c.max)
			continue;
		gr = g->by_id[id];
		if (gr && !memcmp(&gr->key, &key, sizeof(key)))
			continue;
		if (gr)	/* cannot be: an id is pushed back only after it left by_id */
			continue;
		if (!(gr = fresh_group(g, &key, id)) || add_fresh(g, gr)) {
			nsl_group_free(gr);
			err = -ENOMEM;
			break;
		}
	}
	/* -C names by the cgroup alone */
	if (g->c.group_ifindex && g->nr_fresh > from)
		name_new(g, g->fresh + from, g->nr_fresh - from);
	return err == -ENOENT ? 0 : err;
}

/*
 * -I -n -1: the groups of dead namespaces, told by the BPF side after the
 * kernel's teardown (bpf/netns_gone.bpf.h), keys already deleted: retired
 * at the tick (retire_dead_netns()), as a gone interface's, whatever
 * --group-idle says. An id in this queue is the drain's alone: the walk
 * pushed it from the delete that removed its key, and nsl_retire() leaves
 * a group whose key it does not find LIVE for us. So an id that neither
 * by_id[] nor this round's new groups hold is a group that lived less than
 * a tick, learnt here (its cgroup named, not its namespace: gone) with what
 * it recorded. Drained after the walk of group_ids (learn_new()), so that
 * a key deleted after the walk saw it is a new group retired at once.
 */
static int drain_dead_netns(struct nsl_groups *g)
{
	struct nsl_gone_group d;

	if (g->c.gone_fd < 0 || g->tick + 1 < g->drain_from)
		return 0;
	while (!bpf_map_lookup_and_delete_elem(g->c.gone_fd, NULL, &d)) {
		struct nsl_group *gr;
		void *more;

		if (d.id >= g->c.max)
			continue;
		more = nsl_grow(g->dead, &g->cap_dead, g->nr_dead, sizeof(*g->dead));
		if (!more)
			return -ENOMEM;
		g->dead = more;
		g->dead[g->nr_dead++] = d;
		if (g->by_id[d.id] || fresh_of(g, d.id))
			continue;
		if (!(gr = fresh_group(g, &d.key, d.id)) || add_fresh(g, gr)) {
			nsl_group_free(gr);
			return -ENOMEM;
		}
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * The containers of groups whose cgroups were found at the last tick
 * (retire.c: cgroup_exists()), asked now, outside the lock; given to the
 * groups at the tick (add_learnt()). late_path is this thread's alone.
 */
static int name_late(struct nsl_groups *g)
{
	for (uint32_t id = 0; id < g->c.max; id++) {
		struct nsl_group *gr = g->by_id[id];
		struct nsl_late_name *l;
		void *more;

		if (!gr || !gr->late_path)
			continue;
		more = nsl_grow(g->late, &g->cap_late, g->nr_late, sizeof(*g->late));
		if (!more)
			return -ENOMEM;
		g->late = more;
		l = &g->late[g->nr_late++];
		l->id = id;
		l->serial = gr->serial;
		l->path = gr->late_path;
		gr->late_path = NULL;
		l->container = nsl_namer_cgroup(&g->namer, l->path);
	}
	return 0;
}

int nsl_groups_learn(struct nsl_groups *g)
{
	struct timespec from, to;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &from);
	nsl_cgroup_names_tick();
	err = learn_new(g);
	if (!err)
		err = drain_dead_netns(g);
	if (!err && g->c.group_cgroup)
		err = name_late(g);
	clock_gettime(CLOCK_MONOTONIC, &to);
	/* scripts/bench-naming reads it */
	if (g->nr_fresh || g->nr_late)
		pr_debug("groups: %zu new, %zu named late, learnt in %.3f ms (outside the lock)\n",
			 g->nr_fresh, g->nr_late, nsl_seconds_between(&from, &to) * 1e3);
	return g->learn_err = err;
}
