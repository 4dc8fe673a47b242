// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command-line parsing into struct nsl_options: the flags, the bounded
 * integers and the words by table, the rest by small handlers; then the
 * checks of what the options mean together. Help text: cli-doc.c.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "hist.h"
#include "standing.h"
#include "cli.h"
#include "cli-doc.h"
#include "cli-values.h"

/*
 * Kernel memory the grouped histograms may take: max_groups histograms of
 * the resolution's size (include/netstacklat.h), allocated at load.
 */
#define MAX_GROUP_MAP_BYTES (1024ULL << 20)


/* An option that does nothing here: a line for stderr, parsing goes on. */
static void __attribute__((format(printf, 2, 3)))
warn(struct nsl_options *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nr_warnings >= sizeof(o->warnings) / sizeof(o->warnings[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(o->warnings[o->nr_warnings++], sizeof(o->warnings[0]), fmt, ap);
	va_end(ap);
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Where a table row's value goes: the offset of a field of struct
 * nsl_options, which must have the type named (a compile error otherwise).
 */
#define FIELD(type, f) \
	_Generic(((struct nsl_options *)0)->f, type: offsetof(struct nsl_options, f))

static void *field_at(struct nsl_options *o, size_t off)
{
	return (char *)o + off;
}

/* The flags: each turns on one bool; given twice is no error. */
static const struct flag_option {
	int key;
	size_t field;
} flag_options[] = {
	{ 'T', FIELD(bool, timestamp) },
	{ OPT_APPEND, FIELD(bool, append) },
	{ OPT_CUMULATIVE, FIELD(bool, cumulative) },
	{ 'l', FIELD(bool, list_probes) },
	{ 'I', FIELD(bool, group_ifindex) },
	{ 'C', FIELD(bool, group_cgroup) },
	{ 'y', FIELD(bool, include_hol) },
	{ 'v', FIELD(bool, verbose) },
	{ OPT_BPF_STATS, FIELD(bool, bpf_stats) },
};

/* --group-idle, --series-grace: at most a year */
#define NSL_MAX_SECONDS (365ULL * 86400)

/* The bounded integers, into a uint32_t: "OPT: 'ARG' is not WHAT" if bad. */
static const struct int_option {
	int key;
	bool say_range;			/* the message adds " in MIN..MAX" */
	bool log2;			/* a power of two; the field gets its log2 */
	const char *opt;		/* as the message names it */
	uint64_t min, max;
	size_t field;
	const char *what;
} int_options[] = {
	{ .key = 'q', .opt = "-q", .min = 1, .max = UINT32_MAX,
	  .field = FIELD(uint32_t, min_queue_len), .what = "a positive integer" },
	{ .key = OPT_MAX_GROUPS, .opt = "--max-groups", .min = 1, .max = 1 << 20,
	  .field = FIELD(uint32_t, max_groups), .what = "an integer",
	  .say_range = true },
	{ .key = OPT_OWNER_QUOTA, .opt = "--owner-quota", .min = 0, .max = 1 << 20,
	  .field = FIELD(uint32_t, owner_quota), .what = "an integer",
	  .say_range = true },
	{ .key = OPT_GROUP_IDLE, .opt = "--group-idle", .min = 1,
	  .max = NSL_MAX_SECONDS, .field = FIELD(uint32_t, group_idle_s),
	  .what = "a number of seconds", .say_range = true },
	{ .key = OPT_SERIES_GRACE, .opt = "--series-grace", .min = 0,
	  .max = NSL_MAX_SECONDS, .field = FIELD(uint32_t, series_grace_s),
	  .what = "a number of seconds", .say_range = true },
	{ .key = OPT_SAMPLE, .opt = "--sample", .min = 1,
	  .max = NSL_MAX_SAMPLE_EVERY, .field = FIELD(uint32_t, sample_every),
	  .what = "an integer", .say_range = true },
	/* N buckets per power of two: histogram schema log2(N) */
	{ .key = OPT_RESOLUTION, .opt = "--resolution", .min = 1, .max = 8,
	  .field = FIELD(uint32_t, schema), .what = "1, 2, 4 or 8", .log2 = true },
};

static int parse_int_option(struct argp_state *state,
			    const struct int_option *io, const char *arg)
{
	struct parse_state *ps = state->input;
	uint32_t *field = field_at(ps->o, io->field);
	uint64_t v;

	if (nsl_opt_u64(arg, io->min, io->max, &v) || (io->log2 && (v & (v - 1)))) {
		if (!io->say_range)
			return nsl_opt_fail(state, "%s: '%s' is not %s", io->opt, arg, io->what);
		return nsl_opt_fail(state, "%s: '%s' is not %s in %llu..%llu", io->opt, arg,
			    io->what, (unsigned long long)io->min,
			    (unsigned long long)io->max);
	}
	*field = io->log2 ? (uint32_t)__builtin_ctzll(v) : (uint32_t)v;
	return 0;
}

/* The words of -F and --attach; a row with no word ends each table. */
struct word {
	const char *word;
	int value;
};

static const struct word formats[] = {
	{ "table", NSL_FMT_TABLE },
	{ "json", NSL_FMT_JSON },
	{ "prometheus", NSL_FMT_PROMETHEUS },
	{},
};

static const struct word attach_modes[] = {
	{ "auto", NSL_ATTACH_AUTO },
	{ "fentry", NSL_ATTACH_FENTRY },
	{ "fallback", NSL_ATTACH_FALLBACK },
	{},
};

/*
 * The value of word s in words[] (values are not negative), or -1 with
 * the message. It lists the table's words, "(table, json or prometheus)":
 * a new row is in it too.
 */
static int parse_word(struct argp_state *state, const char *opt,
		      const char *what, const struct word *words, const char *s)
{
	char list[128] = "";
	size_t n, len = 0;

	for (n = 0; words[n].word; n++)
		if (!strcmp(s, words[n].word))
			return words[n].value;
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				!i ? "" : i + 1 < n ? ", " : " or ", words[i].word);
	nsl_opt_fail(state, "%s: unknown %s '%s' (%s)", opt, what, s, list);
	return -1;
}

static int parse_words(struct argp_state *state, int key, char *arg)
{
	struct parse_state *ps = state->input;
	int v;

	if (key == 'F') {
		ps->format_given = true;
		v = parse_word(state, "-F", "format", formats, arg);
		if (v < 0)
			return EINVAL;
		ps->o->format = v;
		return 0;
	}
	v = parse_word(state, "--attach", "mode", attach_modes, arg);
	if (v < 0)
		return EINVAL;
	ps->o->attach = v;
	return 0;
}

/* -o and --user keep the argv string: it outlives the options */
static int parse_output(struct argp_state *state, int key, char *arg)
{
	(void)key;
	if (!*arg)
		return nsl_opt_fail(state, "-o: empty file name");
	((struct parse_state *)state->input)->o->output = arg;
	return 0;
}

static int parse_user(struct argp_state *state, int key, char *arg)
{
	(void)key;
	if (!*arg || strlen(arg) > 32)
		return nsl_opt_fail(state, "--user: '%s' is not a user name", arg);
	((struct parse_state *)state->input)->o->user = arg;
	return 0;
}

/* --help, --usage, --version: printed here, the caller exits. */
static int print_info(struct argp_state *state, int key, char *arg)
{
	(void)arg;
	if (key == 'V') {
		printf("%s\n", argp_program_version);
	} else {
		/* argp_state_help() is silent under ARGP_NO_ERRS */
		argp_help(state->root_argp, stdout,
			  (key != OPT_USAGE ? ARGP_HELP_STD_HELP : ARGP_HELP_USAGE) &
				  ~(ARGP_HELP_EXIT_OK | ARGP_HELP_EXIT_ERR),
			  state->name);
	}
	((struct parse_state *)state->input)->o->info_only = true;
	return 0;
}

/* argp's own errors (unknown option, missing value): name the word */
static int name_argp_error(struct argp_state *state, int key, char *arg)
{
	struct nsl_options *o = ((struct parse_state *)state->input)->o;

	(void)key;
	(void)arg;
	if (!o->errmsg[0] && state->next > 0 && state->next <= state->argc)
		snprintf(o->errmsg, sizeof(o->errmsg),
			 "'%s': unknown option or missing value (see --help)",
			 state->argv[state->next - 1]);
	return 0;
}

/*
 * The rest, by group. The words are here too: -F also notes that it was
 * given, and each table fills a field of its own enum type.
 */
static const struct {
	int key;
	int (*parse)(struct argp_state *state, int key, char *arg);
} handlers[] = {
	{ 'r', nsl_opt_schedule },
	{ OPT_COUNT, nsl_opt_schedule },
	{ ARGP_KEY_ARG, nsl_opt_schedule },
	{ 'F', parse_words },
	{ OPT_ATTACH, parse_words },
	{ 'e', nsl_opt_hooks },
	{ 'd', nsl_opt_hooks },
	{ 'p', nsl_opt_filter },
	{ 'i', nsl_opt_filter },
	{ 'c', nsl_opt_filter },
	{ 'n', nsl_opt_netns },
	{ OPT_LISTEN, nsl_opt_listen },
	{ OPT_STANDING_TARGET, nsl_opt_standing },
	{ OPT_STANDING_INTERVAL, nsl_opt_standing },
	{ 'o', parse_output },
	{ OPT_USER, parse_user },
	{ '?', print_info },
	{ 'h', print_info },
	{ OPT_USAGE, print_info },
	{ 'V', print_info },
	{ ARGP_KEY_ERROR, name_argp_error },
};

/* A flag, a bounded integer, or one of the handlers above. */
static int parse_opt(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;

	for (size_t i = 0; i < ARRAY_SIZE(flag_options); i++) {
		if (flag_options[i].key == key) {
			*(bool *)field_at(ps->o, flag_options[i].field) = true;
			return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(int_options); i++)
		if (int_options[i].key == key)
			return parse_int_option(state, &int_options[i], arg);
	for (size_t i = 0; i < ARRAY_SIZE(handlers); i++)
		if (handlers[i].key == key)
			return handlers[i].parse(state, key, arg);
	return ARGP_ERR_UNKNOWN;
}

static void set_defaults(struct nsl_options *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_s = 5.0;
	o->format = NSL_FMT_TABLE;
	o->netns = NSL_NETNS_OWN;
	o->max_groups = NSL_MAX_GROUPS;
	o->owner_quota = NSL_OWNER_QUOTA_AUTO;
	o->sample_every = 1;
	o->group_idle_s = NSL_GROUP_IDLE_S;
	o->series_grace_s = NSL_SERIES_GRACE_S;
	o->standing_target_ns = NSL_STANDING_TARGET_NS;
	o->standing_interval_ns = NSL_STANDING_INTERVAL_NS;
	/* the opt-in hooks cost what the others do not: only when -e names them */
	for (int i = 0; i < NSL_NR_HOOKS; i++)
		o->hook_enabled[i] = !nsl_hooks[i].opt_in;
}

/*
 * What the options mean together: errors for what cannot work, a warning
 * for what would silently do nothing.
 */
static int check_combinations(struct parse_state *ps)
{
	struct nsl_options *o = ps->o;
	bool reader = false, any = false;

	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		reader |= o->hook_enabled[h] && nsl_hooks[h].reader_ctx;
		any |= o->hook_enabled[h];
	}
	/* -d of every default hook: nothing to run, not the kernel's fault */
	if (!any) {
		snprintf(o->errmsg, sizeof(o->errmsg), "-d: every hook disabled "
			 "(the opt-in ones run only when -e names them): nothing to measure");
		return EINVAL;
	}
	/* -l shows how the opt-in hooks would attach too */
	if (o->list_probes && !ps->enable_given && !ps->disable_given)
		for (int h = 0; h < NSL_NR_HOOKS; h++)
			o->hook_enabled[h] = true;
	if (o->append && !o->output) {
		snprintf(o->errmsg, sizeof(o->errmsg), "--append: only with -o FILE");
		return EINVAL;
	}
	if (o->append && o->format == NSL_FMT_PROMETHEUS) {
		snprintf(o->errmsg, sizeof(o->errmsg), "--append: not with -F prometheus "
			 "(its -o file is replaced atomically every interval)");
		return EINVAL;
	}
	if (!reader) {
		const struct { bool given; const char *opt; } r[] = {
			{ o->nr_pids, "-p" }, { o->nr_cgroups, "-c" },
			{ o->min_queue_len, "-q" }, { o->group_cgroup, "-C" },
		};

		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
			if (r[i].given)
				warn(o, "%s only applies to tcp-socket-read and "
				     "udp-socket-read, and neither is enabled: it "
				     "does nothing", r[i].opt);
	}
	/*
	 * The standing hooks look at every socket of the namespace -n
	 * selects: their looks run in softirq as often as in the reader
	 * (no reading process to filter by), and a socket's queue has no
	 * one interface (bpf/standing.bpf.h filters by -n alone). Said once,
	 * for those given that do something for other hooks (-p and -c
	 * without a read hook are said to do nothing, above).
	 */
	if (o->hook_enabled[NSL_HOOK_TCP_STANDING] || o->hook_enabled[NSL_HOOK_UDP_STANDING]) {
		char opts[16] = "";
		size_t n = 0;

		if (reader && o->nr_pids)
			n += snprintf(opts + n, sizeof(opts) - n, "-p");
		if (reader && o->nr_cgroups)
			n += snprintf(opts + n, sizeof(opts) - n, "%s-c", n ? ", " : "");
		if (o->nr_ifaces)
			n += snprintf(opts + n, sizeof(opts) - n, "%s-i", n ? ", " : "");
		if (n)
			warn(o, "%s: not applied to tcp-standing-queue and "
			     "udp-standing-queue: they see every socket of -n's "
			     "namespace (looks in softirq as in the reader; a "
			     "queue has no one interface)", opts);
	}
	if (o->include_hol && !o->hook_enabled[NSL_HOOK_TCP_SOCK_READ])
		warn(o, "-y only applies to tcp-socket-read, which is not enabled: "
			"it does nothing");
	if (ps->standing_given && !o->hook_enabled[NSL_HOOK_TCP_STANDING] &&
	    !o->hook_enabled[NSL_HOOK_UDP_STANDING])
		warn(o, "--standing-target and --standing-interval only apply to "
			"tcp-standing-queue and udp-standing-queue, and neither is "
			"enabled: they do nothing");
	if (o->timestamp && o->format != NSL_FMT_TABLE)
		warn(o, "-T only applies to the table format (JSON and Prometheus "
			"output carry their own time): it does nothing");
	o->quiet = ps->listen_given && !ps->format_given && !o->output;
	return 0;
}

int nsl_parse_options(int argc, char **argv, struct nsl_options *o,
		      unsigned int argp_flags)
{
	static const struct argp argp = {
		.options = nsl_argp_options,
		.parser = parse_opt,
		.args_doc = nsl_argp_args_doc,
		.doc = nsl_argp_doc,
	};
	struct parse_state ps = { .o = o };
	int err;

	set_defaults(o);
	/*
	 * Errors are ours to print, as one line (argp would add a second).
	 * ARGP_NO_ERRS also silences argp's --help, so we bring our own.
	 */
	argp_flags |= ARGP_NO_ERRS | ARGP_NO_HELP;
	err = argp_parse(&argp, argc, argv, argp_flags, NULL, &ps);
	if (!err && !o->info_only)
		err = check_combinations(&ps);
	if (!err && (o->group_ifindex || o->group_cgroup) &&
	    (uint64_t)o->max_groups * nsl_hist_size(o->schema) > MAX_GROUP_MAP_BYTES) {
		snprintf(o->errmsg, sizeof(o->errmsg),
			 "--max-groups: %u histograms of %u buckets need more than "
			 "%llu MiB of kernel memory", o->max_groups,
			 nsl_nr_slots(o->schema), MAX_GROUP_MAP_BYTES >> 20);
		err = EINVAL;
	}
	if (err && !o->errmsg[0])
		snprintf(o->errmsg, sizeof(o->errmsg), "invalid option (see --help)");
	return err;
}
