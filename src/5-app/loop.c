// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report loop (loop.h): hook -> maps -> reader -> format -> sink, once
 * an interval, with the clock of the BPF side kept in step meanwhile.
 */
#define _GNU_SOURCE /* ppoll() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bpfstats.h"
#include "collect.h"
#include "groups.h"
#include "listing.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "privs.h"
#include "reader.h"
#include "service.h"
#include "clock.h"
#include "walkns.h"
#include "netstacklat.skel.h"

static volatile sig_atomic_t stop_signal;	/* SIGINT, SIGTERM: the last report */
static volatile sig_atomic_t reopen_signal;	/* SIGHUP: -o opened again */

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reopen_signal = 1;
	else
		stop_signal = sig;
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
	/* capabilities are per thread: the one in -n PATH's namespace too */
	if (l->walk_thread && (err = nsl_walkns_drop(l->walk_thread, kept_bpf)))
		pr_debug("the walks' thread in -n's namespace kept no CAP_BPF: %s\n",
			 strerror(-err));
	if (kept_bpf)
		pr_info("kept CAP_BPF only: this kernel checks it on every map read\n");
	else
		pr_debug("dropped all capabilities\n");
	return 0;
}

static const int loop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void loop_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(loop_signals) / sizeof(loop_signals[0]); i++)
		sigaddset(set, loop_signals[i]);
}

/*
 * Set-up (probes, the load, the attach) runs with the stop signals
 * blocked: one that comes then stays pending and reaches the handler
 * as soon as nsl_install_signals() unblocks it, so the tool stops
 * with its final report, as it would a moment later. Unblocked, it was
 * lost where the shell had left SIGINT ignored (a background job: Linux
 * drops an ignored signal unless it is blocked) and SIGTERM killed the
 * tool without a report; a handler set this early would instead break
 * set-up's own waits with EINTR.
 */
void nsl_hold_signals(void)
{
	sigset_t set;

	loop_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int nsl_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t set;

	/*
	 * SIGHUP as daemons take it: the log file opened again (logrotate's
	 * postrotate), never a stop (an exit 0 is not restarted by
	 * Restart=on-failure). No SA_RESTART: the sleep between reports must
	 * wake up, and a blocked write must see a stop (atomic.c).
	 */
	for (size_t i = 0; i < sizeof(loop_signals) / sizeof(loop_signals[0]); i++)
		if (sigaction(loop_signals[i], &sa, NULL))
			return -errno;
	/* a closed pipe shows up as EPIPE from the write instead */
	signal(SIGPIPE, SIG_IGN);
	/* what came during set-up is handled now */
	loop_sigset(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return 0;
}

static void add_seconds(struct timespec *t, double s)
{
	long long ns = t->tv_nsec + (long long)(s * 1e9);

	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

/*
 * After a stall (SIGSTOP, a paused VM, CPU throttling, a write that
 * blocked) the report times missed are skipped: the next report is at
 * the first time of the schedule still ahead, and it covers the stall,
 * with its real span as interval_s, instead of a burst of reports with
 * intervals near 0. (A stall while waiting ends the wait: that report
 * covers it.) The phase of the schedule stays.
 */
static void skip_missed(struct timespec *next, double interval_s)
{
	struct timespec now;
	double behind;

	clock_gettime(CLOCK_MONOTONIC, &now);
	behind = nsl_seconds_between(next, &now);
	if (behind >= 0)
		add_seconds(next, interval_s * (double)((long long)(behind / interval_s) + 1));
}

/*
 * What wakes the report loop besides its timer: the kernel's clock was set
 * (a timerfd, see nsl_clock_watch_open()) or the BPF side found samples
 * computed with stale clock offsets (nsl_loader_clock_event_fd()). Either
 * way the BPF side's clock follows at once, not one interval later.
 */
enum { WAKE_CLOCK_SET, WAKE_CLOCK_MOVED, WAKE_OUTPUT_GONE, NR_WAKE };

/*
 * And the output going away: a pipe whose reader left (`| head -1`) or a
 * terminal hung up. poll() reports POLLERR or POLLHUP for those whatever
 * the events asked for (none); a regular file never.
 */
static void open_wakeups(struct pollfd *pfd, struct nsl_loader *l,
			 const struct nsl_output *out)
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
	pfd[WAKE_OUTPUT_GONE].fd = out ? nsl_output_gone_fd(out) : -1;
	pfd[WAKE_OUTPUT_GONE].events = 0;
}

/*
 * Sleeps until the CLOCK_MONOTONIC time *until or a signal. Returns true
 * if the output went away meanwhile: nobody reads what comes next.
 */
static bool wait_until(const struct timespec *until, struct pollfd *pfd,
		       struct nsl_loader *l, struct nsl_output *out)
{
	while (!stop_signal) {
		struct timespec now, left;

		if (reopen_signal) {
			reopen_signal = 0;
			nsl_output_reopen(out);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = until->tv_sec - now.tv_sec;
		left.tv_nsec = until->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			return false;
		nsl_service_alive(&left);
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
 * The first report with no sample at any hook gets a word on stderr, once
 * a run: what usually explains it, and how to check (issue #45: an idle
 * host printed "no samples" every interval and nothing else). Counted
 * packets without a stamp say which of the usual reasons it is.
 */
static void hint_if_nothing(const struct nsl_report *r)
{
	static bool said;
	uint64_t unstamped = 0;

	if (said)
		return;
	for (size_t i = 0; i < r->nr_hists; i++)
		if (r->hists[i].count)
			return;
	said = true;
	for (int h = 0; h < NSL_NR_HOOKS; h++)
		unstamped += r->counters[h][NSL_CNT_NOT_RX_TSTAMP] +
			     r->counters[h][NSL_CNT_NO_RX_TSTAMP];
	if (unstamped)
		pr_info("no samples at any hook yet, and %llu packets without an RX "
			"timestamp (not_rx_tstamp, no_rx_tstamp): TCP over loopback or "
			"veth carries the sender's timestamp, which measures nothing "
			"here; traffic that comes in on a NIC does (said once)\n",
			(unsigned long long)unstamped);
	else
		pr_info("no samples at any hook yet: no traffic on their path? The "
			"filters (-p, -i, -c, -q) may leave all of it out, and the "
			"traffic may be in another network namespace than the one "
			"the tool sees (-n; -n -1 for all). netstacklat -l says how "
			"each hook attaches (said once)\n");
}

/*
 * Reads the maps and renders the report in memory, for the sink to write
 * after the lock. 0, or a negative errno when the maps cannot be read (a
 * report that cannot be rendered is the sink's to count as lost).
 */
static int read_and_render(struct nsl_reader *rd, struct nsl_bpfstats *bs,
			   struct nsl_output *out, const struct nsl_format_opts *fo)
{
	static struct nsl_report rep;
	int err = nsl_reader_read(rd, &rep);

	if (err) {
		pr_warn("cannot read the histogram maps: %s\n", strerror(-err));
		return err;
	}
	if ((err = nsl_bpfstats_read(bs, &rep))) {
		pr_warn("cannot read BPF program statistics: %s\n", strerror(-err));
		return err;
	}
	rep.reports_lost = nsl_output_lost(out);
	nsl_output_render(out, &rep, fo);
	hint_if_nothing(&rep);
	return 0;
}

/*
 * Every interval, reports or not (-q): the groups' lifecycle (new ones
 * learnt and named before the lock, then gone ones reclaimed and new ones
 * added under it), then the report, read and rendered under
 * the table's lock (the jail's thread renders /metrics under it too) and
 * written after it: a reader that does not read blocks the reports, never
 * /metrics. Returns
 * 0 to go on (a report the sink could not write is counted and tried
 * again next time), 1 when the output is gone (quiet exit), <0 on error.
 */
static int tick_and_report(struct nsl_groups *g, struct nsl_reader *rd,
			   struct nsl_bpfstats *bs, struct nsl_output *out,
			   const struct nsl_format_opts *fo)
{
	int err = 0;

	if (g) {
		nsl_groups_grace(g);	/* before the lock: it may wait milliseconds */
		nsl_groups_learn(g);	/* ... and naming, seconds (a namer's answers) */
		nsl_groups_lock(g);
		err = nsl_groups_tick(g);
		if (err)
			pr_warn("cannot follow the groups: %s\n", strerror(-err));
	}
	if (!err && rd)
		err = read_and_render(rd, bs, out, fo);
	if (g)
		nsl_groups_unlock(g);
	if (err || !rd)
		return err;
	return nsl_output_flush(out) == -EPIPE ? 1 : 0;
}

/*
 * A run with an end (COUNT reports; 1 for a one-shot) is a job whose
 * caller reads its exit status, often nothing else: reports it asked for
 * and did not get make it fail (-EIO: exit 1, as the tool's other errors),
 * saying how many, also when a signal ended it early. A daemon (no
 * COUNT) exits 0 at its stop signal as before: its losses are in every
 * later report (reports_lost) and in /metrics, and an exit 1 at SIGTERM
 * would mark a service that was stopped as failed. A reader gone (EPIPE,
 * `| head -1`) is no loss: that run ends quietly without coming here.
 */
static int check_lost(const struct nsl_options *o, const struct nsl_output *out,
		      unsigned long reports)
{
	uint64_t lost = nsl_output_lost(out);

	if (!o->count || !lost)
		return 0;
	pr_warn("%llu of %lu reports lost (not written to %s)\n",
		(unsigned long long)lost, reports, out->name);
	return -EIO;
}

int nsl_run(struct nsl_loader *l, const struct nsl_options *o,
	    struct nsl_output *out, struct nsl_jail *http)
{
	struct nsl_metrics metrics = { 0 };
	const struct nsl_format_opts fo = { .format = o->format,
					    .timestamp = o->timestamp };
	bool attached[NSL_NR_HISTS];
	struct nsl_bpfstats bs = { .stats_fd = -1 };
	struct nsl_groups groups = { 0 };
	struct nsl_reader rd = { 0 };
	struct timespec next;
	unsigned long n = 0, reports = 0;
	struct pollfd wake[NR_WAKE] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	char status[512];
	int err;

	nsl_collect_attached(l, o, attached);
	err = nsl_collect_groups_init(&groups, l, o);
	if (err) {
		pr_warn("cannot map the group histograms: %s\n", strerror(-err));
		goto out;
	}
	/* Prometheus histograms and counters only grow */
	err = nsl_collect_reader_init(&rd, l, attached, o,
				      o->cumulative || o->format == NSL_FMT_PROMETHEUS,
				      &groups);
	if (err) {
		pr_warn("cannot set up the map reader: %s\n", strerror(-err));
		goto out;
	}
	if (o->format == NSL_FMT_PROMETHEUS)
		nsl_collect_for_prometheus(&rd, o);
	/*
	 * The same for the programs' counts (recursion misses, and their cost
	 * with --bpf-stats): *_total counters in Prometheus
	 */
	err = nsl_bpfstats_init(&bs, l, o->cumulative || o->format == NSL_FMT_PROMETHEUS,
				o->bpf_stats);
	if (err) {
		pr_warn("--bpf-stats: cannot enable BPF statistics: %s\n", strerror(-err));
		goto out;
	}
	/* -C, -I -n -1: what names containers keeps some privilege (namer.h) */
	err = nsl_groups_start_namer(&groups);
	if (err)
		pr_warn("cannot start the container namer: %s; containers are named "
			"with the tool's own privileges\n", strerror(-err));
	err = drop_privileges(l, o);
	if (err)
		goto out;
	if (http->starter.pid &&
	    (err = nsl_metrics_start(http, &metrics, l, attached, o, &bs, &groups, out)))
		goto out;
	open_wakeups(wake, l, o->quiet ? NULL : out);
	out->stopping = &stop_signal;
	/* only now: every hook runs, privileges are dropped, /metrics serves */
	nsl_list_attached(l, o);
	nsl_status_line(l, status, sizeof(status));
	nsl_service_ready(status);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		bool last;

		add_seconds(&next, o->interval_s);
		skip_missed(&next, o->interval_s);
		if (wait_until(&next, wake, l, out)) {
			err = 1;	/* the output is gone: a quiet exit */
			break;
		}
		/*
		 * On a signal, the partial interval still gets its report.
		 * A signal that comes while a report is being made finds the
		 * maps already read: what was counted since needs one more.
		 */
		last = stop_signal;
		err = tick_and_report(rd.groups, o->quiet ? NULL : &rd, &bs, out, &fo);
		if (!o->quiet)
			reports++;
		if (err || last)
			break;
		if (o->count && ++n >= o->count)
			break;
		/* also without a notification (none on some kernels) */
		nsl_loader_sync_clock(l);
	}
	if (!err)
		err = check_lost(o, out, reports);
out:
	nsl_service_stopping();
	if (wake[WAKE_CLOCK_SET].fd >= 0)
		close(wake[WAKE_CLOCK_SET].fd);
	/* no scrape may read the maps once they are gone */
	nsl_jail_stop(http);
	nsl_metrics_free(&metrics);
	nsl_bpfstats_close(&bs);
	nsl_reader_free(&rd);
	if (groups.by_id)
		nsl_groups_free(&groups);
	return err == 1 ? 0 : err;
}
