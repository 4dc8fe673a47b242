/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options of a run, as every stage reads them: plain data. The command
 * line fills them (src/5-app/cli.c), checked before anything is loaded.
 */
#ifndef NSL_OPTIONS_H
#define NSL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "netstacklat.h"
#include "report.h"

enum nsl_attach_mode {
	NSL_ATTACH_AUTO,	/* per hook, the first candidate that works */
	NSL_ATTACH_FENTRY,	/* only fentry/fexit */
	NSL_ATTACH_FALLBACK,	/* skip fentry/fexit, use the fallbacks */
};

enum nsl_netns_sel {
	NSL_NETNS_OWN,		/* -n 0, the default */
	NSL_NETNS_ALL,		/* -n -1 */
	NSL_NETNS_INODE,	/* -n 4026531840 */
	NSL_NETNS_PATH,		/* -n /run/netns/x, /proc/PID/ns/net */
};

struct nsl_options {
	double interval_s;
	unsigned long count;		/* 0: until SIGINT/SIGTERM */
	bool timestamp;
	enum nsl_format format;
	const char *output;		/* NULL: stdout */
	bool append;			/* --append: -o adds to FILE */
	/*
	 * No reports on stdout: --listen serves them, and neither -F nor -o
	 * asked for more (an exporter is quiet)
	 */
	bool quiet;
	bool cumulative;
	bool list_probes;
	bool verbose;
	bool bpf_stats;			/* report the BPF programs' run time */
	const char *user;		/* --user: switch to it once attached */
	bool user_taken;		/* user is not --user's: see nsl_preflight_user() */
	/* --listen: serve /metrics; listen_port 0 when not asked for */
	char listen_addr[64];		/* numeric IPv4 or IPv6 address */
	uint16_t listen_port;
	enum nsl_attach_mode attach;
	bool hook_enabled[NSL_NR_HOOKS];

	uint32_t pids[NSL_MAX_FILTER_ENTRIES];
	unsigned int nr_pids;
	/* -i entries as given: a name, or an index when name is "" */
	struct nsl_iface {
		char name[IF_NAMESIZE];
		uint32_t index;
	} ifaces[NSL_MAX_FILTER_ENTRIES];
	unsigned int nr_ifaces;
	enum nsl_netns_sel netns;
	uint64_t netns_ino;		/* NSL_NETNS_INODE */
	const char *netns_path;		/* NSL_NETNS_PATH */
	/* -c entries as given: a path, or an id when path is NULL */
	struct nsl_cgroup {
		const char *path;
		uint64_t id;
	} cgroups[NSL_MAX_FILTER_ENTRIES];
	unsigned int nr_cgroups;
	uint32_t min_queue_len;
	bool group_ifindex;
	bool group_cgroup;
	uint32_t max_groups;		/* histograms of the grouped maps */
	/* --owner-quota: ids of one unprivileged owner's namespaces and cgroups, or AUTO */
	uint32_t owner_quota;
	/* --group-idle: groups that cannot be checked go after so long idle */
	uint32_t group_idle_s;
	/* --series-grace: Prometheus keeps a reclaimed group's series so long */
	uint32_t series_grace_s;
	/* --resolution 1, 2, 4, 8: histogram schema 0..3 (include/netstacklat.h) */
	unsigned int schema;
	uint32_t sample_every;		/* --sample N: 1 packet in N (1: all) */
	bool include_hol;
	/* the standing hooks: CoDel's target and interval (include/standing.h) */
	uint64_t standing_target_ns;
	uint64_t standing_interval_ns;

	bool info_only;			/* --help/--usage/--version: done */
	char errmsg[256];		/* set when parsing fails */
	/* options that do nothing here: one line each for stderr */
	char warnings[8][200];
	unsigned int nr_warnings;
};

#define NSL_GROUP_IDLE_S 600
#define NSL_SERIES_GRACE_S 300

/*
 * -I with -n -1: groups are keyed by network namespace too (interface
 * indices are per namespace).
 */
static inline bool nsl_group_by_netns(const struct nsl_options *o)
{
	return o->group_ifindex && o->netns == NSL_NETNS_ALL;
}

/* --owner-quota not given: an eighth of --max-groups (at least 1) */
#define NSL_OWNER_QUOTA_AUTO UINT32_MAX

/*
 * The ids the network namespaces and cgroups of one unprivileged owner
 * may hold (bpf/owner_quota.bpf.h): only where groups are keyed by
 * namespace (-I -n -1) or cgroup (-C); 0: no quota.
 */
static inline uint32_t nsl_owner_quota(const struct nsl_options *o)
{
	if (!nsl_group_by_netns(o) && !o->group_cgroup)
		return 0;
	if (o->owner_quota == NSL_OWNER_QUOTA_AUTO)
		return o->max_groups / 8 ? o->max_groups / 8 : 1;
	return o->owner_quota;
}

#endif /* NSL_OPTIONS_H */
