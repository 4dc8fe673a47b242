// SPDX-License-Identifier: GPL-2.0-only
/*
 * Formatters against golden files in tests/golden (or $NSL_GOLDEN_DIR).
 * NSL_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing: read
 * every changed one by hand before committing it.
 */
#define _GNU_SOURCE	/* asprintf */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "io/prometheus/client/metrics.pb-c.h"
#include "hooks.h"
#include "hist.h"
#include "format.h"
#include "stats.h"
#include "version.h"

#define MAX_HISTS 12

/* 2026-11-22T11:00:05.123Z */
static const struct timespec report_time = { 1795345205, 123456789 };

static const struct nsl_format_opts table = { NSL_FMT_TABLE, false };
static const struct nsl_format_opts table_ts = { NSL_FMT_TABLE, true };
static const struct nsl_format_opts json = { NSL_FMT_JSON, false };
static const struct nsl_format_opts prom = { NSL_FMT_PROMETHEUS, false };

struct fixture {
	struct nsl_report r;
	struct nsl_report_hist h[MAX_HISTS];
	uint64_t slots[MAX_HISTS][NSL_MAX_SLOTS];
};

static struct nsl_report_hist *add_hist(struct fixture *f, enum nsl_hook hook,
					uint64_t sum_ns)
{
	struct nsl_report_hist *h = &f->h[f->r.nr_hists];

	assert_true(f->r.nr_hists < MAX_HISTS);
	h->buckets = f->slots[f->r.nr_hists++];
	h->lo = 0;
	h->nr = NSL_MAX_SLOTS;	/* dense: every slot */
	h->schema = f->r.schema;
	h->key.hook = hook;
	h->sum_ns = sum_ns;
	f->r.hists = f->h;
	return h;
}

static void set_bucket(struct nsl_report_hist *h, int i, uint64_t n)
{
	h->buckets[i] = n;
	h->count += n;
}

/*
 * An ungrouped interval report as over veth: ip-start empty because TCP
 * carries departure timestamps, reads with HOL-blocked samples excluded
 * and kept apart (tcp-socket-read-hol).
 */
static void build_basic(struct fixture *f)
{
	struct nsl_report_hist *h;

	memset(f, 0, sizeof(*f));
	f->r.time = report_time;
	f->r.interval_s = 5.0;
	f->r.hook_enabled[NSL_HOOK_IP_START] = true;
	f->r.hook_enabled[NSL_HOOK_TCP_START] = true;
	f->r.hook_enabled[NSL_HOOK_TCP_SOCK_ENQUEUED] = true;
	f->r.hook_enabled[NSL_HOOK_TCP_SOCK_READ] = true;

	add_hist(f, NSL_HOOK_IP_START, 0);
	f->r.counters[NSL_HOOK_IP_START][NSL_CNT_NOT_RX_TSTAMP] = 812;

	h = add_hist(f, NSL_HOOK_TCP_START, 10843);
	set_bucket(h, 3, 20);
	set_bucket(h, 4, 700);
	set_bucket(h, 5, 80);
	set_bucket(h, 6, 12);

	h = add_hist(f, NSL_HOOK_TCP_SOCK_ENQUEUED, 83140);
	set_bucket(h, 0, 1);
	set_bucket(h, 5, 4);
	set_bucket(h, 6, 150);
	set_bucket(h, 7, 600);
	set_bucket(h, 8, 50);
	set_bucket(h, 9, 7);

	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 1234567);
	set_bucket(h, 10, 100);
	set_bucket(h, 11, 320);
	set_bucket(h, 12, 330);
	set_bucket(h, 13, 55);
	set_bucket(h, 14, 5);
	set_bucket(h, 15, 2);
	f->r.counters[NSL_HOOK_TCP_SOCK_READ][NSL_CNT_HOL_EXCLUDED] = 12;
	f->r.counters[NSL_HOOK_TCP_SOCK_READ][NSL_CNT_NEGATIVE] = 2;

	/* the 12 reads left out, in their own histogram */
	f->r.hook_enabled[NSL_HIST_TCP_READ_HOL] = true;
	h = add_hist(f, NSL_HIST_TCP_READ_HOL, 312000000);
	set_bucket(h, 24, 3);
	set_bucket(h, 25, 8);
	set_bucket(h, 26, 1);
}

/*
 * Cumulative, grouped by interface (in every netns: -n -1) and cgroup: a
 * name that is known, one that is not, an empty group, an enabled hook
 * without any group, samples in the open-ended bucket and every counter
 * (the line must wrap). With each hook's status: one attached, seeing all
 * namespaces, one unavailable (a reason that needs escaping). The second
 * group is gone (its last report), and the group counts are filled.
 */
#define CONTAINER_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
static struct nsl_container pod_container = {
	.runtime = "containerd", .id = CONTAINER_ID, .pod = "web-0",
	.pod_namespace = "shop", .pod_uid = "1e2d-0516", .container = "nginx",
};
static struct nsl_container docker_container = {
	.runtime = "docker", .id = CONTAINER_ID, .name = "cache",
};
/* a grouped series' names where it has none (issue #58 item 3) */
#define NO_NAMES "namespace=\"\",pod=\"\",container=\"\",name=\"\""

static void build_grouped(struct fixture *f)
{
	static struct nsl_hook_status status[NSL_NR_HOOKS] = {
		[NSL_HOOK_IP_START] = { false, "netfilter", 4026531840ULL, NULL },
		[NSL_HOOK_TCP_SOCK_READ] = { true, "fentry", 0, NULL },
		[NSL_HOOK_UDP_SOCK_READ] = { true, NULL, 0,
			"fentry/skb_consume_udp: load: \"EPERM\"" },
	};
	struct nsl_report_hist *h;
	uint64_t *cnt;
	int c;

	memset(f, 0, sizeof(*f));
	f->r.time = report_time;
	f->r.interval_s = 3600.25;
	f->r.cumulative = true;
	f->r.group_ifindex = true;
	f->r.group_netns = true;
	f->r.group_cgroup = true;
	f->r.status = status;
	f->r.hook_enabled[NSL_HOOK_TCP_SOCK_READ] = true;
	f->r.hook_enabled[NSL_HOOK_UDP_SOCK_READ] = true;

	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 3270000000ULL);
	h->key.ifindex = 2;
	h->key.netns = 4026531840ULL;
	h->key.cgroup = 1234;
	strcpy(h->ifname, "eth0");
	h->cgroup_path = "/system.slice/nginx.service";
	set_bucket(h, 17, 400);
	set_bucket(h, 18, 0);
	set_bucket(h, 22, 550);
	set_bucket(h, 23, 50);

	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 47250000000ULL);
	h->key.ifindex = 3;
	h->key.netns = 4026532301ULL;
	h->key.cgroup = 5678;
	h->gone = true;
	set_bucket(h, 33, 1);
	set_bucket(h, 34, 4);

	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 0);
	h->key.ifindex = 3;
	h->key.cgroup = 9012;
	h->cgroup_path = "/user.slice";

	/* a Kubernetes pod's container, and docker's (docs/containers.md) */
	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 3000);
	h->key.ifindex = 4;
	h->key.cgroup = 9100;
	h->cgroup_path = "/kubepods.slice/kubepods-pod1e2d_0516.slice/cri-containerd-"
			 CONTAINER_ID ".scope";
	h->container = &pod_container;
	set_bucket(h, 12, 1);
	h = add_hist(f, NSL_HOOK_TCP_SOCK_READ, 1500);
	h->key.ifindex = 4;
	h->key.cgroup = 9200;
	h->cgroup_path = "/system.slice/docker-" CONTAINER_ID ".scope";
	h->container = &docker_container;
	set_bucket(h, 11, 1);

	cnt = f->r.counters[NSL_HOOK_TCP_SOCK_READ];
	for (c = 0; c < NSL_NR_COUNTERS; c++)
		cnt[c] = 123456789012ULL * (c + 1);
	f->r.counters[NSL_HOOK_UDP_SOCK_READ][NSL_CNT_MAP_FULL] = 17;
	f->r.groups_live = 2;
	f->r.groups_reclaimed = 40;
}

/*
 * Resolution 8 (schema 3): reads around 20 us with a gap of empty buckets
 * (one row in the table), a few exact zeros, and a second hook with one
 * bucket. Slot 1 + F + i holds native index i, the bucket
 * (2^((i-1)/8), 2^(i/8)] s; slot 0 the zeros.
 */
#define NATIVE(i) (1 + 239 + (i))
static void build_fine(struct fixture *f)
{
	struct nsl_report_hist *h;

	memset(f, 0, sizeof(*f));
	f->r.time = report_time;
	f->r.interval_s = 5.0;
	f->r.cumulative = true;
	f->r.schema = 3;
	f->r.sample_every = 16;		/* --sample 16: the factor in every format */
	f->r.hook_enabled[NSL_HOOK_UDP_SOCK_ENQUEUED] = true;
	f->r.hook_enabled[NSL_HOOK_UDP_SOCK_READ] = true;

	h = add_hist(f, NSL_HOOK_UDP_SOCK_ENQUEUED, 2900);
	set_bucket(h, NATIVE(-160), 3);		/* (874 ns, 953 ns] */

	h = add_hist(f, NSL_HOOK_UDP_SOCK_READ, 4321000);
	set_bucket(h, 0, 2);
	set_bucket(h, NATIVE(-125), 10);	/* (18.1 us, 19.8 us] */
	set_bucket(h, NATIVE(-124), 150);
	set_bucket(h, NATIVE(-123), 40);
	set_bucket(h, NATIVE(-119), 1);		/* 3 empty buckets before it */
}

/* Every hook enabled, nothing measured yet. */
static void build_empty(struct fixture *f)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->r.time = report_time;
	f->r.interval_s = 5.0;
	for (i = 0; i < NSL_NR_HOOKS; i++) {
		f->r.hook_enabled[i] = true;
		add_hist(f, i, 0);
	}
}

/* The formatter's output as a string; free() it. */
static char *render(const struct nsl_report *r,
		    const struct nsl_format_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(nsl_format_report(out, r, o), 0);
	/* flushed by the formatter: visible before the stream is closed */
	assert_int_equal(len, strlen(buf));
	assert_true(len > 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static char *golden_path(const char *name)
{
	const char *dir = getenv("NSL_GOLDEN_DIR");
	char *path;

	if (!dir || !*dir)
		dir = "tests/golden";
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	return path;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		fail_msg("cannot open golden file %s: %s (run with "
			 "NSL_UPDATE_GOLDEN=1 to create it)", path,
			 strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	assert_false(ferror(f));
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) < 0, 0);
	assert_int_equal(fclose(f), 0);
}

static void check_golden(const char *name, const char *text)
{
	const char *update = getenv("NSL_UPDATE_GOLDEN");
	char *path = golden_path(name);
	char *want;

	if (update && !strcmp(update, "1")) {
		write_file(path, text);
		print_message("wrote %s\n", path);
	} else {
		want = read_file(path);
		if (strcmp(want, text))
			print_error("%s differs from the output\n", path);
		assert_string_equal(text, want);
		free(want);
	}
	free(path);
}

/*
 * JSON Lines: one line, and braces and brackets balanced outside strings.
 * Not a parser; the golden files were checked with python3 -m json.tool.
 */
static void check_json_line(const char *s)
{
	int depth = 0;
	bool in_str = false;
	const char *p;

	assert_int_equal(s[0], '{');
	assert_true(strchr(s, '\n') == s + strlen(s) - 1);
	for (p = s; *p != '\n'; p++) {
		if (in_str) {
			assert_true((unsigned char)*p >= 0x20);
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p == '"')
			in_str = true;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		assert_true(depth >= 0);
		/* a closed top-level object is the end of the line */
		if (!depth)
			assert_int_equal(p[1], '\n');
	}
	assert_false(in_str);
	assert_int_equal(depth, 0);
}

static void check_table_width(const char *s)
{
	const char *nl;

	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		assert_non_null(nl);
		if (nl - s > 80)
			fail_msg("line wider than 80 columns: %.*s",
				 (int)(nl - s), s);
	}
}

static void check_json_report(const char *name, const struct fixture *f)
{
	char *text = render(&f->r, &json);

	check_json_line(text);
	check_golden(name, text);
	free(text);
}

static void check_table_report(const char *name, const struct fixture *f,
			       const struct nsl_format_opts *o)
{
	char *text = render(&f->r, o);

	check_table_width(text);
	check_golden(name, text);
	free(text);
}

static void test_report_table(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	check_table_report("report.table", &f, &table);
}

static void test_report_ts_table(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	check_table_report("report-ts.table", &f, &table_ts);
}

static void test_report_json(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	check_json_report("report.json", &f);
}

static void test_grouped_table(void **state)
{
	struct fixture f;

	(void)state;
	build_grouped(&f);
	check_table_report("grouped.table", &f, &table);
}

static void test_grouped_json(void **state)
{
	struct fixture f;

	(void)state;
	build_grouped(&f);
	check_json_report("grouped.json", &f);
}

static void test_empty_table(void **state)
{
	struct fixture f;

	(void)state;
	build_empty(&f);
	check_table_report("empty.table", &f, &table);
}

static void test_empty_json(void **state)
{
	struct fixture f;

	(void)state;
	build_empty(&f);
	check_json_report("empty.json", &f);
}

/* Only the grouping asked for shows up in the keys. */
static void test_json_group_keys(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build_grouped(&f);
	f.r.group_cgroup = false;
	f.r.group_netns = false;
	text = render(&f.r, &json);
	check_json_line(text);
	assert_non_null(strstr(text, "{\"hook\":\"tcp-socket-read\","
				     "\"ifindex\":3,\"ifname\":null,\"container\":null,\"count\""));
	assert_null(strstr(text, "cgroup"));
	assert_null(strstr(text, "\"netns\":4"));
	free(text);

	build_basic(&f);
	text = render(&f.r, &json);
	assert_null(strstr(text, "ifindex"));
	assert_null(strstr(text, "cgroup"));
	free(text);
}

/*
 * -I -n -1 without -C: a group of a pod's network namespace carries the
 * pod's names (src/2-collect/containers.c names the namespace), in each
 * format, after its namespace.
 */
static void test_netns_container(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build_grouped(&f);
	f.r.group_cgroup = false;
	text = render(&f.r, &json);
	check_json_line(text);
	assert_non_null(strstr(text, "\"ifindex\":4,\"ifname\":null,\"netns\":0,\"container\":"
				     "{\"runtime\":\"containerd\",\"id\":\"" CONTAINER_ID "\","
				     "\"name\":null,\"namespace\":\"shop\",\"pod\":\"web-0\""));
	assert_non_null(strstr(text, "\"netns\":4026531840,\"container\":null,"));
	assert_null(strstr(text, "cgroup"));
	free(text);
	text = render(&f.r, &prom);
	assert_non_null(strstr(text, "{hook=\"tcp-socket-read\",interface=\"\",ifindex=\"4\","
				     "netns=\"0\",namespace=\"shop\",pod=\"web-0\",container=\"nginx\","
				     "name=\"\"}"));
	assert_non_null(strstr(text, "ifindex=\"4\",netns=\"0\",namespace=\"\",pod=\"\","
				     "container=\"\",name=\"cache\"}"));
	free(text);
	text = render(&f.r, &table);
	assert_non_null(strstr(text, "[netns 0] [pod shop/web-0 container nginx]"));
	assert_non_null(strstr(text, "[netns 0] [container cache]"));
	free(text);
}

/*
 * A cumulative sum past 2^64 ns (sum_wraps, counted by the reader): exact
 * in JSON, and the average and Prometheus' _sum go on from there instead
 * of dropping back near 0.
 */
static void test_sum_beyond_64_bits(void **state)
{
	struct fixture f;
	struct nsl_report_hist *h;
	char *text;

	(void)state;
	build_basic(&f);
	f.r.cumulative = true;
	h = &f.h[1];				/* tcp-start: 812 samples */
	h->sum_wraps = 1;
	h->sum_ns = 5;
	text = render(&f.r, &json);
	check_json_line(text);
	assert_non_null(strstr(text, "\"sum_ns\":18446744073709551621,"));
	/* 2^64 / 812 */
	assert_non_null(strstr(text, "\"avg_ns\":22717665115405852.0"));
	free(text);
	text = render(&f.r, &prom);
	assert_non_null(strstr(text, "netstacklat_latency_seconds_sum{hook=\"tcp-start\"} 18446744073.7095"));
	free(text);
}

static void test_json_escape(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build_grouped(&f);
	/* quote, backslash, control bytes, a bad byte and valid UTF-8 */
	f.h[0].cgroup_path = "/a\"b\\c\nd\x01\xff\xc3\xa9";
	strcpy(f.h[0].ifname, "e\"\\");
	text = render(&f.r, &json);
	check_json_line(text);
	assert_non_null(strstr(text,
		"\"cgroup_path\":\"/a\\\"b\\\\c\\nd\\u0001\\ufffd\xc3\xa9\""));
	assert_non_null(strstr(text, "\"ifname\":\"e\\\"\\\\\""));
	free(text);

	/* the table keeps control bytes off the terminal */
	text = render(&f.r, &table);
	assert_non_null(strstr(text, "[cgroup /a\"b\\c?d?\xff\xc3\xa9]"));
	free(text);
}

/* A full ifname has no terminating NUL in the report: stay inside it. */
static void test_ifname_full(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build_grouped(&f);
	f.r.group_cgroup = false;
	memset(f.h[0].ifname, 'x', sizeof(f.h[0].ifname));
	text = render(&f.r, &json);
	assert_non_null(strstr(text, "\"ifname\":\"xxxxxxxxxxxxxxxx\","));
	free(text);
}

/* Rounding to 3 significant digits may carry into the next unit. */
static void check_average(uint64_t sum_ns, uint64_t count, const char *want)
{
	struct fixture f;
	struct nsl_report_hist *h;
	char *text, line[64];

	memset(&f, 0, sizeof(f));
	f.r.hook_enabled[NSL_HOOK_UDP_START] = true;
	h = add_hist(&f, NSL_HOOK_UDP_START, sum_ns);
	set_bucket(h, 10, count);
	text = render(&f.r, &table);
	snprintf(line, sizeof(line), "udp-start: count %" PRIu64
		 ", average %s\n", count, want);
	if (!strstr(text, line))
		fail_msg("want \"%s\" in:\n%s", line, text);
	free(text);
}

static void test_duration_units(void **state)
{
	(void)state;
	check_average(0, 1, "0ns");
	check_average(999, 1, "999ns");
	check_average(9994, 10, "999ns");	/* 999.4 */
	check_average(9996, 10, "1.00us");	/* 999.6 */
	check_average(1024, 1, "1.02us");
	check_average(9996, 1, "10.0us");
	check_average(99960, 1, "100us");
	check_average(999499, 1, "999us");
	check_average(999600, 1, "1.00ms");
	check_average(16777216, 1, "16.8ms");
	check_average(2147483648ULL, 1, "2.15s");
	check_average(1234567000000ULL, 1, "1235s");
}

static void expect_write_error(const struct nsl_format_opts *o, int mode)
{
	struct fixture f;
	FILE *out = fopen("/dev/full", "w");

	assert_non_null(out);
	if (mode == _IONBF)
		assert_int_equal(setvbuf(out, NULL, _IONBF, 0), 0);
	build_grouped(&f);
	assert_true(nsl_format_report(out, &f.r, o) < 0);
	fclose(out);
}

static void test_write_error(void **state)
{
	(void)state;
	/* buffered: the formatter's own flush must fail */
	expect_write_error(&table, _IOFBF);
	expect_write_error(&json, _IOFBF);
	/* unbuffered: the writes themselves fail */
	expect_write_error(&table, _IONBF);
	expect_write_error(&json, _IONBF);
}

static void test_write_error_errno(void **state)
{
	struct fixture f;
	FILE *out = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(out);
	build_basic(&f);
	assert_int_equal(nsl_format_report(out, &f.r, &json), -ENOSPC);
	fclose(out);
}

/*
 * The basic report's programs: their recursion misses (tp_data_ready, which
 * both enqueue hooks share, was skipped 3 times), and with --bpf-stats
 * (run_time) what each cost.
 */
static void add_progs(struct fixture *f, bool run_time)
{
	static const struct nsl_prog_stat progs[] = {
		{ 1u << NSL_HOOK_TCP_SOCK_ENQUEUED | 1u << NSL_HOOK_UDP_SOCK_ENQUEUED,
		  "tp_data_ready", 1000, 85000, 3 },
		{ 1u << NSL_HOOK_TCP_SOCK_READ, "tp_tcp_copy_datagram", 812, 48720, 0 },
		{ 1u << NSL_HOOK_TCP_SOCK_READ, "tp_recv_length", 900, 0, 0 },
		{ 1u << NSL_HOOK_UDP_SOCK_READ, "fentry_skb_consume_udp", 0, 0, 0 },
	};

	f->r.bpf_stats = run_time;
	f->r.recursion = NSL_RECURSION_COUNTED;
	f->r.nr_progs = sizeof(progs) / sizeof(progs[0]);
	memcpy(f->r.progs, progs, sizeof(progs));
}

static void add_costs(struct fixture *f)
{
	add_progs(f, true);
}

static void test_costs_table(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	add_costs(&f);
	check_table_report("costs.table", &f, &table);
}

static void test_costs_json(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	add_costs(&f);
	check_json_report("costs.json", &f);
}

/* r in format o holds needle exactly times times (0: not at all). */
static void expect_text(const struct nsl_report *r, const struct nsl_format_opts *o,
			const char *needle, int times)
{
	char *text = render(r, o);
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	if (n != times)
		fail_msg("'%s' %d times, expected %d, in:\n%s", needle, n, times, text);
	free(text);
}

/*
 * The standing hooks' episodes at the default resolution (issue 57 item
 * 12): 20 s and 40 s in buckets of their own, (2^34, 2^35] and (2^35,
 * 2^36] ns, in every format, where a packet hook's last bucket takes
 * both (above 2^33 ns, open-ended). Before, the formats gave both hooks
 * the packet hooks' bounds.
 */
static void test_standing_buckets(void **state)
{
	struct nsl_report_hist *h;
	struct fixture f;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.r.time = report_time;
	f.r.interval_s = 60.0;
	f.r.hook_enabled[NSL_HOOK_UDP_START] = true;
	f.r.hook_enabled[NSL_HOOK_UDP_STANDING] = true;
	h = add_hist(&f, NSL_HOOK_UDP_START, 60000000000ULL);
	set_bucket(h, NSL_MAX_SLOT, 2);
	h = add_hist(&f, NSL_HOOK_UDP_STANDING, 60000000000ULL);
	set_bucket(h, 34 - NSL_STANDING_SHIFT + 1, 1);	/* 20 s */
	set_bucket(h, 35 - NSL_STANDING_SHIFT + 1, 1);	/* 40 s */
	expect_text(&f.r, &json, "\"hook\":\"udp-standing-queue\",\"count\":2,\"sum_ns\":60000000000,"
		    "\"avg_ns\":30000000000.0,\"p50_ns\":34359738368,\"p90_ns\":68719476736,"
		    "\"p99_ns\":68719476736,\"p999_ns\":68719476736,\"buckets\":["
		    "{\"le_ns\":34359738368,\"count\":1},{\"le_ns\":68719476736,\"count\":1}]", 1);
	expect_text(&f.r, &json, "\"buckets\":[{\"le_ns\":null,\"count\":2}]", 1);
	expect_text(&f.r, &prom, "netstacklat_latency_seconds_bucket{hook=\"udp-standing-queue\","
		    "le=\"34.359738368\"} 1\n", 1);
	expect_text(&f.r, &prom, "netstacklat_latency_seconds_bucket{hook=\"udp-standing-queue\","
		    "le=\"68.719476736\"} 2\n", 1);
	expect_text(&f.r, &prom, "netstacklat_latency_seconds_bucket{hook=\"udp-standing-queue\","
		    "le=\"8796.093022208\"} 2\n", 1);
	expect_text(&f.r, &prom, "netstacklat_latency_seconds_bucket{hook=\"udp-start\","
		    "le=\"8.589934592\"} 0\n", 1);
	expect_text(&f.r, &table, "  (17.2s, 34.4s]", 1);
	expect_text(&f.r, &table, "  (8.59s, ...)", 1);
}

/*
 * Recursion misses without --bpf-stats: per program with its hooks in
 * JSON and Prometheus; in the table under each hook the program serves.
 */
static void test_recursion_misses(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	add_progs(&f, false);
	expect_text(&f.r, &json, ",\"recursion_misses\":[{\"program\":\"tp_data_ready\","
		    "\"hooks\":[\"tcp-socket-enqueued\",\"udp-socket-enqueued\"],"
		    "\"count\":3},{\"program\":\"tp_tcp_copy_datagram\",", 1);
	expect_text(&f.r, &json, "bpf_stats", 0);
	/* a series per hook the program serves, so that {hook="..."} finds it */
	expect_text(&f.r, &prom, "\n# TYPE netstacklat_recursion_misses_total counter\n"
		    "netstacklat_recursion_misses_total{hook=\"tcp-socket-enqueued\","
		    "program=\"tp_data_ready\"} 3\n"
		    "netstacklat_recursion_misses_total{hook=\"udp-socket-enqueued\","
		    "program=\"tp_data_ready\"} 3\n", 1);
	expect_text(&f.r, &prom, "\",udp-socket-enqueued", 0);
	expect_text(&f.r, &prom, "netstacklat_bpf_runs_total", 0);
	/* tcp-socket-enqueued's line only: udp-socket-enqueued is not enabled */
	expect_text(&f.r, &table, "\n  recursion_misses: 3 (tp_data_ready)\n", 1);
	expect_text(&f.r, &table, "recursion_misses", 1);
}

/*
 * A kernel without the count (before 5.12): null in JSON, no series in
 * Prometheus, nothing in the table; never a 0 that looks measured.
 */
static void test_recursion_unavailable(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	add_progs(&f, false);
	f.r.recursion = NSL_RECURSION_UNAVAILABLE;
	expect_text(&f.r, &json, ",\"recursion_misses\":null}", 1);
	expect_text(&f.r, &prom, "recursion", 0);
	expect_text(&f.r, &table, "recursion", 0);
	/* a report made without programs (these fixtures) leaves it out */
	build_basic(&f);
	expect_text(&f.r, &json, "recursion", 0);
}

/*
 * Prometheus: every bucket, cumulative counts, le in seconds, +Inf last,
 * labels escaped. (promtool checks the real output in test_prometheus.sh.)
 */
static void check_prom_report(const char *name, const struct fixture *f)
{
	char *text = render(&f->r, &prom);

	check_golden(name, text);
	free(text);
}

static void test_prom_basic(void **state)
{
	struct fixture f;

	(void)state;
	build_basic(&f);
	add_costs(&f);
	check_prom_report("report.prom", &f);
}

static void test_prom_grouped(void **state)
{
	struct fixture f;

	(void)state;
	build_grouped(&f);
	/* a path that needs escaping */
	f.h[2].cgroup_path = "/we\"ird\\path";
	check_prom_report("grouped.prom", &f);
}

static void test_fine_table(void **state)
{
	struct fixture f;

	(void)state;
	build_fine(&f);
	check_table_report("fine.table", &f, &table);
}

static void test_fine_json(void **state)
{
	struct fixture f;

	(void)state;
	build_fine(&f);
	check_json_report("fine.json", &f);
}

static void test_fine_prom(void **state)
{
	struct fixture f;

	(void)state;
	build_fine(&f);
	check_prom_report("fine.prom", &f);
}

/* The protobuf exposition of r, as bytes; free() it. */
static char *render_pb_bytes(const struct nsl_report *r, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	assert_non_null(out);
	assert_int_equal(nsl_format_prometheus_pb(out, r), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

/*
 * The length of the delimited message at buf + *off (of len bytes), past
 * which *off then points: the message lies at buf + *off.
 */
static uint64_t next_message(const char *buf, size_t len, size_t *off)
{
	uint64_t size = 0;
	int shift = 0;

	do {		/* its varint length */
		assert_true(*off < len && shift < 64);
		size |= (uint64_t)(buf[*off] & 0x7f) << shift;
		shift += 7;
	} while (buf[(*off)++] & 0x80);
	assert_true(*off + size <= len);
	return size;
}

/* The protobuf exposition of f, unpacked: its MetricFamily messages. */
static size_t render_pb(const struct fixture *f,
			Io__Prometheus__Client__MetricFamily **mf, size_t max)
{
	size_t len, off = 0, n = 0;
	char *buf = render_pb_bytes(&f->r, &len);

	while (off < len) {
		uint64_t size = next_message(buf, len, &off);

		assert_true(n < max);
		mf[n] = io__prometheus__client__metric_family__unpack(
			NULL, size, (const uint8_t *)buf + off);
		assert_non_null(mf[n]);
		off += size;
		n++;
	}
	free(buf);
	return n;
}

static const Io__Prometheus__Client__MetricFamily *
pb_family(Io__Prometheus__Client__MetricFamily **mf, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(mf[i]->name, name))
			return mf[i];
	fail_msg("no family %s", name);
	return NULL;
}

/*
 * Resolution 8: a native histogram of schema 3 per hook, its buckets as
 * spans of consecutive non-empty indices and deltas between their counts,
 * zeros in the zero bucket; the counters as counters.
 */
static void test_prom_pb_native(void **state)
{
	Io__Prometheus__Client__MetricFamily *mf[16];
	const Io__Prometheus__Client__MetricFamily *lat, *c;
	const Io__Prometheus__Client__Histogram *h;
	struct fixture f;
	size_t n;

	(void)state;
	build_fine(&f);
	n = render_pb(&f, mf, 16);
	lat = pb_family(mf, n, "netstacklat_latency_seconds");
	assert_int_equal(lat->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	assert_int_equal(lat->n_metric, 2);
	assert_string_equal(lat->metric[1]->label[0]->name, "hook");
	assert_string_equal(lat->metric[1]->label[0]->value, "udp-socket-read");
	h = lat->metric[1]->histogram;
	assert_int_equal(h->schema, 3);
	assert_int_equal(h->sample_count, 203);
	assert_float_equal(h->sample_sum, 0.004321, 1e-12);
	assert_int_equal(h->zero_count, 2);
	assert_true(h->zero_threshold > 0 && h->zero_threshold < 1e-30);
	assert_int_equal(h->n_bucket, 0);
	/* indices -125, -124, -123 (10, 150, 40), then -119 (1) */
	assert_int_equal(h->n_positive_span, 2);
	assert_int_equal(h->positive_span[0]->offset, -125);
	assert_int_equal(h->positive_span[0]->length, 3);
	assert_int_equal(h->positive_span[1]->offset, 3);
	assert_int_equal(h->positive_span[1]->length, 1);
	assert_int_equal(h->n_positive_delta, 4);
	assert_int_equal(h->positive_delta[0], 10);
	assert_int_equal(h->positive_delta[1], 140);
	assert_int_equal(h->positive_delta[2], -110);
	assert_int_equal(h->positive_delta[3], -39);
	c = pb_family(mf, n, "netstacklat_map_full_total");
	assert_int_equal(c->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	assert_int_equal(c->n_metric, 2);
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
}

/*
 * A standing-queue hook's values ride with each of its histograms, each
 * group its own, in every format: the standing time in seconds to the
 * nanosecond (a float in the JSON and the text exposition, a double in
 * the protobuf one), the episodes begun (counters), the sockets standing
 * (a gauge). Other hooks' histograms carry none.
 */
static void test_standing_values(void **state)
{
	static const uint64_t v[2][NSL_NR_SV] = { { 1500000007ULL, 2, 1 },
						  { 250000000ULL, 1, 0 } };
	Io__Prometheus__Client__MetricFamily *mf[24];
	const Io__Prometheus__Client__MetricFamily *c;
	struct nsl_report_hist *h;
	struct fixture f;
	size_t n;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.r.time = report_time;
	f.r.interval_s = 1.0;
	f.r.group_ifindex = f.r.group_netns = true;
	f.r.hook_enabled[NSL_HOOK_UDP_START] = true;
	f.r.hook_enabled[NSL_HOOK_UDP_STANDING] = true;
	set_bucket(add_hist(&f, NSL_HOOK_UDP_START, 3000), 2, 1);
	for (int i = 0; i < 2; i++) {
		h = add_hist(&f, NSL_HOOK_UDP_STANDING, i ? 0 : 3021000000ULL);
		h->key.netns = 11 + i;
		memcpy(h->standing, v[i], sizeof(v[i]));
	}
	/* 3.02 s: (2^31, 2^32] ns, the standing hooks' slot 22 */
	set_bucket(&f.h[1], 22, 1);
	f.r.counters[NSL_HOOK_UDP_STANDING][NSL_CNT_NO_STORAGE] = 3;
	f.r.counters[NSL_HOOK_UDP_STANDING][NSL_CNT_WALK_FAILED] = 1;
	expect_text(&f.r, &json, "\"standing_queue_seconds\":1.500000007,"
		    "\"standing_episodes_begun\":2,\"standing_sockets\":1", 1);
	expect_text(&f.r, &json, "\"standing_queue_seconds\":0.250000000,"
		    "\"standing_episodes_begun\":1,\"standing_sockets\":0", 1);
	expect_text(&f.r, &json, "standing_", 6);
	expect_text(&f.r, &prom, "# TYPE netstacklat_standing_queue_seconds_total counter\n"
		    "netstacklat_standing_queue_seconds_total{hook=\"udp-standing-queue\","
		    "interface=\"\",ifindex=\"0\",netns=\"11\"," NO_NAMES "} 1.500000007\n"
		    "netstacklat_standing_queue_seconds_total{hook=\"udp-standing-queue\","
		    "interface=\"\",ifindex=\"0\",netns=\"12\"," NO_NAMES "} 0.250000000\n", 1);
	expect_text(&f.r, &prom, "# TYPE netstacklat_standing_sockets gauge\n"
		    "netstacklat_standing_sockets{hook=\"udp-standing-queue\","
		    "interface=\"\",ifindex=\"0\",netns=\"11\"," NO_NAMES "} 1\n", 1);
	expect_text(&f.r, &prom, "netstacklat_standing_episodes_begun_total{", 2);
	expect_text(&f.r, &prom, "standing_sockets{hook=\"udp-start\"", 0);
	expect_text(&f.r, &table, "udp-standing-queue [ifindex 0] [netns 11]: count 1, "
		    "average 3.02s\n", 1);
	expect_text(&f.r, &table, "  standing 1.500000007 s; episodes begun 2; "
		    "sockets standing now 1\n", 1);
	expect_text(&f.r, &table, "udp-standing-queue [ifindex 0] [netns 12]: no samples\n"
		    "  standing 0.250000000 s; episodes begun 1; sockets standing now 0\n", 1);
	expect_text(&f.r, &table, "  standing ", 2);
	/* the counters of other hooks are not the standing hook's */
	expect_text(&f.r, &prom, "netstacklat_hol_excluded_total", 0);
	/* its own, in every format (issue 57 item 11), and not udp-start's */
	expect_text(&f.r, &json, "\"owner_quota\":0,\"no_storage\":3,\"walk_failed\":1}", 1);
	expect_text(&f.r, &json, "\"no_storage\":", 1);
	expect_text(&f.r, &prom, "netstacklat_no_storage_total{hook=\"udp-standing-queue\"} 3\n", 1);
	expect_text(&f.r, &prom, "netstacklat_walk_failed_total{hook=\"udp-standing-queue\"} 1\n", 1);
	expect_text(&f.r, &prom, "netstacklat_no_storage_total{hook=\"udp-start\"}", 0);
	expect_text(&f.r, &table, "no_storage: 3; walk_failed: 1\n", 1);
	n = render_pb(&f, mf, 24);
	c = pb_family(mf, n, "netstacklat_standing_queue_seconds_total");
	assert_int_equal(c->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	assert_int_equal(c->n_metric, 2);
	assert_float_equal(c->metric[0]->counter->value, 1.500000007, 1e-12);
	assert_float_equal(c->metric[1]->counter->value, 0.25, 1e-12);
	c = pb_family(mf, n, "netstacklat_standing_sockets");
	assert_int_equal(c->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	assert_int_equal(c->n_metric, 2);
	assert_float_equal(c->metric[0]->gauge->value, 1, 0);
	assert_string_equal(c->metric[1]->label[3]->value, "12");
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
}

/*
 * Resolution 1: the log2 buckets are no native schema; classic buckets,
 * cumulative, the same as the text format's (the +Inf one left implied).
 */
static void test_prom_pb_classic(void **state)
{
	Io__Prometheus__Client__MetricFamily *mf[16];
	const Io__Prometheus__Client__Histogram *h;
	struct fixture f;
	size_t n;

	(void)state;
	build_basic(&f);
	n = render_pb(&f, mf, 16);
	h = pb_family(mf, n, "netstacklat_latency_seconds")->metric[1]->histogram;
	assert_false(h->has_schema);
	assert_int_equal(h->n_positive_span, 0);
	assert_int_equal(h->n_bucket, NSL_MAX_SLOT);
	assert_float_equal(h->bucket[4]->upper_bound, 16e-9, 1e-20);
	assert_int_equal(h->bucket[4]->cumulative_count, 720);
	assert_int_equal(h->bucket[NSL_MAX_SLOT - 1]->cumulative_count, 812);
	assert_int_equal(h->sample_count, 812);
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
}

/*
 * Grouped, every series carries the four names, "" where the group has
 * none (the host's), in both formats: an empty label is what keeps a
 * scrape's target label of that name (honor_labels: true) out of the
 * series. Ungrouped, none.
 */
static void test_prom_names_empty(void **state)
{
	Io__Prometheus__Client__MetricFamily *mf[16];
	const Io__Prometheus__Client__MetricFamily *lat;
	const Io__Prometheus__Client__Metric *m;
	static const char *const names[] = { "namespace", "pod", "container", "name" };
	struct fixture f;
	char *text;
	size_t n;

	(void)state;
	build_grouped(&f);
	text = render(&f.r, &prom);
	assert_non_null(strstr(text, "netstacklat_latency_seconds_count{hook=\"tcp-socket-read\","
				     "interface=\"eth0\",ifindex=\"2\",netns=\"4026531840\","
				     "cgroup=\"/system.slice/nginx.service\"," NO_NAMES "} 1000\n"));
	free(text);
	n = render_pb(&f, mf, 16);
	lat = pb_family(mf, n, "netstacklat_latency_seconds");
	m = lat->metric[0];
	assert_int_equal(m->n_label, 9);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(m->label[5 + i]->name, names[i]);
		assert_string_equal(m->label[5 + i]->value, "");
	}
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
	build_basic(&f);
	text = render(&f.r, &prom);
	assert_null(strstr(text, "namespace="));
	assert_null(strstr(text, "name=\""));
	free(text);
}

/* Recursion misses as in the text format; no family where uncounted. */
static void test_prom_pb_recursion(void **state)
{
	Io__Prometheus__Client__MetricFamily *mf[16];
	const Io__Prometheus__Client__MetricFamily *c;
	struct fixture f;
	size_t n;

	(void)state;
	build_basic(&f);
	add_progs(&f, false);
	n = render_pb(&f, mf, 16);
	c = pb_family(mf, n, "netstacklat_recursion_misses_total");
	assert_int_equal(c->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	/* tp_data_ready under each of its two hooks, then three of one */
	assert_int_equal(c->n_metric, 5);
	assert_string_equal(c->metric[0]->label[0]->value, "tcp-socket-enqueued");
	assert_string_equal(c->metric[1]->label[0]->value, "udp-socket-enqueued");
	for (int i = 0; i < 2; i++) {
		assert_string_equal(c->metric[i]->label[1]->name, "program");
		assert_string_equal(c->metric[i]->label[1]->value, "tp_data_ready");
		assert_float_equal(c->metric[i]->counter->value, 3, 0);
	}
	assert_float_equal(c->metric[2]->counter->value, 0, 0);
	for (size_t i = 0; i < n; i++) {
		/* --bpf-stats is off */
		assert_null(strstr(mf[i]->name, "netstacklat_bpf_"));
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
	}
	f.r.recursion = NSL_RECURSION_UNAVAILABLE;
	n = render_pb(&f, mf, 16);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(mf[i]->name, "recursion"));
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
	}
}

/*
 * The hook info metric, as in the text format: a gauge of 1 per hook asked
 * for, the reason only for the unavailable one, and the netns label of
 * the group in the histogram's labels (-I -n -1).
 */
static void test_prom_pb_hook_info(void **state)
{
	Io__Prometheus__Client__MetricFamily *mf[16];
	const Io__Prometheus__Client__MetricFamily *info;
	const Io__Prometheus__Client__Metric *m;
	struct fixture f;
	size_t n;

	(void)state;
	build_grouped(&f);
	n = render_pb(&f, mf, 16);
	info = pb_family(mf, n, "netstacklat_hook_info");
	assert_int_equal(info->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	assert_int_equal(info->n_metric, 2);
	m = info->metric[0];
	assert_int_equal(m->n_label, 3);
	assert_string_equal(m->label[1]->value, "fentry");
	assert_string_equal(m->label[2]->name, "netns");
	assert_string_equal(m->label[2]->value, "");
	assert_float_equal(m->gauge->value, 1, 0);
	m = info->metric[1];
	assert_int_equal(m->n_label, 4);
	assert_string_equal(m->label[0]->value, "udp-socket-read");
	/* no method: empty, as JSON's null (an empty label is no label) */
	assert_string_equal(m->label[1]->name, "method");
	assert_string_equal(m->label[1]->value, "");
	assert_string_equal(m->label[3]->name, "reason");
	assert_string_equal(m->label[3]->value, "fentry/skb_consume_udp: load: \"EPERM\"");
	m = pb_family(mf, n, "netstacklat_latency_seconds")->metric[0];
	assert_string_equal(m->label[2]->name, "ifindex");
	assert_string_equal(m->label[2]->value, "2");
	assert_string_equal(m->label[3]->name, "netns");
	assert_string_equal(m->label[3]->value, "4026531840");
	/* interface: "" where no name is known, never the index */
	m = pb_family(mf, n, "netstacklat_latency_seconds")->metric[1];
	assert_string_equal(m->label[1]->name, "interface");
	assert_string_equal(m->label[1]->value, "");
	assert_string_equal(m->label[2]->value, "3");
	/* the version, and the libbpf ("" where the report does not say) */
	info = pb_family(mf, n, "netstacklat_build_info");
	assert_int_equal(info->n_metric, 1);
	assert_string_equal(info->metric[0]->label[0]->name, "version");
	assert_string_equal(info->metric[0]->label[0]->value, NSL_VERSION);
	assert_string_equal(info->metric[0]->label[1]->name, "libbpf");
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(mf[i], NULL);
}


/* The +Inf bucket is the count; buckets never decrease. */
static void test_prom_cumulative_buckets(void **state)
{
	struct fixture f;
	char *text, *line, *save = NULL;
	static const char prefix[] =
		"netstacklat_latency_seconds_bucket{hook=\"tcp-socket-read\"";
	unsigned long long prev = 0, v, inf = 0;

	(void)state;
	build_basic(&f);
	text = render(&f.r, &prom);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, sizeof(prefix) - 1))
			continue;
		v = strtoull(strrchr(line, ' ') + 1, NULL, 10);
		assert_true(v >= prev);
		prev = v;
		if (strstr(line, "le=\"+Inf\""))
			inf = v;
	}
	assert_true(inf == f.h[3].count); /* tcp-socket-read of build_basic() */
	free(text);
}

/*
 * Label values are escaped and valid UTF-8: Prometheus drops the whole
 * scrape over one invalid byte, and names are arbitrary bytes.
 */
static void test_prom_label_utf8(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build_grouped(&f);
	f.r.group_netns = false;
	f.h[0].cgroup_path = "/a\"b\\c\nd\xff\xc3\xa9";
	strcpy(f.h[0].ifname, "e\xfe\xe2\x82");
	text = render(&f.r, &prom);
	assert_non_null(strstr(text, "{hook=\"tcp-socket-read\","
		"interface=\"e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",ifindex=\"2\","
		"cgroup=\"/a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\"," NO_NAMES ",le=\"1e-09\"} 0\n"));
	free(text);
}

static int setup(void **state)
{
	(void)state;
	/* local time in table timestamps: the same on every machine */
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

/*
 * /metrics alone (served) counts its server's restarts and the tool's
 * render time; a textfile has neither.
 */
static void test_prom_server_restarts(void **state)
{
	static struct fixture f;
	char *text;

	(void)state;
	build_basic(&f);
	text = render(&f.r, &prom);
	assert_null(strstr(text, "netstacklat_metrics_server_restarts_total"));
	assert_null(strstr(text, "netstacklat_metrics_render_seconds_total"));
	free(text);
	f.r.served = true;
	f.r.server_restarts = 3;
	f.r.server_render_ns = 1500000001;
	text = render(&f.r, &prom);
	assert_non_null(strstr(text, "# TYPE netstacklat_metrics_server_restarts_total counter\n"
				     "netstacklat_metrics_server_restarts_total 3\n"));
	assert_non_null(strstr(text, "# TYPE netstacklat_metrics_render_seconds_total counter\n"
				     "netstacklat_metrics_render_seconds_total 1.500000001\n"));
	free(text);
}

/*
 * The reader keeps only the range of slots that hold samples (lo, nr):
 * every format gives the same bytes for it as for every slot.
 */
static void test_slot_range(void **state)
{
	void (*const build[])(struct fixture *) = { build_basic, build_grouped, build_fine, build_empty };
	const struct nsl_format_opts *opts[] = { &table, &json, &prom };
	static struct fixture f;

	(void)state;
	for (size_t b = 0; b < sizeof(build) / sizeof(build[0]); b++) {
		char *dense[3], *pb_dense, *pb_range;
		size_t len_dense, len_range;

		build[b](&f);
		for (size_t o = 0; o < 3; o++)
			dense[o] = render(&f.r, opts[o]);
		pb_dense = render_pb_bytes(&f.r, &len_dense);
		for (size_t i = 0; i < f.r.nr_hists; i++) {
			struct nsl_report_hist *h = &f.h[i];
			unsigned int n = nsl_nr_slots(h->schema);

			h->nr = nsl_slot_range(h->buckets, n, &h->lo);
			h->buckets += h->lo;
			/* what lies beyond the range is never read */
			if (h->lo)
				h->buckets[-1] = 0xdead;
			if (h->lo + h->nr < n)
				h->buckets[h->nr] = 0xbeef;
		}
		for (size_t o = 0; o < 3; o++) {
			char *range = render(&f.r, opts[o]);

			assert_string_equal(range, dense[o]);
			free(range);
			free(dense[o]);
		}
		pb_range = render_pb_bytes(&f.r, &len_range);
		assert_int_equal(len_range, len_dense);
		assert_memory_equal(pb_range, pb_dense, len_dense);
		free(pb_dense);
		free(pb_range);
	}
}

/*
 * The histograms' family is packed a Metric at a time: every message of
 * the stream is what protobuf-c packs from its own unpacking (the bytes
 * of one whole family), for every fixture.
 */
static void test_prom_pb_canonical(void **state)
{
	void (*const build[])(struct fixture *) = { build_basic, build_grouped, build_fine, build_empty };
	static struct fixture f;

	(void)state;
	for (size_t b = 0; b < sizeof(build) / sizeof(build[0]); b++) {
		size_t len, off = 0;
		char *buf;

		build[b](&f);
		buf = render_pb_bytes(&f.r, &len);
		while (off < len) {
			Io__Prometheus__Client__MetricFamily *mf;
			uint64_t size = next_message(buf, len, &off);
			uint8_t *again;

			mf = io__prometheus__client__metric_family__unpack(NULL, size,
									 (const uint8_t *)buf + off);
			assert_non_null(mf);
			assert_int_equal(io__prometheus__client__metric_family__get_packed_size(mf), size);
			again = malloc(size ? size : 1);
			assert_non_null(again);
			io__prometheus__client__metric_family__pack(mf, again);
			assert_memory_equal(again, buf + off, size);
			free(again);
			io__prometheus__client__metric_family__free_unpacked(mf, NULL);
			off += size;
		}
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_table),
		cmocka_unit_test(test_report_ts_table),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_grouped_table),
		cmocka_unit_test(test_grouped_json),
		cmocka_unit_test(test_empty_table),
		cmocka_unit_test(test_empty_json),
		cmocka_unit_test(test_json_group_keys),
		cmocka_unit_test(test_netns_container),
		cmocka_unit_test(test_sum_beyond_64_bits),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_ifname_full),
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_write_error_errno),
		cmocka_unit_test(test_costs_table),
		cmocka_unit_test(test_costs_json),
		cmocka_unit_test(test_recursion_misses),
		cmocka_unit_test(test_recursion_unavailable),
		cmocka_unit_test(test_prom_basic),
		cmocka_unit_test(test_prom_grouped),
		cmocka_unit_test(test_prom_cumulative_buckets),
		cmocka_unit_test(test_prom_label_utf8),
		cmocka_unit_test(test_prom_names_empty),
		cmocka_unit_test(test_fine_table),
		cmocka_unit_test(test_fine_json),
		cmocka_unit_test(test_fine_prom),
		cmocka_unit_test(test_prom_pb_native),
		cmocka_unit_test(test_standing_values),
		cmocka_unit_test(test_standing_buckets),
		cmocka_unit_test(test_prom_pb_classic),
		cmocka_unit_test(test_prom_pb_hook_info),
		cmocka_unit_test(test_slot_range),
		cmocka_unit_test(test_prom_server_restarts),
		cmocka_unit_test(test_prom_pb_recursion),
		cmocka_unit_test(test_prom_pb_canonical),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
