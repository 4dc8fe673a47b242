// SPDX-License-Identifier: GPL-2.0-only
/*
 * Group lifecycle: see groups.h for the states and docs/hooks.md
 * ("Groups that come and go") for what is relied on in the kernel.
 * Here the table and its tick; what comes in, learnt and named outside
 * the lock, is in learn.c; the way out of it (retire, reclaim, evict) is
 * in retire.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "groups.h"
#include "retire.h"
#include "hist.h"
#include "log.h"
#include "cgnames.h"
#include "clock.h"
#include "targets.h"

int nsl_groups_init(struct nsl_groups *g, const struct nsl_groups_conf *c)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *root = nsl_cgroup2_root();
	const char *drain;
	struct stat st;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->c = *c;
	g->namer.fd = -1;
	g->namer.links_fd = c->links_fd;
	g->nr_slots = nsl_nr_slots(c->schema);
	g->hist_size = nsl_hist_size(c->schema);
	/* the cgroup2 root's id is 1: then every cgroup is under the mount */
	g->cgroup_tree_whole = root && !stat(root, &st) && st.st_ino == 1;
	/* an array of pointers: NOLINTNEXTLINE(bugprone-sizeof-expression) */
	g->by_id = calloc(c->max, sizeof(*g->by_id));
	g->zero = calloc(1, g->hist_size);
	if (!g->by_id || !g->zero)
		return -ENOMEM;
	/*
	 * Test seam: NSL_TEST_DRAIN_FROM_TICK=N leaves the dead namespaces'
	 * queue undrained until tick N, so that a test can retire a group
	 * between the walk's delete and the drain, as a slow tick may
	 * (tests/integration/test_groups.sh, test_dead_netns_retired_once).
	 */
	drain = getenv("NSL_TEST_DRAIN_FROM_TICK");
	if (drain)
		g->drain_from = strtoull(drain, NULL, 10);
	/* an mmapable array's values lie one after the other from offset 0 */
	g->hist_len = ((size_t)c->max * g->hist_size + page - 1) / page * page;
	g->hist = mmap(NULL, g->hist_len, PROT_READ, MAP_SHARED, c->hist_fd, 0);
	if (g->hist == MAP_FAILED) {
		g->hist = NULL;
		return -errno;
	}
	return 0;
}

void nsl_groups_free(struct nsl_groups *g)
{
	nsl_namer_stop(&g->namer);
	if (g->by_id)
		for (uint32_t id = 0; id < g->c.max; id++)
			nsl_group_free(g->by_id[id]);
	for (size_t i = 0; i < g->nr_gone; i++)
		nsl_group_free(g->gone[i]);
	for (size_t i = 0; i < g->nr_fresh; i++)
		nsl_group_free(g->fresh[i]);
	for (size_t i = 0; i < g->nr_late; i++) {
		free(g->late[i].path);
		nsl_container_free(g->late[i].container);
	}
	free(g->late);
	free(g->fresh);
	free(g->dead);
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

void nsl_group_values(const struct nsl_groups *g, const struct nsl_group *gr,
		      uint64_t *value)
{
	if (gr->state != NSL_GROUP_GONE) {
		memcpy(value, nsl_mapped_values(g, gr), g->hist_size);
		return;
	}
	memset(value, 0, g->hist_size);
	memcpy(value, gr->final, NSL_HIST_HEAD * sizeof(uint64_t));
	memcpy(value + NSL_HIST_HEAD + gr->final_lo, gr->final + NSL_HIST_HEAD,
	       gr->final_nr * sizeof(uint64_t));
}

/*
 * What a histogram value has recorded, as a number that grows with every
 * sample, and with a standing hook's standing time and episodes begun.
 */
static uint64_t values_recorded(const struct nsl_groups *g, const uint64_t *v)
{
	uint64_t n = v[NSL_HIST_STANDING_NS] + v[NSL_HIST_STANDING_BEGUN];

	for (unsigned int b = 0; b < g->nr_slots; b++)
		n += v[NSL_HIST_HEAD + b];
	return n;
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

/* The groups drained by drain_dead_netns(), retired now. */
static void retire_dead_netns(struct nsl_groups *g, const struct timespec *now)
{
	for (size_t i = 0; i < g->nr_dead; i++) {
		const struct nsl_gone_group *d = &g->dead[i];
		struct nsl_group *gr = g->by_id[d->id];

		if (!gr || gr->state != NSL_GROUP_LIVE ||
		    memcmp(&gr->key, &d->key, sizeof(d->key)) != 0)
			continue;	/* cannot be: the id is ours, and unused since */
		nsl_set_retiring(g, gr, now);
	}
	g->nr_dead = 0;
}

/* The groups nsl_groups_learn() found, in the table from now on. */
static void add_learnt(struct nsl_groups *g, const struct timespec *now)
{
	for (size_t i = 0; i < g->nr_fresh; i++) {
		struct nsl_group *gr = g->fresh[i];

		if (g->by_id[gr->id]) {	/* cannot be: only this thread adds */
			nsl_group_free(gr);
			continue;
		}
		gr->serial = ++g->serial;
		gr->active = *now;
		gr->active_tick = g->tick;
		g->by_id[gr->id] = gr;
	}
	g->nr_fresh = 0;
	/* the same group still (a gone one has left by_id), still unnamed */
	for (size_t i = 0; i < g->nr_late; i++) {
		struct nsl_late_name *l = &g->late[i];
		struct nsl_group *gr = g->by_id[l->id];

		if (gr && gr->serial == l->serial && !gr->cgroup_path && !gr->container) {
			gr->cgroup_path = l->path;
			gr->container = l->container;
			continue;
		}
		free(l->path);
		nsl_container_free(l->container);
	}
	g->nr_late = 0;
}

int nsl_groups_tick(struct nsl_groups *g)
{
	uint64_t full;
	struct timespec now;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	g->tick++;
	for (uint32_t id = 0; id < g->c.max && !err; id++)
		if (g->by_id[id] && g->by_id[id]->state == NSL_GROUP_RETIRING)
			err = nsl_reclaim(g, g->by_id[id], &now);
	nsl_prune_gone(g, &now);
	add_learnt(g, &now);
	retire_dead_netns(g, &now);
	if (!err)
		err = g->learn_err;
	g->learn_err = 0;
	g->live = g->retiring = 0;
	for (uint32_t id = 0; id < g->c.max; id++) {
		struct nsl_group *gr = g->by_id[id];
		uint64_t n;
		int e;

		if (!gr || gr->state != NSL_GROUP_LIVE)
			continue;
		n = values_recorded(g, nsl_mapped_values(g, gr));
		/* a group that records is never reclaimed: it exists, or did */
		if (n != gr->count) {
			if (g->c.group_ifindex && gr->key.ifindex)
				nsl_ifindex_exists(g, gr);	/* renamed? */
			gr->count = n;
			gr->active = now;
			gr->active_tick = g->tick;
			g->live++;
			continue;
		}
		e = nsl_group_exists(g, gr);
		if (e == EXISTS || (e == UNKNOWN &&
				    nsl_seconds_between(&gr->active, &now) < g->c.idle_s)) {
			g->live++;
			continue;
		}
		if (!nsl_retire(g, gr, &now))
			g->live++;
	}
	full = map_full_total(g);
	if (full > g->map_full)
		nsl_evict(g, full - g->map_full, &now);
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
