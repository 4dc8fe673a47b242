// SPDX-License-Identifier: GPL-2.0-only
/*
 * floorload - keep BPF run-time statistics on, and optionally the floor
 * programs of tests/bench/floor.bpf.c attached, until SIGINT/SIGTERM.
 *
 *   floorload [--no-stats] [--object FILE [--only PROG,..]] READY_FILE
 *
 * The kernel counts run_cnt/run_time_ns while any BPF_ENABLE_STATS fd is
 * open, so holding one here (rather than flipping the kernel.bpf_stats_enabled
 * sysctl) cannot leave statistics on after a crash. scripts/bench runs this
 * alone while bpftrace is measured, with --object for the floor, and with
 * --no-stats --only (the empty programs) for the throughput floor.
 * Netfilter programs are linked in the network namespace we run in (ip
 * netns exec): at IPv4 PRE_ROUTING when their name starts with nf_pre_, as
 * netstacklat's ip-start, else at LOCAL_IN, as its tcp-start/udp-start.
 *
 * Like netstacklat, it turns on software RX timestamps for as long as it
 * runs (an SO_TIMESTAMPING socket): without them skb->tstamp is 0 and
 * bpftrace's programs, or any tracer's, would skip every packet.
 *
 * READY_FILE gets our PID once everything is attached; scripts/bench reads
 * our program ids from /proc/PID/fdinfo and their counters with bpftool.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "nflink.h"

#define PROG "floorload"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* Links stay open (and attached) until we exit; nothing to keep track of. */
static int attach_all(struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p);
		int fd;

		if (!bpf_program__autoload(p))
			continue;
		if (!strcmp(bpf_program__section_name(p), "netfilter")) {
			/* first at PRE_ROUTING, or last at LOCAL_IN */
			bool pre = !strncmp(name, "nf_pre_", 7);
			int hook = pre ? NSL_NF_INET_PRE_ROUTING :
					 NSL_NF_INET_LOCAL_IN;

			int edge = pre ? INT_MIN + 1 : INT_MAX - 1;

			fd = nsl_nf_link_at_edge(bpf_program__fd(p),
						 NSL_NFPROTO_IPV4, hook, edge,
						 pre ? 1 : -1);
			if (fd < 0) {
				fprintf(stderr, PROG ": %s: netfilter link: "
					"%s\n", name, strerror(-fd));
				return fd;
			}
		} else if (!bpf_program__attach(p)) {
			fprintf(stderr, PROG ": %s: attach: %s\n", name,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* The kernel stamps received skbs while any socket asks for it. */
static int enable_rx_timestamps(void)
{
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags,
				 sizeof(flags))) {
		fprintf(stderr, PROG ": SO_TIMESTAMPING: %s\n",
			strerror(errno));
		return -1;
	}
	return fd;
}

/* Is name in the comma-separated list (NULL: everything is)? */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *s = list; s; s = strchr(s, ',')) {
		s += *s == ',';
		if (!strncmp(s, name, len) && (s[len] == ',' || !s[len]))
			return true;
	}
	return !list;
}

static struct bpf_object *load(const char *path, const char *only)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;
	int err;

	if (!obj) {
		fprintf(stderr, PROG ": open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p);

		bpf_program__set_autoload(p, listed(only, name));
		/* libbpf 1.1 does not know SEC("netfilter") */
		if (!strcmp(bpf_program__section_name(p), "netfilter")) {
			bpf_program__set_type(p, NSL_BPF_PROG_TYPE_NETFILTER);
			bpf_program__set_expected_attach_type(
				p, NSL_BPF_NETFILTER);
		}
	}
	err = bpf_object__load(obj);
	if (!err)
		err = attach_all(obj);
	if (err) {
		fprintf(stderr, PROG ": load %s: %s\n", path, strerror(-err));
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-stats", no_argument, NULL, 's' },
		{ "object", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	const char *object = NULL, *only = NULL, *ready;
	struct bpf_object *obj = NULL;
	bool stats = true;
	int c, stats_fd = -1;
	char pid[32];
	FILE *f;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stats = false;
			break;
		case 'o':
			object = optarg;
			break;
		case 'p':
			only = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	ready = argv[optind];
	libbpf_set_print(quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (stats && (stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0) {
		fprintf(stderr, PROG ": BPF_ENABLE_STATS: %s\n",
			strerror(errno));
		return 1;
	}
	if (enable_rx_timestamps() < 0)
		return 1;
	if (object && !(obj = load(object, only)))
		return 1;

	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	f = fopen(ready, "w");
	if (!f || fputs(pid, f) < 0 || fclose(f)) {
		fprintf(stderr, PROG ": %s: %s\n", ready, strerror(errno));
		return 1;
	}
	while (!stop)
		pause();
	bpf_object__close(obj);
	if (stats_fd >= 0)
		close(stats_fd);
	return 0;
usage:
	fprintf(stderr, "usage: " PROG " [--no-stats] "
		"[--object FILE [--only PROG,..]] READY_FILE\n");
	return 2;
}
