// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "bpfstats.h"
#include "loader.h"
#include "netstacklat.skel.h"

/*
 * The kernel counts run_cnt and run_time_ns only while at least one
 * BPF_ENABLE_STATS fd is open (the bpf_stats_enabled_key static key), so
 * holding the fd ties the extra cost (two clock reads per program run) to
 * our lifetime, unlike the kernel.bpf_stats_enabled sysctl, which a crash
 * would leave on.
 */
int nsl_bpfstats_init(struct nsl_bpfstats *s, const struct nsl_loader *l,
		      bool cumulative)
{
	memset(s, 0, sizeof(*s));
	s->cumulative = cumulative;
	s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (s->stats_fd < 0)
		return -errno;
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_candidate *c = nsl_loader_chosen(l, h);

		for (int i = 0; c && i < NSL_MAX_PROGS && c->progs[i]; i++) {
			struct bpf_program *p = bpf_object__find_program_by_name(
				l->skel->obj, c->progs[i]);

			/* a shared program once, with all its hooks */
			if (!p || s->nr == NSL_MAX_PROG_COSTS ||
			    !nsl_loader_prog_owner(l, h, c->progs[i]))
				continue;
			s->prog_fd[s->nr] = bpf_program__fd(p);
			s->prev[s->nr].hooks = nsl_loader_prog_hooks(l, c->progs[i]);
			snprintf(s->prev[s->nr].prog, sizeof(s->prev[s->nr].prog),
				 "%s", c->progs[i]);
			s->nr++;
		}
	}
	return 0;
}

int nsl_bpfstats_read(struct nsl_bpfstats *s, struct nsl_report *r)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct nsl_prog_cost *c = &r->costs[i];

		if (bpf_obj_get_info_by_fd(s->prog_fd[i], &info, &len))
			return -errno;
		*c = s->prev[i];
		c->run_cnt = info.run_cnt;
		c->run_time_ns = info.run_time_ns;
		if (!s->cumulative) {
			c->run_cnt -= s->prev[i].run_cnt;
			c->run_time_ns -= s->prev[i].run_time_ns;
		}
		s->prev[i].run_cnt = info.run_cnt;
		s->prev[i].run_time_ns = info.run_time_ns;
	}
	r->nr_costs = s->nr;
	r->bpf_stats = true;
	return 0;
}

void nsl_bpfstats_close(struct nsl_bpfstats *s)
{
	if (s->stats_fd > 0)
		close(s->stats_fd);
	s->stats_fd = -1;
}
