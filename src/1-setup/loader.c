// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <net/if.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "hooks.h"
#include "loader.h"
#include "log.h"
#include "hist.h"
#include "nflink.h"
#include "report.h"
#include "probe.h"
#include "rxtstamp.h"
#include "setup.h"
#include "tstamp.h"
#include "netstacklat.skel.h"

/*
 * Before v5.12 the verifier refuses a program with an atomic fetch-and-add
 * anywhere in it, also where the constants of cfg make it dead code (v5.10
 * resolve_pseudo_ldimm64() checks every instruction for "BPF_STX uses
 * reserved fields" before the walk that drops dead branches; measured in
 * the 5.10 VM). Only the grouped histograms use one (group_hist_get(): a
 * new group's id), and main.c refuses -I/-C on such kernels, so that code
 * is dead there: the fetch-and-adds become plain atomic adds (XADD, which
 * every kernel takes), one instruction for one, so that libbpf's
 * relocations keep their offsets; the verifier then drops them.
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
			    insns[i].imm == (BPF_ADD | BPF_FETCH)) {
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

static bool method_allowed(enum nsl_method m, enum nsl_attach_mode mode)
{
	if (mode == NSL_ATTACH_FENTRY)
		return m == NSL_METHOD_FENTRY;
	if (mode == NSL_ATTACH_FALLBACK)
		return m != NSL_METHOD_FENTRY;
	return true;
}

/*
 * NSL_NEED_UDP_FREE_SITE: consume_skb must carry its location (v6.3) and
 * still fire in the reader (not v6.18+), and kallsyms must say where UDP
 * frees a read datagram (tp_udp_consume_skb in the BPF program).
 */
static bool udp_free_site_known(struct nsl_loader *l, const struct btf *vmlinux,
				char *why, size_t len)
{
	static const char *const funcs[NSL_UDP_FREE_FUNCS] = {
		"skb_consume_udp", "udp_recvmsg", "udpv6_recvmsg",
	};
	int err;

	if (nsl_kernel_version() >= NSL_KERNEL(6, 18)) {
		snprintf(why, len, "tp_btf/consume_skb: since Linux 6.18 UDP frees "
			 "read datagrams later, elsewhere (skb_attempt_defer_free)");
		return false;
	}
	if (nsl_tracepoint_args(vmlinux, "consume_skb") < 2) {
		snprintf(why, len, "tp_btf/consume_skb: no location argument "
			 "(Linux 6.3 added it)");
		return false;
	}
	memset(l->udp_free_at, 0, sizeof(l->udp_free_at));
	err = nsl_ksym_ranges(funcs, NSL_UDP_FREE_FUNCS, l->udp_free_at,
			      l->udp_free_len);
	if (err || !l->udp_free_len[0]) {
		snprintf(why, len, "tp_btf/consume_skb: no address for %s in "
			 "/proc/kallsyms%s", funcs[0],
			 err ? "" : " (hidden by kernel.kptr_restrict?)");
		return false;
	}
	return true;
}

/*
 * NSL_NEED_HANDOVER_DEVS: the programs of netns-handover tell veth and
 * netkit devices, and bridges, by their transmit function
 * (bpf/handover.bpf.h): its address must be known, so veth's module must
 * be loaded (netkit's and the bridge's are taken when loaded; a module
 * loaded later is not seen).
 */
static bool handover_devs_known(struct nsl_loader *l, char *why, size_t len)
{
	static const char *const funcs[NSL_HANDOVER_XMITS] = {
		[NSL_XMIT_VETH] = "veth_xmit",
		[NSL_XMIT_NETKIT] = "netkit_xmit",
		[NSL_XMIT_BRIDGE] = "br_dev_xmit",
	};
	uint64_t flen[NSL_HANDOVER_XMITS];
	int err;

	memset(l->handover_xmit, 0, sizeof(l->handover_xmit));
	err = nsl_ksym_ranges(funcs, NSL_HANDOVER_XMITS, l->handover_xmit, flen);
	if (err || !l->handover_xmit[NSL_XMIT_VETH]) {
		snprintf(why, len, "no address for veth_xmit in /proc/kallsyms%s",
			 err ? "" : " (veth module not loaded, or hidden by "
			 "kernel.kptr_restrict)");
		return false;
	}
	return true;
}

/* What a candidate needs beyond its attach points (enum nsl_need). */
static bool need_met(struct nsl_loader *l, const struct btf *vmlinux,
		     enum nsl_need need, char *why, size_t len)
{
	switch (need) {
	case NSL_NEED_UDP_FREE_SITE:
		return udp_free_site_known(l, vmlinux, why, len);
	case NSL_NEED_HANDOVER_DEVS:
		return handover_devs_known(l, why, len);
	case NSL_NEED_UDP_QUEUED_ON_RETURN:
		/*
		 * v6.18, "udp: remove busylock and add per NUMA queues": a
		 * producer adds the skb to a per-NUMA list and returns 0; the
		 * producer that finds the list empty queues the batch later,
		 * and may drop some. By the time fexit runs, the skb may be
		 * unqueued yet, dropped, or read and freed.
		 */
		if (nsl_kernel_version() >= NSL_KERNEL(6, 18)) {
			snprintf(why, len, "fexit/__udp_enqueue_schedule_skb: since "
				 "Linux 6.18 it returns before the datagram is queued");
			return false;
		}
		return true;
	default:
		return true;
	}
}

static bool candidate_works(struct nsl_loader *l, const struct btf *vmlinux,
			    const struct nsl_candidate *c, char *why,
			    size_t len)
{
	if (!need_met(l, vmlinux, c->need, why, len))
		return false;
	for (int i = 0; i < NSL_MAX_PROGS && c->progs[i]; i++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(l->skel->obj, c->progs[i]);

		if (!p) {
			snprintf(why, len, "program %s missing", c->progs[i]);
			return false;
		}
		if (nsl_probe_section(vmlinux, bpf_program__section_name(p), why, len))
			return false;
	}
	return true;
}

/* Appends "; reason" (or the first reason) to the hook's why. */
static void add_reason(struct nsl_hook_state *hs, const char *reason)
{
	size_t n = strlen(hs->why);

	snprintf(hs->why + n, sizeof(hs->why) - n, "%s%s", n ? "; " : "", reason);
}

/*
 * The first allowed candidate from index from on that works; else why none
 * did, all reasons (with those of earlier candidates, when from > 0).
 */
static void choose_method(struct nsl_loader *l, const struct btf *vmlinux,
			  int hook, enum nsl_attach_mode mode, int from)
{
	const struct nsl_hook_desc *d = &nsl_hooks[hook];
	struct nsl_hook_state *hs = &l->hooks[hook];
	char why[sizeof(hs->why)];

	if (!from)
		hs->why[0] = '\0';
	for (int i = from; i < NSL_MAX_CANDIDATES && d->cands[i].method; i++) {
		const struct nsl_candidate *c = &d->cands[i];

		if (!method_allowed(c->method, mode)) {
			snprintf(why, sizeof(why), "%s excluded by --attach",
				 nsl_method_name(c->method));
		} else if (candidate_works(l, vmlinux, c, why, sizeof(why))) {
			hs->method = c->method;
			hs->cand = i;
			pr_debug("%s: %s works\n", d->name, nsl_method_name(c->method));
			return;
		}
		pr_debug("%s: %s unusable: %s\n", d->name,
			 nsl_method_name(c->method), why);
		add_reason(hs, why);
	}
	hs->method = NSL_METHOD_NONE;
}

int nsl_loader_probe(struct nsl_loader *l, const struct nsl_options *o)
{
	struct btf *vmlinux;
	int err;

	memset(l, 0, sizeof(*l));
	l->rx_tstamp_fd = l->ifname_fd = -1;
	l->skel = netstacklat_bpf__open();
	if (!l->skel) {
		err = -errno;
		pr_warn("cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -errno;
		pr_warn("cannot read kernel BTF (/sys/kernel/btf/vmlinux): %s\n",
			strerror(-err));
		return err;
	}
	nsl_probe_kernel_bpf(l, vmlinux);
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		if (o->hook_enabled[h])
			choose_method(l, vmlinux, h, o->attach, 0);
		else
			snprintf(l->hooks[h].why, sizeof(l->hooks[h].why), "disabled");
	}
	btf__free(vmlinux);
	return 0;
}

uint32_t nsl_loader_prog_hooks(const struct nsl_loader *l, const char *prog)
{
	uint32_t hooks = 0;

	if (!prog)
		return 0;
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_candidate *c = nsl_loader_chosen(l, h);

		for (int i = 0; c && i < NSL_MAX_PROGS && c->progs[i]; i++)
			if (!strcmp(c->progs[i], prog))
				hooks |= 1u << h;
	}
	return hooks;
}

bool nsl_loader_prog_owner(const struct nsl_loader *l, int h, const char *prog)
{
	uint32_t hooks = nsl_loader_prog_hooks(l, prog);

	return hooks && __builtin_ctz(hooks) == h;
}

int nsl_loader_nr_attached(const struct nsl_loader *l)
{
	int n = 0;

	for (int h = 0; h < NSL_NR_HOOKS; h++)
		n += l->hooks[h].method != NSL_METHOD_NONE;
	return n;
}

const struct nsl_candidate *nsl_loader_chosen(const struct nsl_loader *l, int h)
{
	if (l->hooks[h].method == NSL_METHOD_NONE)
		return NULL;
	return &nsl_hooks[h].cands[l->hooks[h].cand];
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
	cfg->group_by_netns = o->group_ifindex && o->netns == NSL_NETNS_ALL;
	cfg->include_hol = o->include_hol;
	cfg->sample_every = o->sample_every;
	cfg->schema = o->schema;
	cfg->nr_slots = nsl_nr_slots(o->schema);
	memcpy(cfg->schema_thresholds, nsl_schema_thresholds(o->schema),
	       sizeof(cfg->schema_thresholds));
	cfg->max_groups = o->max_groups;
	cfg->clock_mono = l->clock_mono;
	cfg->mono_tstamp_limit = mono_tstamp_limit();
	memcpy(cfg->udp_free_at, l->udp_free_at, sizeof(cfg->udp_free_at));
	memcpy(cfg->udp_free_len, l->udp_free_len, sizeof(cfg->udp_free_len));
	memcpy(cfg->handover_xmit, l->handover_xmit, sizeof(cfg->handover_xmit));
	_Static_assert(NSL_NR_HOOKS <= 8, "cfg.fallback_hooks has 8 bits");
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		if (l->hooks[h].method == NSL_METHOD_TRACEPOINT ||
		    l->hooks[h].method == NSL_METHOD_NETFILTER)
			cfg->fallback_hooks |= 1u << h;
}

/* The BPF object, configured, with the programs of the hooks in mask. */
static struct netstacklat_bpf *open_object(const struct nsl_loader *l,
					   const struct nsl_options *o,
					   uint32_t hooks)
{
	struct netstacklat_bpf *s = netstacklat_bpf__open();

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
	/* preallocated (an LRU): its 2 MiB only when netns-handover runs */
	if (l->hooks[NSL_HOOK_NETNS_HANDOVER].method == NSL_METHOD_NONE)
		bpf_map__set_max_entries(s->maps.handover_stamps, 1);
	bpf_map__set_max_entries(s->maps.free_ids, nsl_loader_groups(o));
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

/* Loads an object with the programs of the hooks in mask: 0 or -errno. */
static int try_load(const struct nsl_loader *l, const struct nsl_options *o,
		    uint32_t hooks)
{
	struct netstacklat_bpf *s = open_object(l, o, hooks);
	int err;

	if (!s)
		return -errno;
	err = netstacklat_bpf__load(s);
	netstacklat_bpf__destroy(s);
	return err;
}

/*
 * After a failed load: which hooks' programs does the kernel refuse? Each
 * is loaded alone (with the maps); a refused one moves on to its next
 * method (probed as at start) or becomes unavailable. Returns how many
 * hooks moved; 0 when none fails alone (then the failure is not a hook's).
 */
static int move_rejected_hooks(struct nsl_loader *l, const struct nsl_options *o)
{
	struct btf *vmlinux = NULL;
	int moved = 0;

	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		struct nsl_hook_state *hs = &l->hooks[h];
		char why[128];
		int err;

		if (hs->method == NSL_METHOD_NONE)
			continue;
		err = try_load(l, o, 1u << h);
		if (!err)
			continue;
		snprintf(why, sizeof(why), "%s programs refused at load: %s",
			 nsl_method_name(hs->method), strerror(-err));
		add_reason(hs, why);
		if (!vmlinux && !(vmlinux = btf__load_vmlinux_btf()))
			return -errno;
		choose_method(l, vmlinux, h, o->attach, hs->cand + 1);
		if (hs->method != NSL_METHOD_NONE)
			pr_warn("%s: %s; trying %s\n", nsl_hooks[h].name, why,
				nsl_method_name(hs->method));
		else
			pr_warn("%s: %s; no other method: unavailable\n",
				nsl_hooks[h].name, why);
		moved++;
	}
	btf__free(vmlinux);
	return moved;
}

/*
 * Every group id is free at start: the queue the BPF side pops them from
 * (bpf/group_id.bpf.h) holds 0..groups-1, in that order.
 */
static int fill_free_ids(const struct nsl_loader *l, const struct nsl_options *o)
{
	int fd = bpf_map__fd(l->skel->maps.free_ids);

	if (!o->group_ifindex && !o->group_cgroup)
		return 0;
	for (__u32 id = 0; id < nsl_loader_groups(o); id++)
		if (bpf_map_update_elem(fd, NULL, &id, 0))
			return -errno;
	return 0;
}

int nsl_loader_load(struct nsl_loader *l, const struct nsl_options *o)
{
	int err = nsl_resolve_netns_once(l, o);

	if (err)
		return err;
	/* libbpf's own account of a refusal (the verifier's log) with -v only */
	nsl_libbpf_quiet = true;
	for (;;) {
		netstacklat_bpf__destroy(l->skel);
		l->skel = open_object(l, o, UINT32_MAX);
		if (!l->skel) {
			err = -errno;
			pr_warn("cannot open the BPF object: %s\n", strerror(-err));
			break;
		}
		err = netstacklat_bpf__load(l->skel);
		if (!err)
			break;
		/* the maps alone must load, or the failure is no hook's */
		if (try_load(l, o, 0) || move_rejected_hooks(l, o) <= 0) {
			pr_warn("cannot load the BPF programs: %s%s\n", strerror(-err),
				nsl_verbose ? "" : " (-v shows libbpf's details)");
			break;
		}
		if (!nsl_loader_nr_attached(l)) {
			pr_warn("no enabled hook can load on this kernel (see -l)\n");
			err = -ENOENT;
			break;
		}
	}
	nsl_libbpf_quiet = false;
	if (!err && (err = fill_free_ids(l, o)))
		pr_warn("cannot fill the map of free group ids: %s\n", strerror(-err));
	return err;
}

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

int nsl_loader_attach(struct nsl_loader *l, const struct nsl_options *o)
{
	uint32_t ifidx[NSL_MAX_FILTER_ENTRIES];
	uint64_t cgids[NSL_MAX_FILTER_ENTRIES];
	int err;

	if (!nsl_loader_nr_attached(l)) {
		pr_warn("no enabled hook can attach on this kernel (see -l)\n");
		return -ENOENT;
	}
	/* the netns first: interface names are looked up inside it */
	err = nsl_resolve_netns_once(l, o);
	if (!err)
		err = nsl_resolve_ifaces(l, o, ifidx);
	if (!err)
		err = nsl_resolve_cgroups(o, cgids);
	if (!err)
		err = nsl_loader_load(l, o);
	if (err)
		return err;
	err = nsl_fill_filters(l, o, ifidx, cgids);
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
	/*
	 * "attached" must mean measuring: the first packets would be
	 * unstamped. On for 50 ms in a row: see nsl_rx_timestamps_wait().
	 */
	err = nsl_rx_timestamps_wait(2000, 50);
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
	ring_buffer__free(l->clock_events);
	netstacklat_bpf__destroy(l->skel);
	if (l->rx_tstamp_fd >= 0)
		close(l->rx_tstamp_fd);
	if (l->ifname_fd >= 0)
		close(l->ifname_fd);
	memset(l, 0, sizeof(*l));
	l->rx_tstamp_fd = l->ifname_fd = -1;
}
