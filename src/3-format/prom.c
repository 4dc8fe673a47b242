// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus text exposition format (version 0.0.4) of a report, for the
 * HTTP endpoint, the node_exporter textfile collector and stdout. The
 * report must be cumulative: Prometheus histograms and counters only grow.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "hist.h"
#include "hooks.h"
#include "format.h"
#include "stats.h"
#include "text.h"

/*
 * Label values escape backslash, double quote and newline, and must be
 * UTF-8: Prometheus rejects a whole scrape over one bad byte, and interface
 * and cgroup names are arbitrary bytes. A bad byte becomes U+FFFD, as in
 * the JSON output.
 */
static void prom_label(FILE *out, const char *name, const char *value,
		       size_t len, bool first)
{
	const unsigned char *p = (const unsigned char *)value;
	size_t n;

	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (len = strnlen(value, len); len; p += n, len -= n) {
		n = nsl_utf8_len(p, len);
		if (!n) {
			fputs("\xef\xbf\xbd", out);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, out);
		} else if (*p == '\\' || *p == '"') {
			fprintf(out, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else {
			fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* {name="value",... without the closing brace. */
static void prom_label_set(FILE *out, const struct nsl_labels *labels)
{
	fputc('{', out);
	for (unsigned int i = 0; i < labels->n; i++)
		prom_label(out, labels->l[i].name, labels->l[i].value,
			   labels->l[i].len, i == 0);
}

/* {hook="...",interface="...",cgroup="..."} without the closing brace. */
static void prom_labels(FILE *out, const struct nsl_report *r,
			const struct nsl_report_hist *h)
{
	struct nsl_labels labels = { 0 };

	nsl_prom_labels(r, h, &labels);
	prom_label_set(out, &labels);
}

/* An info metric's series: name{labels} 1 */
static void prom_info_series(FILE *out, const char *name, const struct nsl_labels *labels)
{
	fputs(name, out);
	prom_label_set(out, labels);
	fputs("} 1\n", out);
}

/* One cumulative bucket: le in seconds, +Inf when le_s < 0. */
static void prom_bucket(FILE *out, const struct nsl_report *r,
			const struct nsl_report_hist *h, double le_s,
			uint64_t cum)
{
	fputs("netstacklat_latency_seconds_bucket", out);
	prom_labels(out, r, h);
	if (le_s < 0)
		fputs(",le=\"+Inf\"}", out);
	else
		/*
		 * log2: 2^i ns in s, exactly in 13 digits up to the standing
		 * hooks' 2^43 ns (the packet hooks' 2^33 in 10: the same)
		 */
		fprintf(out, ",le=\"%.*g\"}", r->schema ? 17 : 13, le_s);
	fprintf(out, " %" PRIu64 "\n", cum);
}

/*
 * Classic buckets, cumulative. At resolution 1 all 35: log2 bucket i holds
 * (2^(i-1), 2^i] ns, so its le is 2^i ns in seconds, and the last,
 * open-ended one is +Inf. With a native schema s, bucket index i holds
 * (2^((i-1)/2^s), 2^(i/2^s)] s: its le is 2^(i/2^s) exactly (to a
 * double), the zero slot's 0; only the range from the first to the last
 * bucket that ever had a sample is listed (Prometheus output is
 * cumulative, so the range only grows), then +Inf.
 */
static void prom_hist(FILE *out, const struct nsl_report *r,
		      const struct nsl_report_hist *h)
{
	__u32 i, n = nsl_nr_slots(h->schema), lo = 0, hi = n - 1;
	uint64_t cum = 0;

	if (h->schema) {
		/* the zero slot, then the range of buckets that had samples */
		cum = nsl_report_slot(h, 0);
		prom_bucket(out, r, h, 0, cum);
		for (lo = 1; lo < n && !nsl_report_slot(h, lo); lo++)
			;
		while (hi > lo && !nsl_report_slot(h, hi))
			hi--;
	}
	for (i = lo; i <= hi && i < n; i++) {
		double le = -1;

		cum += nsl_report_slot(h, i);
		if (h->schema)
			le = exp2((double)nsl_native_index(h->schema, i) /
				  (1 << h->schema));
		else if (i < NSL_MAX_SLOT)
			le = (double)nsl_upper_ns(0, h->key.hook, i) * 1e-9;
		prom_bucket(out, r, h, le, cum);
	}
	if (h->schema)
		prom_bucket(out, r, h, -1, cum);
	fputs("netstacklat_latency_seconds_sum", out);
	prom_labels(out, r, h);
	fprintf(out, "} %.9f\n", nsl_sum_ns(h) * 1e-9);
	fputs("netstacklat_latency_seconds_count", out);
	prom_labels(out, r, h);
	fprintf(out, "} %" PRIu64 "\n", h->count);
}

/*
 * The standing-queue hooks' values (nsl_standing_values): a family each,
 * a series for each of their histograms, with its labels (each group
 * its own).
 */
static void prom_standing(FILE *out, const struct nsl_report *r)
{
	for (int i = 0; i < NSL_NR_SV; i++) {
		const struct nsl_value_desc *d = &nsl_standing_values[i];
		char name[64], v[NSL_VALUE_LEN];
		bool head = false;

		nsl_standing_metric(name, sizeof(name), d);
		for (size_t k = 0; k < r->nr_hists; k++) {
			const struct nsl_report_hist *h = &r->hists[k];

			if (!nsl_hook_standing(h->key.hook))
				continue;
			if (!head)
				fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, d->help,
					name, d->gauge ? "gauge" : "counter");
			head = true;
			nsl_value_snprint(v, sizeof(v), d, h->standing[i]);
			fputs(name, out);
			prom_labels(out, r, h);
			fprintf(out, "} %s\n", v);
		}
	}
}

static void prom_counters(FILE *out, const struct nsl_report *r)
{
	for (int c = 0; c < NSL_NR_COUNTERS; c++) {
		int n = 0;

		for (int h = 0; h < NSL_NR_HOOKS; h++)
			n += r->hook_enabled[h] && nsl_counter_applies(c, h);
		if (!n)
			continue;
		fprintf(out, "# HELP netstacklat_%s_total %s\n", nsl_counters[c].name,
			nsl_counters[c].help);
		fprintf(out, "# TYPE netstacklat_%s_total counter\n", nsl_counters[c].name);
		for (int h = 0; h < NSL_NR_HOOKS; h++)
			if (r->hook_enabled[h] && nsl_counter_applies(c, h))
				fprintf(out, "netstacklat_%s_total{hook=\"%s\"} %" PRIu64 "\n",
					nsl_counters[c].name, nsl_hooks[h].name,
					r->counters[h][c]);
	}
}

/*
 * A per-program family: one series per hook a program serves, each with
 * the program's count, so that {hook="udp-start"} finds it (a program
 * two hooks share appears under both: max by (program) totals it).
 */
static void prom_prog_family(FILE *out, const char *name, const char *help,
			     const struct nsl_report *r, enum nsl_prog_count which)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (size_t i = 0; i < r->nr_progs; i++) {
		const struct nsl_prog_stat *c = &r->progs[i];

		for (int h = 0; h < NSL_NR_HOOKS; h++)
			if (c->hooks & (1u << h))
				fprintf(out, "%s{hook=\"%s\",program=\"%s\"} %.*f\n",
					name, nsl_hooks[h].name, c->prog,
					which == NSL_PROG_RUN_SECONDS ? 9 : 0,
					nsl_prog_value(c, which));
	}
}

static void prom_costs(FILE *out, const struct nsl_report *r)
{
	if (!r->bpf_stats)
		return;
	prom_prog_family(out, "netstacklat_bpf_runs_total", NSL_HELP_BPF_RUNS, r,
			 NSL_PROG_RUNS);
	prom_prog_family(out, "netstacklat_bpf_run_seconds_total",
			 NSL_HELP_BPF_RUN_TIME, r, NSL_PROG_RUN_SECONDS);
}

/* Left out where the kernel does not count them: absent, not 0. */
static void prom_recursion(FILE *out, const struct nsl_report *r)
{
	if (r->recursion == NSL_RECURSION_COUNTED)
		prom_prog_family(out, "netstacklat_recursion_misses_total",
				 NSL_HELP_RECURSION, r, NSL_PROG_RECURSION);
}

/*
 * An info metric per hook asked for: how it attaches (method "" where no
 * method works, with the reason) and the one netns it sees ("" for all),
 * so that a dashboard tells "no traffic" from "cannot see it".
 */
static void prom_hook_info(FILE *out, const struct nsl_report *r)
{
	struct nsl_labels labels;

	if (!r->status)
		return;
	fputs("# HELP netstacklat_hook_info How each hook attaches and the one "
	      "network namespace it sees (\"\": all); 1 per hook.\n"
	      "# TYPE netstacklat_hook_info gauge\n", out);
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		if (!r->status[h].enabled)
			continue;
		nsl_hook_info_labels(&r->status[h], h, &labels);
		prom_info_series(out, "netstacklat_hook_info", &labels);
	}
}

/* netstacklat_build_info{version="0.1.0",libbpf="1.1"} 1, as Prometheus' own */
static void prom_build_info(FILE *out, const struct nsl_report *r)
{
	struct nsl_labels labels;

	nsl_build_info_labels(r, &labels);
	fputs("# HELP netstacklat_build_info " NSL_HELP_BUILD_INFO "\n"
	      "# TYPE netstacklat_build_info gauge\n", out);
	prom_info_series(out, "netstacklat_build_info", &labels);
}

/*
 * --sample N: the factor between the counts and the traffic, for rates
 * and counts to be scaled in queries (docs/prometheus.md).
 */
/* A family of one series without labels: its HELP, TYPE and value. */
static void prom_single(FILE *out, const char *name, const char *type,
			const char *help, uint64_t v)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n%s %" PRIu64 "\n",
		name, help, name, type, name, v);
}

/* A counter of seconds, from nanoseconds. */
static void prom_seconds(FILE *out, const char *name, const char *help, uint64_t ns)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n%s %.9f\n",
		name, help, name, name, (double)ns * 1e-9);
}

/* Grouped: live groups, and the groups reclaimed (and evicted) since start. */
static void prom_groups(FILE *out, const struct nsl_report *r)
{
	if (!r->group_ifindex && !r->group_cgroup)
		return;
	prom_single(out, "netstacklat_groups", "gauge", NSL_HELP_GROUPS, r->groups_live);
	prom_single(out, "netstacklat_groups_reclaimed_total", "counter",
		    NSL_HELP_GROUPS_RECLAIMED, r->groups_reclaimed);
	prom_single(out, "netstacklat_groups_evicted_total", "counter",
		    NSL_HELP_GROUPS_EVICTED, r->groups_evicted);
}

void nsl_format_prometheus(FILE *out, const struct nsl_report *r)
{
	fputs("# HELP netstacklat_latency_seconds Time from a packet's RX "
	      "timestamp to the hook.\n"
	      "# TYPE netstacklat_latency_seconds histogram\n", out);
	for (size_t i = 0; i < r->nr_hists; i++)
		if (r->hists[i].key.hook < NSL_NR_HISTS)
			prom_hist(out, r, &r->hists[i]);
	prom_standing(out, r);
	prom_counters(out, r);
	prom_recursion(out, r);
	prom_groups(out, r);
	prom_costs(out, r);
	prom_single(out, "netstacklat_sample_every", "gauge", NSL_SAMPLE_EVERY_HELP,
		    nsl_sample_every(r));
	prom_single(out, "netstacklat_reports_lost_total", "counter",
		    NSL_HELP_REPORTS_LOST, r->reports_lost);
	if (r->served) {
		prom_single(out, "netstacklat_metrics_server_restarts_total", "counter",
			    NSL_HELP_SERVER_RESTARTS, r->server_restarts);
		prom_seconds(out, "netstacklat_metrics_render_seconds_total",
			     NSL_HELP_SERVER_RENDER, r->server_render_ns);
	}
	prom_hook_info(out, r);
	prom_build_info(out, r);
}
