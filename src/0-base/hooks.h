/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one table of hooks: name, meaning and the ordered attach candidates
 * of every hook. Options, loader, reader and formatters all read it.
 */
#ifndef NSL_HOOKS_H
#define NSL_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "netstacklat.h"

enum nsl_method {
	NSL_METHOD_NONE,
	NSL_METHOD_FENTRY,	/* fentry/fexit: needs BPF trampolines */
	NSL_METHOD_TRACEPOINT,	/* tp_btf: BTF-typed tracepoints */
	NSL_METHOD_NETFILTER,	/* netfilter BPF link, one netns only */
};

/* Netfilter hook of a NSL_METHOD_NETFILTER candidate (IPv4 and IPv6 both). */
enum nsl_nf_place {
	NSL_NF_PRE_ROUTING_FIRST,	/* earliest allowed priority */
	NSL_NF_LOCAL_IN_LAST,		/* latest allowed priority */
	NSL_NF_FORWARD_LAST,		/* FORWARD, latest allowed priority */
};

#define NSL_MAX_CANDIDATES 3
#define NSL_MAX_PROGS 5

/* What a candidate needs beyond its attach points, checked by the loader. */
enum nsl_need {
	NSL_NEED_NOTHING,
	/* consume_skb with a location, fired in the reader (6.3 to 6.17) */
	NSL_NEED_UDP_FREE_SITE,
	/* __udp_enqueue_schedule_skb() returns 0 once queued (before 6.18) */
	NSL_NEED_UDP_QUEUED_ON_RETURN,
	/* the transmit function of veth (and netkit) in /proc/kallsyms */
	NSL_NEED_HANDOVER_DEVS,
	/* socket storage in tracing programs (5.11) */
	NSL_NEED_TRACING_SK_STORAGE,
};

struct nsl_candidate {
	/*
	 * A netfilter candidate's first program is its netfilter program; any
	 * others are tracepoints (they attach as their section says).
	 */
	enum nsl_method method;
	/* BPF program names (bpf/netstacklat.bpf.c) that together make the hook */
	const char *progs[NSL_MAX_PROGS];
	enum nsl_nf_place nf_place;	/* NSL_METHOD_NETFILTER only */
	enum nsl_need need;
};

struct nsl_hook_desc {
	const char *name;	/* as upstream: users' dashboards depend on it */
	const char *desc;
	bool reader_ctx;	/* runs in the reading process: -p/-c/-q/-C apply */
	/*
	 * Off unless -e names it: its fallback costs every packet the host
	 * sends on any device (docs/performance.md)
	 */
	bool opt_in;
	struct nsl_candidate cands[NSL_MAX_CANDIDATES];
};

extern const struct nsl_hook_desc nsl_hooks[NSL_NR_HOOKS];

/*
 * The report's walks of the sockets, for the standing-queue hooks
 * (bpf/standing.bpf.h): BPF iterators the reader runs before each report.
 * Each is optional: a hook whose walks do not load still runs on its
 * looks, and -l and hook_info say what it lacks.
 */
enum nsl_walk {
	NSL_WALK_TCP,	/* iter/tcp: the TCP sockets of one namespace */
	NSL_WALK_UDP,	/* iter/udp: its UDP sockets */
	NSL_WALK_RUNS,	/* iter/bpf_sk_storage_map: the runs of every namespace */
	NSL_NR_WALKS
};

struct nsl_walk_desc {
	const char *prog;	/* its BPF program (bpf/netstacklat.bpf.c) */
	uint32_t hooks;		/* bit per hook it looks for */
	/*
	 * Walks the runs of every namespace, wanted with -n -1 only; else
	 * every socket of the namespace it was made in: the one -n selects,
	 * ours with -n -1
	 */
	bool every_netns;
	const char *what;	/* what a hook without it lacks, for -l */
};

extern const struct nsl_walk_desc nsl_walks[NSL_NR_WALKS];

/*
 * The counters (enum nsl_counter): one vocabulary for every output format
 * (JSON key, Prometheus netstacklat_<name>_total, table), and the hooks
 * where each can be non-zero; reports leave it out for the others.
 */
struct nsl_counter_desc {
	const char *name;
	const char *help;	/* one sentence, for Prometheus' HELP and docs */
	uint32_t hooks;		/* bit per hook */
};

extern const struct nsl_counter_desc nsl_counters[NSL_NR_COUNTERS];

/*
 * Hooks where a counter can be non-zero on this kernel only, beyond its
 * .hooks (set by the loader before the first report): before v5.18 the
 * read hooks can count not_rx_tstamp (nsl_read_tstamp_is_rx() in
 * bpf/compat.bpf.h).
 */
extern uint32_t nsl_counter_kernel_hooks[NSL_NR_COUNTERS];

/* Whether counter c can be non-zero for hook h. */
static inline bool nsl_counter_applies(int c, int h)
{
	return (nsl_counters[c].hooks | nsl_counter_kernel_hooks[c]) & (1u << h);
}

/*
 * A standing-queue hook's values (enum nsl_standing_value), which each of
 * its histograms carries (struct nsl_report_hist): one vocabulary for
 * every format (JSON key beside the histogram's, Prometheus
 * netstacklat_<name>, _total for a counter, with the histogram's labels).
 */
struct nsl_value_desc {
	const char *name;
	const char *help;	/* one sentence, for Prometheus' HELP and docs */
	bool ns;		/* counts nanoseconds, reported as seconds */
	bool gauge;		/* a level now, not a count since the start */
};

extern const struct nsl_value_desc nsl_standing_values[NSL_NR_SV];

/* Whether hook h is a standing-queue hook (its histograms carry them). */
bool nsl_hook_standing(int h);

/*
 * Value v of d as reported: seconds for ns, else the count; and as text,
 * in buf (NSL_VALUE_LEN holds any), its length.
 */
#define NSL_VALUE_LEN 24
double nsl_value_number(const struct nsl_value_desc *d, uint64_t v);
int nsl_value_snprint(char *buf, size_t len, const struct nsl_value_desc *d,
		      uint64_t v);

/*
 * The names of the hooks in a bit mask, joined by sep (in buf, returned;
 * NSL_HOOK_NAMES_LEN holds all of them).
 */
#define NSL_HOOK_NAMES_LEN 200
const char *nsl_hook_names(uint32_t hooks, const char *sep, char *buf,
			   size_t len);

/* Returns the hook id for name, or -1. */
int nsl_hook_by_name(const char *name);
const char *nsl_method_name(enum nsl_method m);

#endif /* NSL_HOOKS_H */
