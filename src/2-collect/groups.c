// SPDX-License-Identifier: GPL-2.0-only
/*
 * Group lifecycle: see src/groups.h for the states and docs/hooks.md
 * ("Groups that come and go") for what is relied on in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "groups.h"
#include "hist.h"
#include "report.h"
#include "log.h"
#include "cgnames.h"
#include "clock.h"
#include "targets.h"

/*
 * How long a RETIRING group waits at least before its id is reused, on
 * top of "the next tick": BPF programs run to completion inside an RCU
 * read-side section, without sleeping (tracing programs: bpf_trace_run*()
 * and __bpf_prog_enter() take rcu_read_lock(); netfilter programs run
 * under nf_hook()'s), so a program that looked up the old id before we
 * deleted the key has finished once a grace period has passed after the
 * delete. nsl_groups_grace() waits for one: membarrier(MEMBARRIER_CMD_
 * GLOBAL) is synchronize_rcu() (kernel/sched/membarrier.c), which also
 * waits for a program preempted inside its section (PREEMPT_RCU). Where
 * that call is refused (nohz_full CPUs: EINVAL; a seccomp filter), the
 * wait is a time far longer than any program runs: a report interval,
 * and at least this much when -r is tiny.
 */
#define RETIRE_WAIT_S 0.1

int nsl_groups_init(struct nsl_groups *g, const struct nsl_groups_conf *c)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *root = nsl_cgroup2_root();
	struct stat st;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->c = *c;
	g->nr_slots = nsl_nr_slots(c->schema);
	g->hist_size = nsl_hist_size(c->schema);
	/* the cgroup2 root's id is 1: then every cgroup is under the mount */
	g->cgroup_tree_whole = root && !stat(root, &st) && st.st_ino == 1;
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	g->by_id = calloc(c->max, sizeof(*g->by_id));
	g->zero = calloc(1, g->hist_size);
	if (!g->by_id || !g->zero)
		return -ENOMEM;
	/* an mmapable array's values lie one after the other from offset 0 */
	g->hist_len = ((size_t)c->max * g->hist_size + page - 1) / page * page;
	g->hist = mmap(NULL, g->hist_len, PROT_READ, MAP_SHARED, c->hist_fd, 0);
	if (g->hist == MAP_FAILED) {
		g->hist = NULL;
		return -errno;
	}
	return 0;
}

static void group_free(struct nsl_group *gr)
{
	if (!gr)
		return;
	free(gr->cgroup_path);
	free(gr->final);
	free(gr);
}

void nsl_groups_free(struct nsl_groups *g)
{
	if (g->by_id)
		for (uint32_t id = 0; id < g->c.max; id++)
			group_free(g->by_id[id]);
	for (size_t i = 0; i < g->nr_gone; i++)
		group_free(g->gone[i]);
	free(g->by_id);
	free(g->gone);
	free(g->zero);
	if (g->hist)
		munmap((void *)g->hist, g->hist_len);
	pthread_mutex_destroy(&g->lock);
	memset(g, 0, sizeof(*g));
}

void nsl_groups_lock(struct nsl_groups *g)
{
	pthread_mutex_lock(&g->lock);
}

void nsl_groups_unlock(struct nsl_groups *g)
{
	pthread_mutex_unlock(&g->lock);
}

/* A LIVE or RETIRING group's histogram in the mapping: sum_ns, then the slots. */
static const uint64_t *mapped_values(const struct nsl_groups *g,
				     const struct nsl_group *gr)
{
	return (const uint64_t *)((const char *)g->hist + (size_t)gr->id * g->hist_size);
}

void nsl_group_values(const struct nsl_groups *g, const struct nsl_group *gr,
		      uint64_t *value)
{
	if (gr->state != NSL_GROUP_GONE) {
		memcpy(value, mapped_values(g, gr), g->hist_size);
		return;
	}
	memset(value, 0, g->hist_size);
	value[0] = gr->final[0];
	memcpy(value + 1 + gr->final_lo, gr->final + 1, gr->final_nr * sizeof(uint64_t));
}

static uint64_t values_count(const struct nsl_groups *g, const uint64_t *v)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < g->nr_slots; b++)
		n += v[1 + b];
	return n;
}

enum { GONE, EXISTS, UNKNOWN };

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
static int ifindex_exists(struct nsl_groups *g, struct nsl_group *gr)
{
	struct ifreq ifr = { .ifr_ifindex = gr->key.ifindex };

	if (g->c.ifname_fd < 0 || (g->c.group_netns && gr->key.netns != g->c.own_netns))
		return UNKNOWN;
	if (!ioctl(g->c.ifname_fd, SIOCGIFNAME, &ifr)) {
		snprintf(gr->ifname, sizeof(gr->ifname), "%s", ifr.ifr_name);
		return EXISTS;
	}
	return errno == ENODEV ? GONE : UNKNOWN;
}

static int group_exists(struct nsl_groups *g, struct nsl_group *gr)
{
	int cg = EXISTS, ifc = EXISTS;

	if (g->c.group_cgroup && gr->key.cgroup)
		cg = cgroup_exists(g, gr);
	if (g->c.group_ifindex && gr->key.ifindex)
		ifc = ifindex_exists(g, gr);
	else if (g->c.group_netns && gr->key.netns != g->c.own_netns)
		ifc = UNKNOWN;	/* no interface, another namespace */
	if (cg == GONE || ifc == GONE)
		return GONE;
	return cg == UNKNOWN || ifc == UNKNOWN ? UNKNOWN : EXISTS;
}

static int add_gone(struct nsl_groups *g, struct nsl_group *gr)
{
	if (g->nr_gone == g->cap_gone) {
		size_t cap = g->cap_gone ? g->cap_gone * 2 : 16;
		/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
		void *p = realloc(g->gone, cap * sizeof(*g->gone));

		if (!p)
			return -ENOMEM;
		g->gone = p;
		g->cap_gone = cap;
	}
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
static int reclaim(struct nsl_groups *g, struct nsl_group *gr,
		   const struct timespec *now)
{
	const uint64_t *v = mapped_values(g, gr);
	uint32_t id = gr->id;

	if (gr->gone_tick >= g->tick)
		return 0;
	/* a grace period since its key went, or else a time */
	if (gr->gone_tick >= g->graced_tick && nsl_seconds_between(&gr->gone_at, now) < RETIRE_WAIT_S)
		return 0;
	/* only the slots that hold samples: thousands of them may be kept */
	gr->final_nr = nsl_slot_range(v + 1, g->nr_slots, &gr->final_lo);
	gr->final = malloc((1 + gr->final_nr) * sizeof(uint64_t));
	if (!gr->final || add_gone(g, gr)) {
		free(gr->final);
		gr->final = NULL;
		return -ENOMEM;
	}
	gr->final[0] = v[0];
	memcpy(gr->final + 1, v + 1 + gr->final_lo, gr->final_nr * sizeof(uint64_t));
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
static void prune_gone(struct nsl_groups *g, const struct timespec *now)
{
	size_t n = 0;

	while (n < g->nr_gone && g->gone[n]->reclaim_tick < g->tick &&
	       (g->nr_gone - n > g->c.max ||
		nsl_seconds_between(&g->gone[n]->gone_at, now) >= g->c.keep_s))
		group_free(g->gone[n++]);
	if (!n)
		return;
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	memmove(g->gone, g->gone + n, (g->nr_gone - n) * sizeof(*g->gone));
	g->nr_gone -= n;
}

/* A LIVE group of key, holding id, in by_id; NULL when out of memory. */
static struct nsl_group *new_group(struct nsl_groups *g, const struct nsl_group_key *key,
				   uint32_t id, const struct timespec *now)
{
	struct nsl_group *gr = calloc(1, sizeof(*gr));

	if (!gr)
		return NULL;
	gr->key = *key;
	gr->id = id;
	gr->serial = ++g->serial;
	gr->state = NSL_GROUP_LIVE;
	gr->active = *now;
	gr->active_tick = g->tick;
	if (g->c.group_cgroup && key->cgroup)
		gr->cgroup_path = nsl_cgroup_path(key->cgroup, false);
	if (g->c.group_ifindex && key->ifindex)
		ifindex_exists(g, gr);	/* its name */
	g->by_id[id] = gr;
	return gr;
}

/* New keys in group_ids: new groups (their ids were free until now). */
static int learn_new(struct nsl_groups *g, const struct timespec *now)
{
	struct nsl_group_key key, next;
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
		if (!new_group(g, &key, id, now))
			return -ENOMEM;
	}
	return err == -ENOENT ? 0 : err;
}

/* map_full of every hook, summed over the CPUs. */
static uint64_t map_full_total(struct nsl_groups *g)
{
	int ncpus = libbpf_num_possible_cpus();
	struct nsl_counters *v;
	uint64_t total = 0;

	if (ncpus <= 0 || !(v = calloc(ncpus, sizeof(*v))))
		return 0;
	for (__u32 h = 0; h < NSL_NR_HOOKS; h++)
		if (!bpf_map_lookup_elem(g->c.counters_fd, &h, v))
			for (int c = 0; c < ncpus; c++)
				total += v[c].cnt[NSL_CNT_MAP_FULL];
	free(v);
	return total;
}

void nsl_groups_grace(struct nsl_groups *g)
{
	static bool refused;

	/* only this thread writes retiring and tick: read without the lock */
	if (!g->retiring || refused)
		return;
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) {
		g->graced_tick = g->tick + 1;	/* the groups retired before it */
		return;
	}
	refused = true;
	pr_debug("membarrier(MEMBARRIER_CMD_GLOBAL): %s; groups are reclaimed after "
		 "%.1f s instead of a grace period\n", strerror(errno), RETIRE_WAIT_S);
}

/*
 * Retires a LIVE group: its key deleted from group_ids (new samples of the
 * key make a new group, with a new id), RETIRING until its reclaim.
 * False if the key could not be deleted (it stays LIVE).
 */
static void set_retiring(struct nsl_groups *g, struct nsl_group *gr, const struct timespec *now)
{
	gr->state = NSL_GROUP_RETIRING;
	gr->gone_tick = g->tick;
	gr->gone_at = *now;
}

static bool retire(struct nsl_groups *g, struct nsl_group *gr, const struct timespec *now)
{
	if (bpf_map_delete_elem(g->c.ids_fd, &gr->key) && errno != ENOENT)
		return false;
	set_retiring(g, gr, now);
	return true;
}

/*
 * -I -n -1: the groups of dead namespaces, told by the BPF side after the
 * kernel's teardown (bpf/netns_gone.bpf.h), keys already deleted: retired
 * now, as a gone interface's, whatever --group-idle says. One that lived
 * less than a tick is learnt here, with what it recorded. Its key may
 * already serve a new namespace that got the inode number, under another
 * id: that one is left alone (the key is deleted only where it still
 * holds this id: the BPF side's delete failed).
 */
static int retire_dead_netns(struct nsl_groups *g, const struct timespec *now)
{
	struct nsl_gone_group d;

	if (g->c.gone_fd < 0)
		return 0;
	while (!bpf_map_lookup_and_delete_elem(g->c.gone_fd, NULL, &d)) {
		struct nsl_group *gr;
		__u32 id;

		if (d.id >= g->c.max)
			continue;
		gr = g->by_id[d.id];
		if (!gr && !(gr = new_group(g, &d.key, d.id, now)))
			return -ENOMEM;
		if (gr->state != NSL_GROUP_LIVE || memcmp(&gr->key, &d.key, sizeof(d.key)) != 0)
			continue;
		if (!bpf_map_lookup_elem(g->c.ids_fd, &d.key, &id) && id == d.id)
			retire(g, gr, now);
		else
			set_retiring(g, gr, now);
	}
	return errno == ENOENT ? 0 : -errno;
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
#define EVICT_IDLE_TICKS 2

static void evict(struct nsl_groups *g, uint64_t want, const struct timespec *now)
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
		if (!retire(g, idle[i], now))
			continue;
		g->evicted++;
		g->live--;
	}
	free(idle);
}

int nsl_groups_tick(struct nsl_groups *g)
{
	uint64_t full;
	struct timespec now;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	g->tick++;
	nsl_cgroup_names_tick();
	for (uint32_t id = 0; id < g->c.max && !err; id++)
		if (g->by_id[id] && g->by_id[id]->state == NSL_GROUP_RETIRING)
			err = reclaim(g, g->by_id[id], &now);
	prune_gone(g, &now);
	if (!err)
		err = learn_new(g, &now);
	if (!err)
		err = retire_dead_netns(g, &now);
	g->live = g->retiring = 0;
	for (uint32_t id = 0; id < g->c.max; id++) {
		struct nsl_group *gr = g->by_id[id];
		uint64_t n;
		int e;

		if (!gr || gr->state != NSL_GROUP_LIVE)
			continue;
		n = values_count(g, mapped_values(g, gr));
		/* a group that records is never reclaimed: it exists, or did */
		if (n != gr->count) {
			if (g->c.group_ifindex && gr->key.ifindex)
				ifindex_exists(g, gr);	/* renamed? */
			gr->count = n;
			gr->active = now;
			gr->active_tick = g->tick;
			g->live++;
			continue;
		}
		e = group_exists(g, gr);
		if (e == EXISTS || (e == UNKNOWN &&
				    nsl_seconds_between(&gr->active, &now) < g->c.idle_s)) {
			g->live++;
			continue;
		}
		if (!retire(g, gr, &now))
			g->live++;
	}
	full = map_full_total(g);
	if (full > g->map_full)
		evict(g, full - g->map_full, &now);
	g->map_full = full;
	for (uint32_t id = 0; id < g->c.max; id++)
		g->retiring += g->by_id[id] && g->by_id[id]->state == NSL_GROUP_RETIRING;
	if (!g->full_warned && full) {
		g->full_warned = true;
		pr_warn("warning: the %u group histograms are full (%u live groups): "
			"samples of new groups are counted as map_full until groups idle "
			"for %d intervals yield theirs; --max-groups raises the limit\n",
			g->c.max, g->live, EVICT_IDLE_TICKS);
	}
	return err;
}
