/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The way out of the table of groups (groups.h): whether a group's cgroup
 * or interface still exists, retiring it (RETIRING), reclaiming it a tick
 * later (GONE), dropping the final totals no reader needs and evicting
 * idle groups from a full table. Called by groups.c, never calling back.
 */
#ifndef NSL_RETIRE_H
#define NSL_RETIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "groups.h"

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

/* Ticks without a sample after which a LIVE group may be evicted. */
#define EVICT_IDLE_TICKS 2

/* What nsl_group_exists() and nsl_ifindex_exists() find. */
enum { GONE, EXISTS, UNKNOWN };

/* Frees a group and what it holds; NULL: nothing. */
void nsl_group_free(struct nsl_group *gr);
/* A LIVE or RETIRING group's histogram, group_hist[id], in the mapping. */
const uint64_t *nsl_mapped_values(const struct nsl_groups *g,
				  const struct nsl_group *gr);
/* -I: whether gr's interface exists; if so, gr takes its name now. */
int nsl_ifindex_exists(struct nsl_groups *g, struct nsl_group *gr);
/* Whether gr's cgroup and interface exist: GONE, EXISTS or UNKNOWN. */
int nsl_group_exists(struct nsl_groups *g, struct nsl_group *gr);
/* A RETIRING group made GONE once due, its id freed. 0 or -errno. */
int nsl_reclaim(struct nsl_groups *g, struct nsl_group *gr,
		const struct timespec *now);
/* Frees the GONE groups that no reader needs any more. */
void nsl_prune_gone(struct nsl_groups *g, const struct timespec *now);
/* gr RETIRING from this tick on (its key already deleted). */
void nsl_set_retiring(struct nsl_groups *g, struct nsl_group *gr,
		      const struct timespec *now);
/*
 * Deletes gr's key, then RETIRING; false if the key stays or another
 * deleted it (the walk of dead namespaces: its id is the drain's); gr
 * stays LIVE then.
 */
bool nsl_retire(struct nsl_groups *g, struct nsl_group *gr, const struct timespec *now);
/* A full table: up to want groups idle longest retired (and counted). */
void nsl_evict(struct nsl_groups *g, uint64_t want, const struct timespec *now);

#endif /* NSL_RETIRE_H */
