// SPDX-License-Identifier: GPL-2.0-only
/*
 * Software RX timestamps for every namespace: the kernel stamps received
 * skbs only while some socket wants them (the netstamp_needed_key static
 * key), and turns the key on a moment after the first request. A socket of
 * ours keeps them on; frames to ourselves over loopback tell when they
 * really are on.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>
#include "clock.h"
#include "rxtstamp.h"

/*
 * The kernel only stamps received skbs while someone wants RX timestamps:
 * net_enable_timestamp() flips the global netstamp_needed_key static key
 * (net/core/dev.c) when a socket turns on SOF_TIMESTAMPING_RX_SOFTWARE,
 * and net_disable_timestamp() flips it back when the last such socket
 * closes. So one idle socket of ours keeps skb->tstamp filled in for every
 * namespace, and closing it (also by dying) releases it.
 */
int nsl_enable_rx_timestamps(void)
{
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * The first net_enable_timestamp() of the kernel does not flip the key at
 * once: it schedules netstamp_work, which does it later (net/core/dev.c,
 * v6.1 to v7.2, with jump labels). Until then packets arrive unstamped and
 * no hook can measure them. So a frame to ourselves over loopback tells
 * when it is on: its netif_rx() stamps the skb (net_timestamp_check())
 * only once the key is on, and a packet socket with SO_TIMESTAMPING shows
 * the stamp. The frame is not IP (an ethertype for local experiments,
 * IEEE 802 0x88B5): no hook of ours or of another instance ever sees it.
 * Needs CAP_NET_RAW (we still have it while attaching) and loopback up.
 *
 * One stamped frame is not enough. When the last other user of the key
 * went away just before us (an instance that exited, a socket closed),
 * netstamp_work may already be running with that user's -1 and none of
 * our +1: netstamp_clear() took the deferred count, found nobody wanting
 * stamps and is flipping the key off (static_branch_disable() waits for
 * jump_label_mutex, which attaching tracepoints takes too). Our enable
 * then queued the work again, and it turns the key back on right after.
 * A frame stamped before the disable lands says "on" for a key that is
 * about to be off for a while: the first packets would pass unstamped.
 * A queued (not yet running) work is harmless: it counts our +1. So the
 * key must stay on for settle_ms of probes in a row, longer than a
 * running netstamp_work takes to finish and run again.
 */
#define NSL_PROBE_ETHERTYPE 0x88B5
#define NSL_PROBE_STEP_MS 10

/* One frame over lo: 1 when it came back stamped, 0 when not, -errno */
static int probe_stamped(int fd, const struct sockaddr_ll *to)
{
	char data[64], ctl[CMSG_SPACE(sizeof(struct timespec) * 3)];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct cmsghdr *c;

	if (sendto(fd, "netstacklat", 11, 0, (const struct sockaddr *)to, sizeof(*to)) < 0)
		return -errno;
	if (poll(&p, 1, NSL_PROBE_STEP_MS) != 1 || recvmsg(fd, &m, MSG_DONTWAIT) < 0)
		return 0;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		struct timespec ts;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		if (ts.tv_sec || ts.tv_nsec)
			return 1;
	}
	return 0;
}

int nsl_rx_timestamps_wait(int timeout_ms, int settle_ms)
{
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(NSL_PROBE_ETHERTYPE),
				  .sll_halen = ETH_ALEN };
	int fd, err = -ETIMEDOUT;
	long on_ms = -1;

	to.sll_ifindex = if_nametoindex("lo");
	if (!to.sll_ifindex)
		return -errno;
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(NSL_PROBE_ETHERTYPE));
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&to, sizeof(to)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags))) {
		err = -errno;
		goto out;
	}
	for (int64_t t0 = nsl_mono_ms(), now = t0; now - t0 <= timeout_ms;
	     now = nsl_mono_ms()) {
		int r = probe_stamped(fd, &to);

		if (r < 0) {
			err = r;
			goto out;
		}
		/* on since on_ms, or not on: start again */
		on_ms = r ? (on_ms < 0 ? now : on_ms) : -1;
		if (on_ms >= 0 && now - on_ms >= settle_ms) {
			err = 0;
			goto out;
		}
		usleep(NSL_PROBE_STEP_MS * 1000);
	}
out:
	close(fd);
	return err;
}
