// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's children as processes (jailproc.h), from our side: the
 * socket, the starter forked (jailstarter.c: what it does, and what it
 * relies on), and our words to it, answered within NSL_JAIL_STARTER_MS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "jailproc.h"
#include "jailstarter.h"
#include "log.h"

/*
 * Connections that completed the handshake but wait to be accepted: room
 * for a burst (1,000 connections at once) without dropping SYNs, which a
 * scraper caught in it would retransmit only after a second.
 */
#define NSL_HTTP_BACKLOG 1024

int nsl_jail_listen(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int one = 1, zero = 0, err, sock;

	if (!*addr) {
		/*
		 * Every address: [::] taking IPv4 too (IPV6_V6ONLY off, whatever
		 * net.ipv6.bindv6only says), or 0.0.0.0 where the kernel has
		 * no IPv6 (ipv6.disable=1: EAFNOSUPPORT)
		 */
		sock = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (sock >= 0) {
			close(sock);
			addr = "::";
		} else {
			addr = "0.0.0.0";
		}
	}
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		len = sizeof(*in6);
	} else {
		return -EINVAL;
	}
	sock = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (sock < 0)
		return -errno;
	setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		setsockopt(sock, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(sock, (struct sockaddr *)&ss, len) || listen(sock, NSL_HTTP_BACKLOG)) {
		err = -errno;
		close(sock);
		return err;
	}
	return sock;
}


/* Whose the children are: the jail's user, where we may choose. */
static void choose_creds(struct jail_creds *c, const char *tool_user)
{
	const struct passwd *pw;

	c->parent = getpid();
	if (geteuid() != 0)
		return;		/* ours: we cannot give them another */
	pw = getpwnam(NSL_JAIL_USER);
	if (!pw && (!tool_user || strcmp(tool_user, "nobody") != 0))
		pw = getpwnam("nobody");
	if (!pw && tool_user) {
		pw = getpwnam(tool_user);
		pr_warn("--listen: no user '%s', and 'nobody' is the tool's: the /metrics "
			"server runs as the tool's user\n", NSL_JAIL_USER);
	}
	if (!pw)
		return;
	c->change = true;
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	/* a real gid other than the effective one: non-dumpable from the exec */
	c->rgid = pw->pw_gid != 65534 ? 65534 : 65533;
}

int nsl_jail_starter_fork(struct nsl_jail_starter *s, int exe_fd, int sock, int log_fd,
			  const char *tool_user)
{
	struct jail_creds c = { 0 };
	int sv[2];
	pid_t pid;

	choose_creds(&c, tool_user);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (!pid)
		nsl_jail_starter_main(sv[1], sock, exe_fd, log_fd, &c);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -errno;
	}
	s->pid = pid;
	s->ctl = sv[0];
	return 0;
}

/*
 * One word to the starter and its answer (and the descriptor it passes),
 * within NSL_JAIL_STARTER_MS: 0, or a negative errno and the starter is
 * taken for gone.
 */
static int ask(struct nsl_jail_starter *s, char cmd, struct starter_reply *r, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = s->ctl, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t n = -1;

	if (s->ctl >= 0 && send(s->ctl, &cmd, 1, MSG_NOSIGNAL) == 1 &&
	    poll(&p, 1, NSL_JAIL_STARTER_MS) == 1)
		n = recvmsg(s->ctl, &m, MSG_CMSG_CLOEXEC);
	if (n != (ssize_t)sizeof(*r)) {
		if (s->ctl >= 0)
			close(s->ctl);
		s->ctl = -1;
		return -EPIPE;
	}
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

pid_t nsl_jail_spawn(struct nsl_jail_starter *s, int *chan)
{
	struct starter_reply r;
	int fd = -1, err = ask(s, 'S', &r, &fd);

	if (err)
		return err;
	if (r.pid <= 0 || fd < 0) {
		if (fd >= 0)
			close(fd);
		return r.pid < 0 ? r.pid : -EPROTO;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK)) {
		err = -errno;
		close(fd);
		nsl_jail_end(s, NULL, 0);
		return err;
	}
	*chan = fd;
	return r.pid;
}

void nsl_jail_end(struct nsl_jail_starter *s, char *why, size_t len)
{
	struct starter_reply r;
	int fd = -1, st;

	if (ask(s, 'K', &r, &fd)) {
		if (why)
			snprintf(why, len, "is gone with its starter");
		return;
	}
	st = r.status;
	if (!why)
		return;
	if (st == -1)
		snprintf(why, len, "cannot be reaped");
	else if (WIFEXITED(st))
		snprintf(why, len, "exited with status %d", WEXITSTATUS(st));
	else if (WTERMSIG(st) == SIGSYS)
		snprintf(why, len, "was killed by its seccomp filter (a forbidden system call)");
	else
		snprintf(why, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
}

void nsl_jail_starter_stop(struct nsl_jail_starter *s)
{
	if (s->ctl >= 0)
		close(s->ctl);
	s->ctl = -1;
	/* it kills and reaps its child, then exits: a moment */
	for (int i = 0; s->pid && i < 50; i++) {
		if (waitpid(s->pid, NULL, WNOHANG) != 0)
			s->pid = 0;
		else
			usleep(10 * 1000);
	}
}
