/* SPDX-License-Identifier: GPL-2.0-only */
/* Text helpers the output formats share (text.c). */
#ifndef NSL_TEXT_H
#define NSL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hooks.h"
#include "report.h"

/* room for a percentile name such as "p99.9" */
#define PCT_LEN 16

/* The hook's name; a hook id from a BPF map key is not trusted blindly. */
const char *nsl_hook_label(__u32 hook);

/* "p99.9": the percentile's name, made from its value so no list can lag. */
void nsl_pct_name(char *buf, size_t len, double p);

/* The percentile in *v; false if it lies in the open-ended last bucket. */
bool nsl_bounded_percentile(const struct nsl_report_hist *h, double p,
			    uint64_t *v);

/*
 * Length of the valid UTF-8 sequence at s (at most left bytes), 0 if there
 * is none.
 */
size_t nsl_utf8_len(const unsigned char *s, size_t left);

/* A Prometheus label: its value is not escaped and may not be UTF-8. */
struct nsl_label {
	const char *name;
	const char *value;
	size_t len;		/* at most this many bytes of value */
};

/*
 * Room for the labels of a histogram (hook, interface, ifindex, netns,
 * cgroup and the four names) and the numbers among their values.
 */
struct nsl_labels {
	struct nsl_label l[9];
	unsigned int n;
	char num[3][24];
};

/*
 * The labels of histogram h, in both Prometheus formats: hook, then with
 * -I interface (its name, "" when none is known) and ifindex (always: a
 * label holds one kind of value), netns with -I -n -1, and with -C cgroup
 * (its path; its id when unknown) and, with -I or -C, the names of its
 * container as kubelet and cAdvisor give them, always all four, each ""
 * where there is none: namespace, pod and container (what of them is
 * known) for a Kubernetes pod's, else name (the runtime's name for the
 * container, or its id) (docs/containers.md, docs/prometheus.md).
 */
void nsl_prom_labels(const struct nsl_report *r, const struct nsl_report_hist *h,
		     struct nsl_labels *out);
/*
 * A container's labels, as nsl_prom_labels() gives them, added to out:
 * namespace, pod, container, name, each "" where c (NULL: none) has none.
 */
void nsl_container_labels(const struct nsl_container *c, struct nsl_labels *out);
/*
 * The labels of netstacklat_hook_info for hook h, in both Prometheus
 * formats: hook, method ("" when none works, as JSON's null), netns (the
 * inode of the one namespace it sees, "" for all or none), and reason
 * only when unavailable.
 */
void nsl_hook_info_labels(const struct nsl_hook_status *st, int h,
			  struct nsl_labels *out);

/*
 * The Prometheus name of a standing-queue hook's value d (hooks.h):
 * netstacklat_<name>, with _total for a counter; in buf.
 */
const char *nsl_standing_metric(char *buf, size_t len, const struct nsl_value_desc *d);

/* netstacklat_build_info's: version, libbpf ("" when not known). */
void nsl_build_info_labels(const struct nsl_report *r, struct nsl_labels *out);

/*
 * A copy of at most len bytes of s (up to a NUL) as valid UTF-8: a byte
 * that starts no valid sequence becomes U+FFFD. malloc'ed; NULL when out
 * of memory.
 */
char *nsl_utf8_dup(const char *s, size_t len);

/* HELP of the group metrics, the same in the text and protobuf formats. */
#define NSL_HELP_GROUPS "Groups (-I/-C) with a histogram now."
#define NSL_HELP_SERVER_RESTARTS "Times the /metrics server process ended " \
	"and was started again since the start (it runs jailed: a fault there " \
	"ends it alone)."
#define NSL_HELP_SERVER_RENDER "Seconds the tool spent rendering answers " \
	"for /metrics since the start (at most half of its time: an answer is " \
	"reused while younger than its render took, and the next render waits " \
	"as long)."
#define NSL_HELP_REPORTS_LOST "Reports that could not be written to the " \
	"output (standard output or -o) since the start."
#define NSL_HELP_RECURSION "Runs of each BPF program that the kernel " \
	"skipped because the program was already running on that CPU: calls " \
	"of its hooks it never saw (at most as many packets lost); a program " \
	"two hooks share has a series under each."
#define NSL_HELP_BPF_RUNS "Runs of each BPF program (--bpf-stats); a " \
	"program two hooks share has a series under each: max by (program) " \
	"totals it."
#define NSL_HELP_BPF_RUN_TIME "Time spent in each BPF program " \
	"(--bpf-stats); a program two hooks share has a series under each."
#define NSL_HELP_BUILD_INFO "The tool's version and the libbpf it runs " \
	"with; always 1."

/* The per-program counts, one series per hook a program serves. */
enum nsl_prog_count { NSL_PROG_RUNS, NSL_PROG_RUN_SECONDS, NSL_PROG_RECURSION };

static inline double nsl_prog_value(const struct nsl_prog_stat *c,
				    enum nsl_prog_count which)
{
	return which == NSL_PROG_RUN_SECONDS ? (double)c->run_time_ns * 1e-9 :
	       which == NSL_PROG_RECURSION ? (double)c->recursion_misses :
	       (double)c->run_cnt;
}

#define NSL_HELP_GROUPS_RECLAIMED "Groups whose cgroup, interface or " \
	"network namespace went away (or that idled out), reclaimed."
#define NSL_HELP_GROUPS_EVICTED "Groups evicted: idle groups that yielded " \
	"their histogram to new ones while the table was full (then reclaimed)."

#endif /* NSL_TEXT_H */
