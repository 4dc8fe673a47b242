// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namespace at the other end of an interface (peers.h), from what
 * rtnetlink says and /proc shows:
 *
 * 1. RTM_GETLINK of the interface: a link whose other end is in another
 *    namespace (veth, netkit, and the other rtnl_link_ops with
 *    get_link_net) carries IFLA_LINK_NETNSID, the id that namespace has
 *    in ours (rtnl_fill_link_netnsid(): peernet2id_alloc(), net/core/
 *    rtnetlink.c, v4.0 to v7.2). An interface without it leads nowhere.
 * 2. RTM_GETNSID with NETNSA_PID, once for one process of each namespace
 *    that /proc shows: the id that process's namespace has in ours,
 *    NETNSA_NSID (rtnl_net_getid(): peernet2id(), -1 where it has none;
 *    net/core/net_namespace.c). The id that matches names the inode.
 *
 * Both are answered for the namespace the netlink socket was made in: the
 * tool's own, or -n PATH's (a socket the loader made there, targets.c).
 * No privilege is needed for either; the inode of a process's namespace
 * (/proc/PID/ns/net) is behind ptrace's read check, which the namer
 * passes (namer.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "peers.h"

/* an RTM_NEWLINK answer: some 1.5 KiB, with every statistic */
#define NL_BUF (32u << 10)
/* the most namespaces one walk asks about (a node runs a few hundred pods) */
#define MAX_NETNS 65536

struct nl {
	int fd;
	uint32_t seq;
	char *buf;
};

/*
 * Sends req (len bytes, its nlmsghdr first) and returns the length of the
 * answer in nl->buf, or -errno (an NLMSG_ERROR's too).
 */
static int nl_ask(struct nl *nl, struct nlmsghdr *req)
{
	struct nlmsghdr *h = (struct nlmsghdr *)nl->buf;
	ssize_t n;

	req->nlmsg_seq = ++nl->seq;
	if (send(nl->fd, req, req->nlmsg_len, 0) != (ssize_t)req->nlmsg_len)
		return -errno;
	do {
		n = recv(nl->fd, nl->buf, NL_BUF, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
	} while (n < 0 || (n >= (ssize_t)sizeof(*h) && h->nlmsg_seq != nl->seq));
	if (n < (ssize_t)sizeof(*h) || !NLMSG_OK(h, (size_t)n))
		return -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error ? e->error : -EBADMSG;
	}
	return (int)n;
}

/*
 * The s32 attribute type of the answer in nl->buf (n bytes), whose
 * attributes follow a header of hdr bytes, in *v; false where it has none
 */
static bool nl_s32(const struct nl *nl, int n, size_t hdr, unsigned short type, int32_t *v)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)nl->buf;
	const struct rtattr *a;
	int len;

	if ((size_t)n < NLMSG_LENGTH(hdr))
		return false;
	len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(hdr);
	for (a = (const struct rtattr *)((const char *)NLMSG_DATA(h) + NLMSG_ALIGN(hdr));
	     RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == type && RTA_PAYLOAD(a) >= sizeof(*v)) {
			memcpy(v, RTA_DATA(a), sizeof(*v));
			return true;
		}
	return false;
}

/* The id of the namespace ifindex's other end is in, or -1 */
static int32_t link_netnsid(struct nl *nl, uint32_t ifindex)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST },
		.i = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex },
	};
	int32_t id = -1;
	int n = nl_ask(nl, &req.h);

	if (n < 0 || !nl_s32(nl, n, sizeof(struct ifinfomsg), IFLA_LINK_NETNSID, &id))
		return -1;
	return id;
}

/* The id that the namespace of process pid has in ours, or -1 */
static int32_t pid_netnsid(struct nl *nl, pid_t pid)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
		char pad[3];
		struct rtattr a;
		uint32_t pid;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETNSID,
		       .nlmsg_flags = NLM_F_REQUEST },
		.g = { .rtgen_family = AF_UNSPEC },
		.a = { .rta_len = RTA_LENGTH(sizeof(uint32_t)), .rta_type = NETNSA_PID },
		.pid = (uint32_t)pid,
	};
	int32_t id = -1;
	int n = nl_ask(nl, &req.h);

	if (n < 0 || !nl_s32(nl, n, sizeof(struct rtgenmsg), NETNSA_NSID, &id))
		return -1;
	return id;
}

uint64_t nsl_proc_netns(int at, const char *pid)
{
	char path[300];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/ns/net", pid) >= sizeof(path))
		return 0;
	return fstatat(at, path, &st, 0) ? 0 : (uint64_t)st.st_ino;
}

/* Whether ino is new to seen (sorted, *nr of them), which it joins then */
static bool seen_first(uint64_t *seen, size_t *nr, uint64_t ino)
{
	size_t lo = 0, hi = *nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (seen[mid] == ino)
			return false;
		if (seen[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(seen + lo + 1, seen + lo, (*nr - lo) * sizeof(*seen));
	seen[lo] = ino;
	(*nr)++;
	return true;
}

/*
 * Walks /proc: each namespace but ours, once, through its first process;
 * its id in ours matched against the links' ids.
 */
static void match_namespaces(struct nl *nl, const int32_t *id, uint64_t *peer, size_t n)
{
	uint64_t self = nsl_proc_netns(AT_FDCWD, "/proc/self"), *seen;
	size_t nr_seen = 0;
	struct dirent *e;
	DIR *d;

	seen = calloc(MAX_NETNS, sizeof(*seen));
	d = seen ? opendir("/proc") : NULL;
	while (d && (e = readdir(d)) && nr_seen < MAX_NETNS) {
		uint64_t ino;
		int32_t nsid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		ino = nsl_proc_netns(dirfd(d), e->d_name);
		if (!ino || ino == self || !seen_first(seen, &nr_seen, ino))
			continue;
		nsid = pid_netnsid(nl, (pid_t)atol(e->d_name));
		/* the process still in that namespace: else the id is another's */
		if (nsid < 0 || nsl_proc_netns(dirfd(d), e->d_name) != ino)
			continue;
		for (size_t i = 0; i < n; i++)
			if (id[i] == nsid)
				peer[i] = ino;
	}
	if (d)
		closedir(d);
	free(seen);
}

void nsl_link_peers(int links_fd, const uint32_t *ifindex, uint64_t *peer, size_t n)
{
	struct nl nl = { .fd = links_fd >= 0 ? links_fd :
			       socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE) };
	int32_t *id = calloc(n, sizeof(*id));
	bool any = false;

	memset(peer, 0, n * sizeof(*peer));
	nl.buf = calloc(1, NL_BUF);
	if (nl.fd < 0 || !id || !nl.buf)
		goto out;
	for (size_t i = 0; i < n; i++)
		any |= (id[i] = link_netnsid(&nl, ifindex[i])) >= 0;
	if (any)
		match_namespaces(&nl, id, peer, n);
out:
	if (nl.fd >= 0 && nl.fd != links_fd)
		close(nl.fd);
	free(nl.buf);
	free(id);
}
