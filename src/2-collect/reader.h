/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reader: turns the BPF maps (cumulative, per CPU) into a report: summed
 * over CPUs, as deltas since the previous report unless cumulative, sorted,
 * with interface and cgroup names attached.
 */
#ifndef NSL_READER_H
#define NSL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "groups.h"
#include "hooks.h"
#include "histset.h"
#include "report.h"
#include "walkns.h"

/* The maps a reader reads (bpf/netstacklat.bpf.c) and their layout. */
struct nsl_reader_maps {
	int hist_fd, group_ids_fd, group_hist_fd, counters_fd;
	/*
	 * The standing hooks' walks (nsl_walks[]): each one's iterator
	 * link, or -1; the thread that makes the sockets' walks in -n
	 * PATH's namespace (NULL: the reader makes them, in its own); and
	 * the BPF side's round of walks (nsl_walk_round), bumped before each
	 * report's.
	 */
	int walk_fds[NSL_NR_WALKS];
	struct nsl_walkns *walk_thread;
	volatile uint32_t *walk_round;
	/*
	 * When the last report's walks began (CLOCK_MONOTONIC ns,
	 * nsl_report_ns): no run a look finds starts before it
	 */
	volatile uint64_t *report_ns;
	uint32_t groups;			/* entries of the grouped maps */
	bool group_netns;			/* -I with -n -1 */
	unsigned int schema;			/* of every histogram */
	uint32_t sample_every;			/* --sample N, for the reports */
};

struct nsl_reader {
	struct nsl_reader_maps m;
	int ncpus;
	unsigned int nr_slots;
	size_t hist_size;			/* bytes of a histogram value */
	bool grouped;
	bool cumulative;
	bool group_ifindex, group_cgroup;
	bool hook_enabled[NSL_NR_HISTS];	/* per histogram */
	void *percpu;				/* lookup buffer, ncpus values */
	struct nsl_groups *groups;		/* grouped: the table of groups */
	/*
	 * Gone groups: shown once (the report that finds them gone, and the
	 * one after, if their last samples came late); Prometheus readers
	 * keep them keep_gone_s, and one series per label set.
	 */
	double keep_gone_s;
	bool unique_keys;
	uint64_t seen_tick;			/* groups->tick at the last read */
	uint64_t prev_reclaimed, prev_evicted;
	struct nsl_counters *percpu_cnt;
	uint64_t *dense;			/* a histogram value: its head, then every slot */
	/*
	 * Totals of the last read and of this one, and this report's
	 * deltas (a cumulative report points into cur: its slots stay).
	 */
	struct nsl_hist_set prev, cur, out;
	uint64_t prev_counters[NSL_NR_HOOKS][NSL_NR_COUNTERS];
	/*
	 * The walks' failures, counted into the hooks each serves
	 * (walk_failed), whether each failure was said yet, and the test
	 * seam's failures still to come (NSL_TEST_FAIL_WALK)
	 */
	uint64_t walk_failed[NSL_NR_HOOKS];
	bool walk_said[NSL_NR_WALKS];
	unsigned int walk_test_fail[NSL_NR_WALKS];
	/* the group keys of the sockets standing, from the last walk */
	struct nsl_group_key *standing;
	size_t nr_standing, cap_standing;
	struct timespec start, last;		/* CLOCK_MONOTONIC */
	const struct nsl_hook_status *status;	/* given to every report */
};

/*
 * Sets up a reader of the maps m, and of the groups g when grouping (the
 * caller holds g's lock around nsl_reader_read() and the formatting of
 * its report). 0 or a negative errno.
 */
int nsl_reader_init(struct nsl_reader *r, const struct nsl_reader_maps *m,
		    const bool *hook_enabled, bool group_ifindex,
		    bool group_cgroup, bool cumulative, struct nsl_groups *g);
/* Fills *rep; its arrays stay valid until the next call. */
int nsl_reader_read(struct nsl_reader *r, struct nsl_report *rep);
void nsl_reader_free(struct nsl_reader *r);

#endif /* NSL_READER_H */
