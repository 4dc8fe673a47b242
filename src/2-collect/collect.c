// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collection stage's parts (collect.h), configured from the loaded
 * object (bpf/maps.bpf.h: hist, group_ids, group_hist, free_ids,
 * counters) and the options.
 */
#include <bpf/libbpf.h>
#include "collect.h"
#include "netstacklat.skel.h"

void nsl_collect_attached(const struct nsl_loader *l, const struct nsl_options *o,
			  bool *attached)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		attached[h] = l->hooks[h].method != NSL_METHOD_NONE;
	/* what the HOL filter leaves out, next to what it keeps */
	attached[NSL_HIST_TCP_READ_HOL] =
		attached[NSL_HOOK_TCP_SOCK_READ] && !o->include_hol;
}

int nsl_collect_groups_init(struct nsl_groups *g, const struct nsl_loader *l,
			    const struct nsl_options *o)
{
	struct netstacklat_bpf *s = l->skel;
	const struct nsl_groups_conf c = {
		.ids_fd = bpf_map__fd(s->maps.group_ids),
		.hist_fd = bpf_map__fd(s->maps.group_hist),
		.free_fd = bpf_map__fd(s->maps.free_ids),
		.counters_fd = bpf_map__fd(s->maps.counters),
		.gone_fd = l->netns_gone_on ? bpf_map__fd(s->maps.gone_groups) : -1,
		.gen = (uint64_t *)&s->bss->nsl_groups_gen,
		.owner_quota = nsl_owner_quota(o) > 0,
		.id_owner_fd = bpf_map__fd(s->maps.id_owner),
		.owner_released_fd = bpf_map__fd(s->maps.owner_released),
		.max = nsl_loader_groups(o),
		.schema = o->schema,
		.group_ifindex = o->group_ifindex,
		.group_cgroup = o->group_cgroup,
		.group_netns = nsl_group_by_netns(o),
		.own_netns = l->nf_netns_ino,
		.ifname_fd = l->ifname_fd,
		.links_fd = l->links_fd,
		.idle_s = o->group_idle_s,
		/* reports on stdout/-o in prometheus format keep them too */
		.keep_s = o->listen_port || o->format == NSL_FMT_PROMETHEUS ?
			  o->series_grace_s : 0,
	};

	if (!o->group_ifindex && !o->group_cgroup)
		return 0;
	return nsl_groups_init(g, &c);
}

/*
 * How each hook attached and what it sees, for every report (JSON "hooks",
 * the Prometheus info metric): the netfilter hooks see the namespace
 * their links live in, the others the one -n selects (0: all).
 */
static const struct nsl_hook_status *hook_status(const struct nsl_loader *l,
						 const struct nsl_options *o)
{
	static struct nsl_hook_status st[NSL_NR_HOOKS];

	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		enum nsl_method m = l->hooks[h].method;

		st[h].enabled = o->hook_enabled[h];
		st[h].method = m == NSL_METHOD_NONE ? NULL : nsl_method_name(m);
		st[h].netns = m == NSL_METHOD_NETFILTER ? l->nf_netns_ino : l->netns_ino;
		st[h].why = l->hooks[h].why;
		st[h].lacks = l->hooks[h].lacks[0] ? l->hooks[h].lacks : NULL;
	}
	return st;
}

int nsl_collect_reader_init(struct nsl_reader *rd, const struct nsl_loader *l,
			    const bool *attached, const struct nsl_options *o,
			    bool cumulative, struct nsl_groups *g)
{
	struct netstacklat_bpf *s = l->skel;
	struct nsl_reader_maps m = {
		.hist_fd = bpf_map__fd(s->maps.hist),
		.group_ids_fd = bpf_map__fd(s->maps.group_ids),
		.group_hist_fd = bpf_map__fd(s->maps.group_hist),
		.counters_fd = bpf_map__fd(s->maps.counters),
		.walk_thread = l->walk_thread,
		.walk_round = &s->bss->nsl_walk_round,
		.report_ns = (volatile uint64_t *)&s->bss->nsl_report_ns,
		.groups = nsl_loader_groups(o),
		.group_netns = nsl_group_by_netns(o),
		.schema = o->schema,
		.sample_every = o->sample_every,
	};

	bool grouped = o->group_ifindex || o->group_cgroup;
	int err;

	for (int w = 0; w < NSL_NR_WALKS; w++)
		m.walk_fds[w] = l->walk_links[w] ? bpf_link__fd(l->walk_links[w]) : -1;
	err = nsl_reader_init(rd, &m, attached, o->group_ifindex,
				  o->group_cgroup, cumulative, grouped ? g : NULL);

	rd->status = hook_status(l, o);
	return err;
}

void nsl_collect_for_prometheus(struct nsl_reader *rd, const struct nsl_options *o)
{
	rd->keep_gone_s = o->series_grace_s;
	rd->unique_keys = true;
}
