// SPDX-License-Identifier: GPL-2.0-only
/*
 * Retiring, reclaiming and evicting groups (retire.h): the checks that a
 * group's cgroup or interface is gone, and the steps from LIVE to RETIRING
 * to GONE. nsl_groups_tick() (groups.c) drives them; nothing here calls it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "grow.h"
#include "retire.h"
#include "report.h"
#include "cgnames.h"
#include "containers.h"
#include "clock.h"
#include "targets.h"

void nsl_group_free(struct nsl_group *gr)
{
	if (!gr)
		return;
	free(gr->cgroup_path);
	free(gr->late_path);
	nsl_container_free(gr->container);
	free(gr->final);
	free(gr);
}

/* A LIVE or RETIRING group's histogram in the mapping: its head, then the slots. */
const uint64_t *nsl_mapped_values(const struct nsl_groups *g,
				  const struct nsl_group *gr)
{
	return (const uint64_t *)((const char *)g->hist + (size_t)gr->id * g->hist_size);
}

/*
 * Whether a cgroup id still exists: its directory (the path it had when
 * we named it) has that inode (kernfs gives cgroup v2 directories their
 * cgroup id as inode number, which is what bpf_get_current_cgroup_id()
 * returns). A stat() needs no privilege. Moved or renamed: look again.
 */
static bool cgroup_at(const char *rel, uint64_t id)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", nsl_cgroup2_root(), rel);
	return !stat(path, &st) && st.st_ino == id;
}

static int cgroup_exists(struct nsl_groups *g, struct nsl_group *gr)
{
	char *now;

	if (gr->cgroup_path && cgroup_at(gr->cgroup_path, gr->key.cgroup))
		return EXISTS;
	/* moved, or not named yet: look for it (a gone one keeps its name) */
	now = nsl_cgroup_path(gr->key.cgroup, gr->cgroup_path != NULL);
	if (now) {
		/*
		 * first named now (too new for the first look): its container
		 * with it, as fresh_group() would have (seen in make bench-memory
		 * --named: 3 % of 512 cgroups made at once), asked of the namer
		 * outside the lock at the next nsl_groups_learn(), path and
		 * container given to the group together at the tick after
		 * (groups.c). Its series' labels change this once, the cgroup
		 * label from the id to the path.
		 */
		if (!gr->cgroup_path && !gr->container) {
			free(gr->late_path);
			gr->late_path = now;
			return EXISTS;
		}
		free(gr->cgroup_path);
		gr->cgroup_path = now;
		return EXISTS;
	}
	/* not under the mount: gone, if the mount shows all of them */
	return g->cgroup_tree_whole ? GONE : UNKNOWN;
}

/*
 * An interface index names an interface of one namespace: ifname_fd's
 * (the one -n selects; our own with -n -1). Others cannot be asked. One
 * that exists gives the group its name now (SIOCGIFNAME: dev_get_by_index
 * in the socket's netns), so a rename is followed and a gone one keeps
 * the name it had.
 */
int nsl_ifindex_exists(struct nsl_groups *g, struct nsl_group *gr)
{
	struct ifreq ifr = { .ifr_ifindex = gr->key.ifindex };

	if (g->c.ifname_fd < 0 || (g->c.group_netns && NSL_NETNS_INO(gr->key.netns) != g->c.own_netns))
		return UNKNOWN;
	if (!ioctl(g->c.ifname_fd, SIOCGIFNAME, &ifr)) {
		snprintf(gr->ifname, sizeof(gr->ifname), "%s", ifr.ifr_name);
		return EXISTS;
	}
	return errno == ENODEV ? GONE : UNKNOWN;
}

int nsl_group_exists(struct nsl_groups *g, struct nsl_group *gr)
{
	int cg = EXISTS, ifc = EXISTS;

	if (g->c.group_cgroup && gr->key.cgroup)
		cg = cgroup_exists(g, gr);
	if (g->c.group_ifindex && gr->key.ifindex)
		ifc = nsl_ifindex_exists(g, gr);
	else if (g->c.group_netns && NSL_NETNS_INO(gr->key.netns) != g->c.own_netns)
		ifc = UNKNOWN;	/* no interface, another namespace */
	if (cg == GONE || ifc == GONE)
		return GONE;
	return cg == UNKNOWN || ifc == UNKNOWN ? UNKNOWN : EXISTS;
}

static int add_gone(struct nsl_groups *g, struct nsl_group *gr)
{
	void *more;

	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	more = nsl_grow(g->gone, &g->cap_gone, g->nr_gone, sizeof(*g->gone));
	if (!more)
		return -ENOMEM;
	g->gone = more;
	g->gone[g->nr_gone++] = gr;
	return 0;
}

/*
 * --owner-quota: an id that a namespace or cgroup of an unprivileged owner took
 * (id_owner, set by the BPF side) is given back to that owner's count
 * before the id is free again, so that no program can mark it meanwhile
 * (bpf/owner_quota.bpf.h). The released counts are written here alone.
 * Should the update fail, the owner keeps counting the id: its quota
 * shrinks by one, no other owner's does.
 */
static void release_owner(struct nsl_groups *g, uint32_t id)
{
	uint32_t owner, none = 0;
	uint64_t released = 0;

	if (!g->c.owner_quota || bpf_map_lookup_elem(g->c.id_owner_fd, &id, &owner) || !owner)
		return;
	bpf_map_lookup_elem(g->c.owner_released_fd, &owner, &released);	/* none yet: 0 */
	released++;
	bpf_map_update_elem(g->c.owner_released_fd, &owner, &released, BPF_ANY);
	bpf_map_update_elem(g->c.id_owner_fd, &id, &none, BPF_ANY);
}

/*
 * RETIRING since an earlier tick: its final totals out, the histogram
 * zeroed, then the id back on the queue (in this order: the id is only
 * free once its histogram is zero).
 */
int nsl_reclaim(struct nsl_groups *g, struct nsl_group *gr,
		const struct timespec *now)
{
	const uint64_t *v = nsl_mapped_values(g, gr);
	uint32_t id = gr->id;

	if (gr->gone_tick >= g->tick)
		return 0;
	/* a grace period since its key went, or else a time */
	if (gr->gone_tick >= g->graced_tick && nsl_seconds_between(&gr->gone_at, now) < RETIRE_WAIT_S)
		return 0;
	/* only the slots that hold samples: thousands of them may be kept */
	gr->final_nr = nsl_slot_range(v + NSL_HIST_HEAD, g->nr_slots, &gr->final_lo);
	gr->final = malloc((NSL_HIST_HEAD + gr->final_nr) * sizeof(uint64_t));
	if (!gr->final || add_gone(g, gr)) {
		free(gr->final);
		gr->final = NULL;
		return -ENOMEM;
	}
	memcpy(gr->final, v, NSL_HIST_HEAD * sizeof(uint64_t));
	memcpy(gr->final + NSL_HIST_HEAD, v + NSL_HIST_HEAD + gr->final_lo,
	       gr->final_nr * sizeof(uint64_t));
	gr->state = NSL_GROUP_GONE;
	gr->reclaim_tick = g->tick;
	g->by_id[id] = NULL;
	g->reclaimed++;
	if (bpf_map_update_elem(g->c.hist_fd, &id, g->zero, BPF_ANY))
		return -errno;	/* the id stays out of use: better than mixed counts */
	release_owner(g, id);
	if (bpf_map_update_elem(g->c.free_fd, NULL, &id, 0))
		return -errno;
	return 0;
}

/*
 * GONE groups stay while a reader may still want them: at least until
 * the tick after the one that reclaimed them (a report's last delta), and
 * for Prometheus keep_s seconds, but never more of them than --max-groups
 * (the oldest go first): a host that churns more groups than that within
 * --series-grace ends their series early rather than hold the final
 * totals of every group it ever saw (issue #31). Oldest first, so stop at
 * the first that stays.
 */
void nsl_prune_gone(struct nsl_groups *g, const struct timespec *now)
{
	size_t n = 0;

	while (n < g->nr_gone && g->gone[n]->reclaim_tick < g->tick &&
	       (g->nr_gone - n > g->c.max ||
		nsl_seconds_between(&g->gone[n]->gone_at, now) >= g->c.keep_s))
		nsl_group_free(g->gone[n++]);
	if (!n)
		return;
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	memmove(g->gone, g->gone + n, (g->nr_gone - n) * sizeof(*g->gone));
	g->nr_gone -= n;
}

/*
 * Retires a LIVE group: its key deleted from group_ids (new samples of the
 * key make a new group, with a new id), RETIRING until its reclaim.
 * False if the key could not be deleted (it stays LIVE).
 */
void nsl_set_retiring(struct nsl_groups *g, struct nsl_group *gr, const struct timespec *now)
{
	gr->state = NSL_GROUP_RETIRING;
	gr->gone_tick = g->tick;
	gr->gone_at = *now;
}

bool nsl_retire(struct nsl_groups *g, struct nsl_group *gr, const struct timespec *now)
{
	/*
	 * Whoever deletes the key frees the id. A key we do not find was
	 * deleted by the walk of dead namespaces (bpf/netns_gone.bpf.h),
	 * which queued the id for retire_dead_netns(): the group stays LIVE
	 * until that retires it. Taken as ours, the id was freed here and
	 * again there: two keys later shared one histogram (issue #47 item 1).
	 */
	if (bpf_map_delete_elem(g->c.ids_fd, &gr->key))
		return false;
	/* after the delete, fully ordered: the CPUs' cached ids of the key go */
	if (g->c.gen)
		__atomic_fetch_add(g->c.gen, 1, __ATOMIC_SEQ_CST);
	nsl_set_retiring(g, gr, now);
	return true;
}

static int by_active_tick(const void *a, const void *b)
{
	const struct nsl_group *x = *(struct nsl_group *const *)a;
	const struct nsl_group *y = *(struct nsl_group *const *)b;

	return x->active_tick < y->active_tick ? -1 : x->active_tick > y->active_tick;
}

/*
 * The table is full and new keys found no id (map_full grew by want
 * samples since the last tick): the groups idle longest, without a
 * sample for EVICT_IDLE_TICKS ticks at least, yield their ids (issue #32:
 * otherwise groups that exist but are idle, such as a tenant's thousands
 * of namespaces that each sent one packet, starve every new pod). At most
 * want, and an eighth of the table, a tick. Evicted groups are reported
 * gone like the others, and counted.
 */

void nsl_evict(struct nsl_groups *g, uint64_t want, const struct timespec *now)
{
	uint64_t n = 0, cap = g->c.max / 8 + 1;
	struct nsl_group **idle;

	if (!g->c.max)
		return;
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	idle = calloc(g->c.max, sizeof(*idle));
	if (!idle)
		return;
	for (uint32_t id = 0; id < g->c.max; id++) {
		struct nsl_group *gr = g->by_id[id];

		if (gr && gr->state == NSL_GROUP_LIVE &&
		    g->tick - gr->active_tick >= EVICT_IDLE_TICKS)
			idle[n++] = gr;
	}
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	qsort(idle, n, sizeof(*idle), by_active_tick);
	if (want > cap)
		want = cap;
	for (uint64_t i = 0; i < n && i < want; i++) {
		if (!nsl_retire(g, idle[i], now))
			continue;
		g->evicted++;
		g->live--;
	}
	free(idle);
}
