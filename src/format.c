// SPDX-License-Identifier: GPL-2.0-only
/*
 * Report formatters: a table for people at a terminal and JSON Lines for
 * files and pipes. Both only read a struct nsl_report, so they are tested
 * byte for byte against golden files on the host.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "hist.h"
#include "hooks.h"
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TABLE_WIDTH 80
#define BAR_MAX 40
/* "(16.4us, 32.8us]" is the widest bucket range */
#define RANGE_WIDTH 16
/* a count column this wide keeps histograms of one report aligned */
#define COUNT_MIN_WIDTH 8
/* room for any duration fmt_duration() makes, e.g. "18446744074s" */
#define DUR_LEN 32
/* room for a percentile name such as "p99.9" */
#define PCT_LEN 16

static const struct {
	const char *sym;
	double scale;
} time_units[] = {
	{ "s", 1e9 },
	{ "ms", 1e6 },
	{ "us", 1e3 },
};

/* A hook id comes from a BPF map key: do not index the table blindly. */
static const char *hook_name(__u32 hook)
{
	return hook < NSL_NR_HOOKS ? nsl_hooks[hook].name : "unknown";
}

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

/* "p99.9": the percentile's name, made from its value so no list can lag. */
static void pct_name(char *buf, size_t len, double p)
{
	snprintf(buf, len, "p%g", p * 100);
}

/* The percentile in *v; false if it lies in the open-ended last bucket. */
static bool bounded_percentile(const struct nsl_report_hist *h, double p,
			       uint64_t *v)
{
	*v = nsl_percentile(h, p);
	return *v != UINT64_MAX;
}

/* ---- table ---- */

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

static int table_cgroup(FILE *out, const struct nsl_report_hist *h)
{
	int n;

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
	int n = fprintf(out, "%s", hook_name(h->key.hook));

	if (r->group_ifindex)
		n += table_ifname(out, h);
	if (r->group_cgroup)
		n += table_cgroup(out, h);
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
		bool bounded = bounded_percentile(h, nsl_percentiles[i], &v);

		/* unbounded: above the lower bound of the open-ended bucket */
		if (!bounded)
			v = nsl_bucket_upper(NSL_MAX_SLOT - 1);
		pct_name(name, sizeof(name), nsl_percentiles[i]);
		fmt_duration(dur, sizeof(dur), (double)v);
		fprintf(out, "%s %s %s %s", i ? "," : "", name,
			bounded ? "<=" : ">", dur);
	}
	fputc('\n', out);
}

/* "(512ns, 1.02us]"; bucket 0 is closed at 0, the last one open-ended. */
static void bucket_range(char *buf, size_t len, __u32 i)
{
	char lo[DUR_LEN], hi[DUR_LEN];

	if (i == 0) {
		snprintf(buf, len, "[0, 1ns]");
		return;
	}
	fmt_duration(lo, sizeof(lo), (double)nsl_bucket_upper(i - 1));
	if (i == NSL_MAX_SLOT) {
		snprintf(buf, len, "(%s, ...)", lo);
		return;
	}
	fmt_duration(hi, sizeof(hi), (double)nsl_bucket_upper(i));
	snprintf(buf, len, "(%s, %s]", lo, hi);
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

static void table_row(FILE *out, __u32 i, uint64_t count, uint64_t max,
		      int width)
{
	static const char stars[BAR_MAX + 1] =
		"****************************************";
	char range[2 * DUR_LEN + 8];
	int n = bar_len(count, max);

	bucket_range(range, sizeof(range), i);
	fprintf(out, "  %-*s %*" PRIu64, RANGE_WIDTH, range, width, count);
	/* no trailing blank on empty rows */
	if (n)
		fprintf(out, " %.*s", n, stars);
	fputc('\n', out);
}

/*
 * Rows from the lowest to the highest non-empty bucket, empty ones in
 * between included so the shape (e.g. two modes) stays visible.
 */
static void table_rows(FILE *out, const struct nsl_report_hist *h)
{
	__u32 i, lo = NSL_NR_BUCKETS, hi = 0;
	uint64_t max = 0;
	char digits[24];
	int width;

	for (i = 0; i < NSL_NR_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		if (lo == NSL_NR_BUCKETS)
			lo = i;
		hi = i;
		if (h->buckets[i] > max)
			max = h->buckets[i];
	}
	if (!max)
		return;
	width = snprintf(digits, sizeof(digits), "%" PRIu64, max);
	if (width < COUNT_MIN_WIDTH)
		width = COUNT_MIN_WIDTH;
	for (i = lo; i <= hi; i++)
		table_row(out, i, h->buckets[i], max, width);
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

/* Non-zero counters, wrapped at 80 columns (all of them would not fit). */
static void table_counters(FILE *out, const uint64_t *cnt)
{
	char item[96];
	int c, len, col = 0;

	for (c = 0; c < NSL_NR_COUNTERS; c++) {
		if (!cnt[c])
			continue;
		len = snprintf(item, sizeof(item), "%s: %" PRIu64,
			       nsl_counters[c].name, cnt[c]);
		if (!col) {
			fputs("  ", out);
			col = 2;
		} else if (col + 2 + len > TABLE_WIDTH) {
			fputs("\n  ", out);
			col = 2;
		} else {
			fputs("; ", out);
			col += 2;
		}
		fputs(item, out);
		col += len;
	}
	if (col)
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
		n++;
	}
	if (!n && !r->hook_enabled[hook])
		return;
	if (!n)
		fprintf(out, "%s: no samples\n", hook_name(hook));
	table_counters(out, r->counters[hook]);
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
	char avg[DUR_LEN], hooks[NSL_MAX_PROG_COSTS][NSL_HOOK_NAMES_LEN];
	int hook_w = 4, prog_w = 7;

	if (!r->bpf_stats)
		return;
	for (size_t i = 0; i < r->nr_costs; i++) {
		int hw = (int)strlen(table_cost_hooks(r->costs[i].hooks, hooks[i],
						      sizeof(hooks[i])));
		int pw = (int)strnlen(r->costs[i].prog, sizeof(r->costs[i].prog));

		hook_w = hw > hook_w ? hw : hook_w;
		prog_w = pw > prog_w ? pw : prog_w;
	}
	fprintf(out, "BPF programs (share of one CPU)\n  %-*s %-*s %9s %7s %8s\n",
		hook_w, "hook", prog_w, "program", "runs", "per run", "CPU");
	for (size_t i = 0; i < r->nr_costs; i++) {
		const struct nsl_prog_cost *c = &r->costs[i];

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

static void table_report(FILE *out, const struct nsl_report *r,
			 const struct nsl_format_opts *o)
{
	__u32 hook;

	if (o->timestamp)
		table_time(out, &r->time);
	for (hook = 0; hook < NSL_NR_HOOKS; hook++)
		table_hook(out, r, hook);
	table_costs(out, r);
	fputc('\n', out);
}

/* ---- JSON ---- */

/*
 * Length of the valid UTF-8 sequence at s (at most left bytes), 0 if there
 * is none. JSON text must be UTF-8, but interface and cgroup names are
 * arbitrary bytes.
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and beyond U+10FFFF */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* The same check for the Prometheus label values (src/prom.c). */
size_t nsl_utf8_len(const unsigned char *s, size_t left)
{
	return utf8_len(s, left);
}

static void json_char(FILE *out, unsigned char c)
{
	if (c == '"' || c == '\\')
		fprintf(out, "\\%c", c);
	else if (c == '\n')
		fputs("\\n", out);
	else if (c == '\t')
		fputs("\\t", out);
	else if (c < 0x20)
		fprintf(out, "\\u%04x", c);
	else
		fputc(c, out);
}

/* A JSON string of at most len bytes of s; NULL becomes null. */
static void json_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		fputs("null", out);
		return;
	}
	len = strnlen(s, len);
	fputc('"', out);
	while (len) {
		n = utf8_len(p, len);
		if (!n) {
			fputs("\\ufffd", out);	/* replacement character */
			n = 1;
		} else if (n == 1) {
			json_char(out, *p);
		} else {
			fwrite(p, 1, n, out);
		}
		p += n;
		len -= n;
	}
	fputc('"', out);
}

static void json_time(FILE *out, const struct timespec *ts)
{
	char buf[32];
	struct tm tm;

	if (!gmtime_r(&ts->tv_sec, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)) {
		fputs("null", out);
		return;
	}
	fprintf(out, "\"%s.%03ldZ\"", buf, (long)(ts->tv_nsec / 1000000));
}

/* "group": grouped fields right after "hook", as consumers expect them. */
static void json_group(FILE *out, const struct nsl_report *r,
		       const struct nsl_report_hist *h)
{
	if (r->group_ifindex) {
		fprintf(out, ",\"ifindex\":%" PRIu32 ",\"ifname\":",
			h->key.ifindex);
		json_string(out, h->ifname[0] ? h->ifname : NULL,
			    sizeof(h->ifname));
	}
	if (r->group_cgroup) {
		fprintf(out, ",\"cgroup\":%" PRIu64 ",\"cgroup_path\":",
			(uint64_t)h->key.cgroup);
		json_string(out, h->cgroup_path, SIZE_MAX);
	}
}

/* "p99.9" -> "p999_ns": JSON keys without a dot, easy to use in jq. */
static void json_percentiles(FILE *out, const struct nsl_report_hist *h)
{
	char name[PCT_LEN], *dot;
	uint64_t v;
	int i;

	for (i = 0; i < NSL_NR_PERCENTILES; i++) {
		pct_name(name, sizeof(name), nsl_percentiles[i]);
		dot = strchr(name, '.');
		if (dot)
			memmove(dot, dot + 1, strlen(dot));
		fprintf(out, ",\"%s_ns\":", name);
		if (h->count && bounded_percentile(h, nsl_percentiles[i], &v))
			fprintf(out, "%" PRIu64, v);
		else
			fputs("null", out);
	}
}

static void json_buckets(FILE *out, const struct nsl_report_hist *h)
{
	bool first = true;
	__u32 i;

	fputs(",\"buckets\":[", out);
	for (i = 0; i < NSL_NR_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		fputs(first ? "{\"le_ns\":" : ",{\"le_ns\":", out);
		if (i == NSL_MAX_SLOT)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu64, (uint64_t)nsl_bucket_upper(i));
		fprintf(out, ",\"count\":%" PRIu64 "}", h->buckets[i]);
		first = false;
	}
	fputc(']', out);
}

static void json_hist(FILE *out, const struct nsl_report *r,
		      const struct nsl_report_hist *h)
{
	fputs("{\"hook\":", out);
	json_string(out, hook_name(h->key.hook), SIZE_MAX);
	json_group(out, r, h);
	fprintf(out, ",\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64
		",\"avg_ns\":%.1f", h->count, h->sum_ns, nsl_average(h));
	json_percentiles(out, h);
	json_buckets(out, h);
	fputc('}', out);
}

/* One object per enabled hook, so a zero is told apart from "not run". */
static void json_counters(FILE *out, const struct nsl_report *r)
{
	bool first = true;
	int hook, c, n;

	fputs(",\"counters\":{", out);
	for (hook = 0; hook < NSL_NR_HOOKS; hook++) {
		if (!r->hook_enabled[hook])
			continue;
		if (!first)
			fputc(',', out);
		json_string(out, nsl_hooks[hook].name, SIZE_MAX);
		fputs(":{", out);
		for (c = 0, n = 0; c < NSL_NR_COUNTERS; c++)
			if (nsl_counter_applies(c, hook))
				fprintf(out, "%s\"%s\":%" PRIu64, n++ ? "," : "",
					nsl_counters[c].name, r->counters[hook][c]);
		fputc('}', out);
		first = false;
	}
	fputc('}', out);
}

static void json_costs(FILE *out, const struct nsl_report *r)
{
	if (!r->bpf_stats)
		return;
	fputs(",\"bpf_stats\":[", out);
	for (size_t i = 0; i < r->nr_costs; i++) {
		const struct nsl_prog_cost *c = &r->costs[i];

		fputs(i ? ",{\"program\":" : "{\"program\":", out);
		json_string(out, c->prog, sizeof(c->prog));
		fputs(",\"hooks\":[", out);
		for (int h = 0, n = 0; h < NSL_NR_HOOKS; h++)
			if (c->hooks & (1u << h)) {
				fputs(n++ ? "," : "", out);
				json_string(out, hook_name(h), SIZE_MAX);
			}
		fputc(']', out);
		fprintf(out, ",\"runs\":%" PRIu64 ",\"run_time_ns\":%" PRIu64
			",\"avg_ns\":%.1f,\"cpu_share\":%.6f}",
			c->run_cnt, c->run_time_ns, nsl_cost_avg_ns(c),
			nsl_cost_cpu_share(c, r->interval_s));
	}
	fputc(']', out);
}

static void json_report(FILE *out, const struct nsl_report *r)
{
	size_t i;

	fputs("{\"time\":", out);
	json_time(out, &r->time);
	fprintf(out, ",\"interval_s\":%.3f,\"cumulative\":%s,\"histograms\":[",
		r->interval_s, r->cumulative ? "true" : "false");
	for (i = 0; i < r->nr_hists; i++) {
		if (i)
			fputc(',', out);
		json_hist(out, r, &r->hists[i]);
	}
	fputc(']', out);
	json_counters(out, r);
	json_costs(out, r);
	fputs("}\n", out);
}

int nsl_format_report(FILE *out, const struct nsl_report *r,
		      const struct nsl_format_opts *o)
{
	/* errno is only read after a failure; clear it so it is not stale */
	errno = 0;
	if (o->format == NSL_FMT_JSON)
		json_report(out, r);
	else if (o->format == NSL_FMT_PROMETHEUS)
		nsl_format_prometheus(out, r);
	else
		table_report(out, r, o);
	/*
	 * Flush every report: readers of JSON Lines sit behind tail -f and
	 * pipes. The stream's error flag also catches a write that failed
	 * while the buffer was being filled.
	 */
	if (fflush(out) == EOF || ferror(out))
		return errno > 0 ? -errno : -EIO;
	return 0;
}
