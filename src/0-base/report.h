/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A report: what the reader hands to the formatters. Plain data, no BPF,
 * so that formatters and statistics are unit-tested on the host.
 */
#ifndef NSL_REPORT_H
#define NSL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <net/if.h>
#include "netstacklat.h"

/*
 * The container a group's cgroup belongs to, and its Kubernetes pod, as
 * the runtime's own state names them (src/2-collect/containers.c,
 * docs/containers.md); each name NULL where unknown.
 */
/* a runtime's container id: 64 lowercase hex digits */
#define NSL_CONTAINER_ID_LEN 64

struct nsl_container {
	const char *runtime;		/* "containerd", "cri-o", "docker", "podman"; NULL: unsaid */
	char id[NSL_CONTAINER_ID_LEN + 1];	/* the runtime's container id; "": a pod's namespace */
	char *name;			/* the runtime's name for it (docker, podman) */
	char *pod, *pod_namespace, *pod_uid;	/* a Kubernetes pod's */
	char *container;		/* its name in the pod; NULL: the pod's sandbox */
};

/*
 * Whether c is a Kubernetes pod's (its names, where known: namespace,
 * pod, container), or another runtime's (name, else its id): every format
 * asks this one question, and so does a namespace's naming.
 */
static inline bool nsl_container_in_pod(const struct nsl_container *c)
{
	return c->pod || c->pod_uid;
}

struct nsl_report_hist {
	struct nsl_group_key key;	/* hook, and ifindex/cgroup if grouped */
	unsigned int schema;		/* the layout of the slots (include/hist.h) */
	/*
	 * The slots that may hold samples: slot lo + i is buckets[i], i < nr;
	 * every other of the schema's nsl_nr_slots() is 0 (nsl_report_slot()).
	 * At --resolution 8 a histogram has 514 slots, of which a host's
	 * latencies fill a hundred or so: thousands of groups keep only those.
	 */
	unsigned int lo, nr;
	uint64_t *buckets;
	uint64_t count;			/* sum of buckets */
	/*
	 * The sum of the latencies: sum_wraps * 2^64 + sum_ns. The BPF side's
	 * u64 wraps after 2^64 ns (21 days at 10 Mpps x 1 ms); a cumulative
	 * reader counts its wraps (src/2-collect/reader.c), an interval's
	 * sum never gets near one.
	 */
	uint64_t sum_ns;
	uint64_t sum_wraps;
	/*
	 * A standing-queue hook's (0 for the others): the standing time and
	 * episodes begun, counted like the slots (the histogram holds the
	 * episodes that ended), and the sockets standing now, a gauge.
	 */
	uint64_t standing[NSL_NR_SV];
	char ifname[IF_NAMESIZE];	/* "" if unknown or not grouped */
	const char *cgroup_path;	/* NULL if unknown or not grouped */
	const struct nsl_container *container;	/* -C: NULL if none */
	/*
	 * Grouped: a group is (key, serial); a key that comes back after
	 * its group was reclaimed is a new group, counted from zero. gone:
	 * its cgroup/interface/netns went away (or it idled out): the
	 * report is its last (Prometheus: its final totals, kept a while).
	 */
	uint64_t serial;
	bool gone;
	uint64_t gone_tick;		/* the reader's bookkeeping */
};

/*
 * The range of slots[0 .. n) that holds samples: its first slot in *lo,
 * and how many it spans (0: none).
 */
static inline unsigned int nsl_slot_range(const uint64_t *slots, unsigned int n,
					  unsigned int *lo)
{
	unsigned int l = 0;

	while (l < n && !slots[l])
		l++;
	while (n > l && !slots[n - 1])
		n--;
	*lo = l;
	return n - l;
}

/* Slot i of h: its count of samples. */
static inline uint64_t nsl_report_slot(const struct nsl_report_hist *h, unsigned int i)
{
	return i - h->lo < h->nr ? h->buckets[i - h->lo] : 0;	/* i < lo wraps */
}

/*
 * One attached BPF program over the report's interval: what the kernel
 * counts for it in struct bpf_prog_info (src/2-collect/bpfstats.c).
 */
struct nsl_prog_stat {
	uint32_t hooks;			/* bit per hook the program serves */
	char prog[40];			/* program name in bpf/netstacklat.bpf.c */
	uint64_t run_cnt;		/* invocations (--bpf-stats) */
	uint64_t run_time_ns;		/* time spent in the program (--bpf-stats) */
	/*
	 * Runs the kernel skipped because the program was already running
	 * on that CPU (nested in it: a softirq on its way out of an
	 * interrupt), each a call of its hook that it never saw; counted
	 * whatever --bpf-stats (docs/hooks.md)
	 */
	uint64_t recursion_misses;
};
#define NSL_MAX_REPORT_PROGS 16

/* Whether a report's programs carry recursion_misses. */
enum nsl_recursion {
	NSL_RECURSION_NOT_READ,		/* no programs read: formats leave it out */
	NSL_RECURSION_UNAVAILABLE,	/* the kernel has no such count (before 5.12) */
	NSL_RECURSION_COUNTED,
};

/* How a hook attaches and what it sees: the same for every report of a run. */
struct nsl_hook_status {
	bool enabled;			/* asked for (-e/-d) */
	const char *method;		/* "fentry", "tracepoint", "netfilter"; NULL: unavailable */
	uint64_t netns;			/* inode of the only netns it sees; 0: all */
	const char *why;		/* when unavailable: the reasons */
	const char *lacks;		/* attached, without something: what; or NULL */
};

struct nsl_report {
	struct timespec time;		/* CLOCK_REALTIME when the maps were read */
	double interval_s;		/* time covered by the report */
	bool cumulative;
	unsigned int schema;		/* of every histogram */
	uint32_t sample_every;		/* --sample N: counts are 1/N of the traffic's */
	bool group_ifindex;		/* -I */
	bool group_cgroup;		/* -C */
	bool group_netns;		/* -I with -n -1: groups carry the netns */
	bool hook_enabled[NSL_NR_HISTS];	/* per histogram (hook, HOL) */
	/* per hook; NULL when not known (then the formats leave it out) */
	const struct nsl_hook_status *status;
	/* the libbpf the tool runs with, e.g. "1.1" (build_info); NULL: not known */
	const char *libbpf_version;
	/* sorted by (hook, ifindex, cgroup); ungrouped: one per enabled hook */
	size_t nr_hists;
	struct nsl_report_hist *hists;
	uint64_t counters[NSL_NR_HOOKS][NSL_NR_COUNTERS];
	/* grouped: groups live after this report, and reclaimed (a counter) */
	uint32_t groups_live;
	uint64_t groups_reclaimed;
	uint64_t groups_evicted;	/* retired to make room (a counter) */
	/*
	 * Reports (this one's predecessors) that could not be written to
	 * the output, since the start (src/4-sink/output.c)
	 */
	uint64_t reports_lost;
	/*
	 * /metrics: its server process, started again that often after one
	 * ended, and the time the tool spent rendering its answers
	 */
	bool served;
	uint64_t server_restarts;
	uint64_t server_render_ns;
	/* the attached programs: their run time (bpf_stats), their misses */
	bool bpf_stats;			/* run_cnt, run_time_ns filled (--bpf-stats) */
	enum nsl_recursion recursion;	/* recursion_misses filled */
	size_t nr_progs;
	struct nsl_prog_stat progs[NSL_MAX_REPORT_PROGS];
};

#define NSL_SAMPLE_EVERY_HELP "One packet in this many is recorded, per hook " \
	"and CPU (--sample): multiply counts and rates by it."

/* The factor that scales r's counts to the traffic's (--sample N; 0: 1). */
static inline uint32_t nsl_sample_every(const struct nsl_report *r)
{
	return r->sample_every ? r->sample_every : 1;
}

enum nsl_format { NSL_FMT_TABLE, NSL_FMT_JSON, NSL_FMT_PROMETHEUS };

struct nsl_format_opts {
	enum nsl_format format;
	bool timestamp;			/* -T: wall-clock time line in tables */
};

#endif /* NSL_REPORT_H */
