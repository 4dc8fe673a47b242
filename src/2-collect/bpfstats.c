// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "bpfstats.h"
#include "loader.h"
#include "netstacklat.skel.h"

/*
 * recursion_misses, as read in the kernel's source (v5.10 to v6.18):
 *
 * - The kernel does not run a program again on a CPU where it is already
 *   running (prog->active): the trampoline's __bpf_prog_enter_recur()
 *   (__bpf_prog_enter() before v6.1) for fentry/fexit since v5.12
 *   (ca06f55b9), and __bpf_trace_run() for raw tracepoints, tp_btf
 *   included, since v6.1 (05b24ff9b2cf, also in 6.0.10). Each skipped run
 *   is counted by bpf_prog_inc_misses_counter() (kernel/bpf/syscall.c),
 *   unconditionally: unlike run_cnt and run_time_ns it does not wait for
 *   bpf_stats_enabled_key, so no BPF_ENABLE_STATS fd is needed for it.
 *   Netfilter programs run straight from nf_hook_slow() (bpf_prog_run()
 *   in nf_hook_run_bpf()): never skipped, their count stays 0.
 * - Where there is no such check (tp_btf before v6.1, everything before
 *   v5.12), a nested run runs: nothing is skipped, 0 is the truth.
 * - bpf_prog_get_info_by_fd() fills recursion_misses before its
 *   bpf_capable() check: it reads after we dropped our capabilities too.
 *   The field is there since v5.12 (9ed9e9ba2337); an older kernel
 *   returns a shorter info_len, and the count is unavailable.
 */
#define RECURSION_END (offsetof(struct bpf_prog_info, recursion_misses) + \
		       sizeof(((struct bpf_prog_info *)0)->recursion_misses))

/*
 * The kernel counts run_cnt and run_time_ns only while at least one
 * BPF_ENABLE_STATS fd is open (the bpf_stats_enabled_key static key), so
 * holding the fd ties the extra cost (two clock reads per program run) to
 * our lifetime, unlike the kernel.bpf_stats_enabled sysctl, which a crash
 * would leave on.
 */
int nsl_bpfstats_init(struct nsl_bpfstats *s, const struct nsl_loader *l,
		      bool cumulative, bool run_time)
{
	memset(s, 0, sizeof(*s));
	s->cumulative = cumulative;
	s->run_time = run_time;
	s->stats_fd = -1;
	if (run_time && (s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0)
		return -errno;
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_candidate *c = nsl_loader_chosen(l, h);

		for (int i = 0; c && i < NSL_MAX_PROGS && c->progs[i]; i++) {
			struct bpf_program *p = bpf_object__find_program_by_name(
				l->skel->obj, c->progs[i]);

			/* a shared program once, with all its hooks */
			if (!p || s->nr == NSL_MAX_REPORT_PROGS ||
			    !nsl_loader_prog_owner(l, h, c->progs[i]))
				continue;
			s->prog_fd[s->nr] = bpf_program__fd(p);
			s->prev[s->nr].hooks = nsl_loader_prog_hooks(l, c->progs[i]);
			snprintf(s->prev[s->nr].prog, sizeof(s->prev[s->nr].prog),
				 "%s", c->progs[i]);
			s->nr++;
		}
	}
	/* the standing hooks' walks, run by the reader at each report */
	for (int w = 0; w < NSL_NR_WALKS && s->nr < NSL_MAX_REPORT_PROGS; w++) {
		if (!l->walk_links[w])
			continue;
		s->prog_fd[s->nr] = bpf_program__fd(bpf_object__find_program_by_name(
			l->skel->obj, nsl_walks[w].prog));
		s->prev[s->nr].hooks = nsl_walks[w].hooks;
		snprintf(s->prev[s->nr].prog, sizeof(s->prev[s->nr].prog), "%s",
			 nsl_walks[w].prog);
		s->nr++;
	}
	return 0;
}

/* *v becomes the count now, less the last one's unless cumulative. */
static void advance(uint64_t *v, uint64_t *prev, uint64_t now, bool cumulative)
{
	*v = cumulative ? now : now - *prev;
	*prev = now;
}

int nsl_bpfstats_read(struct nsl_bpfstats *s, struct nsl_report *r)
{
	bool counted = true;

	for (size_t i = 0; i < s->nr; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct nsl_prog_stat *c = &r->progs[i], *p = &s->prev[i];

		if (bpf_obj_get_info_by_fd(s->prog_fd[i], &info, &len))
			return -errno;
		c->hooks = p->hooks;
		memcpy(c->prog, p->prog, sizeof(c->prog));
		advance(&c->run_cnt, &p->run_cnt, info.run_cnt, s->cumulative);
		advance(&c->run_time_ns, &p->run_time_ns, info.run_time_ns, s->cumulative);
		advance(&c->recursion_misses, &p->recursion_misses,
			info.recursion_misses, s->cumulative);
		counted = counted && len >= RECURSION_END;
	}
	r->nr_progs = s->nr;
	r->bpf_stats = s->run_time;
	r->recursion = counted ? NSL_RECURSION_COUNTED : NSL_RECURSION_UNAVAILABLE;
	return 0;
}

void nsl_bpfstats_close(struct nsl_bpfstats *s)
{
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->stats_fd = -1;
}
