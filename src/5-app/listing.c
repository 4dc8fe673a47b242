// SPDX-License-Identifier: GPL-2.0-only
/* The set-up stage's decisions, told (listing.h). */
#include <stdio.h>
#include <string.h>
#include "listing.h"
#include "log.h"

/* A hook -e/-d left out: the plan marks it so (plan.c). */
static bool disabled(const struct nsl_hook_state *hs)
{
	return !strcmp(hs->why, "disabled");
}

void nsl_list_hooks(const struct nsl_loader *l, FILE *f, bool all)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_hook_state *hs = &l->hooks[h];

		if (!all && disabled(hs))
			continue;
		if (hs->method != NSL_METHOD_NONE)
			fprintf(f, "  %-20s %-11s %s%s%s\n", nsl_hooks[h].name,
				nsl_method_name(hs->method), nsl_hooks[h].desc,
				hs->lacks[0] ? "; lacks " : "", hs->lacks);
		else
			fprintf(f, "  %-20s %-11s %s\n", nsl_hooks[h].name,
				"unavailable", hs->why);
	}
	/*
	 * Not indented, and not starting with a hook's name: scripts read
	 * the hooks from the indented lines, by their first word
	 */
	if (all) {
		char names[NSL_HOOK_NAMES_LEN];
		uint32_t opt_in = 0;

		for (int h = 0; h < NSL_NR_HOOKS; h++)
			opt_in |= (uint32_t)nsl_hooks[h].opt_in << h;
		fprintf(f, "(opt-in: %s run only when -e names them)\n",
			nsl_hook_names(opt_in, ", ", names, sizeof(names)));
	}
}

/*
 * What this kernel's BPF lacks that the tool makes up for, or cannot:
 * nothing on 6.1 and later; on 5.10 the clock, the HOL filter's state
 * and grouping (docs/hooks.md, "Older kernels").
 */
void nsl_list_kernel_notes(const struct nsl_loader *l, FILE *f)
{
	bool no_fetch = !nsl_loader_has_atomic_fetch();

	if (!l->clock_mono && !no_fetch)
		return;
	fprintf(f, "what this kernel's BPF lacks, and what the tool does instead:\n");
	if (l->clock_mono)
		fprintf(f, "  %-20s %s\n", "clock", "no bpf_ktime_get_tai_ns() (Linux 6.1): "
			"bpf_ktime_get_ns() plus the CLOCK_REALTIME offset the tool keeps");
	if (no_fetch)
		fprintf(f, "  %-20s %s\n", "-I, -C", "unavailable: no BPF atomic "
			"fetch-and-add (Linux 5.12)");
}

void nsl_list_group_policy(const struct nsl_loader *l, const struct nsl_options *o, FILE *f)
{
	const char *what = nsl_group_by_netns(o) ?
			   (o->group_cgroup ? "network namespaces and cgroups" : "network namespaces") :
			   "cgroups";

	if (nsl_group_by_netns(o)) {
		if (l->netns_gone_on)
			fprintf(f, "groups of dead network namespaces: retired at the next interval "
				"(raw_tp/workqueue_execute_end after cleanup_net)\n");
		else
			fprintf(f, "groups of dead network namespaces: retired after --group-idle "
				"(%s)\n", l->netns_gone_why[0] ? l->netns_gone_why : "not loaded");
	} else if (!o->group_cgroup) {
		return;
	}
	if (nsl_owner_quota(o))
		fprintf(f, "%s of an unprivileged user: %u groups at most (--owner-quota)\n",
			what, nsl_owner_quota(o));
	else
		fprintf(f, "%s of an unprivileged user: no limit (--owner-quota 0)\n", what);
}

/* Netfilter links live in one namespace: say which, above all with -n -1. */
void nsl_list_netfilter_scope(const struct nsl_loader *l, const struct nsl_options *o)
{
	char names[64] = "";
	size_t n = 0;

	for (int h = 0; h < NSL_NR_HOOKS; h++)
		if (l->hooks[h].method == NSL_METHOD_NETFILTER)
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", nsl_hooks[h].name);
	if (!n)
		return;
	if (o->netns == NSL_NETNS_ALL)
		pr_info("note: %s (netfilter) see only our own network namespace "
			"(inode %llu), not all of them; the other hooks see all\n",
			names, (unsigned long long)l->nf_netns_ino);
	else
		pr_info("%s (netfilter) attached in network namespace inode %llu\n",
			names, (unsigned long long)l->nf_netns_ino);
}

void nsl_list_attached(const struct nsl_loader *l, const struct nsl_options *o)
{
	fprintf(stderr, "netstacklat: attached (%s HOL filter):\n",
		o->include_hol ? "without" : "with");
	nsl_list_hooks(l, stderr, false);
	nsl_list_netfilter_scope(l, o);
	nsl_list_group_policy(l, o, stderr);
}

void nsl_status_line(const struct nsl_loader *l, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "attached:");
	int nr = 0, off = 0;

	for (int h = 0; h < NSL_NR_HOOKS && n < len; h++) {
		const struct nsl_hook_state *hs = &l->hooks[h];

		if (disabled(hs))
			continue;
		if (hs->method == NSL_METHOD_NONE) {
			off++;
			continue;
		}
		n += snprintf(buf + n, len - n, "%s %s (%s)", nr++ ? "," : "",
			      nsl_hooks[h].name, nsl_method_name(hs->method));
	}
	if (off && n < len)
		snprintf(buf + n, len - n, "; %d unavailable (netstacklat -l)", off);
}

void nsl_list_hooks_unprobed(FILE *f)
{
	fprintf(f, "hooks and the methods they try, in order (as root, -l says "
		"which attaches on this kernel):\n");
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_hook_desc *d = &nsl_hooks[h];
		char methods[64] = "";
		size_t n = 0;

		for (int c = 0; c < NSL_MAX_CANDIDATES && d->cands[c].method; c++)
			n += snprintf(methods + n, sizeof(methods) - n, "%s%s", c ? "," : "",
				      nsl_method_name(d->cands[c].method));
		fprintf(f, "  %-20s %-22s %s%s\n", d->name, methods, d->desc,
			d->opt_in ? " (opt-in: runs only when -e names it)" : "");
	}
}
