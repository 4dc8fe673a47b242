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
#include "report.h"

struct nsl_reader {
	int hist_fd, group_fd, counters_fd;
	int ifname_fd;				/* SIOCGIFNAME socket, or -1 */
	int ncpus;
	bool grouped;
	bool cumulative;
	bool group_ifindex, group_cgroup;
	bool hook_enabled[NSL_NR_HOOKS];
	struct nsl_hist *percpu;		/* lookup buffer, ncpus entries */
	struct nsl_counters *percpu_cnt;
	struct nsl_report_hist *prev, *cur, *out; /* totals, totals, report */
	size_t nr_prev, nr_cur, cap;
	uint64_t prev_counters[NSL_NR_HOOKS][NSL_NR_COUNTERS];
	struct timespec start, last;		/* CLOCK_MONOTONIC */
};

int nsl_reader_init(struct nsl_reader *r, int hist_fd, int group_fd,
		    int counters_fd, const bool *hook_enabled, bool group_ifindex,
		    bool group_cgroup, bool cumulative, int ifname_fd);
/* Fills *rep; its arrays stay valid until the next call. */
int nsl_reader_read(struct nsl_reader *r, struct nsl_report *rep);
void nsl_reader_free(struct nsl_reader *r);

#endif /* NSL_READER_H */
