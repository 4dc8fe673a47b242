// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attaching: the filters resolved, the object loaded, the maps filled, the
 * clock set and RX timestamps on before any program runs; then each hook's
 * programs attached (netfilter links inside the target netns, the others
 * by libbpf), and the standing hooks' walks. And nsl_loader_close(),
 * which undoes all of it.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "hooks.h"
#include "loader.h"
#include "log.h"
#include "nflink.h"
#include "rxtstamp.h"
#include "setup.h"
#include "walkns.h"
#include "netstacklat.skel.h"

/*
 * A netfilter hook: the program on IPv4 and IPv6, in the target namespace
 * (netfilter links attach to the calling thread's current netns).
 */
static int attach_netfilter(struct nsl_loader *l, int h,
			    const struct nsl_candidate *c)
{
	static const int pfs[NSL_NF_LINKS] = { NSL_NFPROTO_IPV4, NSL_NFPROTO_IPV6 };
	struct bpf_program *p = bpf_object__find_program_by_name(l->skel->obj, c->progs[0]);
	/* INT_MIN and INT_MAX themselves are reserved (-ERANGE) */
	int hooknum = NSL_NF_INET_LOCAL_IN, edge = INT_MAX - 1, step = -1;
	int saved, err;

	if (c->nf_place == NSL_NF_PRE_ROUTING_FIRST) {
		hooknum = NSL_NF_INET_PRE_ROUTING;
		edge = INT_MIN + 1;
		step = 1;
	} else if (c->nf_place == NSL_NF_FORWARD_LAST) {
		hooknum = NSL_NF_INET_FORWARD;
	}
	err = nsl_enter_target_netns(l, &saved);
	if (err)
		return err;
	for (int i = 0; i < NSL_NF_LINKS && !err; i++) {
		int fd = nsl_nf_link_at_edge(bpf_program__fd(p), pfs[i], hooknum, edge, step);

		if (fd < 0) {
			err = fd;
			pr_warn("cannot attach %s (netfilter, %s): %s\n",
				nsl_hooks[h].name, i ? "IPv6" : "IPv4", strerror(-err));
		} else {
			l->hooks[h].nf_fds[i] = fd;
		}
	}
	return nsl_leave_target_netns(saved, err);
}

static int attach_hooks(struct nsl_loader *l)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		struct nsl_hook_state *hs = &l->hooks[h];
		const struct nsl_candidate *c = nsl_loader_chosen(l, h);
		/* a netfilter candidate's first program; any others are tracepoints */
		int first = 0;

		if (c && c->method == NSL_METHOD_NETFILTER) {
			int err = nsl_loader_prog_owner(l, h, c->progs[0]) ?
				attach_netfilter(l, h, c) : 0;

			if (err)
				return err;
			first = 1;
		}
		for (int i = first; c && i < NSL_MAX_PROGS && c->progs[i]; i++) {
			struct bpf_program *p = bpf_object__find_program_by_name(
				l->skel->obj, c->progs[i]);

			if (!nsl_loader_prog_owner(l, h, c->progs[i]))
				continue;
			hs->links[i] = bpf_program__attach(p);
			if (!hs->links[i]) {
				int err = -errno;

				pr_warn("cannot attach %s (%s): %s\n", nsl_hooks[h].name,
					c->progs[i], strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

/*
 * The standing hooks' walks (nsl_walks[]): the runs' walk over the socket
 * storage map, which libbpf cannot know; the sockets' walks as they are,
 * made at each report in the namespace -n selects: ours (the reader's
 * thread), or -n PATH's, by a thread that lives there (walkns.h). A walk
 * that cannot be had is left off, said in -l and hook_info: the hooks
 * run on their looks without it.
 */
static void attach_walks(struct nsl_loader *l)
{
	union bpf_iter_link_info info = {
		.map.map_fd = bpf_map__fd(l->skel->maps.standing_sk),
	};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info,
		    .link_info_len = sizeof(info));
	bool sockets = false;

	for (int w = 0; w < NSL_NR_WALKS; w++) {
		struct bpf_program *p = bpf_object__find_program_by_name(
			l->skel->obj, nsl_walks[w].prog);

		if (!(l->walks_on & (1u << w)))
			continue;
		l->walk_links[w] = bpf_program__attach_iter(p, nsl_walks[w].every_netns ?
							    &opts : NULL);
		if (!l->walk_links[w]) {
			snprintf(l->walk_why[w], sizeof(l->walk_why[w]), "%s: attach: %s",
				 bpf_program__section_name(p), strerror(errno));
			l->walks_on &= ~(1u << w);
		}
		sockets |= l->walk_links[w] && !nsl_walks[w].every_netns;
	}
	if (sockets && l->netns_path[0] &&
	    !(l->walk_thread = nsl_walkns_start(l->netns_path))) {
		int err = errno;

		for (int w = 0; w < NSL_NR_WALKS; w++) {
			if (!l->walk_links[w] || nsl_walks[w].every_netns)
				continue;
			snprintf(l->walk_why[w], sizeof(l->walk_why[w]),
				 "no thread in %.100s: %s", l->netns_path, strerror(err));
			bpf_link__destroy(l->walk_links[w]);
			l->walk_links[w] = NULL;
			l->walks_on &= ~(1u << w);
		}
	}
	nsl_loader_note_lacks(l);
}

void nsl_loader_attach_netns_gone(struct nsl_loader *l)
{
	int err;

	if (!l->netns_gone_on || l->netns_gone_link)
		return;
	l->netns_gone_link = bpf_program__attach(l->skel->progs.nsl_netns_gone);
	if (l->netns_gone_link)
		return;
	err = -errno;
	l->netns_gone_on = false;
	snprintf(l->netns_gone_why, sizeof(l->netns_gone_why),
		 "cannot attach raw_tp/workqueue_execute_end: %s", strerror(-err));
}

int nsl_loader_attach(struct nsl_loader *l, const struct nsl_options *o)
{
	int err;

	if (!nsl_loader_nr_attached(l)) {
		pr_warn("no enabled hook can attach on this kernel (see -l)\n");
		return -ENOENT;
	}
	err = nsl_loader_load(l, o);
	if (err)
		return err;
	err = nsl_fill_filters(l, o);
	if (err)
		return err;
	/* the clock before the first sample (the maps now exist) */
	nsl_check_offs_real(l);
	err = nsl_loader_sync_clock(l);
	if (err < 0) {
		pr_warn("cannot read the kernel's clock offsets (adjtimex, and "
			"BPF_PROG_TEST_RUN of a raw_tp program: Linux 5.10): %s\n",
			strerror(-err));
		return err;
	}
	l->rx_tstamp_fd = nsl_enable_rx_timestamps();
	if (l->rx_tstamp_fd < 0) {
		pr_warn("cannot enable RX timestamping: %s\n",
			strerror(-l->rx_tstamp_fd));
		return l->rx_tstamp_fd;
	}
	err = attach_hooks(l);
	if (err)
		return err;
	attach_walks(l);
	nsl_loader_attach_netns_gone(l);
	/*
	 * "attached" must mean measuring: the first packets would be
	 * unstamped. On for 50 ms in a row: see nsl_rx_timestamps_wait().
	 */
	err = nsl_rx_timestamps_wait(2000, 50);
	/*
	 * From now on every skb received is stamped: one queued unstamped
	 * came before (or was rebuilt, tcp_collapse()), the standing hooks'
	 * lower bound on its age (bpf/standing.bpf.h, nsl_tstamp_on_ns).
	 * Not known where the wait failed: such heads say nothing there.
	 */
	if (!err && l->skel->bss)
		l->skel->bss->nsl_tstamp_on_ns = nsl_mono_ns();
	if (err == -ETIMEDOUT)
		pr_warn("the kernel did not stamp received packets within 2 s: "
			"samples start when it does\n");
	else if (err)
		pr_debug("cannot check that RX timestamps are on (loopback: %s)\n",
			 strerror(-err));
	return 0;
}

void nsl_loader_close(struct nsl_loader *l)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		for (int i = 0; i < NSL_MAX_PROGS; i++)
			bpf_link__destroy(l->hooks[h].links[i]);
		for (int i = 0; i < NSL_NF_LINKS; i++)
			if (l->hooks[h].nf_fds[i] > 0)
				close(l->hooks[h].nf_fds[i]);
	}
	nsl_walkns_stop(l->walk_thread);
	for (int w = 0; w < NSL_NR_WALKS; w++)
		bpf_link__destroy(l->walk_links[w]);
	bpf_link__destroy(l->netns_gone_link);
	ring_buffer__free(l->clock_events);
	netstacklat_bpf__destroy(l->skel);
	if (l->rx_tstamp_fd >= 0)
		close(l->rx_tstamp_fd);
	if (l->ifname_fd >= 0)
		close(l->ifname_fd);
	if (l->links_fd >= 0)
		close(l->links_fd);
	memset(l, 0, sizeof(*l));
	l->rx_tstamp_fd = l->ifname_fd = l->links_fd = -1;
}
