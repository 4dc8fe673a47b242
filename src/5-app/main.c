// SPDX-License-Identifier: GPL-2.0-only
/*
 * netstacklat: latency inside the Linux network receive stack.
 *
 * Lifecycle: parse options -> probe attach methods -> load and attach ->
 * every interval read the maps and format a report -> on COUNT reached or
 * SIGINT/SIGTERM/SIGHUP a final report, then everything is detached.
 */
#define _GNU_SOURCE /* ppoll() */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pwd.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "bpfstats.h"
#include "http.h"
#include "loader.h"
#include "log.h"
#include "options.h"
#include "privs.h"
#include "reader.h"
#include "clock.h"
#include "report.h"
#include "netstacklat.skel.h"

bool nsl_verbose;
bool nsl_libbpf_quiet;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !nsl_verbose)
		return 0;
	if (level == LIBBPF_INFO && !nsl_verbose)
		return 0;
	if (nsl_libbpf_quiet && !nsl_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void print_hooks(const struct nsl_loader *l, FILE *f, bool all)
{
	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		const struct nsl_hook_state *hs = &l->hooks[h];

		if (!all && !strcmp(hs->why, "disabled"))
			continue;
		if (hs->method != NSL_METHOD_NONE)
			fprintf(f, "  %-20s %-11s %s\n", nsl_hooks[h].name,
				nsl_method_name(hs->method), nsl_hooks[h].desc);
		else
			fprintf(f, "  %-20s %-11s %s\n", nsl_hooks[h].name,
				"unavailable", hs->why);
	}
	/*
	 * Not indented, and not starting with a hook's name: scripts read
	 * the hooks from the indented lines, by their first word
	 */
	for (int h = 0; all && h < NSL_NR_HOOKS; h++)
		if (nsl_hooks[h].opt_in)
			fprintf(f, "(opt-in: %s runs only when -e names it)\n",
				nsl_hooks[h].name);
}

/*
 * What this kernel's BPF lacks that the tool makes up for, or cannot:
 * nothing on 6.1 and later; on 5.10 the clock, the HOL filter's state
 * and grouping (docs/hooks.md, "Older kernels").
 */
static void print_kernel_notes(const struct nsl_loader *l, FILE *f)
{
	bool no_fetch = !nsl_loader_has_atomic_fetch();

	if (!l->clock_mono && !no_fetch)
		return;
	fprintf(f, "what this kernel's BPF lacks, and what the tool does instead:\n");
	if (l->clock_mono)
		fprintf(f, "  %-20s %s\n", "clock", "no bpf_ktime_get_tai_ns() (Linux 6.1): "
			"bpf_ktime_get_ns() plus the CLOCK_REALTIME offset the tool keeps");
	if (no_fetch)
		fprintf(f, "  %-20s %s\n", "-I, -C", "unavailable: no BPF atomic "
			"fetch-and-add (Linux 5.12)");
}

/* Netfilter links live in one namespace: say which, above all with -n -1. */
static void print_netfilter_scope(const struct nsl_loader *l,
				  const struct nsl_options *o)
{
	char names[64] = "";
	size_t n = 0;

	for (int h = 0; h < NSL_NR_HOOKS; h++)
		if (l->hooks[h].method == NSL_METHOD_NETFILTER)
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", nsl_hooks[h].name);
	if (!n)
		return;
	if (o->netns == NSL_NETNS_ALL)
		pr_info("note: %s (netfilter) see only our own network namespace "
			"(inode %llu), not all of them; the other hooks see all\n",
			names, (unsigned long long)l->nf_netns_ino);
	else
		pr_info("%s (netfilter) attached in network namespace inode %llu\n",
			names, (unsigned long long)l->nf_netns_ino);
}

/*
 * From here on the process only needs its file descriptors: maps, links,
 * the output file. Everything that needed privilege is done.
 */
static int drop_privileges(const struct nsl_loader *l, const struct nsl_options *o)
{
	bool kept_bpf;
	int err;

	err = nsl_privs_drop(o->user, bpf_map__fd(l->skel->maps.filter_pid), &kept_bpf);
	if (err) {
		if (o->user)
			pr_warn("--user: cannot switch to '%s': %s\n", o->user,
				err == -ENOENT ? "no such user" : strerror(-err));
		else
			pr_warn("cannot drop privileges: %s\n", strerror(-err));
		return err;
	}
	if (kept_bpf)
		pr_info("kept CAP_BPF only: this kernel checks it on every map read\n");
	else
		pr_debug("dropped all capabilities\n");
	return 0;
}

static int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	/* no SA_RESTART: the sleep between reports must wake up */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	/* a closed pipe shows up as EPIPE from the write instead */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void add_seconds(struct timespec *t, double s)
{
	long long ns = t->tv_nsec + (long long)(s * 1e9);

	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

/*
 * What wakes the report loop besides its timer: the kernel's clock was set
 * (a timerfd, see nsl_clock_watch_open()) or the BPF side found samples
 * computed with stale clock offsets (nsl_loader_clock_event_fd()). Either
 * way the BPF side's clock follows at once, not one interval later.
 */
enum { WAKE_CLOCK_SET, WAKE_CLOCK_MOVED, WAKE_OUTPUT_GONE, NR_WAKE };

/* -o FILE written as a stream, followed across rotation (follow_rotation()) */
static struct {
	const char *path;	/* NULL: not a regular file, nothing to follow */
	FILE *f;		/* the file written now */
	bool warned;
} follow;

/*
 * And the output going away: a pipe whose reader left (`| head -1`) or a
 * terminal hung up. poll() reports POLLERR or POLLHUP for those whatever
 * the events asked for (none); a regular file never.
 */
static void open_wakeups(struct pollfd *pfd, struct nsl_loader *l, FILE *out)
{
	pfd[WAKE_CLOCK_SET].fd = nsl_clock_watch_open();
	pfd[WAKE_CLOCK_MOVED].fd = nsl_loader_clock_event_fd(l);
	for (int i = 0; i < WAKE_OUTPUT_GONE; i++) {
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0)
			pr_debug("no %s notifications (%s): the clock is re-read "
				 "every interval\n", i ? "BPF clock" : "clock-set",
				 strerror(-pfd[i].fd));
	}
	/* a regular file never goes away so (and -o's may be replaced) */
	pfd[WAKE_OUTPUT_GONE].fd = out && !follow.path ? fileno(out) : -1;
	pfd[WAKE_OUTPUT_GONE].events = 0;
}

/*
 * Sleeps until the CLOCK_MONOTONIC time *until or a signal. Returns true
 * if the output went away meanwhile: nobody reads what comes next.
 */
static bool wait_until(const struct timespec *until, struct pollfd *pfd,
		       struct nsl_loader *l)
{
	while (!stop_signal) {
		struct timespec now, left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = until->tv_sec - now.tv_sec;
		left.tv_nsec = until->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			return false;
		if (ppoll(pfd, NR_WAKE, &left, NULL) <= 0)
			continue;
		if (pfd[WAKE_OUTPUT_GONE].revents & (POLLERR | POLLHUP))
			return true;
		if (pfd[WAKE_CLOCK_MOVED].revents)
			nsl_loader_clock_event(l);
		if (pfd[WAKE_CLOCK_SET].revents &&
		    nsl_clock_watch_fired(pfd[WAKE_CLOCK_SET].fd))
			nsl_loader_sync_clock(l);
	}
	return false;
}

/*
 * -F prometheus -o FILE is for node_exporter's textfile collector, which may
 * read FILE at any moment: each report goes to FILE.tmp (ignored by the
 * collector, which reads *.prom) and is renamed over FILE.
 */
static const char *atomic_path;
/* where reports go, for messages: -o's path, or standard output */
static const char *out_name = "standard output";

static int write_atomically(const struct nsl_report *rep,
			    const struct nsl_format_opts *fo)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", atomic_path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	err = nsl_format_report(f, rep, fo);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, atomic_path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/*
 * -o FILE, a regular file written as a stream: when logrotate (or anyone)
 * renames or removes it, the next report goes to a file of that name
 * again, opened for appending (logrotate's "create" made it, or we do).
 * Checked before each report, so a report is never split: it goes whole
 * to the file that was current when it began, and the old one is flushed
 * and closed. (copytruncate would lose what is written while it copies.)
 */
static FILE *follow_rotation(void)
{
	struct stat a, b;
	FILE *f;

	if (!fstat(fileno(follow.f), &a) && !stat(follow.path, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return follow.f;
	f = fopen(follow.path, "a");
	if (!f) {
		/* keep writing where we did; say it once */
		if (!follow.warned)
			pr_warn("-o: %s was moved away and cannot be opened again (%s): "
				"writing on to the old file\n", follow.path, strerror(errno));
		follow.warned = true;
		return follow.f;
	}
	if (fclose(follow.f))
		pr_warn("-o: closing the rotated %s: %s\n", follow.path, strerror(errno));
	follow.warned = false;
	follow.f = f;
	return follow.f;
}

/*
 * A stream of Prometheus expositions (stdout, a pipe, -o without the
 * atomic file) ends each with "# EOF", as OpenMetrics does: a comment to
 * parsers of the text format, and the line a consumer splits the stream
 * at (one exposition alone would repeat its HELP lines).
 */
static int write_report(FILE *out, const struct nsl_report *rep,
			const struct nsl_format_opts *fo)
{
	int err;

	if (atomic_path)
		return write_atomically(rep, fo);
	if (follow.path)
		out = follow_rotation();
	err = nsl_format_report(out, rep, fo);
	if (!err && fo->format == NSL_FMT_PROMETHEUS &&
	    (fputs("# EOF\n", out) == EOF || fflush(out) == EOF))
		err = errno > 0 ? -errno : -EIO;
	return err;
}

/* Returns 0 to go on, 1 when the output is gone (quiet exit), <0 on error. */
static int report_once(struct nsl_reader *rd, struct nsl_bpfstats *bs,
		       FILE *out, const struct nsl_format_opts *fo)
{
	static struct nsl_report rep;
	int err = nsl_reader_read(rd, &rep);

	if (err) {
		pr_warn("cannot read the histogram maps: %s\n", strerror(-err));
		return err;
	}
	if (bs && (err = nsl_bpfstats_read(bs, &rep))) {
		pr_warn("cannot read BPF program statistics: %s\n", strerror(-err));
		return err;
	}
	err = write_report(out, &rep, fo);
	if (err == -EPIPE)
		return 1;
	if (err)
		pr_warn("cannot write the report to %s: %s\n", out_name,
			strerror(-err));
	return err;
}

/*
 * Every interval, reports or not (-q): the groups' lifecycle (gone ones
 * reclaimed, new ones learnt), then the report, under the table's lock
 * (the HTTP thread reads it too).
 */
static int tick_and_report(struct nsl_groups *g, struct nsl_reader *rd,
			   struct nsl_bpfstats *bs, FILE *out,
			   const struct nsl_format_opts *fo)
{
	int err = 0;

	if (g) {
		nsl_groups_lock(g);
		err = nsl_groups_tick(g);
		if (err)
			pr_warn("cannot follow the groups: %s\n", strerror(-err));
	}
	if (!err && rd)
		err = report_once(rd, bs, out, fo);
	if (g)
		nsl_groups_unlock(g);
	return err;
}

/*
 * How each hook attached and what it sees, for every report (JSON "hooks",
 * the Prometheus info metric): the netfilter hooks see the namespace
 * their links live in, the others the one -n selects (0: all).
 */
static const struct nsl_hook_status *hook_status(const struct nsl_loader *l,
						 const struct nsl_options *o)
{
	static struct nsl_hook_status st[NSL_NR_HOOKS];

	for (int h = 0; h < NSL_NR_HOOKS; h++) {
		enum nsl_method m = l->hooks[h].method;

		st[h].enabled = o->hook_enabled[h];
		st[h].method = m == NSL_METHOD_NONE ? NULL : nsl_method_name(m);
		st[h].netns = m == NSL_METHOD_NETFILTER ? l->nf_netns_ino : l->netns_ino;
		st[h].why = l->hooks[h].why;
	}
	return st;
}

static int reader_init(struct nsl_reader *rd, const struct nsl_loader *l,
		       const bool *attached, const struct nsl_options *o,
		       bool cumulative, struct nsl_groups *g)
{
	struct netstacklat_bpf *s = l->skel;
	const struct nsl_reader_maps m = {
		.hist_fd = bpf_map__fd(s->maps.hist),
		.group_ids_fd = bpf_map__fd(s->maps.group_ids),
		.group_hist_fd = bpf_map__fd(s->maps.group_hist),
		.counters_fd = bpf_map__fd(s->maps.counters),
		.groups = nsl_loader_groups(o),
		.group_netns = o->group_ifindex && o->netns == NSL_NETNS_ALL,
		.own_netns = l->nf_netns_ino,	/* ours, with -n -1 */
		.schema = o->schema,
		.sample_every = o->sample_every,
	};

	bool grouped = o->group_ifindex || o->group_cgroup;
	int err = nsl_reader_init(rd, &m, attached, o->group_ifindex,
				  o->group_cgroup, cumulative, l->ifname_fd,
				  grouped ? g : NULL);

	rd->status = hook_status(l, o);
	return err;
}

/*
 * Prometheus keeps a reclaimed group's final totals --series-grace
 * seconds, so that the last increase is scraped before the series ends.
 */
static void reader_for_prometheus(struct nsl_reader *rd, const struct nsl_options *o)
{
	rd->keep_gone_s = o->series_grace_s;
	rd->unique_keys = true;
}

/* The table of groups (src/groups.h), when grouping. */
static int groups_init(struct nsl_groups *g, const struct nsl_loader *l,
		       const struct nsl_options *o)
{
	struct netstacklat_bpf *s = l->skel;
	const struct nsl_groups_conf c = {
		.ids_fd = bpf_map__fd(s->maps.group_ids),
		.hist_fd = bpf_map__fd(s->maps.group_hist),
		.free_fd = bpf_map__fd(s->maps.free_ids),
		.counters_fd = bpf_map__fd(s->maps.counters),
		.max = nsl_loader_groups(o),
		.schema = o->schema,
		.group_ifindex = o->group_ifindex,
		.group_cgroup = o->group_cgroup,
		.group_netns = o->group_ifindex && o->netns == NSL_NETNS_ALL,
		.own_netns = l->nf_netns_ino,
		.ifname_fd = l->ifname_fd,
		.idle_s = o->group_idle_s,
		/* reports on stdout/-o in prometheus format keep them too */
		.keep_s = o->listen_port || o->format == NSL_FMT_PROMETHEUS ?
			  o->series_grace_s : 0,
	};

	if (!o->group_ifindex && !o->group_cgroup)
		return 0;
	return nsl_groups_init(g, &c);
}

/*
 * --listen: each scrape reads the maps afresh through a reader of its own,
 * always cumulative, whatever the reports on stdout or -o do. Scrapes run
 * in the HTTP server's one thread (src/http.c), one render at a time.
 */
struct metrics {
	struct nsl_reader rd;
	struct nsl_bpfstats bs;
	bool bpf_stats;
	struct nsl_report rep;
};

/*
 * The representations of /metrics: the text exposition, and Prometheus'
 * protobuf one (native histograms at --resolution 2, 4, 8) for scrapers
 * whose Accept header prefers it (src/prom_pb.c).
 */
enum { METRICS_TEXT, METRICS_PROTOBUF };

static unsigned int choose_metrics(void *ctx, const char *accept)
{
	(void)ctx;
	return nsl_prom_accepts_pb(accept) ? METRICS_PROTOBUF : METRICS_TEXT;
}

/*
 * Test seam: NETSTACKLAT_TEST_PAD_BYTES=N pads the exposition with comment
 * lines (which parsers ignore) to at least N bytes (at most 64 MiB), so
 * that the HTTP tests get answers of megabytes without thousands of
 * groups (tests/integration/test_http_abuse.sh).
 */
static void pad_for_tests(FILE *f)
{
	static const char line[] = "# padding for tests (NETSTACKLAT_TEST_PAD_BYTES)\n";
	const char *env = getenv("NETSTACKLAT_TEST_PAD_BYTES");
	long want = env ? strtol(env, NULL, 10) : 0;

	if (want > 64L << 20)
		want = 64L << 20;
	for (long n = ftell(f); n >= 0 && n < want; n += sizeof(line) - 1)
		fputs(line, f);
}

static int render_metrics(void *ctx, unsigned int repr, char **buf, size_t *len,
			  const char **type)
{
	struct metrics *m = ctx;
	FILE *f;
	int err;

	if (m->rd.groups)
		nsl_groups_lock(m->rd.groups);
	err = nsl_reader_read(&m->rd, &m->rep);
	if (!err && m->bpf_stats)
		err = nsl_bpfstats_read(&m->bs, &m->rep);
	f = err ? NULL : open_memstream(buf, len);
	if (!f) {
		err = err ?: -errno;
		goto out;
	}
	if (repr == METRICS_PROTOBUF) {
		err = nsl_format_prometheus_pb(f, &m->rep);
		*type = "application/vnd.google.protobuf; "
			"proto=io.prometheus.client.MetricFamily; encoding=delimited";
	} else {
		nsl_format_prometheus(f, &m->rep);
		pad_for_tests(f);
		*type = "text/plain; version=0.0.4; charset=utf-8";
	}
	if (fclose(f) && !err)
		err = -errno;
out:
	/* the report points into the table (names, gone groups' totals) */
	if (m->rd.groups)
		nsl_groups_unlock(m->rd.groups);
	return err;	/* on failure the server frees *buf */
}

static int start_metrics(struct nsl_http *http, struct metrics *m,
			 const struct nsl_loader *l, const bool *attached,
			 const struct nsl_options *o, const struct nsl_bpfstats *bs,
			 struct nsl_groups *g)
{
	const struct nsl_http_app app = { .ctx = m, .choose = choose_metrics,
					  .render = render_metrics };
	int err = reader_init(&m->rd, l, attached, o, true, g);

	if (err) {
		pr_warn("--listen: cannot set up a map reader: %s\n", strerror(-err));
		return err;
	}
	reader_for_prometheus(&m->rd, o);
	if (bs) {
		/* the same programs, counted from zero: cumulative, no fd of its own */
		m->bs = *bs;
		m->bs.cumulative = true;
		m->bs.stats_fd = -1;
		m->bpf_stats = true;
	}
	err = nsl_http_start(http, &app);
	if (err)
		pr_warn("--listen: cannot start the HTTP server\n");
	else
		pr_info("metrics on http://%s%s%s:%u/metrics\n",
			strchr(o->listen_addr, ':') ? "[" : "", o->listen_addr,
			strchr(o->listen_addr, ':') ? "]" : "", o->listen_port);
	return err;
}

static int run(struct nsl_loader *l, const struct nsl_options *o, FILE *out,
	       struct nsl_http *http)
{
	struct metrics metrics = { 0 };
	const struct nsl_format_opts fo = { .format = o->format,
					    .timestamp = o->timestamp };
	bool attached[NSL_NR_HISTS];
	struct nsl_bpfstats bs = { .stats_fd = -1 };
	struct nsl_groups groups = { 0 };
	struct nsl_reader rd = { 0 };
	struct timespec next;
	unsigned long n = 0;
	struct pollfd wake[NR_WAKE] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	int err;

	/* reports cover the hooks that run, not those asked for */
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		attached[h] = l->hooks[h].method != NSL_METHOD_NONE;
	/* what the HOL filter leaves out, next to what it keeps */
	attached[NSL_HIST_TCP_READ_HOL] =
		attached[NSL_HOOK_TCP_SOCK_READ] && !o->include_hol;
	err = groups_init(&groups, l, o);
	if (err) {
		pr_warn("cannot map the group histograms: %s\n", strerror(-err));
		goto out;
	}
	/* Prometheus histograms and counters only grow */
	err = reader_init(&rd, l, attached, o,
			  o->cumulative || o->format == NSL_FMT_PROMETHEUS, &groups);
	if (err) {
		pr_warn("cannot set up the map reader: %s\n", strerror(-err));
		goto out;
	}
	if (o->format == NSL_FMT_PROMETHEUS)
		reader_for_prometheus(&rd, o);
	/* the same for the BPF program costs: *_total counters in Prometheus */
	if (o->bpf_stats &&
	    (err = nsl_bpfstats_init(&bs, l, o->cumulative ||
				     o->format == NSL_FMT_PROMETHEUS))) {
		pr_warn("--bpf-stats: cannot enable BPF statistics: %s\n", strerror(-err));
		goto out;
	}
	err = drop_privileges(l, o);
	if (err)
		goto out;
	if (http->sock >= 0 && (err = start_metrics(http, &metrics, l, attached, o,
						     o->bpf_stats ? &bs : NULL, &groups)))
		goto out;
	open_wakeups(wake, l, o->quiet ? NULL : out);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		bool last;

		add_seconds(&next, o->interval_s);
		if (wait_until(&next, wake, l)) {
			err = 1;	/* the output is gone: a quiet exit */
			break;
		}
		/*
		 * On a signal, the partial interval still gets its report.
		 * A signal that comes while a report is being made finds the
		 * maps already read: what was counted since needs one more.
		 */
		last = stop_signal;
		err = tick_and_report(rd.groups, o->quiet ? NULL : &rd,
				      o->bpf_stats ? &bs : NULL, out, &fo);
		if (err || last)
			break;
		if (o->count && ++n >= o->count)
			break;
		/* also without a notification (none on some kernels) */
		nsl_loader_sync_clock(l);
	}
out:
	if (wake[WAKE_CLOCK_SET].fd >= 0)
		close(wake[WAKE_CLOCK_SET].fd);
	/* no scrape may read the maps once they are gone */
	nsl_http_stop(http);
	nsl_reader_free(&metrics.rd);
	nsl_bpfstats_close(&bs);
	nsl_reader_free(&rd);
	if (groups.by_id)
		nsl_groups_free(&groups);
	return err == 1 ? 0 : err;
}

/*
 * What can be checked before anything touches the kernel, so that a bad
 * invocation fails early with one line naming the cause and loads nothing.
 */
static int preflight(const struct nsl_options *o)
{
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		pr_warn("this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)\n");
		return -ENOSYS;
	}
	if (!nsl_privs_can_load()) {
		pr_warn("needs root: CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN "
			"(and CAP_NET_ADMIN for netfilter hooks)\n");
		return -EPERM;
	}
	/*
	 * A new group takes the next id with an atomic fetch-and-add
	 * (group_hist_get() in the BPF program), which the verifier refuses
	 * before v5.12 (commit 5ca419f2864a, "bpf: Add BPF_FETCH field /
	 * create atomic_fetch_add instruction").
	 */
	if ((o->group_ifindex || o->group_cgroup) && !nsl_loader_has_atomic_fetch()) {
		pr_warn("%s: grouped histograms need BPF atomic fetch-and-add "
			"(Linux 5.12); this kernel is older\n",
			o->group_ifindex ? "-I" : "-C");
		return -EOPNOTSUPP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_warn("kernel without BTF (/sys/kernel/btf/vmlinux: %s); "
			"CO-RE needs CONFIG_DEBUG_INFO_BTF\n", strerror(errno));
		return -ENOENT;
	}
	for (unsigned int i = 0; i < o->nr_pids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			pr_warn("-p: no process %u\n", o->pids[i]);
			return -ESRCH;
		}
	}
	if (o->user && !getpwnam(o->user)) {
		pr_warn("--user: no user '%s'\n", o->user);
		return -ENOENT;
	}
	return 0;
}

/*
 * The atomic Prometheus file is created anew every interval, long after
 * every capability is dropped (and with --user, as that user): root without
 * CAP_DAC_OVERRIDE cannot create files in a directory it does not own,
 * such as a textfile directory of node_exporter's user. So try it now, in
 * a child with exactly those credentials. Returns 0 or a negative errno.
 */
static int can_create_unprivileged(const char *path, const char *user)
{
	bool kept_bpf;
	int status, fd;
	pid_t pid;

	fflush(NULL);	/* nothing buffered may be written twice */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* no map to probe yet: -1 makes it drop CAP_BPF too */
		if (nsl_privs_drop(user, -1, &kept_bpf))
			_exit(EPERM);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			_exit(errno);
		close(fd);
		_exit(unlink(path) ? errno : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

/*
 * Opened before anything is loaded, so that a bad path fails early. For
 * the atomic Prometheus file, check now that its temporary can be made.
 */
static int open_output(const struct nsl_options *o, FILE **out)
{
	char tmp[PATH_MAX];
	int err;

	if (!o->output)
		return 0;
	out_name = o->output;
	if (o->format == NSL_FMT_PROMETHEUS) {
		atomic_path = o->output;
		snprintf(tmp, sizeof(tmp), "%s.tmp", o->output);
		err = can_create_unprivileged(tmp, o->user);
		if (err == -ENOENT)
			pr_warn("-o: the directory of %s does not exist\n", o->output);
		else if (err)
			pr_warn("-o: cannot create %s as %s without capabilities: %s\n",
				tmp, o->user ? o->user : "root", strerror(-err));
		return err;
	}
	*out = fopen(o->output, o->append ? "a" : "w");
	if (*out) {
		struct stat st;

		if (!fstat(fileno(*out), &st) && S_ISREG(st.st_mode)) {
			follow.path = o->output;
			follow.f = *out;
		}
		return 0;
	}
	err = -errno;
	pr_warn("-o: cannot open %s: %s\n", o->output, strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	struct nsl_options opts;
	struct nsl_loader l = { .rx_tstamp_fd = -1, .ifname_fd = -1 };
	struct nsl_http http = { .sock = -1 };
	FILE *out = stdout;
	int err;

	if (nsl_parse_options(argc, argv, &opts, 0)) {
		pr_warn("%s\n", opts.errmsg);
		nsl_free_options(&opts);
		return 2;
	}
	if (opts.info_only) {	/* --version, --help: printed by the parser */
		nsl_free_options(&opts);
		return 0;
	}
	nsl_verbose = opts.verbose;
	for (unsigned int i = 0; i < opts.nr_warnings; i++)
		pr_warn("warning: %s\n", opts.warnings[i]);
	libbpf_set_print(libbpf_print);
	err = preflight(&opts);
	if (err)
		goto cleanup;

	if (opts.listen_port) {
		err = nsl_http_bind(&http, opts.listen_addr, opts.listen_port);
		if (err) {
			pr_warn("--listen: cannot listen on %s port %u: %s\n",
				opts.listen_addr, opts.listen_port, strerror(-err));
			goto cleanup;
		}
	}
	err = open_output(&opts, &out);
	if (err)
		goto cleanup;
	err = nsl_loader_probe(&l, &opts);
	if (err)
		goto cleanup;
	if (opts.list_probes) {
		/* what really loads: a verifier may refuse what probing let by */
		if (nsl_loader_nr_attached(&l))
			nsl_loader_load(&l, &opts);
		printf("hooks and how they attach on this kernel:\n");
		print_hooks(&l, stdout, true);
		print_kernel_notes(&l, stdout);
		goto cleanup;
	}
	err = install_signals();
	if (!err)
		err = nsl_loader_attach(&l, &opts);
	if (err)
		goto cleanup;
	fprintf(stderr, "netstacklat: attached (%s HOL filter):\n",
		opts.include_hol ? "without" : "with");
	print_hooks(&l, stderr, false);
	print_netfilter_scope(&l, &opts);
	err = run(&l, &opts, out, &http);
cleanup:
	nsl_http_stop(&http);
	nsl_loader_close(&l);
	if (follow.f)
		out = follow.f;
	/* the first out, when follow.f replaced it, was closed then (in
	 * follow_rotation(), through the global: clang 19's analyzer takes
	 * it for a leak) */
	/* NOLINTNEXTLINE(clang-analyzer-unix.Stream) */
	if (out && out != stdout && fclose(out) && !err)
		err = -errno;
	nsl_free_options(&opts);
	return err < 0 ? 1 : 0;
}
