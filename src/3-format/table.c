// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table report, for people at a terminal: per hook the non-empty
 * range of its histogram with a bar per bucket, the percentiles and the
 * non-zero counters, within 80 columns. Tested byte for byte against
 * golden files on the host.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "hist.h"
#include "hooks.h"
#include "format.h"
#include "stats.h"
#include "text.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TABLE_WIDTH 80
#define BAR_MAX 40
/* "(16.4us, 32.8us]" is the widest bucket range */
#define RANGE_WIDTH 16
/* a count column this wide keeps histograms of one report aligned */
#define COUNT_MIN_WIDTH 8
/* room for any duration fmt_duration() makes, e.g. "18446744074s" */
#define DUR_LEN 32

static const struct {
	const char *sym;
	double scale;
} time_units[] = {
	{ "s", 1e9 },
	{ "ms", 1e6 },
	{ "us", 1e3 },
};

/* Decimals that leave three significant digits of v >= 1 once rounded. */
static int sig3_decimals(double v)
{
	char buf[DUR_LEN];
	int d;

	for (d = 2; d > 0; d--) {
		snprintf(buf, sizeof(buf), "%.*f", d, v);
		/* rounding may add a digit: 9.996 must become "10.0" */
		if ((int)strcspn(buf, ".") + d <= 3)
			break;
	}
	return d;
}

/*
 * The one way durations are shown: in the largest unit in which the value,
 * rounded to three significant digits, is at least 1 (512ns, 1.02us,
 * 16.8ms, 2.15s). Nanoseconds stay whole: the clock resolves no finer.
 */
static void fmt_duration(char *buf, size_t len, double ns)
{
	char probe[DUR_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(time_units); i++) {
		double v = ns / time_units[i].scale;

		/* 0.9996 shows as 1.00 in this unit, 0.9994 does not */
		snprintf(probe, sizeof(probe), "%.3f", v);
		if (probe[0] == '0')
			continue;
		snprintf(buf, len, "%.*f%s", sig3_decimals(v), v,
			 time_units[i].sym);
		return;
	}
	snprintf(buf, len, "%.0fns", ns);
}

/*
 * Names come from the system; keep control bytes off the terminal.
 * Returns the number of characters written, as the helpers below do.
 */
static int table_name(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
	}
	return (int)i;
}

static int table_ifname(FILE *out, const struct nsl_report_hist *h)
{
	int n;

	if (!h->ifname[0])
		return fprintf(out, " [ifindex %" PRIu32 "]", h->key.ifindex);
	fputs(" [", out);
	n = table_name(out, h->ifname, sizeof(h->ifname));
	fputc(']', out);
	return n + 3;
}

/*
 * A container's names instead of its cgroup's path, as the labels give
 * them: " [pod NAMESPACE/POD container NAME]", " [container NAME]" (or its
 * id's first 12 digits); 0 where its pod is known by its uid only (the
 * path then says more)
 */
static int table_container(FILE *out, const struct nsl_container *c)
{
	int n;

	if (!nsl_container_in_pod(c)) {
		n = fprintf(out, " [container ");
		n += table_name(out, c->name ? c->name : c->id, c->name ? SIZE_MAX : 12);
		return n + fprintf(out, "]");
	}
	if (!c->pod)
		return 0;
	n = fprintf(out, " [pod ");
	if (c->pod_namespace)
		n += table_name(out, c->pod_namespace, SIZE_MAX) + fprintf(out, "/");
	n += table_name(out, c->pod, SIZE_MAX);
	if (c->container)
		n += fprintf(out, " container ") + table_name(out, c->container, SIZE_MAX);
	return n + fprintf(out, "]");
}

static int table_cgroup(FILE *out, const struct nsl_report_hist *h)
{
	int n = h->container ? table_container(out, h->container) : 0;

	if (n)
		return n;
	if (!h->cgroup_path)
		return fprintf(out, " [cgroup %" PRIu64 "]",
			       (uint64_t)h->key.cgroup);
	fputs(" [cgroup ", out);
	n = table_name(out, h->cgroup_path, SIZE_MAX);
	fputc(']', out);
	return n + 10;
}

/* The hook and its group, e.g. "tcp-socket-read [eth0]"; returns width. */
static int table_hist_name(FILE *out, const struct nsl_report *r,
			   const struct nsl_report_hist *h)
{
	int n = fprintf(out, "%s", nsl_hook_label(h->key.hook));

	if (r->group_ifindex)
		n += table_ifname(out, h);
	if (r->group_netns)
		n += fprintf(out, " [netns %" PRIu64 "]", (uint64_t)NSL_NETNS_INO(h->key.netns));
	if (r->group_cgroup)
		n += table_cgroup(out, h);
	else if (r->group_ifindex && h->container)	/* the namespace's, the peer's (-I) */
		n += table_container(out, h->container);
	/* its last report: the cgroup, interface or namespace went away */
	if (h->gone)
		n += fprintf(out, " (gone)");
	return n;
}

/*
 * All percentiles on a line of their own: with the hook name, group and
 * count they would not fit in 80 columns.
 */
static void table_percentiles(FILE *out, const struct nsl_report_hist *h)
{
	char name[PCT_LEN], dur[DUR_LEN];
	uint64_t v;
	int i;

	fputs(" ", out);
	for (i = 0; i < NSL_NR_PERCENTILES; i++) {
		bool bounded = nsl_bounded_percentile(h, nsl_percentiles[i], &v);

		/* unbounded: above the lower bound of the open-ended bucket */
		if (!bounded)
			v = nsl_upper_ns(h->schema, h->key.hook, nsl_nr_slots(h->schema) - 2);
		nsl_pct_name(name, sizeof(name), nsl_percentiles[i]);
		fmt_duration(dur, sizeof(dur), (double)v);
		fprintf(out, "%s %s %s %s", i ? "," : "", name,
			bounded ? "<=" : ">", dur);
	}
	fputc('\n', out);
}

/*
 * "(512ns, 1.02us]" for slots first..last: the lower bound of the first
 * (log2 slot 0 is closed at 0, a native zero slot holds 0 only), the upper
 * bound of the last (the last log2 slot is open-ended).
 */
static void bucket_range(char *buf, size_t len, unsigned int schema,
			 unsigned int hook, __u32 first, __u32 last)
{
	uint64_t up = nsl_upper_ns(schema, hook, last);
	char lo[DUR_LEN], hi[DUR_LEN];

	if (last == 0 && schema) {
		snprintf(buf, len, "0");
		return;
	}
	if (first == 0)
		snprintf(lo, sizeof(lo), "[0");
	else
		fmt_duration(lo + 1, sizeof(lo) - 1,
			     (double)nsl_upper_ns(schema, hook, first - 1));
	if (first)
		lo[0] = '(';
	if (up == UINT64_MAX) {
		snprintf(buf, len, "%s, ...)", lo);
		return;
	}
	fmt_duration(hi, sizeof(hi), (double)up);
	snprintf(buf, len, "%s, %s]", lo, hi);
}

/* Bar length: proportional to the largest bucket, one star if non-zero. */
static int bar_len(uint64_t count, uint64_t max)
{
	int n;

	if (!count)
		return 0;
	n = (int)((double)count * BAR_MAX / (double)max + 0.5);
	return n ? n : 1;
}

static void table_row(FILE *out, unsigned int schema, unsigned int hook,
		      __u32 first, __u32 last,
		      uint64_t count, uint64_t max, int width)
{
	static const char stars[BAR_MAX + 1] =
		"****************************************";
	char range[2 * DUR_LEN + 8];
	int n = bar_len(count, max);

	bucket_range(range, sizeof(range), schema, hook, first, last);
	fprintf(out, "  %-*s %*" PRIu64, RANGE_WIDTH, range, width, count);
	/* no trailing blank on empty rows */
	if (n)
		fprintf(out, " %.*s", n, stars);
	fputc('\n', out);
}

/*
 * Rows from the lowest to the highest non-empty bucket, empty ones in
 * between included so the shape (e.g. two modes) stays visible. At the
 * finer resolutions a run of empty buckets is one row, its whole range:
 * 8 buckets per power of two would fill the screen with zeros.
 */
static void table_rows(FILE *out, const struct nsl_report_hist *h)
{
	__u32 i, n = nsl_nr_slots(h->schema), lo = n, hi = 0, end;
	uint64_t max = 0;
	char digits[24];
	int width;

	for (i = 0; i < n; i++) {
		if (!nsl_report_slot(h, i))
			continue;
		if (lo == n)
			lo = i;
		hi = i;
		if (nsl_report_slot(h, i) > max)
			max = nsl_report_slot(h, i);
	}
	if (!max)
		return;
	width = snprintf(digits, sizeof(digits), "%" PRIu64, max);
	if (width < COUNT_MIN_WIDTH)
		width = COUNT_MIN_WIDTH;
	for (i = lo; i <= hi; i = end + 1) {
		end = i;
		while (h->schema && !nsl_report_slot(h, i) && end < hi && !nsl_report_slot(h, end + 1))
			end++;
		table_row(out, h->schema, h->key.hook, i, end, nsl_report_slot(h, i), max, width);
	}
}

static void table_hist(FILE *out, const struct nsl_report *r,
		       const struct nsl_report_hist *h)
{
	char avg[DUR_LEN], stats[96];
	int col, len;

	col = table_hist_name(out, r, h);
	if (!h->count) {
		fputs(": no samples\n", out);
		return;
	}
	fmt_duration(avg, sizeof(avg), nsl_average(h));
	len = snprintf(stats, sizeof(stats), "count %" PRIu64 ", average %s",
		       h->count, avg);
	/* a long cgroup path pushes the numbers onto a line of their own */
	if (col + 2 + len > TABLE_WIDTH)
		fprintf(out, ":\n  %s\n", stats);
	else
		fprintf(out, ": %s\n", stats);
	table_percentiles(out, h);
	table_rows(out, h);
}

/* Items on lines of at most 80 columns after a 2-column indent. */
struct item_line {
	FILE *out;
	int col;
};

static void item_add(struct item_line *l, const char *item)
{
	int len = (int)strlen(item);

	if (!l->col) {
		fputs("  ", l->out);
		l->col = 2;
	} else if (l->col + 2 + len > TABLE_WIDTH) {
		fputs("\n  ", l->out);
		l->col = 2;
	} else {
		fputs("; ", l->out);
		l->col += 2;
	}
	fputs(item, l->out);
	l->col += len;
}

/*
 * A standing-queue hook's values (nsl_standing_values), after each of its
 * histograms (an episode that has not ended is only here), on one line.
 */
static void table_standing(FILE *out, const struct nsl_report_hist *h)
{
	if (!nsl_hook_standing(h->key.hook))
		return;
	fprintf(out, "  standing %.9f s; episodes begun %" PRIu64 "; sockets standing now %"
		PRIu64 "\n", h->standing[NSL_SV_SECONDS] * 1e-9, h->standing[NSL_SV_BEGUN],
		h->standing[NSL_SV_SOCKETS]);
}

/*
 * A hook's non-zero counters, then the recursion misses of its programs
 * (a program two hooks share: under both), wrapped at 80 columns (all of
 * them would not fit).
 */
static void table_counters(FILE *out, const struct nsl_report *r, int hook)
{
	struct item_line l = { out, 0 };
	char item[96];

	for (int c = 0; c < NSL_NR_COUNTERS; c++) {
		if (!r->counters[hook][c])
			continue;
		snprintf(item, sizeof(item), "%s: %" PRIu64, nsl_counters[c].name,
			 r->counters[hook][c]);
		item_add(&l, item);
	}
	for (size_t i = 0; r->recursion == NSL_RECURSION_COUNTED && i < r->nr_progs; i++) {
		const struct nsl_prog_stat *p = &r->progs[i];

		if (!p->recursion_misses || !(p->hooks & (1u << hook)))
			continue;
		snprintf(item, sizeof(item), "recursion_misses: %" PRIu64 " (%.*s)",
			 p->recursion_misses, (int)sizeof(p->prog), p->prog);
		item_add(&l, item);
	}
	if (l.col)
		fputc('\n', out);
}

/*
 * A hook's histograms, then its counters. An enabled hook without any
 * histogram (possible when grouped) still gets a line: its counters may
 * be the very reason it is empty.
 */
static void table_hook(FILE *out, const struct nsl_report *r, __u32 hook)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_hists; i++) {
		if (r->hists[i].key.hook != hook)
			continue;
		table_hist(out, r, &r->hists[i]);
		table_standing(out, &r->hists[i]);
		n++;
	}
	if (!n && !r->hook_enabled[hook])
		return;
	if (!n)
		fprintf(out, "%s: no samples\n", nsl_hook_label(hook));
	if (hook < NSL_NR_HOOKS)	/* the HOL histogram's are tcp-socket-read's */
		table_counters(out, r, (int)hook);
}

/*
 * The hooks a program serves, short: "tcp/udp-start" when the names differ
 * only before the first '-' (the programs two hooks share), else joined.
 */
static const char *table_cost_hooks(uint32_t hooks, char *buf, size_t len)
{
	const char *tail = NULL;
	size_t n = 0;

	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const char *dash;

		if (!(hooks & (1u << h)))
			continue;
		dash = strchr(nsl_hooks[h].name, '-');
		if (!dash || (tail && strcmp(dash, tail) != 0))
			return nsl_hook_names(hooks, ",", buf, len);
		tail = dash;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%.*s", n ? "/" : "",
			      (int)(dash - nsl_hooks[h].name), nsl_hooks[h].name);
	}
	if (!tail)
		return nsl_hook_names(hooks, ",", buf, len);
	snprintf(buf + n, n < len ? len - n : 0, "%s", tail);
	return buf;
}

/* --bpf-stats: one line per program, what it cost over the interval. */
static void table_costs(FILE *out, const struct nsl_report *r)
{
	char avg[DUR_LEN], hooks[NSL_MAX_REPORT_PROGS][NSL_HOOK_NAMES_LEN];
	int hook_w = 4, prog_w = 7;

	if (!r->bpf_stats)
		return;
	for (size_t i = 0; i < r->nr_progs; i++) {
		int hw = (int)strlen(table_cost_hooks(r->progs[i].hooks, hooks[i],
						      sizeof(hooks[i])));
		int pw = (int)strnlen(r->progs[i].prog, sizeof(r->progs[i].prog));

		hook_w = hw > hook_w ? hw : hook_w;
		prog_w = pw > prog_w ? pw : prog_w;
	}
	fprintf(out, "BPF programs (share of one CPU)\n  %-*s %-*s %9s %7s %8s\n",
		hook_w, "hook", prog_w, "program", "runs", "per run", "CPU");
	for (size_t i = 0; i < r->nr_progs; i++) {
		const struct nsl_prog_stat *c = &r->progs[i];

		fmt_duration(avg, sizeof(avg), nsl_cost_avg_ns(c));
		fprintf(out, "  %-*s %-*.*s %9" PRIu64 " %7s %7.3f%%\n", hook_w,
			hooks[i], prog_w, (int)sizeof(c->prog), c->prog,
			c->run_cnt, c->run_cnt ? avg : "-",
			100.0 * nsl_cost_cpu_share(c, r->interval_s));
	}
}

static void table_time(FILE *out, const struct timespec *ts)
{
	char buf[16];
	struct tm tm;

	if (!localtime_r(&ts->tv_sec, &tm) ||
	    !strftime(buf, sizeof(buf), "%H:%M:%S", &tm))
		return;
	fprintf(out, "%s\n", buf);
}

void nsl_format_table(FILE *out, const struct nsl_report *r,
			 const struct nsl_format_opts *o)
{
	__u32 hook;

	if (o->timestamp)
		table_time(out, &r->time);
	if (nsl_sample_every(r) > 1)
		fprintf(out, "sampled: 1 packet in %u per hook and CPU (counts are "
			"1/%u of the traffic's)\n", nsl_sample_every(r),
			nsl_sample_every(r));
	for (hook = 0; hook < NSL_NR_HISTS; hook++)
		table_hook(out, r, hook);
	table_costs(out, r);
	fputc('\n', out);
}
