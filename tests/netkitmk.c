// SPDX-License-Identifier: GPL-2.0
/*
 * netkitmk PRIMARY PEER NETNS: makes a netkit pair (Linux 6.7+) in the
 * calling process's network namespace, PRIMARY here and PEER moved into
 * the namespace whose file NETNS names (/run/netns/NAME), in netkit's
 * defaults: L3 mode, both ends forwarding. iproute2 learnt netkit in
 * 6.7; the build hosts' (bookworm's 6.1) cannot, so the VM test's guest
 * makes its netkit pod with this (tests/vm/guest.sh, handover_up()).
 *
 * One RTM_NEWLINK request, as for veth: the link's kind "netkit" and,
 * inside its data, the peer as a struct ifinfomsg followed by its own
 * attributes (IFLA_NETKIT_PEER_INFO, drivers/net/netkit.c,
 * netkit_new_link()). Exit status 0 once the kernel acknowledged it;
 * else 1, with the kernel's error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* include/uapi/linux/if_link.h of 6.7+ (older headers lack them) */
#define NK_PEER_INFO 1		/* IFLA_NETKIT_PEER_INFO */

struct req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[512];
};

static struct rtattr *add(struct nlmsghdr *n, unsigned short type,
			  const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

/* closes a nest opened by add(n, type, NULL, 0) */
static void end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)n + n->nlmsg_len - (char *)nest);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct req r = { 0 };
	struct ifinfomsg peer = { .ifi_family = AF_UNSPEC };
	struct rtattr *info, *data, *pi;
	char ack[1024];
	struct nlmsgerr *e;
	ssize_t got;
	int fd, ns;

	if (argc != 4) {
		fprintf(stderr, "usage: netkitmk PRIMARY PEER NETNS\n");
		return 2;
	}
	ns = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		perror(argv[3]);
		return 1;
	}
	r.n.nlmsg_len = NLMSG_LENGTH(sizeof(r.i));
	r.n.nlmsg_type = RTM_NEWLINK;
	r.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	r.i.ifi_family = AF_UNSPEC;
	add(&r.n, IFLA_IFNAME, argv[1], strlen(argv[1]) + 1);
	info = add(&r.n, IFLA_LINKINFO, NULL, 0);
	add(&r.n, IFLA_INFO_KIND, "netkit", sizeof("netkit"));
	data = add(&r.n, IFLA_INFO_DATA, NULL, 0);
	pi = add(&r.n, NK_PEER_INFO, &peer, sizeof(peer));
	add(&r.n, IFLA_IFNAME, argv[2], strlen(argv[2]) + 1);
	add(&r.n, IFLA_NET_NS_FD, &ns, sizeof(ns));
	end(&r.n, pi);
	end(&r.n, data);
	end(&r.n, info);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || sendto(fd, &r, r.n.nlmsg_len, 0, (struct sockaddr *)&kernel,
			     sizeof(kernel)) < 0) {
		perror("netkitmk: netlink");
		return 1;
	}
	got = recv(fd, ack, sizeof(ack), 0);
	e = NLMSG_DATA((struct nlmsghdr *)ack);
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(*e)) ||
	    ((struct nlmsghdr *)ack)->nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "netkitmk: no answer from the kernel\n");
		return 1;
	}
	if (e->error) {
		fprintf(stderr, "netkitmk: %s %s: %s\n", argv[1], argv[2], strerror(-e->error));
		return 1;
	}
	return 0;
}
