// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON Lines: one object per report per line, for files and pipes. Every
 * key, its unit and its null cases are in docs/output-json.md; tested byte
 * for byte against golden files on the host.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "hist.h"
#include "hooks.h"
#include "format.h"
#include "stats.h"
#include "text.h"

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
		n = nsl_utf8_len(p, len);
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

/* A group's container (docs/containers.md): null, or its names, null where unknown. */
static void json_container(FILE *out, const struct nsl_container *c)
{
	const struct { const char *key, *value; } f[] = {
		{ "runtime", c ? c->runtime : NULL }, { "id", c && c->id[0] ? c->id : NULL },
		{ "name", c ? c->name : NULL }, { "namespace", c ? c->pod_namespace : NULL },
		{ "pod", c ? c->pod : NULL }, { "pod_uid", c ? c->pod_uid : NULL },
		{ "container", c ? c->container : NULL },
	};

	if (!c) {
		fputs("null", out);
		return;
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "{", f[i].key);
		json_string(out, f[i].value, SIZE_MAX);
	}
	fputc('}', out);
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
	if (r->group_netns)
		fprintf(out, ",\"netns\":%" PRIu64, (uint64_t)NSL_NETNS_INO(h->key.netns));
	if (r->group_cgroup) {
		fprintf(out, ",\"cgroup\":%" PRIu64 ",\"cgroup_path\":",
			(uint64_t)h->key.cgroup);
		json_string(out, h->cgroup_path, SIZE_MAX);
	}
	/* the cgroup's container, else the namespace's, or the interface's peer's */
	if (r->group_cgroup || r->group_ifindex) {
		fputs(",\"container\":", out);
		json_container(out, h->container);
	}
}

/* "p99.9" -> "p999_ns": JSON keys without a dot, easy to use in jq. */
static void json_percentiles(FILE *out, const struct nsl_report_hist *h)
{
	char name[PCT_LEN], *dot;
	uint64_t v;
	int i;

	for (i = 0; i < NSL_NR_PERCENTILES; i++) {
		nsl_pct_name(name, sizeof(name), nsl_percentiles[i]);
		dot = strchr(name, '.');
		if (dot)
			memmove(dot, dot + 1, strlen(dot));
		fprintf(out, ",\"%s_ns\":", name);
		if (h->count && nsl_bounded_percentile(h, nsl_percentiles[i], &v))
			fprintf(out, "%" PRIu64, v);
		else
			fputs("null", out);
	}
}

/*
 * The non-empty buckets. At resolution 1 each is its upper bound in ns
 * (null: open-ended) and count; with a native schema also its index i
 * (the bucket (2^((i-1)/2^s), 2^(i/2^s)] s), le_ns then being the largest
 * whole ns in it, and zeros are counted apart, as native histograms do.
 */
static void json_buckets(FILE *out, const struct nsl_report_hist *h)
{
	__u32 i, n = nsl_nr_slots(h->schema);
	bool first = true;
	uint64_t le;

	if (h->schema)
		fprintf(out, ",\"zero_count\":%" PRIu64, nsl_report_slot(h, 0));
	fputs(",\"buckets\":[", out);
	for (i = h->schema ? 1 : 0; i < n; i++) {
		if (!nsl_report_slot(h, i))
			continue;
		fputs(first ? "{" : ",{", out);
		if (h->schema)
			fprintf(out, "\"index\":%d,", nsl_native_index(h->schema, i));
		le = nsl_upper_ns(h->schema, h->key.hook, i);
		if (le == UINT64_MAX)
			fputs("\"le_ns\":null", out);
		else
			fprintf(out, "\"le_ns\":%" PRIu64, le);
		fprintf(out, ",\"count\":%" PRIu64 "}", nsl_report_slot(h, i));
		first = false;
	}
	fputc(']', out);
}

/* hi * 2^64 + lo in decimal: exact, as JSON numbers may be (jq rounds). */
static void json_u128(FILE *out, uint64_t hi, uint64_t lo)
{
	unsigned __int128 v = (unsigned __int128)hi << 64 | lo;
	char buf[40], *p = buf + sizeof(buf);

	*--p = '\0';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	fputs(p, out);
}

/* A standing-queue hook's values, beside its histogram's. */
static void json_standing(FILE *out, const struct nsl_report_hist *h)
{
	char v[NSL_VALUE_LEN];

	if (!nsl_hook_standing(h->key.hook))
		return;
	for (int i = 0; i < NSL_NR_SV; i++) {
		nsl_value_snprint(v, sizeof(v), &nsl_standing_values[i], h->standing[i]);
		fprintf(out, ",\"%s\":%s", nsl_standing_values[i].name, v);
	}
}

static void json_hist(FILE *out, const struct nsl_report *r,
		      const struct nsl_report_hist *h)
{
	fputs("{\"hook\":", out);
	json_string(out, nsl_hook_label(h->key.hook), SIZE_MAX);
	json_group(out, r, h);
	fprintf(out, ",\"count\":%" PRIu64 ",\"sum_ns\":", h->count);
	json_u128(out, h->sum_wraps, h->sum_ns);
	fprintf(out, ",\"avg_ns\":%.1f", nsl_average(h));
	json_percentiles(out, h);
	json_buckets(out, h);
	json_standing(out, h);
	/* only in a gone group's last report (and its late samples') */
	if (h->gone)
		fputs(",\"gone\":true", out);
	fputc('}', out);
}

/*
 * Grouped: groups live now, reclaimed in the report's interval, and
 * evicted in it (idle groups that yielded their histogram to new ones
 * while the table was full; reclaimed at the next interval).
 */
static void json_groups(FILE *out, const struct nsl_report *r)
{
	if (!r->group_ifindex && !r->group_cgroup)
		return;
	fprintf(out, ",\"groups\":{\"live\":%" PRIu32 ",\"reclaimed\":%" PRIu64
		",\"evicted\":%" PRIu64 "}", r->groups_live, r->groups_reclaimed,
		r->groups_evicted);
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

/* {"program":..,"hooks":[..] of a program, without the closing brace. */
static void json_prog(FILE *out, const struct nsl_prog_stat *c)
{
	fputs("{\"program\":", out);
	json_string(out, c->prog, sizeof(c->prog));
	fputs(",\"hooks\":[", out);
	for (int h = 0, n = 0; h < NSL_NR_HOOKS; h++)
		if (c->hooks & (1u << h)) {
			fputs(n++ ? "," : "", out);
			json_string(out, nsl_hook_label(h), SIZE_MAX);
		}
	fputc(']', out);
}

static void json_costs(FILE *out, const struct nsl_report *r)
{
	if (!r->bpf_stats)
		return;
	fputs(",\"bpf_stats\":[", out);
	for (size_t i = 0; i < r->nr_progs; i++) {
		const struct nsl_prog_stat *c = &r->progs[i];

		fputs(i ? "," : "", out);
		json_prog(out, c);
		fprintf(out, ",\"runs\":%" PRIu64 ",\"run_time_ns\":%" PRIu64
			",\"avg_ns\":%.1f,\"cpu_share\":%.6f}",
			c->run_cnt, c->run_time_ns, nsl_cost_avg_ns(c),
			nsl_cost_cpu_share(c, r->interval_s));
	}
	fputc(']', out);
}

/*
 * Per attached program, the runs the kernel skipped as recursion, with
 * the hooks it serves; null where the kernel does not count them.
 */
static void json_recursion(FILE *out, const struct nsl_report *r)
{
	if (r->recursion == NSL_RECURSION_NOT_READ)
		return;
	fputs(",\"recursion_misses\":", out);
	if (r->recursion == NSL_RECURSION_UNAVAILABLE) {
		fputs("null", out);
		return;
	}
	fputc('[', out);
	for (size_t i = 0; i < r->nr_progs; i++) {
		fputs(i ? "," : "", out);
		json_prog(out, &r->progs[i]);
		fprintf(out, ",\"count\":%" PRIu64 "}", r->progs[i].recursion_misses);
	}
	fputc(']', out);
}

/*
 * Per hook asked for: how it attaches and the one namespace it sees (null:
 * all), and what it goes without (lacks, where something), or null and
 * why it is unavailable. So that a file says, without
 * stderr, why a hook is empty or missing.
 */
static void json_hooks(FILE *out, const struct nsl_report *r)
{
	bool first = true;

	if (!r->status)
		return;
	fputs(",\"hooks\":{", out);
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_hook_status *st = &r->status[h];

		if (!st->enabled)
			continue;
		fputs(first ? "" : ",", out);
		json_string(out, nsl_hooks[h].name, SIZE_MAX);
		fputs(":{\"method\":", out);
		json_string(out, st->method, SIZE_MAX);
		if (st->method) {
			fputs(",\"netns\":", out);
			if (st->netns)
				fprintf(out, "%" PRIu64, st->netns);
			else
				fputs("null", out);
			if (st->lacks) {
				fputs(",\"lacks\":", out);
				json_string(out, st->lacks, SIZE_MAX);
			}
		} else {
			fputs(",\"unavailable\":", out);
			json_string(out, st->why ? st->why : "", SIZE_MAX);
		}
		fputc('}', out);
		first = false;
	}
	fputc('}', out);
}

void nsl_format_json(FILE *out, const struct nsl_report *r)
{
	size_t i;

	fputs("{\"time\":", out);
	json_time(out, &r->time);
	fprintf(out, ",\"interval_s\":%.3f,\"cumulative\":%s,\"resolution\":%u,"
		"\"schema\":", r->interval_s, r->cumulative ? "true" : "false",
		1u << r->schema);
	if (r->schema)
		fprintf(out, "%u", r->schema);
	else
		fputs("null", out);
	fprintf(out, ",\"sample_every\":%u,\"reports_lost\":%" PRIu64,
		nsl_sample_every(r), r->reports_lost);
	json_hooks(out, r);
	fputs(",\"histograms\":[", out);
	for (i = 0; i < r->nr_hists; i++) {
		if (i)
			fputc(',', out);
		json_hist(out, r, &r->hists[i]);
	}
	fputc(']', out);
	json_counters(out, r);
	json_recursion(out, r);
	json_groups(out, r);
	json_costs(out, r);
	fputs("}\n", out);
}
