// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option values with a syntax of their own: intervals and counts,
 * comma-separated lists (hooks, pids, interfaces, cgroups), the listen
 * address and the network namespace. Called by cli.c's dispatcher;
 * the -c list's paths are freed here too (nsl_free_options()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "cli.h"
#include "cli-doc.h"
#include "cli-values.h"

int nsl_opt_fail(struct argp_state *state, const char *fmt, ...)
{
	struct parse_state *ps = state->input;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->o->errmsg, sizeof(ps->o->errmsg), fmt, ap);
	va_end(ap);
	return EINVAL;
}

int nsl_opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

#define NSL_MAX_INTERVAL_S (86400 * 365)

/* A number of seconds in [min, max] (min > 0) into *out: "WHAT: ..." if not. */
static int parse_seconds(struct argp_state *state, const char *what,
			 const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = *s ? strtod(s, &end) : 0;
	if (!*s || *end || isnan(v) || v <= 0 || (errno && v < 1))
		return nsl_opt_fail(state, "%s: '%s' is not a positive number of seconds", what, s);
	/* %.10g: -r's year is 31536000 s, not %g's 3.1536e+07 */
	if (v > max)
		return nsl_opt_fail(state, "%s: '%s' is above the %.10g s maximum",
				    what, s, max);
	if (v < min)
		return nsl_opt_fail(state, "%s: '%s' is below the %.10g s minimum", what, s, min);
	*out = v;
	return 0;
}

static int parse_interval(struct argp_state *state, const char *what,
			  const char *s)
{
	struct parse_state *ps = state->input;

	return parse_seconds(state, what, s, 0.01, NSL_MAX_INTERVAL_S,
			     &ps->o->interval_s);
}

/*
 * --standing-target and --standing-interval, in seconds like -r: CoDel's
 * target from a microsecond to a second, its interval from a millisecond
 * to a minute (include/standing.h).
 */
int nsl_opt_standing(struct argp_state *state, int key, char *arg)
{
	struct parse_state *ps = state->input;
	double v = 0;
	int err;

	if (key == OPT_STANDING_TARGET) {
		err = parse_seconds(state, "--standing-target", arg, 1e-6, 1, &v);
		if (!err)
			ps->o->standing_target_ns = llround(v * 1e9);
	} else {
		err = parse_seconds(state, "--standing-interval", arg, 1e-3, 60, &v);
		if (!err)
			ps->o->standing_interval_ns = llround(v * 1e9);
	}
	ps->standing_given |= !err;
	return err;
}

static int parse_count(struct argp_state *state, const char *what,
		       const char *s)
{
	struct parse_state *ps = state->input;
	uint64_t v;

	if (nsl_opt_u64(s, 1, ULONG_MAX, &v))
		return nsl_opt_fail(state, "%s: '%s' is not a positive integer", what, s);
	ps->o->count = v;
	return 0;
}

/* -r and --count, or the positional INTERVAL and COUNT: not both ways. */
int nsl_opt_schedule(struct argp_state *state, int key, char *arg)
{
	struct parse_state *ps = state->input;

	if (key == 'r') {
		ps->interval_given = true;
		return parse_interval(state, "-r", arg);
	}
	if (key == OPT_COUNT) {
		ps->count_given = true;
		return parse_count(state, "--count", arg);
	}
	/* ARGP_KEY_ARG: argp gives them after every option, -r and --count too */
	if (ps->nr_positional == 0) {
		if (ps->interval_given)
			return nsl_opt_fail(state, "INTERVAL: given twice (-r and positional)");
		ps->nr_positional++;
		return parse_interval(state, "INTERVAL", arg);
	}
	if (ps->nr_positional == 1) {
		if (ps->count_given)
			return nsl_opt_fail(state, "COUNT: given twice (--count and positional)");
		ps->nr_positional++;
		return parse_count(state, "COUNT", arg);
	}
	return nsl_opt_fail(state, "unexpected argument '%s'", arg);
}

/*
 * Splits a comma-separated list and calls item() for every entry; empty
 * entries and more than max entries in all (with the `already` given
 * earlier) are errors naming the option.
 */
typedef int (*item_fn)(struct argp_state *state, const char *opt,
		       const char *item);

static int parse_list(struct argp_state *state, const char *opt,
		      const char *arg, unsigned int already, unsigned int max,
		      item_fn item)
{
	char *copy = strdup(arg), *p = copy, *tok;
	unsigned int n = already;
	int err = 0;

	if (!copy)
		return ENOMEM;
	if (!*arg)
		err = nsl_opt_fail(state, "%s: empty list", opt);
	while (!err && (tok = strsep(&p, ",")) != NULL) {
		if (!*tok)
			err = nsl_opt_fail(state, "%s: empty entry in '%s'", opt, arg);
		else if (++n > max)
			err = nsl_opt_fail(state, "%s: more than %u entries", opt, max);
		else
			err = item(state, opt, tok);
	}
	free(copy);
	return err;
}

static int hook_item(struct argp_state *state, const char *opt, const char *s)
{
	struct parse_state *ps = state->input;
	/* -e starts from no hooks, -d from the default: the flags mark what was listed */
	bool *seen = ps->o->hook_enabled;
	bool listed_value = ps->enable_given;
	int h = nsl_hook_by_name(s);

	if (h < 0)
		return nsl_opt_fail(state, "%s: unknown hook '%s' (see --help)", opt, s);
	/* -d of an opt-in hook: it is off already */
	if (!listed_value && nsl_hooks[h].opt_in)
		return 0;
	if (seen[h] == listed_value)
		return nsl_opt_fail(state, "%s: hook '%s' listed twice", opt, s);
	seen[h] = listed_value;
	return 0;
}

int nsl_opt_hooks(struct argp_state *state, int key, char *arg)
{
	struct parse_state *ps = state->input;

	if (ps->enable_given || ps->disable_given)
		return nsl_opt_fail(state, "%s", (ps->enable_given ^ (key == 'e')) ?
			    "-e and -d cannot be combined" :
			    "-e/-d: give the list once, comma-separated");
	ps->enable_given = key == 'e';
	ps->disable_given = key == 'd';
	/* -e lists the hooks to keep: start from none; -d from the default */
	for (int i = 0; i < NSL_NR_HOOKS; i++)
		ps->o->hook_enabled[i] = key == 'd' && !nsl_hooks[i].opt_in;
	return parse_list(state, key == 'e' ? "-e" : "-d", arg, 0, NSL_NR_HOOKS,
			  hook_item);
}

static int pid_item(struct argp_state *state, const char *opt, const char *s)
{
	struct parse_state *ps = state->input;
	uint64_t v;

	if (nsl_opt_u64(s, 1, NSL_PID_LIMIT - 1, &v))
		return nsl_opt_fail(state, "%s: '%s' is not a valid PID", opt, s);
	for (unsigned int i = 0; i < ps->o->nr_pids; i++)
		if (ps->o->pids[i] == v)
			return nsl_opt_fail(state, "%s: PID %s listed twice", opt, s);
	ps->o->pids[ps->o->nr_pids++] = v;
	return 0;
}

static int iface_item(struct argp_state *state, const char *opt, const char *s)
{
	struct parse_state *ps = state->input;
	struct nsl_iface *ifc = &ps->o->ifaces[ps->o->nr_ifaces];
	uint64_t v;

	memset(ifc, 0, sizeof(*ifc));
	/* digits alone are an index; a name may start with one (dev_valid_name()) */
	if (*s && !s[strspn(s, "0123456789")]) {
		if (nsl_opt_u64(s, 1, INT32_MAX, &v))
			return nsl_opt_fail(state, "%s: '%s' is not a valid interface index", opt, s);
		ifc->index = v;
	} else {
		if (strlen(s) >= IF_NAMESIZE || strchr(s, '/') || strchr(s, ' '))
			return nsl_opt_fail(state, "%s: '%s' is not a valid interface name", opt, s);
		snprintf(ifc->name, sizeof(ifc->name), "%s", s);
	}
	for (unsigned int i = 0; i < ps->o->nr_ifaces; i++)
		if (ps->o->ifaces[i].index == ifc->index &&
		    !strcmp(ps->o->ifaces[i].name, ifc->name))
			return nsl_opt_fail(state, "%s: interface '%s' listed twice", opt, s);
	ps->o->nr_ifaces++;
	return 0;
}

static int cgroup_item(struct argp_state *state, const char *opt, const char *s)
{
	struct parse_state *ps = state->input;
	struct nsl_cgroup *cg = &ps->o->cgroups[ps->o->nr_cgroups];
	uint64_t v;

	memset(cg, 0, sizeof(*cg));
	/*
	 * A number is an id; anything else a path: absolute, or relative to
	 * the cgroup2 mount as -C prints it (the loader resolves it)
	 */
	if (*s >= '0' && *s <= '9') {
		if (nsl_opt_u64(s, 1, UINT64_MAX, &v))
			return nsl_opt_fail(state, "%s: '%s' is neither a cgroup path nor an id", opt, s);
		cg->id = v;
	} else {
		cg->path = strdup(s); /* s lives in a copy parse_list frees */
		if (!cg->path)
			return ENOMEM;
	}
	ps->o->nr_cgroups++;
	return 0;
}

void nsl_free_options(struct nsl_options *o)
{
	for (unsigned int i = 0; i < o->nr_cgroups; i++)
		free((char *)o->cgroups[i].path);
	o->nr_cgroups = 0;
}

/*
 * -p, -i, -c: a list given again adds to the earlier one, as upstream's
 * did (-p 1 -p 2 is -p 1,2); an entry given twice is still an error
 */
int nsl_opt_filter(struct argp_state *state, int key, char *arg)
{
	struct nsl_options *o = ((struct parse_state *)state->input)->o;

	if (key == 'p')
		return parse_list(state, "-p", arg, o->nr_pids,
				  NSL_MAX_FILTER_ENTRIES, pid_item);
	if (key == 'i')
		return parse_list(state, "-i", arg, o->nr_ifaces,
				  NSL_MAX_FILTER_ENTRIES, iface_item);
	return parse_list(state, "-c", arg, o->nr_cgroups,
			  NSL_MAX_FILTER_ENTRIES, cgroup_item);
}

/*
 * [ADDR:]PORT, ADDR numeric, IPv6 in brackets. PORT alone is loopback;
 * ":PORT" every address, as node_exporter and Go's net.Listen read it
 * (listen_addr left empty: nsl_jail_listen() binds both families).
 */
int nsl_opt_listen(struct argp_state *state, int key, char *s)
{
	struct parse_state *ps = state->input;
	const char *colon = strrchr(s, ':'), *port = colon ? colon + 1 : s;
	unsigned char buf[sizeof(struct in6_addr)];
	char addr[64] = "127.0.0.1";
	size_t len = colon ? (size_t)(colon - s) : 0;
	bool bracketed = false;
	uint64_t v;

	(void)key;
	if (ps->listen_given)
		return nsl_opt_fail(state, "--listen: given twice (one address and port)");
	ps->listen_given = true;
	if (nsl_opt_u64(port, 1, 65535, &v))
		return nsl_opt_fail(state, "--listen: '%s': no port in 1..65535", s);
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		/* "[]:PORT" must not quietly become the default address */
		if (len == 2)
			return nsl_opt_fail(state, "--listen: '%s': empty address", s);
		s++;
		len -= 2;
		bracketed = true;
	}
	/* without brackets "1::2:3" could be 1::2 port 3 or 1::2:3 */
	if (!bracketed && memchr(s, ':', len))
		return nsl_opt_fail(state, "--listen: '%s': write an IPv6 address in brackets, [ADDR]:PORT", s);
	if (colon && !len) {
		ps->o->listen_addr[0] = '\0';
		ps->o->listen_port = v;
		return 0;
	}
	if (len) {
		if (len >= sizeof(addr))
			return nsl_opt_fail(state, "--listen: '%s': address too long", s);
		memcpy(addr, s, len);
		addr[len] = '\0';
	}
	if (inet_pton(AF_INET, addr, buf) != 1 && inet_pton(AF_INET6, addr, buf) != 1)
		return nsl_opt_fail(state, "--listen: '%s' is not a numeric IPv4 or IPv6 address", addr);
	snprintf(ps->o->listen_addr, sizeof(ps->o->listen_addr), "%s", addr);
	ps->o->listen_port = v;
	return 0;
}

int nsl_opt_netns(struct argp_state *state, int key, char *s)
{
	struct nsl_options *o = ((struct parse_state *)state->input)->o;
	uint64_t v;

	(void)key;
	if (!strcmp(s, "0")) {
		o->netns = NSL_NETNS_OWN;
	} else if (!strcmp(s, "-1")) {
		o->netns = NSL_NETNS_ALL;
	} else if (*s == '/') {
		o->netns = NSL_NETNS_PATH;
		o->netns_path = s;
	} else if (!nsl_opt_u64(s, 1, UINT32_MAX, &v)) {
		/* ns inode numbers are 32-bit (ns_common.inum is unsigned int) */
		o->netns = NSL_NETNS_INODE;
		o->netns_ino = v;
	} else {
		/* a name as ip netns gives them: say where ip netns keeps it */
		if (*s && *s != '-' && s[strspn(s, "0123456789")] && strlen(s) < 200)
			return nsl_opt_fail(state, "-n: '%s' is not 0, -1, an inode number or "
					    "a path (a namespace of ip netns: -n /run/netns/%s)", s, s);
		return nsl_opt_fail(state, "-n: '%s' is not 0, -1, an inode number or a path", s);
	}
	return 0;
}
