// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF object as the plan chose it (plan.c): its read-only
 * configuration, map sizes, only the chosen programs of the hooks asked
 * for. It reads the plan and never changes it: an object loads whole or
 * not at all, so when the kernel refuses one, plan.c tries each hook alone
 * here (nsl_object_try()) and moves those refused to their next method.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "hooks.h"
#include "loader.h"
#include "log.h"
#include "hist.h"
#include "nflink.h"
#include "probe.h"
#include "slots.h"
#include "setup.h"
#include "tstamp.h"
#include "netstacklat.skel.h"

/*
 * Before v5.12 the verifier refuses a program with an atomic fetch-and-add
 * anywhere in it, also where the constants of cfg make it dead code (v5.10
 * resolve_pseudo_ldimm64() checks every instruction for "BPF_STX uses
 * reserved fields" before the walk that drops dead branches; measured in
 * the 5.10 VM). Only the grouped histograms use one (group_hist_get(): a
 * new group's id) and the compare-and-exchange of the group cache
 * (group_cache_put()), and main.c refuses -I/-C on such kernels, so that
 * code is dead there: the fetch-and-adds and compare-and-exchanges become
 * plain atomic adds (XADD, which every kernel takes), one instruction for
 * one, so that libbpf's relocations keep their offsets; the verifier then
 * drops them.
 */
static int strip_atomic_fetch(struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		size_t n = bpf_program__insn_cnt(p);
		struct bpf_insn *insns;
		bool changed = false;
		int err;

		insns = malloc(n * sizeof(*insns));
		if (!insns)
			return -ENOMEM;
		memcpy(insns, bpf_program__insns(p), n * sizeof(*insns));
		for (size_t i = 0; i < n; i++) {
			if (BPF_CLASS(insns[i].code) == BPF_STX &&
			    BPF_MODE(insns[i].code) == BPF_ATOMIC &&
			    (insns[i].imm == (BPF_ADD | BPF_FETCH) ||
			     insns[i].imm == BPF_CMPXCHG)) {
				insns[i].imm = BPF_ADD;
				changed = true;
			}
		}
		err = changed ? bpf_program__set_insns(p, insns, n) : 0;
		free(insns);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Test seam: NSL_TEST_REJECT=prog[,prog...] makes the kernel refuse to
 * load those programs (an invalid program type), as a verifier that
 * rejects one of them on some kernel would. Used by the tests of the
 * per-hook load fallback; it can only make the tool do less.
 */
static bool test_rejects(const char *prog)
{
	const char *list = getenv("NSL_TEST_REJECT");
	size_t n = strlen(prog);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + !!p[strcspn(p, ",")])
		if (strcspn(p, ",") == n && !strncmp(p, prog, n))
			return true;
	return false;
}

/*
 * Only the chosen programs of the hooks in mask are loaded: the others may
 * not even load here.
 */
static void set_autoload(const struct nsl_loader *l, struct netstacklat_bpf *s,
			 uint32_t hooks)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	/* run by the loader itself, never attached (nsl_loader_sync_clock()) */
	bpf_program__set_autoload(s->progs.nsl_clock_probe, true);
	/* not a hook: only for groups keyed by namespace (bpf/netns_gone.bpf.h) */
	bpf_program__set_autoload(s->progs.nsl_netns_gone, l->netns_gone_on);
	if (test_rejects("nsl_netns_gone"))
		bpf_program__set_type(s->progs.nsl_netns_gone, BPF_PROG_TYPE_UNSPEC);
	/* the standing hooks' walks, where the plan has them (plan_walks()) */
	for (int w = 0; w < NSL_NR_WALKS; w++) {
		p = bpf_object__find_program_by_name(s->obj, nsl_walks[w].prog);
		bpf_program__set_autoload(p, (l->walks_on & (1u << w)) &&
					     (hooks & nsl_walks[w].hooks));
		if (test_rejects(nsl_walks[w].prog))
			bpf_program__set_type(p, BPF_PROG_TYPE_UNSPEC);
	}
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_candidate *c = nsl_loader_chosen(l, h);

		for (int i = 0; c && (hooks & (1u << h)) && i < NSL_MAX_PROGS &&
				c->progs[i]; i++) {
			p = bpf_object__find_program_by_name(s->obj, c->progs[i]);
			bpf_program__set_autoload(p, true);
			/* libbpf 1.1 does not know SEC("netfilter") */
			if (!strcmp(bpf_program__section_name(p), "netfilter")) {
				bpf_program__set_type(p, NSL_BPF_PROG_TYPE_NETFILTER);
				bpf_program__set_expected_attach_type(p, NSL_BPF_NETFILTER);
			}
			if (test_rejects(c->progs[i]))
				bpf_program__set_type(p, BPF_PROG_TYPE_UNSPEC);
		}
	}
}

/*
 * cfg.mono_tstamp_limit (include/tstamp.h): half of CLOCK_REALTIME -
 * CLOCK_MONOTONIC now. In a time namespace CLOCK_MONOTONIC carries an
 * offset BPF does not see; days of it change nothing at a margin of
 * decades.
 */
static uint64_t mono_tstamp_limit(void)
{
	struct timespec r, m;

	if (clock_gettime(CLOCK_REALTIME, &r) || clock_gettime(CLOCK_MONOTONIC, &m))
		return 0;
	return nsl_mono_tstamp_limit((r.tv_sec - m.tv_sec) * 1000000000LL +
				     (r.tv_nsec - m.tv_nsec));
}

/* The read-only configuration of the BPF object, for o and the chosen methods. */
static void fill_config(const struct nsl_loader *l, const struct nsl_options *o,
			struct nsl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->netns_ino = l->netns_ino;
	cfg->min_queue_len = o->min_queue_len;
	cfg->filter_ifindex = o->nr_ifaces > 0;
	cfg->filter_pid = o->nr_pids > 0;
	cfg->filter_cgroup = o->nr_cgroups > 0;
	cfg->group_by_ifindex = o->group_ifindex;
	cfg->group_by_cgroup = o->group_cgroup;
	cfg->group_by_netns = nsl_group_by_netns(o);
	cfg->include_hol = o->include_hol;
	cfg->sample_every = o->sample_every;
	cfg->schema = o->schema;
	cfg->nr_slots = nsl_nr_slots(o->schema);
	memcpy(cfg->schema_thresholds, nsl_schema_thresholds(o->schema),
	       sizeof(cfg->schema_thresholds));
	cfg->max_groups = o->max_groups;
	cfg->owner_quota = nsl_owner_quota(o);
	cfg->clock_mono = l->clock_mono;
	cfg->offs_real_addr = l->clock_mono ? l->offs_real_addr : 0;
	cfg->cleanup_net = l->netns_gone_on ? l->cleanup_net : 0;
	cfg->mono_tstamp_limit = mono_tstamp_limit();
	memcpy(cfg->udp_free_at, l->udp_free_at, sizeof(cfg->udp_free_at));
	memcpy(cfg->udp_free_len, l->udp_free_len, sizeof(cfg->udp_free_len));
	memcpy(cfg->handover_xmit, l->handover_xmit, sizeof(cfg->handover_xmit));
	cfg->standing_target_ns = o->standing_target_ns;
	cfg->standing_interval_ns = o->standing_interval_ns;
	_Static_assert(NSL_NR_HOOKS <= 16, "cfg.fallback_hooks has 16 bits");
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		if (l->hooks[h].method != NSL_METHOD_NONE)
			cfg->hooks_on |= 1u << h;
		if (l->hooks[h].method == NSL_METHOD_TRACEPOINT ||
		    l->hooks[h].method == NSL_METHOD_NETFILTER)
			cfg->fallback_hooks |= 1u << h;
	}
}

/* what every packet reads stays in its first 48 bytes (struct nsl_config) */
_Static_assert(offsetof(struct nsl_config, mono_tstamp_limit) == 40 &&
	       offsetof(struct nsl_config, schema_thresholds) == 56,
	       "the configuration's hot bytes moved");

struct netstacklat_bpf *nsl_object_open(void)
{
	return netstacklat_bpf__open();
}

struct netstacklat_bpf *nsl_object_build(const struct nsl_loader *l,
					 const struct nsl_options *o,
					 uint32_t hooks)
{
	struct netstacklat_bpf *s = nsl_object_open();

	if (!s)
		return NULL;
	/* rodata is writable between open and load */
	fill_config(l, o, (struct nsl_config *)&s->rodata->cfg);
	/* histograms hold the slots of the schema: 8 * (1 + slots) bytes */
	bpf_map__set_value_size(s->maps.hist, nsl_hist_size(o->schema));
	bpf_map__set_value_size(s->maps.group_hist, nsl_hist_size(o->schema));
	/* the grouped maps cost memory per group: only when grouping */
	bpf_map__set_max_entries(s->maps.group_ids, nsl_loader_groups(o));
	bpf_map__set_max_entries(s->maps.group_hist, nsl_loader_groups(o));
	/* -p's bitmap: its 512 KiB only with -p */
	if (!o->nr_pids)
		bpf_map__set_max_entries(s->maps.filter_pid, 1);
	/* preallocated (an LRU): its 2 MiB only when netns-handover runs */
	if (l->hooks[NSL_HOOK_NETNS_HANDOVER].method == NSL_METHOD_NONE)
		bpf_map__set_max_entries(s->maps.handover_stamps, 1);
	bpf_map__set_max_entries(s->maps.free_ids, nsl_loader_groups(o));
	/* owners are allocated as they come; id_owner is an id's */
	if (nsl_owner_quota(o)) {
		bpf_map__set_max_entries(s->maps.id_owner, nsl_loader_groups(o));
	} else {
		bpf_map__set_max_entries(s->maps.id_owner, 1);
		bpf_map__set_max_entries(s->maps.owner_taken, 1);
		bpf_map__set_max_entries(s->maps.owner_released, 1);
	}
	if (!l->netns_gone_on) {
		bpf_map__set_max_entries(s->maps.gone_groups, 1);
		bpf_map__set_max_entries(s->maps.netns_live, 1);
	} else {
		bpf_map__set_max_entries(s->maps.gone_groups, nsl_loader_groups(o));
	}
	/* the standing hook's HOL state (6.3 MB): only with tcp-standing-queue */
	if (l->hooks[NSL_HOOK_TCP_STANDING].method == NSL_METHOD_NONE)
		bpf_map__set_max_entries(s->maps.standing_hol, 1);
	/* 1.5 MB of last tails, only for sk_data_ready (bpf/netstacklat.bpf.c) */
	if (l->hooks[NSL_HOOK_TCP_SOCK_ENQUEUED].method != NSL_METHOD_TRACEPOINT &&
	    l->hooks[NSL_HOOK_UDP_SOCK_ENQUEUED].method != NSL_METHOD_TRACEPOINT)
		bpf_map__set_max_entries(s->maps.tail_state, 1);
	/* only the tracepoint read fallbacks use it, which need 5.11+ anyway */
	if (l->no_task_storage)
		bpf_map__set_autocreate(s->maps.read_state, false);
	set_autoload(l, s, hooks);
	if (!nsl_loader_has_atomic_fetch() && !o->group_ifindex && !o->group_cgroup &&
	    strip_atomic_fetch(s->obj)) {
		netstacklat_bpf__destroy(s);
		return NULL;
	}
	return s;
}

int nsl_object_try(const struct nsl_loader *l, const struct nsl_options *o,
		   uint32_t hooks)
{
	struct netstacklat_bpf *s = nsl_object_build(l, o, hooks);
	int err;

	if (!s)
		return -errno;
	err = netstacklat_bpf__load(s);
	netstacklat_bpf__destroy(s);
	return err;
}

int nsl_object_fill_free_ids(const struct nsl_loader *l, const struct nsl_options *o)
{
	int fd = bpf_map__fd(l->skel->maps.free_ids);

	if (!o->group_ifindex && !o->group_cgroup)
		return 0;
	for (__u32 id = 0; id < nsl_loader_groups(o); id++)
		if (bpf_map_update_elem(fd, NULL, &id, 0))
			return -errno;
	return 0;
}
