/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loader: picks an attach method per hook (probing the running kernel),
 * loads the BPF object with only the chosen programs, fills the filter maps
 * and attaches. Everything it creates goes away with nsl_loader_close().
 */
#ifndef NSL_LOADER_H
#define NSL_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include "hooks.h"
#include "options.h"

struct netstacklat_bpf;
struct bpf_link;
struct nsl_walkns;
struct ring_buffer;

#define NSL_NF_LINKS 2

struct nsl_hook_state {
	enum nsl_method method;		/* NSL_METHOD_NONE: not attached */
	int cand;			/* index of the method in nsl_hooks[].cands */
	char why[320];			/* why no method works here */
	/* what an attached hook goes without (its walks, nsl_walks[]), or "" */
	char lacks[320];
	struct bpf_link *links[NSL_MAX_PROGS];
	int nf_fds[NSL_NF_LINKS];	/* netfilter links: IPv4, IPv6 */
};

/* starts zeroed, but for its descriptors: -1 (main()) */
struct nsl_loader {
	struct netstacklat_bpf *skel;
	struct nsl_hook_state hooks[NSL_NR_HOOKS];
	int rx_tstamp_fd;
	int ifname_fd;		/* socket in the netns of -n, for names; or -1 */
	int links_fd;		/* -I: route netlink socket there, for peers; or -1 */
	char netns_path[256];	/* netns of -n to enter, "" for our own */
	uint64_t netns_ino;	/* the netns -n selects, 0 for all */
	uint64_t nf_netns_ino;	/* where the netfilter hooks attach */
	/* the filters of -i and -c, resolved (nsl_loader_resolve()) */
	uint32_t ifidx[NSL_MAX_FILTER_ENTRIES];
	uint64_t cgids[NSL_MAX_FILTER_ENTRIES];
	/* where UDP frees a read datagram (cfg.udp_free_*), when needed */
	uint64_t udp_free_at[NSL_UDP_FREE_FUNCS];
	uint64_t udp_free_len[NSL_UDP_FREE_FUNCS];
	/* veth's and netkit's ndo_start_xmit (cfg.handover_xmit), when needed */
	uint64_t handover_xmit[NSL_HANDOVER_XMITS];
	/*
	 * What this kernel's BPF lacks and the tool works around (probed in
	 * nsl_loader_probe(); cfg.clock_mono; -l says so).
	 */
	bool clock_mono;	/* no bpf_ktime_get_tai_ns() (before 6.1) */
	bool no_task_storage;	/* no BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	uint64_t offs_real_addr; /* &tk_core.timekeeper.offs_real, or 0 */
	bool clock_set;		/* nsl_clock in the BPF object was written */
	bool clock_warned;	/* said that it cannot be read any more */
	struct ring_buffer *clock_events; /* BPF: "the clock moved" */
	/*
	 * -I -n -1: the program that tells the reader of dead namespaces'
	 * groups (bpf/netns_gone.bpf.h). netns_gone_on while it is to load
	 * or runs; netns_gone_why says why not, when wanted and refused.
	 */
	bool netns_gone_on;
	char netns_gone_why[160];
	uint64_t cleanup_net;	/* its address (cfg.cleanup_net) */
	struct bpf_link *netns_gone_link;
	/*
	 * The standing hooks' walks (nsl_walks[]): walks_on, bit per walk
	 * to load (plan.c) and attached (walk_links[]), the reader runs them
	 * at each report; walk_why, why one wanted is not. The sockets'
	 * walks of -n PATH's namespace are made by a thread that lives
	 * there (walk_thread, walkns.h); of ours by the reader.
	 */
	uint32_t walks_on;
	char walk_why[NSL_NR_WALKS][160];
	struct bpf_link *walk_links[NSL_NR_WALKS];
	struct nsl_walkns *walk_thread;
};

/* Whether the kernel takes BPF atomic fetch-and-add (v5.12; -I/-C need it). */
bool nsl_loader_has_atomic_fetch(void);

/*
 * Resolves what o names (the netns of -n, the interfaces of -i, the cgroups
 * of -c), before anything touches BPF: a name that does not exist ends the
 * run with its message and not one program loaded, not even a probe's
 * (issue #32: a probe's program, freed after an RCU grace period, outlived
 * the bad invocation that loaded it). Call before nsl_loader_probe().
 */
int nsl_loader_resolve(struct nsl_loader *l, const struct nsl_options *o);

/* Opens the BPF object and decides the method per enabled hook (no load). */
int nsl_loader_probe(struct nsl_loader *l, const struct nsl_options *o);

/*
 * Loads the programs of the chosen methods. Where the kernel refuses a
 * hook's programs (a verifier that rejects what another accepts), that
 * hook moves on to its next method, or becomes unavailable with the
 * reason, and the others load without it: one rejection never costs every
 * hook. Call after nsl_loader_probe(); -l calls it too, so that it shows
 * what really loads. 0, or a negative errno when nothing can load.
 */
int nsl_loader_load(struct nsl_loader *l, const struct nsl_options *o);

/*
 * Loads, fills the filter maps nsl_loader_resolve() resolved and attaches.
 * Call after nsl_loader_probe(). On error the message has
 * been printed and nsl_loader_close() cleans up.
 */
int nsl_loader_attach(struct nsl_loader *l, const struct nsl_options *o);

/*
 * Makes the BPF side's clock (struct nsl_clock) follow the kernel's: call
 * it every interval and when the clock was set. Says on stderr when the
 * TAI offset changed. Returns 1 if it wrote anything, 0 if nothing
 * changed, or a negative errno.
 */
int nsl_loader_sync_clock(struct nsl_loader *l);

/*
 * An fd that poll() reports readable when the BPF side found the clock
 * moved (the kernel tells no one of a new TAI offset); then call
 * nsl_loader_clock_event(), which follows the clock as above. The fd or a
 * negative errno.
 */
int nsl_loader_clock_event_fd(struct nsl_loader *l);
int nsl_loader_clock_event(struct nsl_loader *l);

/*
 * -I -n -1: attaches the program that finds dead namespaces (loaded with
 * the object); where the kernel refuses it, says why in netns_gone_why
 * and the reader falls back to --group-idle. -l calls it too, so that it
 * tells what really attaches.
 */
void nsl_loader_attach_netns_gone(struct nsl_loader *l);

void nsl_loader_close(struct nsl_loader *l);

/* The attach candidate hook h got, or NULL when it got none. */
static inline const struct nsl_candidate *nsl_loader_chosen(const struct nsl_loader *l,
							    int h)
{
	if (l->hooks[h].method == NSL_METHOD_NONE)
		return NULL;
	return &nsl_hooks[h].cands[l->hooks[h].cand];
}

/* Bit per hook whose chosen candidate uses program prog (two may share one). */
uint32_t nsl_loader_prog_hooks(const struct nsl_loader *l, const char *prog);

/*
 * Whether hook h is the one that attaches (and reports) program prog: a
 * program two hooks share is attached once, by the first of them.
 */
bool nsl_loader_prog_owner(const struct nsl_loader *l, int h, const char *prog);

/* Histograms of the grouped maps: --max-groups when grouping, else 1. */
uint32_t nsl_loader_groups(const struct nsl_options *o);

/*
 * What each attached standing hook goes without (its walks that are not
 * on), in its lacks; again after the plan changed.
 */
void nsl_loader_note_lacks(struct nsl_loader *l);

/* Number of enabled hooks that got a method. */
int nsl_loader_nr_attached(const struct nsl_loader *l);

#endif /* NSL_LOADER_H */
