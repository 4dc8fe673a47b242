// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus protobuf exposition of a cumulative report: what a scraper
 * that asks for it gets (Accept: application/vnd.google.protobuf;
 * proto=io.prometheus.client.MetricFamily; encoding=delimited), as a
 * stream of length-delimited MetricFamily messages. The messages are
 * those of the metrics.proto Debian ships (golang-github-prometheus-
 * client-model-dev), compiled by protoc-c and packed by libprotobuf-c.
 *
 * At --resolution 2, 4, 8 the latency histograms are native histograms
 * of schema 1, 2, 3: one series per histogram, only the buckets with
 * samples (spans and deltas), mergeable across hosts. The bounds are
 * exact: the tool buckets in ns with the schema's own bounds in seconds
 * (include/schema.h). Zeros go in the zero bucket, whose threshold is
 * 2^-128 s, as client_golang's: below any sample of 1 ns, and not 0, so
 * that Prometheus takes the histogram as native even before its first
 * sample.
 *
 * At --resolution 1 the log2 buckets in ns are no native schema (their
 * bounds are 2^i ns, not 2^i s: log2(1e9) is no integer), so they are
 * served as classic buckets, as in the text format: the same series.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io/prometheus/client/metrics.pb-c.h"
#include "arena.h"
#include "hist.h"
#include "hooks.h"
#include "format.h"
#include "stats.h"
#include "text.h"

typedef Io__Prometheus__Client__MetricFamily Family;
typedef Io__Prometheus__Client__Metric Metric;
typedef Io__Prometheus__Client__LabelPair LabelPair;
typedef Io__Prometheus__Client__Histogram Histogram;
typedef Io__Prometheus__Client__Bucket Bucket;
typedef Io__Prometheus__Client__BucketSpan BucketSpan;
typedef Io__Prometheus__Client__Counter Counter;

static char *arena_utf8(struct nsl_arena *a, const char *s, size_t len)
{
	return nsl_arena_keep(a, nsl_utf8_dup(s, len));
}

/* n label pairs from labels (values made valid UTF-8), in *out. */
static LabelPair **label_pairs(struct nsl_arena *a, const struct nsl_label *l,
			       unsigned int n)
{
	LabelPair **pp = nsl_arena_alloc(a, n, sizeof(LabelPair *));
	LabelPair *p = nsl_arena_alloc(a, n, sizeof(*p));

	if (!pp || !p)
		return NULL;
	for (unsigned int i = 0; i < n; i++) {
		io__prometheus__client__label_pair__init(&p[i]);
		p[i].name = (char *)l[i].name;
		p[i].value = arena_utf8(a, l[i].value, l[i].len);
		pp[i] = &p[i];
	}
	return pp;
}

/*
 * The native buckets of h: a span per run of non-empty buckets (its offset
 * the gap after the previous run, the first one's its index), the count
 * of each bucket as the difference to the one before.
 */
static void native_buckets(struct nsl_arena *a, const struct nsl_report_hist *h,
			   Histogram *hg)
{
	__u32 n = nsl_nr_slots(h->schema), slot, buckets = 0, runs = 0;
	int next = 0;		/* index after the previous span */
	int64_t prev = 0;
	BucketSpan *span = NULL;

	/*
	 * Arrays of the size they need: thousands of groups of 514 slots
	 * each took 28 KB a group of spans and deltas for a hundred buckets
	 * (issue #31), resident after the render.
	 */
	for (slot = 1; slot < n; slot++)
		if (nsl_report_slot(h, slot)) {
			buckets++;
			runs += slot == 1 || !nsl_report_slot(h, slot - 1);
		}
	if (!buckets)
		return;
	hg->positive_span = nsl_arena_alloc(a, runs, sizeof(BucketSpan *));
	hg->positive_delta = nsl_arena_alloc(a, buckets, sizeof(*hg->positive_delta));
	span = nsl_arena_alloc(a, runs, sizeof(*span));
	if (!hg->positive_span || !hg->positive_delta || !span)
		return;
	for (slot = 1; slot < n; slot++) {
		int index = nsl_native_index(h->schema, slot);

		if (!nsl_report_slot(h, slot))
			continue;
		if (!hg->n_positive_span || index != next) {
			BucketSpan *s = &span[hg->n_positive_span];

			io__prometheus__client__bucket_span__init(s);
			s->has_offset = s->has_length = 1;
			s->offset = hg->n_positive_span ? index - next : index;
			hg->positive_span[hg->n_positive_span++] = s;
		}
		span[hg->n_positive_span - 1].length++;
		hg->positive_delta[hg->n_positive_delta++] = (int64_t)nsl_report_slot(h, slot) - prev;
		prev = (int64_t)nsl_report_slot(h, slot);
		next = index + 1;
	}
}

/* The classic log2 buckets of h, cumulative, upper bounds 2^i ns in s. */
static void classic_buckets(struct nsl_arena *a, const struct nsl_report_hist *h,
			    Histogram *hg)
{
	Bucket *b = nsl_arena_alloc(a, NSL_MAX_SLOT, sizeof(*b));
	uint64_t cum = 0;

	hg->bucket = nsl_arena_alloc(a, NSL_MAX_SLOT, sizeof(Bucket *));
	if (!b || !hg->bucket)
		return;
	/* the last, open-ended one is the +Inf bucket: Prometheus adds it */
	for (__u32 i = 0; i < NSL_MAX_SLOT; i++) {
		io__prometheus__client__bucket__init(&b[i]);
		cum += nsl_report_slot(h, i);
		b[i].has_cumulative_count = b[i].has_upper_bound = 1;
		b[i].cumulative_count = cum;
		b[i].upper_bound = (double)nsl_upper_ns(0, h->key.hook, i) * 1e-9;
		hg->bucket[hg->n_bucket++] = &b[i];
	}
}

static Metric *hist_metric(struct nsl_arena *a, const struct nsl_report *r,
			   const struct nsl_report_hist *h)
{
	Metric *m = nsl_arena_alloc(a, 1, sizeof(*m));
	Histogram *hg = nsl_arena_alloc(a, 1, sizeof(*hg));
	struct nsl_labels labels = { 0 };

	if (!m || !hg)
		return NULL;
	io__prometheus__client__metric__init(m);
	io__prometheus__client__histogram__init(hg);
	nsl_prom_labels(r, h, &labels);
	m->label = label_pairs(a, labels.l, labels.n);
	m->n_label = labels.n;
	m->histogram = hg;
	hg->has_sample_count = hg->has_sample_sum = 1;
	hg->sample_count = h->count;
	hg->sample_sum = nsl_sum_ns(h) * 1e-9;
	if (!h->schema) {
		classic_buckets(a, h, hg);
		return m;
	}
	hg->has_schema = hg->has_zero_threshold = hg->has_zero_count = 1;
	hg->schema = (int32_t)h->schema;
	hg->zero_threshold = ldexp(1, -128);
	hg->zero_count = nsl_report_slot(h, 0);
	native_buckets(a, h, hg);
	return m;
}

/* A counter sample with the labels l[0..n-1]. */
static Metric *counter_metric(struct nsl_arena *a, const struct nsl_label *l,
			      unsigned int n, double value)
{
	Metric *m = nsl_arena_alloc(a, 1, sizeof(*m));
	Counter *c = nsl_arena_alloc(a, 1, sizeof(*c));

	if (!m || !c)
		return NULL;
	io__prometheus__client__metric__init(m);
	io__prometheus__client__counter__init(c);
	m->label = label_pairs(a, l, n);
	m->n_label = n;
	c->has_value = 1;
	c->value = value;
	m->counter = c;
	return m;
}

/* A gauge (an info metric is a gauge of 1): a counter_metric() re-typed. */
static Metric *gauge_metric(struct nsl_arena *a, const struct nsl_label *l,
			    unsigned int n, double value)
{
	Metric *m = counter_metric(a, l, n, 0);
	Io__Prometheus__Client__Gauge *g = nsl_arena_alloc(a, 1, sizeof(*g));

	if (!m || !g)
		return NULL;
	io__prometheus__client__gauge__init(g);
	g->has_value = 1;
	g->value = value;
	m->counter = NULL;
	m->gauge = g;
	return m;
}

/* v as a varint at p; its length */
static size_t varint(uint8_t *p, size_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* Writes mf as varint length, then the message. 0 or -EIO. */
static int write_delimited(FILE *out, const Family *mf)
{
	size_t len = io__prometheus__client__metric_family__get_packed_size(mf);
	uint8_t head[10], *buf = malloc(len ? len : 1);
	size_t n = varint(head, len);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	io__prometheus__client__metric_family__pack(mf, buf);
	if (fwrite(head, 1, n, out) != n || fwrite(buf, 1, len, out) != len)
		err = -EIO;
	free(buf);
	return err;
}

/* One family of n metrics (metrics in a, taken from *m), written. */
static int family(FILE *out, struct nsl_arena *a, const char *name,
		  const char *help, Io__Prometheus__Client__MetricType type,
		  Metric **m, size_t n)
{
	Family mf = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;

	if (a->failed)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!m[i])
			return -ENOMEM;
	mf.name = (char *)name;
	mf.help = (char *)help;
	mf.has_type = 1;
	mf.type = type;
	mf.metric = m;
	mf.n_metric = n;
	return write_delimited(out, &mf);
}

/*
 * The histograms, one packed Metric at a time: the family's header (its
 * name, help and type: fields 1-3, as protobuf-c packs a family without
 * metrics), then each Metric as field 4, length-delimited, packed and its
 * objects freed before the next is made. The same bytes as packing the
 * whole family (protobuf-c writes fields in their order), without holding
 * the objects of thousands of groups at once (issue #31: 3.6 KB a group
 * of classic buckets at --resolution 1, kept resident after the render).
 */
static int pb_hists(FILE *out, const struct nsl_report *r)
{
	Family mf = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;
	uint8_t head[128], lead[10], *buf = NULL;
	size_t nhead, len = 0, cap = 0, n;
	int err = 0;

	mf.name = "netstacklat_latency_seconds";
	mf.help = "Time from a packet's RX timestamp to the hook.";
	mf.has_type = 1;
	mf.type = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM;
	if (io__prometheus__client__metric_family__get_packed_size(&mf) > sizeof(head))
		return -EINVAL;
	nhead = io__prometheus__client__metric_family__pack(&mf, head);
	for (size_t i = 0; i < r->nr_hists && !err; i++) {
		struct nsl_arena a = { 0 };
		Metric *m;
		size_t size;

		if (r->hists[i].key.hook >= NSL_NR_HISTS)
			continue;
		m = hist_metric(&a, r, &r->hists[i]);
		size = m && !a.failed ? io__prometheus__client__metric__get_packed_size(m) : 0;
		if (!m || a.failed) {
			err = -ENOMEM;
		} else if (!buf || len + size + 11 > cap) {
			uint8_t *p = realloc(buf, 2 * (len + size + 11));

			if (p) {
				buf = p;
				cap = 2 * (len + size + 11);
			} else {
				err = -ENOMEM;
			}
		}
		if (!err) {
			buf[len++] = 4 << 3 | 2;	/* field 4 (metric), length-delimited */
			len += varint(buf + len, size);
			len += io__prometheus__client__metric__pack(m, buf + len);
		}
		nsl_arena_free(&a);
	}
	if (!err) {
		n = varint(lead, nhead + len);
		if (fwrite(lead, 1, n, out) != n || fwrite(head, 1, nhead, out) != nhead ||
		    (len && fwrite(buf, 1, len, out) != len))
			err = -EIO;
	}
	free(buf);
	return err;
}

/* The standing-queue hooks' values, as in the text format (prom_standing()). */
static int pb_standing(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	int err = 0;

	for (int i = 0; i < NSL_NR_SV && !err; i++) {
		const struct nsl_value_desc *d = &nsl_standing_values[i];
		Metric **m = nsl_arena_alloc(a, r->nr_hists ? r->nr_hists : 1,
					     sizeof(Metric *));
		char name[64];
		size_t n = 0;

		for (size_t k = 0; k < r->nr_hists && m; k++) {
			const struct nsl_report_hist *h = &r->hists[k];
			struct nsl_labels labels = { 0 };
			double v;

			if (!nsl_hook_standing(h->key.hook))
				continue;
			nsl_prom_labels(r, h, &labels);
			v = nsl_value_number(d, h->standing[i]);
			m[n++] = d->gauge ? gauge_metric(a, labels.l, labels.n, v) :
					    counter_metric(a, labels.l, labels.n, v);
		}
		if (!m)
			return -ENOMEM;
		if (n)
			err = family(out, a, nsl_standing_metric(name, sizeof(name), d),
				     d->help, d->gauge ?
				     IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE :
				     IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER, m, n);
	}
	return err;
}

static int pb_counters(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	char name[64];
	int err = 0;

	for (int c = 0; c < NSL_NR_COUNTERS && !err; c++) {
		Metric **m = nsl_arena_alloc(a, NSL_NR_HOOKS, sizeof(Metric *));
		size_t n = 0;

		for (int h = 0; h < NSL_NR_HOOKS && m; h++) {
			struct nsl_label l = { "hook", nsl_hooks[h].name, SIZE_MAX };

			if (r->hook_enabled[h] && nsl_counter_applies(c, h))
				m[n++] = counter_metric(a, &l, 1, (double)r->counters[h][c]);
		}
		if (!m)
			return -ENOMEM;
		if (!n)
			continue;
		snprintf(name, sizeof(name), "netstacklat_%s_total", nsl_counters[c].name);
		err = family(out, a, name, nsl_counters[c].help,
			     IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER, m, n);
	}
	return err;
}

/*
 * A per-program family, as in the text format (prom.c): a series per
 * hook a program serves, labels hook and program, the program's count.
 */
static int prog_family(FILE *out, struct nsl_arena *a, const char *name,
		       const char *help, const struct nsl_report *r,
		       enum nsl_prog_count which)
{
	Metric **m = nsl_arena_alloc(a, r->nr_progs * NSL_NR_HOOKS, sizeof(Metric *));
	size_t n = 0;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_progs; i++) {
		const struct nsl_prog_stat *c = &r->progs[i];

		for (int h = 0; h < NSL_NR_HOOKS; h++) {
			struct nsl_label l[2] = {
				{ "hook", nsl_hooks[h].name, SIZE_MAX },
				{ "program", c->prog, sizeof(c->prog) },
			};

			if (c->hooks & (1u << h))
				m[n++] = counter_metric(a, l, 2, nsl_prog_value(c, which));
		}
	}
	return family(out, a, name, help, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER, m, n);
}

static int pb_costs(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	int err;

	if (!r->bpf_stats)
		return 0;
	err = prog_family(out, a, "netstacklat_bpf_runs_total", NSL_HELP_BPF_RUNS, r,
			  NSL_PROG_RUNS);
	return err ? err : prog_family(out, a, "netstacklat_bpf_run_seconds_total",
				       NSL_HELP_BPF_RUN_TIME, r, NSL_PROG_RUN_SECONDS);
}

/* netstacklat_recursion_misses_total, as in the text format (src/prom.c) */
static int pb_recursion(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	if (r->recursion != NSL_RECURSION_COUNTED)
		return 0;
	return prog_family(out, a, "netstacklat_recursion_misses_total",
			   NSL_HELP_RECURSION, r, NSL_PROG_RECURSION);
}

/* netstacklat_hook_info, as in the text format (src/prom.c). */
static int pb_hook_info(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	Metric **m = nsl_arena_alloc(a, NSL_NR_HOOKS, sizeof(Metric *));
	size_t n = 0;

	if (!r->status)
		return 0;
	if (!m)
		return -ENOMEM;
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		/* (cppcheck 2.10 takes &labels for a read of labels.l) */
		struct nsl_labels labels = { 0 };

		if (!r->status[h].enabled)
			continue;
		nsl_hook_info_labels(&r->status[h], h, &labels);
		m[n] = gauge_metric(a, labels.l, labels.n, 1);
		if (!m[n++])
			return -ENOMEM;
	}
	return family(out, a, "netstacklat_hook_info",
		      "How each hook attaches and the one network namespace it "
		      "sees (\"\": all); 1 per hook.",
		      IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE, m, n);
}

/* netstacklat_build_info, as in the text format (prom.c). */
static int pb_build_info(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	struct nsl_labels labels = { 0 };
	Metric **m = nsl_arena_alloc(a, 1, sizeof(Metric *));

	nsl_build_info_labels(r, &labels);
	if (!m || !(m[0] = gauge_metric(a, labels.l, labels.n, 1)))
		return -ENOMEM;
	return family(out, a, "netstacklat_build_info", NSL_HELP_BUILD_INFO,
		      IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE, m, 1);
}

/* A family of one series without labels, as prom_single() in src/prom.c. */
static int pb_single(FILE *out, struct nsl_arena *a, const char *name, const char *help,
		     bool counter, double v)
{
	Metric **m = nsl_arena_alloc(a, 1, sizeof(Metric *));

	if (!m || !(m[0] = counter ? counter_metric(a, NULL, 0, v) : gauge_metric(a, NULL, 0, v)))
		return -ENOMEM;
	return family(out, a, name, help, counter ? IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER :
						    IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE, m, 1);
}

/* netstacklat_groups, _groups_reclaimed_total, _groups_evicted_total (prom.c) */
static int pb_groups(FILE *out, struct nsl_arena *a, const struct nsl_report *r)
{
	int err;

	if (!r->group_ifindex && !r->group_cgroup)
		return 0;
	err = pb_single(out, a, "netstacklat_groups", NSL_HELP_GROUPS, false, r->groups_live);
	if (!err)
		err = pb_single(out, a, "netstacklat_groups_reclaimed_total",
				NSL_HELP_GROUPS_RECLAIMED, true, (double)r->groups_reclaimed);
	return err ?: pb_single(out, a, "netstacklat_groups_evicted_total",
				NSL_HELP_GROUPS_EVICTED, true, (double)r->groups_evicted);
}

int nsl_format_prometheus_pb(FILE *out, const struct nsl_report *r)
{
	struct nsl_arena a = { 0 };
	int err = pb_hists(out, r);

	if (!err)
		err = pb_standing(out, &a, r);
	if (!err)
		err = pb_counters(out, &a, r);
	if (!err)
		err = pb_recursion(out, &a, r);
	if (!err)
		err = pb_groups(out, &a, r);
	if (!err)
		err = pb_costs(out, &a, r);
	if (!err)
		err = pb_single(out, &a, "netstacklat_sample_every", NSL_SAMPLE_EVERY_HELP,
				false, nsl_sample_every(r));
	if (!err)
		err = pb_single(out, &a, "netstacklat_reports_lost_total",
				NSL_HELP_REPORTS_LOST, true, (double)r->reports_lost);
	if (!err && r->served)
		err = pb_single(out, &a, "netstacklat_metrics_server_restarts_total",
				NSL_HELP_SERVER_RESTARTS, true, (double)r->server_restarts);
	if (!err && r->served)
		err = pb_single(out, &a, "netstacklat_metrics_render_seconds_total",
				NSL_HELP_SERVER_RENDER, true, (double)r->server_render_ns * 1e-9);
	if (!err)
		err = pb_hook_info(out, &a, r);
	if (!err)
		err = pb_build_info(out, &a, r);
	nsl_arena_free(&a);
	return err;
}
