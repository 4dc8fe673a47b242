// SPDX-License-Identifier: GPL-2.0-only
/* Option parsing: every bad value is an error that names the option. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <argp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "hooks.h"
#include "cli.h"

#define MAX_ARGS 12

static int parse(struct nsl_options *o, const char *const *args)
{
	char *argv[MAX_ARGS + 2] = { "netstacklat" };
	int argc = 1;

	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	return nsl_parse_options(argc, argv, o, ARGP_NO_EXIT | ARGP_NO_ERRS);
}

struct bad_case {
	const char *args[MAX_ARGS];
	const char *names;	/* the message must contain this */
};

static const struct bad_case bad[] = {
	{ { "-r", "0" }, "-r" },
	{ { "-r", "-1" }, "-r" },
	{ { "-r", "abc" }, "-r" },
	{ { "-r", "1x" }, "-r" },
	{ { "-r", "" }, "-r" },
	{ { "-r", "nan" }, "-r" },
	{ { "-r", "inf" }, "-r" },
	{ { "-r", "1e300" }, "-r" },
	{ { "-r", "0.001" }, "-r" },
	{ { "--count", "0" }, "--count" },
	{ { "--count", "-3" }, "--count" },
	{ { "--count", "3.5" }, "--count" },
	{ { "--count", "99999999999999999999999" }, "--count" },
	{ { "-F", "xml" }, "-F" },
	{ { "-F", "" }, "-F" },
	{ { "-o", "" }, "-o" },
	{ { "-e", "" }, "-e" },
	{ { "-e", "nope" }, "nope" },
	{ { "-e", "ip-start,,tcp-start" }, "-e" },
	{ { "-e", "ip-start," }, "-e" },
	{ { "-e", "ip-start,ip-start" }, "twice" },
	{ { "-d", "tcp-start,bogus" }, "bogus" },
	{ { "-e", "ip-start", "-d", "tcp-start" }, "-d" },
	{ { "-d", "ip-start", "-e", "tcp-start" }, "-e" },
	{ { "-p", "" }, "-p" },
	{ { "-p", "0" }, "-p" },
	{ { "-p", "12a" }, "-p" },
	{ { "-p", "-5" }, "-p" },
	{ { "-p", "99999999" }, "-p" },
	{ { "-p", "4194304" }, "-p" },	/* PID_MAX_LIMIT: no pid is that high */
	{ { "-p", "1,1" }, "-p" },
	{ { "-i", "" }, "-i" },
	{ { "-i", "averyveryverylongifname" }, "-i" },
	{ { "-i", "0" }, "-i" },
	{ { "-i", "3 x" }, "-i" },
	{ { "-i", "eth0,,eth1" }, "-i" },
	{ { "-n", "-2" }, "-n" },
	{ { "-n", "abc" }, "-n" },
	{ { "-n", "" }, "-n" },
	{ { "-n", "99999999999" }, "-n" },
	{ { "-c", "" }, "-c" },
	{ { "-q", "0" }, "-q" },
	{ { "-q", "-1" }, "-q" },
	{ { "-q", "many" }, "-q" },
	{ { "--attach", "kprobe" }, "--attach" },
	{ { "--max-groups", "0" }, "--max-groups" },
	{ { "--max-groups", "2000000" }, "--max-groups" },
	{ { "--max-groups", "12k" }, "--max-groups" },
	{ { "--group-idle", "0" }, "--group-idle" },
	{ { "--group-idle", "1m" }, "--group-idle" },
	{ { "--group-idle", "31536001" }, "--group-idle" },
	{ { "--series-grace", "-1" }, "--series-grace" },
	{ { "--series-grace", "" }, "--series-grace" },
	{ { "--listen", "9100", "--listen", "9101" }, "twice" },
	{ { "-i", "lo,lo" }, "twice" },
	{ { "-i", "2,eth0,2" }, "twice" },
	{ { "--append" }, "--append" },
	{ { "-F", "prometheus", "-o", "x.prom", "--append" }, "--append" },
	{ { "--resolution", "3" }, "--resolution" },
	{ { "--resolution", "0" }, "--resolution" },
	{ { "--resolution", "16" }, "--resolution" },
	{ { "--resolution", "x" }, "--resolution" },
	{ { "--sample", "0" }, "--sample" },
	{ { "--sample", "65537" }, "--sample" },
	{ { "--sample", "-1" }, "--sample" },
	{ { "--sample", "2x" }, "--sample" },
	/* 1,000,000 histograms of 514 buckets: 4 GB of kernel memory */
	{ { "-C", "--resolution", "8", "--max-groups", "1000000" }, "--max-groups" },
	{ { "--user", "" }, "--user" },
	{ { "--listen", "" }, "--listen" },
	{ { "--listen", "0" }, "--listen" },
	{ { "--listen", "65536" }, "--listen" },
	{ { "--listen", "localhost:9000" }, "--listen" },
	{ { "--listen", "1.2.3:9000" }, "--listen" },
	{ { "--listen", "[::1:9000" }, "--listen" },
	{ { "--listen", "9000:" }, "--listen" },
	{ { "--listen", "[]:9000" }, "--listen" },
	{ { "--listen", "::1:9000" }, "--listen" },
	{ { "--listen", "1::2:3" }, "--listen" },
	{ { "--listen", ":" }, "--listen" },
	{ { "-n", "blue" }, "-n /run/netns/blue" },
	/* every default hook disabled: a usage error, not "cannot attach" */
	{ { "-d", "ip-start,tcp-start,udp-start,tcp-socket-enqueued,udp-socket-enqueued,"
		  "tcp-socket-read,udp-socket-read" }, "every hook disabled" },
	{ { "--listen", ":0" }, "--listen" },
	{ { "0" }, "INTERVAL" },
	{ { "1", "0" }, "COUNT" },
	{ { "1", "2", "3" }, "unexpected" },
	{ { "-r", "2", "1" }, "INTERVAL" },
	{ { "--count", "2", "1", "5" }, "COUNT" },
};

static void test_bad_invocations(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nsl_options o;
		int err = parse(&o, bad[i].args);

		if (!err || !strstr(o.errmsg, bad[i].names))
			fail_msg("case %zu (%s %s ...): err %d, message '%s', want '%s'",
				 i, bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "",
				 err, o.errmsg, bad[i].names);
		nsl_free_options(&o);
	}
}

static void test_defaults(void **state)
{
	const char *args[] = { NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_true(o.interval_s == 5.0);
	assert_int_equal(o.count, 0);
	assert_int_equal(o.format, NSL_FMT_TABLE);
	assert_int_equal(o.netns, NSL_NETNS_OWN);
	assert_int_equal(o.attach, NSL_ATTACH_AUTO);
	/* every hook but the opt-in ones (netns-handover, the standing ones) */
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		assert_int_equal(o.hook_enabled[h], !nsl_hooks[h].opt_in);
	assert_true(nsl_hooks[NSL_HOOK_NETNS_HANDOVER].opt_in);
	assert_true(nsl_hooks[NSL_HOOK_TCP_STANDING].opt_in);
	assert_true(nsl_hooks[NSL_HOOK_UDP_STANDING].opt_in);
	assert_false(o.include_hol);
	assert_int_equal(o.schema, 0);
	assert_int_equal(o.standing_target_ns, 1000000);
	assert_int_equal(o.standing_interval_ns, 10000000);
}

/* --standing-target and --standing-interval: seconds, as -r; bounded */
static void test_standing_options(void **state)
{
	const char *ok[] = { "-e", "udp-standing-queue", "--standing-target", "0.0005",
			     "--standing-interval", "0.1", NULL };
	const char *alone[] = { "--standing-target", "0.002", NULL };
	const char *bad[][3] = {
		{ "--standing-target", "0", NULL },
		{ "--standing-target", "2", NULL },
		{ "--standing-target", "0.0000001", NULL },
		{ "--standing-target", "1ms", NULL },
		{ "--standing-interval", "0.0001", NULL },
		{ "--standing-interval", "61", NULL },
		{ "--standing-interval", "-1", NULL },
	};
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, ok), 0);
	assert_int_equal(o.standing_target_ns, 500000);
	assert_int_equal(o.standing_interval_ns, 100000000);
	assert_int_equal(o.nr_warnings, 0);
	/* without a standing hook: it does nothing, and says so */
	assert_int_equal(parse(&o, alone), 0);
	assert_int_equal(o.nr_warnings, 1);
	assert_non_null(strstr(o.warnings[0], "--standing-target"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(parse(&o, bad[i]), 0);
		assert_non_null(strstr(o.errmsg, bad[i][0]));
	}
}

/* An option that would do nothing here: parsed, with one warning line. */
static void test_warnings(void **state)
{
	static const char *const cases[][6] = {
		{ "-e", "ip-start", "-p", "1", NULL },
		{ "-e", "udp-start,ip-start", "-C", NULL },
		{ "-e", "ip-start", "-q", "3", NULL },
		{ "-e", "udp-start", "-y", NULL },
		{ "-T", "-F", "json", NULL },
	};
	struct nsl_options o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(&o, cases[i]), 0);
		assert_int_equal(o.nr_warnings, 1);
		assert_non_null(strstr(o.warnings[0], "does nothing"));
		nsl_free_options(&o);
	}
	/* one line per option that does nothing, naming it */
	{
		const char *args[] = { "-e", "ip-start", "-p", "1", "-q", "2", NULL };

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.nr_warnings, 2);
		assert_true(strncmp(o.warnings[0], "-p ", 3) == 0);
		assert_true(strncmp(o.warnings[1], "-q ", 3) == 0);
		nsl_free_options(&o);
	}
	{
		const char *args[] = { "-e", "tcp-socket-read", "-p", "1", "-y", "-T", NULL };

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.nr_warnings, 0);
	}
	/*
	 * -p, -c, -i with a standing hook (issue 57 item 12): one line that
	 * says they do not apply to it, naming those given; none without
	 */
	{
		const char *all[] = { "-e", "udp-socket-read,udp-standing-queue", "-p", "1",
				      "-c", "1", "-i", "1", NULL };
		const char *iface[] = { "-e", "tcp-standing-queue", "-i", "1", NULL };
		const char *none[] = { "-e", "udp-socket-read,udp-standing-queue", NULL };
		const char *other[] = { "-e", "udp-socket-read", "-p", "1", "-i", "1", NULL };

		assert_int_equal(parse(&o, all), 0);
		assert_int_equal(o.nr_warnings, 1);
		assert_true(strncmp(o.warnings[0], "-p, -c, -i: not applied to "
				    "tcp-standing-queue and udp-standing-queue", 68) == 0);
		nsl_free_options(&o);
		assert_int_equal(parse(&o, iface), 0);
		assert_int_equal(o.nr_warnings, 1);
		assert_true(strncmp(o.warnings[0], "-i: not applied", 15) == 0);
		nsl_free_options(&o);
		assert_int_equal(parse(&o, none), 0);
		assert_int_equal(o.nr_warnings, 0);
		assert_int_equal(parse(&o, other), 0);
		assert_int_equal(o.nr_warnings, 0);
		nsl_free_options(&o);
	}
	/* --listen alone: quiet stdout; with -F or -o, reports as asked */
	{
		const char *quiet[] = { "--listen", "9100", NULL };
		const char *loud[] = { "--listen", "9100", "-F", "table", NULL };

		assert_int_equal(parse(&o, quiet), 0);
		assert_true(o.quiet);
		assert_int_equal(parse(&o, loud), 0);
		assert_false(o.quiet);
	}
}

/* --resolution N: N buckets per power of two, schema log2(N). */
static void test_resolution(void **state)
{
	static const char *const res[] = { "1", "2", "4", "8" };
	struct nsl_options o;

	(void)state;
	for (unsigned int s = 0; s < 4; s++) {
		const char *args[] = { "--resolution", res[s], "-C", NULL };

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.schema, s);
	}
	/* a million log2 groups fit the kernel-memory limit, 8 per octave not */
	{
		const char *args[] = { "-I", "--max-groups", "1000000", NULL };

		assert_int_equal(parse(&o, args), 0);
		/* the lifecycle's defaults: 10 min idle, 5 min of series */
		assert_int_equal(o.group_idle_s, 600);
		assert_int_equal(o.series_grace_s, 300);
	}
	{
		const char *args[] = { "-C", "--group-idle", "30", "--series-grace", "0", NULL };

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.group_idle_s, 30);
		assert_int_equal(o.series_grace_s, 0);
	}
}

/* --sample N: 1 packet in N; the default records every packet. */
static void test_sample(void **state)
{
	const char *none[] = { NULL };
	const char *every16[] = { "--sample", "16", NULL };
	const char *most[] = { "--sample", "65536", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, none), 0);
	assert_int_equal(o.sample_every, 1);
	assert_int_equal(parse(&o, every16), 0);
	assert_int_equal(o.sample_every, 16);
	assert_int_equal(parse(&o, most), 0);
	assert_int_equal(o.sample_every, 65536);
}

/*
 * --owner-quota: only where groups are keyed by namespace (-I -n -1) or
 * cgroup (-C); not given, an eighth of --max-groups (at least 1); 0
 * turns it off.
 */
static void test_owner_quota(void **state)
{
	const char *by_netns[] = { "-I", "-n", "-1", NULL };
	const char *small[] = { "-I", "-n", "-1", "--max-groups", "7", NULL };
	const char *given[] = { "-I", "-n", "-1", "--owner-quota", "3", NULL };
	const char *off[] = { "-I", "-n", "-1", "--owner-quota", "0", NULL };
	const char *own_netns[] = { "-I", "--owner-quota", "3", NULL };
	const char *cgroups[] = { "-C", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, by_netns), 0);
	assert_int_equal(nsl_owner_quota(&o), NSL_MAX_GROUPS / 8);
	assert_int_equal(parse(&o, small), 0);
	assert_int_equal(nsl_owner_quota(&o), 1);
	assert_int_equal(parse(&o, given), 0);
	assert_int_equal(nsl_owner_quota(&o), 3);
	assert_int_equal(parse(&o, off), 0);
	assert_int_equal(nsl_owner_quota(&o), 0);
	assert_int_equal(parse(&o, own_netns), 0);
	assert_int_equal(nsl_owner_quota(&o), 0);
	assert_int_equal(parse(&o, cgroups), 0);
	assert_int_equal(nsl_owner_quota(&o), NSL_MAX_GROUPS / 8);
}

/*
 * The bounded integers: the least and the greatest value are taken, one
 * beyond either end is refused with exactly this message.
 */
struct int_case {
	const char *opt;
	const char *min, *max;		/* taken */
	const char *below, *above;	/* refused */
	uint64_t min_value, max_value;	/* what lands in the field */
	size_t field;			/* offsetof, a uint32_t */
	const char *msg_below, *msg_above;
};

#define U32_FIELD(f) _Generic(((struct nsl_options *)0)->f, \
			      uint32_t: offsetof(struct nsl_options, f))

static const struct int_case ints[] = {
	{ "-q", "1", "4294967295", "0", "4294967296", 1, UINT32_MAX,
	  U32_FIELD(min_queue_len),
	  "-q: '0' is not a positive integer",
	  "-q: '4294967296' is not a positive integer" },
	{ "--min-queuelength", "1", "4294967295", "-1", "99999999999999999999", 1,
	  UINT32_MAX, U32_FIELD(min_queue_len),
	  "-q: '-1' is not a positive integer",
	  "-q: '99999999999999999999' is not a positive integer" },
	{ "--max-groups", "1", "1048576", "0", "1048577", 1, 1048576,
	  U32_FIELD(max_groups),
	  "--max-groups: '0' is not an integer in 1..1048576",
	  "--max-groups: '1048577' is not an integer in 1..1048576" },
	{ "--group-idle", "1", "31536000", "0", "31536001", 1, 31536000,
	  U32_FIELD(group_idle_s),
	  "--group-idle: '0' is not a number of seconds in 1..31536000",
	  "--group-idle: '31536001' is not a number of seconds in 1..31536000" },
	{ "--series-grace", "0", "31536000", "-1", "31536001", 0, 31536000,
	  U32_FIELD(series_grace_s),
	  "--series-grace: '-1' is not a number of seconds in 0..31536000",
	  "--series-grace: '31536001' is not a number of seconds in 0..31536000" },
	{ "--owner-quota", "0", "1048576", "-1", "1048577", 0, 1048576,
	  U32_FIELD(owner_quota),
	  "--owner-quota: '-1' is not an integer in 0..1048576",
	  "--owner-quota: '1048577' is not an integer in 0..1048576" },
	{ "--sample", "1", "65536", "0", "65537", 1, 65536,
	  U32_FIELD(sample_every),
	  "--sample: '0' is not an integer in 1..65536",
	  "--sample: '65537' is not an integer in 1..65536" },
	/* the field holds log2 of the value: schema 0..3 */
	{ "--resolution", "1", "8", "0", "9", 0, 3, U32_FIELD(schema),
	  "--resolution: '0' is not 1, 2, 4 or 8",
	  "--resolution: '9' is not 1, 2, 4 or 8" },
};

static uint32_t u32_at(const struct nsl_options *o, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)o + off, sizeof(v));
	return v;
}

static void expect_refused(const char *opt, const char *value, const char *msg)
{
	const char *args[] = { opt, value, NULL };
	struct nsl_options o;

	if (parse(&o, args) != EINVAL || strcmp(o.errmsg, msg))
		fail_msg("%s %s: message '%s', want '%s'", opt, value, o.errmsg, msg);
}

static void test_int_bounds(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		const struct int_case *c = &ints[i];
		const char *lo[] = { c->opt, c->min, NULL };
		const char *hi[] = { c->opt, c->max, NULL };
		struct nsl_options o;

		assert_int_equal(parse(&o, lo), 0);
		assert_int_equal(u32_at(&o, c->field), c->min_value);
		assert_int_equal(parse(&o, hi), 0);
		assert_int_equal(u32_at(&o, c->field), c->max_value);
		expect_refused(c->opt, c->below, c->msg_below);
		expect_refused(c->opt, c->above, c->msg_above);
	}
	/* --resolution: in range, but not a power of two */
	expect_refused("--resolution", "3", "--resolution: '3' is not 1, 2, 4 or 8");
	expect_refused("--resolution", "6", "--resolution: '6' is not 1, 2, 4 or 8");
}

/* Each flag turns on its field, by either name, and is off by default. */
static void test_flags(void **state)
{
	static const struct {
		const char *name[2];
		size_t field;
	} flags[] = {
#define FLAG(short_name, long_name, f) \
	{ { short_name, long_name }, _Generic(((struct nsl_options *)0)->f, \
					      bool: offsetof(struct nsl_options, f)) }
		FLAG("-T", "--timestamp", timestamp),
		FLAG(NULL, "--append", append),
		FLAG(NULL, "--cumulative", cumulative),
		FLAG("-l", "--list-probes", list_probes),
		FLAG("-I", "--groupby-interface", group_ifindex),
		FLAG("-C", "--groupby-cgroup", group_cgroup),
		FLAG("-y", "--include-tcp-hol-delay", include_hol),
		FLAG("-v", "--verbose", verbose),
		FLAG(NULL, "--bpf-stats", bpf_stats),
#undef FLAG
	};

	(void)state;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		for (int n = 0; n < 2; n++) {
			/* --append only with -o */
			const char *without[] = { "-o", "x", NULL };
			const char *with[] = { "-o", "x", flags[i].name[n], NULL };
			struct nsl_options o;
			bool on;

			if (!flags[i].name[n])
				continue;
			assert_int_equal(parse(&o, without), 0);
			memcpy(&on, (const char *)&o + flags[i].field, sizeof(on));
			assert_false(on);
			if (parse(&o, with))
				fail_msg("%s: %s", flags[i].name[n], o.errmsg);
			memcpy(&on, (const char *)&o + flags[i].field, sizeof(on));
			if (!on)
				fail_msg("%s does not set its field", flags[i].name[n]);
		}
	}
}

/* -F and --attach take one word of a list; others name the list. */
static void test_words(void **state)
{
	static const struct {
		const char *opt, *word;
		int format, attach;
	} good[] = {
		{ "-F", "table", NSL_FMT_TABLE, NSL_ATTACH_AUTO },
		{ "-F", "json", NSL_FMT_JSON, NSL_ATTACH_AUTO },
		{ "--format", "prometheus", NSL_FMT_PROMETHEUS, NSL_ATTACH_AUTO },
		{ "--attach", "auto", NSL_FMT_TABLE, NSL_ATTACH_AUTO },
		{ "--attach", "fentry", NSL_FMT_TABLE, NSL_ATTACH_FENTRY },
		{ "--attach", "fallback", NSL_FMT_TABLE, NSL_ATTACH_FALLBACK },
	};
	static const struct {
		const char *opt, *word, *msg;
	} bad_words[] = {
		{ "-F", "xml", "-F: unknown format 'xml' (table, json or prometheus)" },
		{ "-F", "JSON", "-F: unknown format 'JSON' (table, json or prometheus)" },
		{ "--format", "tab", "-F: unknown format 'tab' (table, json or prometheus)" },
		{ "-F", "", "-F: unknown format '' (table, json or prometheus)" },
		{ "--attach", "kprobe",
		  "--attach: unknown mode 'kprobe' (auto, fentry or fallback)" },
		{ "--attach", "fentryx",
		  "--attach: unknown mode 'fentryx' (auto, fentry or fallback)" },
		{ "--attach", "", "--attach: unknown mode '' (auto, fentry or fallback)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *args[] = { good[i].opt, good[i].word, NULL };
		struct nsl_options o;

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.format, good[i].format);
		assert_int_equal(o.attach, good[i].attach);
	}
	for (size_t i = 0; i < sizeof(bad_words) / sizeof(bad_words[0]); i++)
		expect_refused(bad_words[i].opt, bad_words[i].word, bad_words[i].msg);
}

static void test_positional_and_flags(void **state)
{
	const char *args[] = { "-T", "-F", "json", "--cumulative", "-y", "-I",
			       "0.5", "3", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_true(o.interval_s == 0.5);
	assert_int_equal(o.count, 3);
	assert_true(o.timestamp && o.cumulative && o.include_hol && o.group_ifindex);
	assert_int_equal(o.format, NSL_FMT_JSON);
}

static void test_enable_disable(void **state)
{
	const char *en[] = { "-e", "tcp-socket-read,ip-start", NULL };
	const char *dis[] = { "-d", "udp-socket-read", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, en), 0);
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		assert_int_equal(o.hook_enabled[h],
				 h == NSL_HOOK_TCP_SOCK_READ || h == NSL_HOOK_IP_START);
	assert_int_equal(parse(&o, dis), 0);
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		assert_int_equal(o.hook_enabled[h], h != NSL_HOOK_UDP_SOCK_READ &&
				 !nsl_hooks[h].opt_in);
}

/* An opt-in hook runs only when -e names it; -d of it changes nothing. */
static void test_opt_in_hook(void **state)
{
	const char *en[] = { "-e", "netns-handover,ip-start", NULL };
	const char *dis[] = { "-d", "netns-handover", NULL };
	const char *list[] = { "-l", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, en), 0);
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		assert_int_equal(o.hook_enabled[h], h == NSL_HOOK_NETNS_HANDOVER ||
				 h == NSL_HOOK_IP_START);
	assert_int_equal(parse(&o, dis), 0);
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		assert_int_equal(o.hook_enabled[h], !nsl_hooks[h].opt_in);
	/* -l shows how it would attach */
	assert_int_equal(parse(&o, list), 0);
	assert_true(o.hook_enabled[NSL_HOOK_NETNS_HANDOVER]);
}

static void test_filters(void **state)
{
	const char *args[] = { "-p", "1,42", "-i", "eth0,7,0eth", "-n", "-1",
			       "-c", "/sys/fs/cgroup/x,99,system.slice/y", "-q", "4", NULL };
	const char *ns_path[] = { "-n", "/run/netns/a", NULL };
	const char *ns_ino[] = { "-n", "4026531840", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.nr_pids, 2);
	assert_int_equal(o.pids[1], 42);
	assert_int_equal(o.nr_ifaces, 3);
	assert_string_equal(o.ifaces[0].name, "eth0");
	assert_int_equal(o.ifaces[1].index, 7);
	/* a name may start with a digit (dev_valid_name()): digits alone are an index */
	assert_string_equal(o.ifaces[2].name, "0eth");
	assert_int_equal(o.ifaces[2].index, 0);
	assert_int_equal(o.netns, NSL_NETNS_ALL);
	assert_int_equal(o.nr_cgroups, 3);
	assert_string_equal(o.cgroups[0].path, "/sys/fs/cgroup/x");
	assert_int_equal(o.cgroups[1].id, 99);
	/* as -C prints it, relative to the cgroup2 mount: resolved at load */
	assert_string_equal(o.cgroups[2].path, "system.slice/y");
	assert_int_equal(o.min_queue_len, 4);
	nsl_free_options(&o);

	assert_int_equal(parse(&o, ns_path), 0);
	assert_int_equal(o.netns, NSL_NETNS_PATH);
	assert_string_equal(o.netns_path, "/run/netns/a");
	assert_int_equal(parse(&o, ns_ino), 0);
	assert_int_equal(o.netns, NSL_NETNS_INODE);
	assert_true(o.netns_ino == 4026531840ULL);
}

/* NSL_MAX_FILTER_ENTRIES + 1 PIDs is one too many. */
static void test_listen(void **state)
{
	const char *port[] = { "--listen", "9101", NULL };
	const char *v4[] = { "--listen", "0.0.0.0:9102", NULL };
	const char *v6[] = { "--listen", "[::1]:9103", NULL };
	const char *any[] = { "--listen", ":9104", NULL };
	const char *prom[] = { "-F", "prometheus", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, port), 0);
	assert_string_equal(o.listen_addr, "127.0.0.1");
	assert_int_equal(o.listen_port, 9101);
	assert_int_equal(parse(&o, v4), 0);
	assert_string_equal(o.listen_addr, "0.0.0.0");
	assert_int_equal(parse(&o, v6), 0);
	assert_string_equal(o.listen_addr, "::1");
	assert_int_equal(o.listen_port, 9103);
	/* ":PORT" is every address, as node_exporter reads it */
	assert_int_equal(parse(&o, any), 0);
	assert_string_equal(o.listen_addr, "");
	assert_int_equal(o.listen_port, 9104);
	assert_int_equal(parse(&o, prom), 0);
	assert_int_equal(o.format, NSL_FMT_PROMETHEUS);
}

static void test_too_many_entries(void **state)
{
	static char list[(NSL_MAX_FILTER_ENTRIES + 1) * 6];
	const char *args[] = { "-p", list, NULL };
	struct nsl_options o;
	size_t off = 0;

	(void)state;
	for (int i = 1; i <= NSL_MAX_FILTER_ENTRIES + 1; i++)
		off += sprintf(list + off, "%s%d", i > 1 ? "," : "", i);
	assert_int_not_equal(parse(&o, args), 0);
	assert_non_null(strstr(o.errmsg, "-p"));
	list[strlen(list) - strlen(",1025")] = '\0';
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.nr_pids, NSL_MAX_FILTER_ENTRIES);
}

/*
 * -p, -i, -c given again add to their list, as upstream's did (before,
 * the second replaced the first); the limit and "listed twice" count
 * all of them
 */
static void test_filters_append(void **state)
{
	static char list[NSL_MAX_FILTER_ENTRIES * 6];
	const char *twice[] = { "-p", "1", "-i", "lo", "-c", "5", "-p", "2,3",
				"-i", "eth0", "-c", "/x", NULL };
	const char *dup[] = { "-p", "1,2", "-p", "2", NULL };
	const char *dup_if[] = { "-i", "lo", "-i", "lo", NULL };
	const char *over[] = { "-p", list, "-p", "2000", NULL };
	struct nsl_options o;
	size_t off = 0;

	(void)state;
	assert_int_equal(parse(&o, twice), 0);
	assert_int_equal(o.nr_pids, 3);
	assert_int_equal(o.pids[0], 1);
	assert_int_equal(o.pids[2], 3);
	assert_int_equal(o.nr_ifaces, 2);
	assert_string_equal(o.ifaces[0].name, "lo");
	assert_string_equal(o.ifaces[1].name, "eth0");
	assert_int_equal(o.nr_cgroups, 2);
	assert_int_equal(o.cgroups[0].id, 5);
	assert_string_equal(o.cgroups[1].path, "/x");
	assert_int_not_equal(parse(&o, dup), 0);
	assert_non_null(strstr(o.errmsg, "twice"));
	assert_int_not_equal(parse(&o, dup_if), 0);
	assert_non_null(strstr(o.errmsg, "twice"));
	for (int i = 1; i <= NSL_MAX_FILTER_ENTRIES; i++)
		off += sprintf(list + off, "%s%d", i > 1 ? "," : "", i);
	assert_int_not_equal(parse(&o, over), 0);
	assert_non_null(strstr(o.errmsg, "more than"));
}

/* -h is --help, as bcc's tools and most CLIs take it */
static void test_help_short(void **state)
{
	const char *h[] = { "-h", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_equal(parse(&o, h), 0);
	assert_true(o.info_only);
}

/* an interval too long says so, not that it is no number */
static void test_interval_too_long(void **state)
{
	const char *big[] = { "-r", "1e9", NULL };
	const char *huge[] = { "-r", "1e400", NULL };
	const char *tiny[] = { "-r", "1e-400", NULL };
	struct nsl_options o;

	(void)state;
	assert_int_not_equal(parse(&o, big), 0);
	assert_non_null(strstr(o.errmsg, "maximum"));
	assert_int_not_equal(parse(&o, huge), 0);
	assert_non_null(strstr(o.errmsg, "maximum"));
	assert_int_not_equal(parse(&o, tiny), 0);
	assert_null(strstr(o.errmsg, "maximum"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_invocations),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_owner_quota),
		cmocka_unit_test(test_int_bounds),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_positional_and_flags),
		cmocka_unit_test(test_enable_disable),
		cmocka_unit_test(test_opt_in_hook),
		cmocka_unit_test(test_standing_options),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_too_many_entries),
		cmocka_unit_test(test_filters_append),
		cmocka_unit_test(test_help_short),
		cmocka_unit_test(test_interval_too_long),
		cmocka_unit_test(test_listen),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
