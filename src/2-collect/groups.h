/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The life of groups (-I/-C) on a host where cgroups, interfaces and
 * network namespaces come and go (issue #23). The BPF side gives a new
 * group key a free id (bpf/group_id.bpf.h); once per report interval
 * nsl_groups_learn() finds and names the new groups (without the lock)
 * and nsl_groups_tick() adds them to the table, and reclaims the ones whose
 * cgroup or interface no longer exists (or, where that cannot be checked,
 * that stayed idle for --group-idle seconds):
 *
 *   tick k:   the group had no sample since tick k-1 and is gone: its key
 *             is deleted from group_ids (new samples of that key make a
 *             new group, with another id), it is RETIRING; reports name
 *             it gone, with what it recorded up to now.
 *   tick k+1: no BPF program can still be adding to group_hist[id] (see
 *             nsl_groups_tick()): its final totals are copied out (GONE),
 *             the histogram zeroed and the id pushed back on free_ids.
 *
 * So an id serves a new group only once its histogram is zero, and no
 * count of the old group can land in the new one. GONE groups' final
 * totals stay for --series-grace seconds (Prometheus series end then).
 *
 * The readers (reports, /metrics) read through this table; the report
 * loop and the jail's thread (/metrics) take its lock around read and
 * format. Only the report loop's thread changes the table (by_id, the
 * groups in it): it reads them without the lock, and takes the lock to
 * change them.
 */
#ifndef NSL_GROUPS_H
#define NSL_GROUPS_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <net/if.h>
#include "netstacklat.h"
#include "namer.h"

enum nsl_group_state {
	NSL_GROUP_LIVE,
	NSL_GROUP_RETIRING,	/* key deleted; id and histogram not yet free */
	NSL_GROUP_GONE,		/* reclaimed: only its final totals are left */
};

struct nsl_group {
	struct nsl_group_key key;
	uint64_t serial;		/* unique for the run: a group is (key, serial) */
	uint32_t id;			/* its histogram: group_hist[id] */
	enum nsl_group_state state;
	uint64_t count;			/* values_recorded() at the last tick */
	struct timespec active;		/* CLOCK_MONOTONIC of the last tick it grew */
	uint64_t active_tick;		/* ... and that tick */
	uint64_t gone_tick;		/* tick that found it gone */
	uint64_t reclaim_tick;		/* tick that reclaimed it */
	struct timespec gone_at;	/* CLOCK_MONOTONIC */
	char *cgroup_path;		/* -C: under the cgroup2 mount; NULL: unknown */
	/* -C: its container, named when the group was first seen; NULL: none */
	struct nsl_container *container;
	/* -C: a path first found at a tick, for the next to name (groups.c) */
	char *late_path;
	/*
	 * -I: the interface's name, learnt with the group and followed
	 * while the interface exists (a rename renames the group): a gone
	 * interface's final totals keep the name it had. "": unknown.
	 */
	char ifname[IF_NAMESIZE];
	/*
	 * GONE: its histogram's head (struct nsl_hist), then its slots
	 * final_lo .. final_lo + final_nr - 1
	 */
	uint64_t *final;
	unsigned int final_lo, final_nr;
};

/* What the table needs: the maps (bpf/netstacklat.bpf.c) and how to check groups. */
struct nsl_groups_conf {
	int ids_fd, hist_fd, free_fd, counters_fd;
	int gone_fd;			/* -I -n -1: dead namespaces' groups, or -1 */
	/* the BPF side's nsl_groups_gen, bumped after a delete of a key; or NULL */
	uint64_t *gen;
	/* --owner-quota (-I -n -1, -C): whose each id is, what owners gave back */
	bool owner_quota;
	int id_owner_fd, owner_released_fd;
	uint32_t max;			/* --max-groups */
	unsigned int schema;
	bool group_ifindex, group_cgroup;
	bool group_netns;		/* -I -n -1 */
	uint64_t own_netns;		/* where ifname_fd sees interfaces */
	int ifname_fd;			/* a socket there, or -1 */
	int links_fd;			/* a route netlink socket there (-I), or -1 */
	double idle_s;			/* --group-idle */
	double keep_s;			/* --series-grace */
};

/* A group's cgroup path and container, found late (groups.c), for the tick. */
struct nsl_late_name {
	uint32_t id;
	uint64_t serial;
	char *path;
	struct nsl_container *container;
};

struct nsl_groups {
	pthread_mutex_t lock;
	struct nsl_groups_conf c;
	struct nsl_namer namer;		/* names the groups' containers */
	uint64_t self_netns;		/* the namer's (the tool's) network namespace */
	const void *hist;		/* group_hist, mapped read-only */
	size_t hist_len, hist_size;
	unsigned int nr_slots;
	bool cgroup_tree_whole;		/* the cgroup2 mount shows every cgroup */
	struct nsl_group **by_id;	/* LIVE and RETIRING groups, by id */
	struct nsl_group **gone;	/* GONE groups, oldest first */
	size_t nr_gone, cap_gone;
	uint64_t tick, serial;
	uint64_t reclaimed;		/* groups reclaimed since start */
	uint64_t evicted;		/* ... of them evicted to make room */
	uint64_t map_full;		/* map_full at the last tick */
	uint32_t live;			/* LIVE groups after the last tick */
	uint32_t retiring;		/* RETIRING groups after the last tick */
	uint64_t graced_tick;		/* the tick before which nsl_groups_grace() waited */
	uint64_t drain_from;		/* test seam: NSL_TEST_DRAIN_FROM_TICK */
	bool full_warned;
	/* nsl_groups_learn()'s, for the tick: new groups, named; dead namespaces' */
	struct nsl_group **fresh;
	size_t nr_fresh, cap_fresh;
	struct nsl_gone_group *dead;
	size_t nr_dead, cap_dead;
	struct nsl_late_name *late;	/* groups named late: path and container */
	size_t nr_late, cap_late;
	int learn_err;
	void *zero;			/* a zeroed histogram value */
};

/* Maps the histograms (before privileges are dropped). 0 or -errno. */
int nsl_groups_init(struct nsl_groups *g, const struct nsl_groups_conf *c);
void nsl_groups_free(struct nsl_groups *g);

/*
 * -C, -I: the namer (namer.h), started while the tool is root, before
 * it drops its privileges; without it the tool names what its own
 * privileges let it. 0 or -errno.
 */
int nsl_groups_start_namer(struct nsl_groups *g);
/*
 * Before nsl_groups_tick(), without the lock, in the same thread: when
 * groups retired at an earlier tick are due, waits for an RCU grace
 * period, after which no BPF program can still add to their histograms.
 */
void nsl_groups_grace(struct nsl_groups *g);
/*
 * Before nsl_groups_tick(), without the lock, in the same thread: learns
 * the new groups and names them (the namer may take seconds: a walk of
 * /proc, the runtimes' state), for the tick to add to the table. So
 * /metrics, which takes the lock, is never held up by naming; and a
 * group is in the table only once named: its labels never change. 0 or
 * -errno (the tick returns it too).
 */
int nsl_groups_learn(struct nsl_groups *g);
/* Once per report interval, with the lock held. 0 or -errno. */
int nsl_groups_tick(struct nsl_groups *g);
void nsl_groups_lock(struct nsl_groups *g);
void nsl_groups_unlock(struct nsl_groups *g);
/*
 * The values of a group into value (a histogram value of the schema:
 * sum_ns, then every slot): a snapshot of its histogram, or a gone
 * group's final totals.
 */
void nsl_group_values(const struct nsl_groups *g, const struct nsl_group *gr,
		      uint64_t *value);

#endif /* NSL_GROUPS_H */
