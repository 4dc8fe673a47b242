/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --bpf-stats: what the tool costs, per attached program, from the kernel's
 * own run-time statistics (bpf_prog_info.run_cnt/run_time_ns).
 */
#ifndef NSL_BPFSTATS_H
#define NSL_BPFSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include "report.h"

struct nsl_loader;

struct nsl_bpfstats {
	int stats_fd;			/* BPF_ENABLE_STATS: counting while open */
	bool cumulative;
	size_t nr;
	int prog_fd[NSL_MAX_PROG_COSTS];
	struct nsl_prog_cost prev[NSL_MAX_PROG_COSTS];
};

/*
 * Turns the kernel's BPF run-time statistics on for as long as we run and
 * notes the programs of the attached hooks. Returns 0 or a negative errno.
 */
int nsl_bpfstats_init(struct nsl_bpfstats *s, const struct nsl_loader *l,
		      bool cumulative);
/* Fills r->costs (deltas since the last call unless cumulative). */
int nsl_bpfstats_read(struct nsl_bpfstats *s, struct nsl_report *r);
void nsl_bpfstats_close(struct nsl_bpfstats *s);

#endif /* NSL_BPFSTATS_H */
