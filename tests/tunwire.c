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
 *   tunwire NETNS_A IF_A NETNS_B IF_B [READY_FILE]
 *
 * NETNS_* are paths (/run/netns/NAME). The devices exist while the wire
 * runs; configure addresses after READY_FILE appears. SIGINT/SIGTERM stop it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* Moves one packet from -> to; a full or gone peer drops it, like a wire. */
static void relay(int from, int to)
{
	char buf[65536];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n > 0 && write(to, buf, n) < 0 && errno != EIO && errno != EAGAIN)
		fprintf(stderr, "tunwire: write: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd p[2];

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: tunwire NETNS_A IF_A NETNS_B IF_B [READY_FILE]\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	p[0].fd = tun_in_netns(argv[1], argv[2]);
	p[1].fd = tun_in_netns(argv[3], argv[4]);
	p[0].events = p[1].events = POLLIN;
	if (argc == 6) {
		FILE *f = fopen(argv[5], "w");

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			fprintf(stderr, "tunwire: cannot write %s\n", argv[5]);
			return 1;
		}
	}
	while (!stop) {
		if (poll(p, 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tunwire: poll: %s\n", strerror(errno));
			return 1;
		}
		if (p[0].revents & POLLIN)
			relay(p[0].fd, p[1].fd);
		if (p[1].revents & POLLIN)
			relay(p[1].fd, p[0].fd);
	}
	return 0;
}
