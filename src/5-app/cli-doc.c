// SPDX-License-Identifier: GPL-2.0-only
/* The help text: one entry per option, as argp prints them (cli.c parses). */
#include <argp.h>
#include <stddef.h>
#include "cli-doc.h"
#include "version.h"

const char *argp_program_version = "netstacklat " NSL_VERSION;

const char nsl_argp_doc[] =
"Measure latency inside the Linux network receive stack.\n"
"\n"
"At each hook the time since the packet's RX timestamp is added to a log2\n"
"histogram; a report is printed every INTERVAL seconds (default 5).\n"
"-i, -n and -I apply to every hook. -p, -c, -q and -C apply to the\n"
"socket-read hooks only: the others do not run in the reading process.\n"
"The standing-queue hooks see every socket of -n's namespace: -p, -c\n"
"and -i do not apply to them (said when given), -I only with -n -1.\n"
"-p, -i and -c given again add to their list.\n"
"With --listen and neither -F nor -o, nothing is printed on stdout.\n"
"netns-handover (the host's share of a pod's latency) and the standing-\n"
"queue hooks (a socket's queue standing, CoDel's sense) are opt-in: they\n"
"run only when -e names them; each costs every packet of its kind.\n"
"\n"
"EXAMPLES:\n"
"    netstacklat                     # default hooks, a table every 5 s\n"
"    netstacklat -l                  # hooks and how each attaches here\n"
"    netstacklat 10 1                # one summary of the next 10 s\n"
"    netstacklat -i eth0 1 10        # eth0 only, 10 reports 1 s apart\n"
"    netstacklat -n -1 -F json -o lat.jsonl   # all netns, JSON lines\n"
"    netstacklat -e tcp-socket-read -C        # TCP reads per cgroup\n"
"    netstacklat --listen :9469      # /metrics for Prometheus, every address\n"
"    netstacklat -n -1 -C -I --listen :9469   # a container host: every pod's\n"
"                                    # namespace, per cgroup and interface\n"
"    netstacklat -e udp-standing-queue        # UDP queues that stand\n"
"\n"
"HOOKS: ip-start tcp-start udp-start tcp-socket-enqueued\n"
"       udp-socket-enqueued tcp-socket-read udp-socket-read\n"
"       netns-handover tcp-standing-queue udp-standing-queue\n"
"\v"
"The TCP head-of-line filter (on unless -y) leaves out TCP reads that may\n"
"have waited for a retransmission of lost data: that wait comes from the\n"
"network, not from this host.";

const char nsl_argp_args_doc[] = "[INTERVAL [COUNT]]";

const struct argp_option nsl_argp_options[] = {
	{ "report-interval", 'r', "SECONDS", 0,
	  "Seconds between reports (default 5); same as INTERVAL", 0 },
	{ "count", OPT_COUNT, "N", 0,
	  "Stop after N reports; same as COUNT (default: until SIGINT)", 0 },
	{ "timestamp", 'T', NULL, 0, "Print the wall-clock time with each table report", 0 },
	{ "format", 'F', "FORMAT", 0,
	  "Output format: table (default), json or prometheus (cumulative; "
	  "with -o, the file is replaced atomically each interval)", 0 },
	{ "listen", OPT_LISTEN, "[ADDR:]PORT", 0,
	  "Serve Prometheus metrics on http://ADDR:PORT/metrics (PORT "
	  "alone: 127.0.0.1; :PORT every address, IPv4 and IPv6; [::1]:PORT "
	  "for an IPv6 address)", 0 },
	{ "output", 'o', "FILE", 0,
	  "Write reports to FILE instead of stdout (replaced at start)", 0 },
	{ "append", OPT_APPEND, NULL, 0,
	  "With -o: add to FILE instead of replacing it", 0 },
	{ "cumulative", OPT_CUMULATIVE, NULL, 0,
	  "Totals since start instead of per-interval deltas", 0 },
	{ "list-probes", 'l', NULL, 0,
	  "List hooks and the attach method each gets here, then exit "
	  "(without root: the methods each tries, unprobed)", 0 },
	{ "enable-probes", 'e', "HOOK[,..]", 0, "Only these hooks (not with -d)", 1 },
	{ "disable-probes", 'd', "HOOK[,..]", 0, "All hooks but these (not with -e)", 1 },
	{ "attach", OPT_ATTACH, "MODE", 0,
	  "auto (default: per hook the first method that works), fentry "
	  "(fentry/fexit only) or fallback (never fentry/fexit)", 1 },
	{ "pids", 'p', "PID[,..]", 0, "Only reads by these processes", 2 },
	{ "interfaces", 'i', "IFACE[,..]", 0,
	  "Only these interfaces, by name or index", 2 },
	{ "network-namespace", 'n', "NS", 0,
	  "0 = own netns (default), -1 = all, an inode number, or a path such "
	  "as /run/netns/NAME or /proc/PID/ns/net", 2 },
	{ "cgroups", 'c', "CGROUP[,..]", 0, "Only these cgroups, by path or id", 2 },
	{ "min-queuelength", 'q', "N", 0,
	  "Only socket reads that left >= N skbs (TCP) or datagrams (UDP) "
	  "queued, counted after the read: a reader that lags behind", 2 },
	{ "groupby-interface", 'I', NULL, 0, "One histogram per interface", 3 },
	{ "groupby-cgroup", 'C', NULL, 0, "One histogram per cgroup", 3 },
	{ "max-groups", OPT_MAX_GROUPS, "N", 0,
	  "Room for N histograms with -I/-C (default 4096), for the groups "
	  "that exist at once (gone ones are reclaimed); samples of further "
	  "groups are counted as map_full", 3 },
	{ "owner-quota", OPT_OWNER_QUOTA, "N", 0,
	  "With -I -n -1 or -C: the network namespaces one unprivileged user "
	  "made (in a user namespace of its own), or one container's user "
	  "namespace, and the cgroups a user was delegated hold N histograms "
	  "at most (default: --max-groups / 8; 0: no limit); samples of its "
	  "further ones are counted as owner_quota", 3 },
	{ "group-idle", OPT_GROUP_IDLE, "SECONDS", 0,
	  "Reclaim a group whose existence cannot be checked (an interface of "
	  "another netns with -n -1) after SECONDS without samples (default "
	  "600); gone cgroups and interfaces are reclaimed at once", 3 },
	{ "series-grace", OPT_SERIES_GRACE, "SECONDS", 0,
	  "Prometheus: keep a reclaimed group's final totals for SECONDS "
	  "(default 300; at most --max-groups of them), then drop its series", 3 },
	{ "resolution", OPT_RESOLUTION, "N", 0,
	  "Buckets per power of two: 1 (default: log2 buckets in ns), 2, 4 or 8 "
	  "(the bounds of Prometheus native histogram schema 1, 2, 3 for "
	  "seconds; 8: buckets 9 % wide)", 3 },
	{ "sample", OPT_SAMPLE, "N", 0,
	  "Record one packet in N per hook and CPU (default 1: all); counts "
	  "and rates are then 1/N of the traffic's, latencies unbiased", 3 },
	{ "standing-target", OPT_STANDING_TARGET, "SECONDS", 0,
	  "The standing-queue hooks: a queue stands once its oldest packet's "
	  "wait has stayed at or above SECONDS (default 0.001) for "
	  "--standing-interval", 3 },
	{ "standing-interval", OPT_STANDING_INTERVAL, "SECONDS", 0,
	  "The standing-queue hooks: how long above the target makes an "
	  "episode (default 0.01)", 3 },
	{ "include-tcp-hol-delay", 'y', NULL, 0,
	  "Record TCP reads that may be HOL-blocked", 3 },
	{ "verbose", 'v', NULL, 0, "libbpf and attach details on stderr", 4 },
	/* argp's own would print nothing with ARGP_NO_ERRS: cli.c prints */
	{ "help", '?', NULL, 0, "Give this help list", -1 },
	{ NULL, 'h', NULL, OPTION_ALIAS, NULL, -1 },	/* as bcc's tools take it */
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "Print program version", -1 },
	{ "user", OPT_USER, "NAME", 0,
	  "Once attached, run as this user (e.g. nobody); all capabilities "
	  "are dropped in any case. With --listen, root without it runs as "
	  "netstacklat, else nobody", 4 },
	{ "bpf-stats", OPT_BPF_STATS, NULL, 0,
	  "Report what each BPF program costs: runs, ns per run, CPU share "
	  "(turns on the kernel's BPF run-time statistics while running)", 4 },
	{},
};
