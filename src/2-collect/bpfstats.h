/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel counts for each attached program (struct bpf_prog_info):
 * the runs it skipped as recursion (recursion_misses), always; and with
 * --bpf-stats what the tool costs (run_cnt, run_time_ns).
 */
#ifndef NSL_BPFSTATS_H
#define NSL_BPFSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include "report.h"

struct nsl_loader;

struct nsl_bpfstats {
	int stats_fd;			/* BPF_ENABLE_STATS: counting while open */
	bool run_time;			/* --bpf-stats: run_cnt, run_time_ns */
	bool cumulative;
	size_t nr;
	int prog_fd[NSL_MAX_REPORT_PROGS];
	struct nsl_prog_stat prev[NSL_MAX_REPORT_PROGS];
};

/*
 * Notes the programs of the attached hooks and, if run_time, turns the
 * kernel's BPF run-time statistics on for as long as we run. Returns 0 or
 * a negative errno (only run_time can fail).
 */
int nsl_bpfstats_init(struct nsl_bpfstats *s, const struct nsl_loader *l,
		      bool cumulative, bool run_time);
/*
 * Fills r->progs (deltas since the last call unless cumulative): one
 * BPF_OBJ_GET_INFO_BY_FD per program.
 */
int nsl_bpfstats_read(struct nsl_bpfstats *s, struct nsl_report *r);
void nsl_bpfstats_close(struct nsl_bpfstats *s);

#endif /* NSL_BPFSTATS_H */
