// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's starter (jailproc.h, jailstarter.h): forked by us at bind
 * while root, it starts the children with clone() and an
 * exec of our own executable (execveat of the file opened at bind: the
 * same program after a package upgrade, and a fresh address space:
 * nothing of the BPF object's mappings). The child's side is jailchild.c.
 *
 * Relies on: a process that changes its uid from root losing every
 * capability (no SECBIT_KEEP_CAPS here) and turning non-dumpable;
 * clone(CLONE_NEWUSER | ...) letting an unprivileged process make a user
 * namespace and, owning it, the PID, network, IPC, UTS and mount
 * namespaces with it (where the kernel and the service manager allow:
 * Debian does, the unit's RestrictNamespaces= lists them); the first
 * process of a PID namespace seeing no process outside it, and taking
 * from outside only SIGKILL and SIGSTOP while it has no handler
 * (kernel/signal.c: sig_task_ignored(), SIGNAL_UNKILLABLE); execve(2)
 * making a process non-dumpable and AT_SECURE when its real and effective
 * gids differ (fs/exec.c: begin_new_exec(), security/commoncap.c), so
 * that no process of its user may trace it before its first instruction;
 * exec dropping the capabilities a process held in its own user
 * namespace when its uid is not root there (not mapped: it is not); fds
 * not marked close-on-exec surviving execve(2), none other; the
 * environment being what execve(2) is given (none); SIGKILL ending a
 * stopped process too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "jailstarter.h"
#include "jailwire.h"
#include "log.h"
#include "privs.h"

/* the starter's descriptors: its channel to us, the socket, our executable */
#define CTL 3
#define SOCK 4
#define EXE 5

/* what the children get, where the kernel and the service manager let it */
#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | \
		  CLONE_NEWUTS | CLONE_NEWNS)

/*
 * The environment the child gets: none. A sanitizer build passes its
 * options on, so that its reports land where the tests look for them.
 */
static char **child_env(void)
{
#ifdef NSL_JAIL_SANITIZED
	static const char *const keep[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS" };
	static char *env[3];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		for (char **e = environ; e && *e; e++)
			if (!strncmp(*e, keep[i], strlen(keep[i])) &&
			    (*e)[strlen(keep[i])] == '=') {
				env[n++] = *e;
				break;
			}
	env[n] = NULL;
	return env;
#else
	static char *none[] = { NULL };

	return none;
#endif
}

/*
 * In the new child, before the exec (a clone of the starter, which has
 * one thread: anything goes, but little is needed). 0 and 1 to /dev/null,
 * 2 the log pipe (the starter's own), the socket and the channel at 3 and
 * 4, our executable at 5 (close-on-exec), nothing else.
 */
static void exec_child(int chan, int null, char **argv, char **env)
{
	int ch = fcntl(chan, F_DUPFD, 10);

	/*
	 * A new user namespace starts with a full bounding set, which only
	 * its capabilities (held until the exec) may empty: nothing to gain
	 * there, yet none is left to read either.
	 */
	nsl_privs_empty_bounding_set();
	if (ch < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(SOCK, NSL_JAIL_SOCK) < 0 || dup2(ch, NSL_JAIL_CHAN) < 0 ||
	    fcntl(NSL_JAIL_SOCK, F_SETFD, 0) < 0 || fcntl(NSL_JAIL_CHAN, F_SETFD, 0) < 0)
		_exit(127);
	if (syscall(SYS_close_range, 6U, ~0U, 0U))
		for (int fd = 6; fd < 65536; fd++)
			close(fd);
	syscall(SYS_execveat, EXE, "", argv, env, AT_EMPTY_PATH);
	_exit(127);
}

static pid_t child;

/* Its child killed (if it ran) and reaped: the wait status, or -1. */
static int end_child(void)
{
	int st = -1;

	if (!child)
		return -1;
	kill(child, SIGKILL);
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	child = 0;
	return st;
}

/* A new child: its pid, *fd our end of its channel; or a negative errno. */
static pid_t start_child(char **argv, char **env, int null, int *fd)
{
	static bool said;
	int sv[2], err;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/* a raw clone: like fork(), with new namespaces (glibc has no wrapper) */
	pid = (pid_t)syscall(SYS_clone, NS_FLAGS | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		if (!said)
			pr_warn("--listen: the server process cannot have namespaces of "
				"its own (%s): it runs in the tool's, with its filter and "
				"limits\n", strerror(errno));
		said = true;
		pid = fork();
	}
	if (!pid)
		exec_child(sv[1], null, argv, env);
	err = pid < 0 ? -errno : 0;
	close(sv[1]);
	if (err) {
		close(sv[0]);
		return err;
	}
	*fd = sv[0];
	child = pid;
	return pid;
}

static int reply(const struct starter_reply *r, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)r, sizeof(*r) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(CTL, &m, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* Takes the jail's user, for good: 0 or -1. */
static int take_creds(const struct jail_creds *c)
{
	/* the bounding set needs CAP_SETPCAP, which we have as root */
	nsl_privs_empty_bounding_set();
	if (setgroups(0, NULL) || setresgid(c->rgid, c->gid, c->gid) ||
	    setresuid(c->uid, c->uid, c->uid) || setuid(0) == 0)
		return -1;
	return 0;
}

void nsl_jail_starter_main(int ctl, int sock, int exe, int log, const struct jail_creds *c)
{
	char *argv[5] = { "netstacklat", NSL_JAIL_ARGV1 }, **arg = argv + 2;
	char **env = child_env();
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	/* we go with the tool (whose main thread forked us) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->parent || null < 0)
		_exit(1);
	/* a terminal's ^C or a hangup is the tool's to act on, not ours */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	ctl = fcntl(ctl, F_DUPFD_CLOEXEC, 10);
	sock = fcntl(sock, F_DUPFD_CLOEXEC, 10);
	exe = fcntl(exe, F_DUPFD_CLOEXEC, 10);
	log = fcntl(log, F_DUPFD_CLOEXEC, 10);
	null = fcntl(null, F_DUPFD_CLOEXEC, 10);
	if (ctl < 0 || sock < 0 || exe < 0 || log < 0 || null < 0 ||
	    dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(log, 2) < 0 ||
	    dup3(ctl, CTL, O_CLOEXEC) < 0 || dup3(sock, SOCK, O_CLOEXEC) < 0 ||
	    dup3(exe, EXE, O_CLOEXEC) < 0 || dup3(null, 6, O_CLOEXEC) < 0)
		_exit(1);
	null = 6;
	if (syscall(SYS_close_range, 7U, ~0U, 0U))
		for (int fd = 7; fd < 65536; fd++)
			close(fd);
	if (c->change && take_creds(c)) {
		pr_warn("--listen: the server's starter cannot take uid %u: %s\n",
			(unsigned int)c->uid, strerror(errno));
		_exit(1);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (nsl_verbose)
		*arg++ = "-v";
	/* test seam: a child that asks and asks, and serves nothing (test_jail.sh) */
	if (getenv("NETSTACKLAT_TEST_JAIL_FLOOD"))
		*arg++ = NSL_JAIL_FLOOD;
	for (;;) {
		struct starter_reply r = { 0 };
		int fd = -1;
		char cmd;
		ssize_t n = recv(CTL, &cmd, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r.status = end_child();
		if (cmd == 'S')
			r.pid = start_child(argv, env, null, &fd);
		if (reply(&r, fd))
			break;
		if (fd >= 0)
			close(fd);
	}
	end_child();
	_exit(0);
}

