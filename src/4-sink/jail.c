// SPDX-License-Identifier: GPL-2.0-only
/*
 * /metrics in a jail (jail.h). The parent binds the socket, starts the
 * child with fork() and an exec of its own executable (fexecve of the
 * file opened at bind: the same program after a package upgrade, and a
 * fresh address space: nothing of the BPF object's mappings), then
 * answers the child's requests in a thread of its own. The child's side
 * is jailchild.c; what the two send each other, jailwire.h.
 *
 * Relies on: fds not marked close-on-exec surviving execve(2) (the child
 * keeps exactly its socket, fd 3, and its channel, fd 4: every other is
 * closed before the exec); capabilities and no_new_privs surviving
 * execve(2) as they are (the parent has dropped them all, no file
 * capability adds any, and no_new_privs forbids setuid gains);
 * unshare(CLONE_NEWUSER) giving an unprivileged process a user namespace
 * in which it may make the others (where the kernel and the service
 * manager allow it: Debian does, a systemd unit with RestrictNamespaces=
 * does not, and then the child goes without); a socket staying in the
 * network namespace it was made in, so a child in an empty one still
 * accepts on it; seccomp filters being inherited and irrevocable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "clock.h"
#include "gzip.h"
#include "jail.h"
#include "jailwire.h"
#include "log.h"

/*
 * Connections that completed the handshake but wait to be accepted: room
 * for a burst (1,000 connections at once) without dropping SYNs, which a
 * scraper caught in it would retransmit only after a second.
 */
#define NSL_HTTP_BACKLOG 1024

extern char **environ;

int nsl_jail_bind(struct nsl_jail *j, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int one = 1, err;

	memset(j, 0, sizeof(*j));
	j->sock = j->exe_fd = j->chan = -1;
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
	/* the program that runs now, whatever replaces its file later */
	j->exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (j->exe_fd < 0)
		return -errno;
	j->sock = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (j->sock < 0)
		return -errno;
	setsockopt(j->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(j->sock, (struct sockaddr *)&ss, len) ||
	    listen(j->sock, NSL_HTTP_BACKLOG)) {
		err = -errno;
		close(j->sock);
		j->sock = -1;
		return err;
	}
	return 0;
}

/* ---- the parent ---- */

/*
 * In the forked child, before the exec: only async-signal-safe calls (the
 * parent has threads). fds 0 and 1 to /dev/null (standard output may be
 * the reports' pipe), 2 kept (the journal), the socket and the channel at
 * 3 and 4, our executable at 5 (close-on-exec), nothing else.
 */
static void exec_child(const struct nsl_jail *j, int chan, int null)
{
	char *argv[] = { "netstacklat", NSL_JAIL_ARGV1, nsl_verbose ? "-v" : NULL, NULL };
	int sock = fcntl(j->sock, F_DUPFD, 10), ch = fcntl(chan, F_DUPFD, 10);
	int exe = fcntl(j->exe_fd, F_DUPFD, 10);

	if (sock < 0 || ch < 0 || exe < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(sock, NSL_JAIL_SOCK) < 0 || dup2(ch, NSL_JAIL_CHAN) < 0 || dup2(exe, 5) < 0 ||
	    fcntl(5, F_SETFD, FD_CLOEXEC) < 0)
		_exit(127);
	if (syscall(SYS_close_range, 6U, ~0U, 0U))
		for (int fd = 6; fd < 65536; fd++)
			close(fd);
	/*
	 * The signal mask survives fork() and exec: a child forked by the
	 * keeper thread (a restart), which blocks every signal, or during
	 * set-up, which holds SIGINT/TERM/HUP, would serve with them blocked
	 * (SIGTERM from an administrator then did nothing).
	 */
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	syscall(SYS_execveat, 5, "", argv, environ, AT_EMPTY_PATH);
	_exit(127);
}

/* Starts a child; 0 or a negative errno. */
static int spawn(struct nsl_jail *j)
{
	int sv[2], null, err;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0) {
		err = -errno;
		goto fail;
	}
	j->spawned_ms = nsl_mono_ms();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(null);
		goto fail;
	}
	if (!pid)
		exec_child(j, sv[1], null);
	close(null);
	close(sv[1]);
	j->chan = sv[0];
	j->child = pid;
	return 0;
fail:
	close(sv[0]);
	close(sv[1]);
	return err;
}

/* The child is gone (or must go): reaped, its channel closed. */
static void reap(struct nsl_jail *j)
{
	if (j->chan >= 0)
		close(j->chan);
	j->chan = -1;
	if (!j->child)
		return;
	kill(j->child, SIGKILL);
	while (waitpid(j->child, NULL, 0) < 0 && errno == EINTR)
		;
	j->child = 0;
}

/* One request of the child: rendered, compressed, sent. 0 or -errno (the child is gone). */
static int answer(struct nsl_jail *j)
{
	struct jail_resp resp = { .magic = NSL_JAIL_MAGIC };
	const char *type = NULL;
	struct jail_req req;
	struct nsl_gz z = { 0 };
	FILE *f;
	int err;

	if (nsl_read_full(j->chan, &req, sizeof(req)) < 0)
		return errno ? -errno : -EPIPE;
	if (req.magic != NSL_JAIL_MAGIC)
		return -EPROTO;
	f = nsl_gz_open(&z);
	err = f ? j->app.render(j->app.ctx, req.repr, f, &type) : -ENOMEM;
	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (!err && !type)
		err = -EINVAL;
	resp.err = err;
	if (!err) {
		resp.len = z.len;
		resp.plain = z.plain;
		snprintf(resp.type, sizeof(resp.type), "%s", type);
	}
	err = nsl_write_full(j->chan, &resp, sizeof(resp));
	if (!err && resp.len)
		err = nsl_write_full(j->chan, z.buf, z.len);
	free(z.buf);
	return err;
}

static void *keeper(void *arg)
{
	struct nsl_jail *j = arg;
	bool said = false;

	for (;;) {
		struct pollfd pfd[2] = { { .fd = j->wake[0], .events = POLLIN },
					 { .fd = j->chan, .events = POLLIN } };
		int64_t wait_ms = -1;

		if (!j->child) {
			int64_t due = j->spawned_ms + NSL_JAIL_RESPAWN_MS - nsl_mono_ms();
			int err;

			if (due > 0) {
				wait_ms = due;
			} else if ((err = spawn(j))) {
				if (!said)
					pr_warn("--listen: cannot start the server process: %s\n",
						strerror(-err));
				said = true;
				wait_ms = NSL_JAIL_RESPAWN_MS;
			}
			pfd[1].fd = j->chan;
		}
		if (poll(pfd, 2, (int)wait_ms) < 0 && errno != EINTR)
			usleep(100 * 1000);	/* ENOMEM: a moment, not a spin */
		if (pfd[0].revents)
			break;
		if (!pfd[1].revents || j->chan < 0)
			continue;
		if (answer(j)) {
			/* it died, or broke the protocol: another one */
			reap(j);
			__atomic_add_fetch(&j->restarts, 1, __ATOMIC_RELAXED);
			pr_warn("--listen: the server process ended; starting another\n");
		}
	}
	reap(j);
	return NULL;
}

int nsl_jail_start(struct nsl_jail *j, const struct nsl_jail_app *app)
{
	sigset_t all, old;
	int err;

	j->app = *app;
	if (pipe2(j->wake, O_CLOEXEC))
		return -errno;
	j->has_pipe = true;
	err = spawn(j);
	if (err)
		return err;
	/*
	 * The thread inherits our signal mask: with every signal blocked
	 * there, SIGINT/SIGTERM/SIGHUP reach the main thread and interrupt
	 * its sleep between reports at once.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&j->thread, NULL, keeper, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	j->serving = !err;
	if (err)
		reap(j);
	return err;
}

void nsl_jail_stop(struct nsl_jail *j)
{
	if (j->serving) {
		/* the thread leaves its poll() when the pipe turns readable */
		while (write(j->wake[1], "x", 1) < 0 && errno == EINTR)
			;
		pthread_join(j->thread, NULL);
		j->serving = false;
	}
	reap(j);
	if (j->has_pipe) {
		close(j->wake[0]);
		close(j->wake[1]);
		j->has_pipe = false;
	}
	if (j->sock >= 0)
		close(j->sock);
	if (j->exe_fd >= 0)
		close(j->exe_fd);
	j->sock = j->exe_fd = -1;
}

uint64_t nsl_jail_restarts(const struct nsl_jail *j)
{
	return __atomic_load_n(&j->restarts, __ATOMIC_RELAXED);
}
