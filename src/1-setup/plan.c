// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attach plan: for each enabled hook, the first candidate of the hook
 * table (src/0-base/hooks.c) that --attach allows and that this kernel can
 * run (probe.c), or why none can; its load (object.c builds what the plan
 * chose), where a hook whose programs the kernel refuses goes on to its
 * next candidate: the plan changes here and nowhere else; and what the
 * other stages ask of it: which hook owns a program two hooks share.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "ksyms.h"
#include "loader.h"
#include "log.h"
#include "probe.h"
#include "setup.h"
#include "netstacklat.skel.h"

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
	case NSL_NEED_TRACING_SK_STORAGE:
		/*
		 * v5.11, "bpf: Allow using bpf_sk_storage in FENTRY/FEXIT/
		 * RAW_TP": before it the verifier knows no bpf_sk_storage_get()
		 * in tracing programs (bpf_sk_storage_get_tracing_proto)
		 */
		if (nsl_kernel_version() < NSL_KERNEL(5, 11)) {
			snprintf(why, len, "socket storage in tracing programs: "
				 "Linux 5.11");
			return false;
		}
		return true;
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

/*
 * The kernel's BTF (5.5 MB here) is parsed twice at start-up: below, for
 * the plan, then by libbpf for the load's CO-RE relocations (libbpf 1.1
 * takes no BTF already parsed). Each parse reads the file whole and copies
 * it (btf__parse_raw(), btf_new()): 11 MB of fresh memory, which glibc maps
 * for the first parse, unmaps at btf__free() and maps and faults in anew
 * for libbpf's. Until the load is done, big blocks come from the heap and
 * stay there, so libbpf's parse reuses the planner's pages: 0.30 -> 0.24 s
 * from exec to "attached" here. Then the heap is trimmed, so a running
 * tool's RSS is what it was (5.6 MB here, not the 16.9 MB of the kept
 * heap), and the thresholds get glibc's default values. Not its dynamic
 * ones: a threshold once set stays (malloc/malloc.c; before, the freed
 * BTF had raised the mmap threshold to its size), so a block above
 * 128 KiB is now mapped for each use. make bench-memory at 4,096 groups
 * saw no difference: a text /metrics render 3.64 s against 3.68 s, RSS
 * 74.5 MB against 74.3 MB.
 */
static void keep_heap(bool keep)
{
	mallopt(M_MMAP_THRESHOLD, keep ? 32 << 20 : 128 << 10);
	mallopt(M_TRIM_THRESHOLD, keep ? 64 << 20 : 128 << 10);
	if (!keep)
		malloc_trim(0);
}

/*
 * What each attached standing hook goes without (nsl_hook_state.lacks):
 * its sockets' walk (the namespace -n selects, ours with -n -1), and with
 * -n -1 the runs' walk of the other namespaces. Said again after the load
 * changed the plan.
 */
void nsl_loader_note_lacks(struct nsl_loader *l)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		struct nsl_hook_state *hs = &l->hooks[h];
		size_t n = 0;

		hs->lacks[0] = '\0';
		if (hs->method == NSL_METHOD_NONE || !nsl_hook_standing(h))
			continue;
		for (int w = 0; w < NSL_NR_WALKS; w++) {
			if (!(nsl_walks[w].hooks & (1u << h)) ||
			    (nsl_walks[w].every_netns && l->netns_ino) ||
			    (l->walks_on & (1u << w)))
				continue;
			n += snprintf(hs->lacks + n, sizeof(hs->lacks) - n, "%s%s (%s)",
				      n ? "; " : "", nsl_walks[w].what, l->walk_why[w]);
			if (n >= sizeof(hs->lacks))
				break;
		}
	}
}

/*
 * The walks the attached standing hooks want (walks of every namespace's
 * runs only with -n -1), where this kernel loads their programs.
 */
static void plan_walks(struct nsl_loader *l, const struct btf *vmlinux)
{
	l->walks_on = 0;
	for (int w = 0; w < NSL_NR_WALKS; w++) {
		const struct nsl_walk_desc *d = &nsl_walks[w];
		struct bpf_program *p;
		bool wanted = false;

		l->walk_why[w][0] = '\0';
		for (int h = 0; h < NSL_NR_HOOKS; h++)
			wanted |= (d->hooks & (1u << h)) &&
				  l->hooks[h].method != NSL_METHOD_NONE;
		if (!wanted || (d->every_netns && l->netns_ino))
			continue;
		p = bpf_object__find_program_by_name(l->skel->obj, d->prog);
		if (!p)
			snprintf(l->walk_why[w], sizeof(l->walk_why[w]),
				 "program %s missing", d->prog);
		else if (!nsl_probe_section(vmlinux, bpf_program__section_name(p),
					    l->walk_why[w], sizeof(l->walk_why[w])))
			l->walks_on |= 1u << w;
	}
	nsl_loader_note_lacks(l);
}

int nsl_loader_probe(struct nsl_loader *l, const struct nsl_options *o)
{
	struct btf *vmlinux;
	int err;

	keep_heap(true);
	l->skel = nsl_object_open();
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
	plan_walks(l, vmlinux);
	btf__free(vmlinux);
	return 0;
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
		err = nsl_object_try(l, o, 1u << h);
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
 * After a failed load: the walks that the kernel refuses are left off, each
 * one whose hooks' programs (and the maps) load without it and not with
 * it. Returns whether one was.
 */
static bool drop_refused_walks(struct nsl_loader *l, const struct nsl_options *o)
{
	uint32_t on = l->walks_on, ok = 0;

	for (int w = 0; w < NSL_NR_WALKS; w++) {
		int err;

		if (!(on & (1u << w)))
			continue;
		/* its hooks fail without it: not the walk's doing */
		l->walks_on = 0;
		if (nsl_object_try(l, o, nsl_walks[w].hooks)) {
			ok |= 1u << w;
			continue;
		}
		l->walks_on = 1u << w;
		err = nsl_object_try(l, o, nsl_walks[w].hooks);
		if (!err)
			ok |= 1u << w;
		else
			snprintf(l->walk_why[w], sizeof(l->walk_why[w]),
				 "%s: refused at load: %s", nsl_walks[w].prog,
				 strerror(-err));
	}
	l->walks_on = ok;
	nsl_loader_note_lacks(l);
	return ok != on;
}

int nsl_loader_load(struct nsl_loader *l, const struct nsl_options *o)
{
	int err;

	l->netns_gone_on = nsl_group_by_netns(o) && !l->netns_gone_why[0];
	if (l->netns_gone_on && !l->cleanup_net) {
		static const char *const name[] = { "cleanup_net" };
		uint64_t len = 0;

		nsl_ksym_ranges(name, 1, &l->cleanup_net, &len);
		if (!l->cleanup_net) {
			l->netns_gone_on = false;
			snprintf(l->netns_gone_why, sizeof(l->netns_gone_why),
				 "no address for cleanup_net in /proc/kallsyms");
		}
	}
	/* libbpf's own account of a refusal (the verifier's log) with -v only */
	nsl_libbpf_quiet = true;
	for (;;) {
		netstacklat_bpf__destroy(l->skel);
		l->skel = nsl_object_build(l, o, UINT32_MAX);
		if (!l->skel) {
			err = -errno;
			pr_warn("cannot open the BPF object: %s\n", strerror(-err));
			break;
		}
		err = netstacklat_bpf__load(l->skel);
		if (!err)
			break;
		/* the program that finds dead namespaces: without it, as before it */
		if (l->netns_gone_on && nsl_object_try(l, o, 0)) {
			l->netns_gone_on = false;
			snprintf(l->netns_gone_why, sizeof(l->netns_gone_why),
				 "its program refused at load: %s", strerror(-err));
			continue;
		}
		/*
		 * the walks: each that does not load with its hooks is left
		 * off (the hooks run on their looks, and say what they lack)
		 */
		if (l->walks_on && drop_refused_walks(l, o))
			continue;
		/* the maps alone must load, or the failure is no hook's */
		if (nsl_object_try(l, o, 0) || move_rejected_hooks(l, o) <= 0) {
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
	/* a hook moved or gone: what the others lack is said anew */
	nsl_loader_note_lacks(l);
	keep_heap(false);
	if (!err && (err = nsl_object_fill_free_ids(l, o)))
		pr_warn("cannot fill the map of free group ids: %s\n", strerror(-err));
	return err;
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
