// SPDX-License-Identifier: GPL-2.0-only
/*
 * tunwire: a userspace wire between two TUN devices in two network
 * namespaces, so that test traffic arrives the way it does from a NIC.
 *
 * Why: over veth, TCP packets keep the sender's departure timestamp
 * (skb->tstamp_type set) until local delivery, so the early hooks rightly
 * skip them. A packet written into a TUN device is a fresh skb that goes
 * through netif_rx() and gets a real RX timestamp, as from a NIC.
 *
 *   tunwire [--delay-us N] [--stats FILE] NETNS_A IF_A NETNS_B IF_B [READY_FILE]
 *
 * NETNS_* are paths (/run/netns/NAME). The devices exist while the wire
 * runs; configure addresses after READY_FILE appears. SIGINT/SIGTERM stop it.
 *
 * --delay-us N holds every packet N microseconds in each direction (a
 * one-way delay: a round trip is 2N), in order, as a long link does; loss
 * is left to the testbed's dropper on the receiver's ingress. --stats FILE
 * writes, at exit, how late packets left against their due time (the
 * accuracy of the delay): JSON with count, p50/p90/p99/max in us, and the
 * packets dropped because the line held too many (a full queue).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Opens a TUN device named ifname inside the netns at path. */
static int tun_in_netns(const char *path, const char *ifname)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int self, ns, fd = -1;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
		fprintf(stderr, "tunwire: cannot enter %s: %s\n", path, strerror(errno));
		exit(1);
	}
	/* a TUN device is created in the namespace of the opener */
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "tunwire: cannot create %s in %s: %s\n", ifname,
			path, strerror(errno));
		exit(1);
	}
	if (setns(self, CLONE_NEWNET)) {
		fprintf(stderr, "tunwire: cannot return: %s\n", strerror(errno));
		exit(1);
	}
	close(self);
	close(ns);
	return fd;
}

/*
 * One direction of the line: packets in flight, oldest first (a constant
 * delay keeps the order). Each packet is malloc'd to its size.
 */
#define LINE_SLOTS 16384
struct pkt {
	uint64_t due_ns;
	size_t len;
	char data[];
};
struct line {
	int from, to;
	struct pkt *q[LINE_SLOTS];
	unsigned int head, n;
};

static uint64_t delay_ns;
/* lateness of each packet sent, in us (the last slot: >= LATE_SLOTS - 1) */
#define LATE_SLOTS 100001
static uint64_t late_us[LATE_SLOTS], sent, full_drops;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Writes one packet; a full or gone peer drops it, like a wire. */
static void put(int to, const char *buf, size_t n)
{
	if (write(to, buf, n) < 0 && errno != EIO && errno != EAGAIN)
		fprintf(stderr, "tunwire: write: %s\n", strerror(errno));
}

/* Takes one packet off l->from: on at once, or into the line. */
static void take(struct line *l)
{
	char buf[65536];
	ssize_t n = read(l->from, buf, sizeof(buf));
	struct pkt *p;

	if (n <= 0)
		return;
	if (!delay_ns) {
		put(l->to, buf, n);
		return;
	}
	if (l->n == LINE_SLOTS || !(p = malloc(sizeof(*p) + n))) {
		full_drops++;
		return;
	}
	p->due_ns = now_ns() + delay_ns;
	p->len = n;
	memcpy(p->data, buf, n);
	l->q[(l->head + l->n++) % LINE_SLOTS] = p;
}

/* Sends what is due on l; returns ns until the next packet is (or -1). */
static int64_t flush(struct line *l)
{
	while (l->n) {
		struct pkt *p = l->q[l->head];
		uint64_t now = now_ns(), late;

		if (p->due_ns > now)
			return p->due_ns - now;
		put(l->to, p->data, p->len);
		late = (now - p->due_ns) / 1000;
		late_us[late < LATE_SLOTS ? late : LATE_SLOTS - 1]++;
		sent++;
		free(p);
		l->head = (l->head + 1) % LINE_SLOTS;
		l->n--;
	}
	return -1;
}

static double late_pct(double q)
{
	uint64_t rank = (uint64_t)(q * sent + 0.999999), seen = 0;

	for (unsigned int i = 0; i < LATE_SLOTS; i++) {
		seen += late_us[i];
		if (seen >= rank && seen)
			return i;
	}
	return 0;
}

static int write_stats(const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned int max = 0;

	for (unsigned int i = 0; i < LATE_SLOTS; i++)
		if (late_us[i])
			max = i;
	if (!f || fprintf(f, "{\"delay_us\": %llu, \"sent\": %llu, "
			  "\"late_us_p50\": %.0f, \"late_us_p90\": %.0f, "
			  "\"late_us_p99\": %.0f, \"late_us_max\": %u, "
			  "\"full_drops\": %llu}\n",
			  (unsigned long long)(delay_ns / 1000),
			  (unsigned long long)sent, late_pct(0.5), late_pct(0.9),
			  late_pct(0.99), max, (unsigned long long)full_drops) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "tunwire: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tunwire [--delay-us N] [--stats FILE] "
		"NETNS_A IF_A NETNS_B IF_B [READY_FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay-us", required_argument, NULL, 'd' },
		{ "stats", required_argument, NULL, 's' },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	static struct line lines[2];
	const char *stats = NULL;
	struct pollfd p[2];
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			delay_ns = strtoull(optarg, &end, 10) * 1000;
			if (errno || *end || delay_ns > 10000000000ULL)
				return usage();
			break;
		case 's':
			stats = optarg;
			break;
		default:
			return usage();
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 5 || argc > 6)
		return usage();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* wake when a packet is due, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL);
	p[0].fd = tun_in_netns(argv[1], argv[2]);
	p[1].fd = tun_in_netns(argv[3], argv[4]);
	p[0].events = p[1].events = POLLIN;
	lines[0].from = lines[1].to = p[0].fd;
	lines[0].to = lines[1].from = p[1].fd;
	if (argc == 6) {
		FILE *f = fopen(argv[5], "w");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			fprintf(stderr, "tunwire: cannot write %s\n", argv[5]);
			return 1;
		}
	}
	while (!stop) {
		int64_t wait = 200000000, w;
		struct timespec ts;

		for (int i = 0; i < 2; i++) {
			w = flush(&lines[i]);
			if (w >= 0 && w < wait)
				wait = w;
		}
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		if (ppoll(p, 2, &ts, NULL) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tunwire: poll: %s\n", strerror(errno));
			return 1;
		}
		for (int i = 0; i < 2; i++)
			if (p[i].revents & POLLIN)
				take(&lines[i]);
	}
	return stats ? write_stats(stats) : 0;
}
