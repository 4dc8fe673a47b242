// SPDX-License-Identifier: GPL-2.0-only
/*
 * /metrics in a jail (jail.h). The parent binds the socket, starts the
 * child with fork() and an exec of its own executable (fexecve of the
 * file opened at bind: the same program after a package upgrade, and a
 * fresh address space: nothing of the BPF object's mappings), then
 * answers the child's requests in a thread of its own.
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
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "clock.h"
#include "http.h"
#include "httproute.h"
#include "gzip.h"
#include "jail.h"
#include "log.h"

/*
 * Connections that completed the handshake but wait to be accepted: room
 * for a burst (1,000 connections at once) without dropping SYNs, which a
 * scraper caught in it would retransmit only after a second.
 */
#define NSL_HTTP_BACKLOG 1024
/* the child's descriptors */
#define CHILD_SOCK 3
#define CHILD_CHAN 4
/* largest answer the child takes (the parent's are far smaller) */
#define MAX_ANSWER (1ULL << 30)
#define MAGIC 0x6e736c6a	/* "nslj" */

/* The child asks for an answer of representation repr. */
struct jail_req {
	uint32_t magic;
	uint32_t repr;
};

/* The parent answers: err (0 or -errno), then len bytes of a gzip member. */
struct jail_resp {
	uint32_t magic;
	int32_t err;
	uint64_t len;
	uint64_t plain;
	char type[128];
};

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

/* All of buf, or -1 (errno; 0 at EOF). */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = 0;
			return -1;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
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
	    dup2(sock, CHILD_SOCK) < 0 || dup2(ch, CHILD_CHAN) < 0 || dup2(exe, 5) < 0 ||
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
	struct jail_resp resp = { .magic = MAGIC };
	const char *type = NULL;
	struct jail_req req;
	struct nsl_gz z = { 0 };
	FILE *f;
	int err;

	if (read_full(j->chan, &req, sizeof(req)) < 0)
		return errno ? -errno : -EPIPE;
	if (req.magic != MAGIC)
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
	err = write_full(j->chan, &resp, sizeof(resp));
	if (!err && resp.len)
		err = write_full(j->chan, z.buf, z.len);
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

/* ---- the child ---- */

/* The server asks the parent for an answer, and waits for it. */
static int fetch(void *ctx, unsigned int repr, struct nsl_http_body *b)
{
	struct jail_req req = { .magic = MAGIC, .repr = repr };
	struct jail_resp resp;
	int err;

	(void)ctx;
	err = write_full(CHILD_CHAN, &req, sizeof(req));
	if (err)
		return err;
	if (read_full(CHILD_CHAN, &resp, sizeof(resp)) < 0)
		return -EPIPE;
	if (resp.magic != MAGIC || resp.len > MAX_ANSWER)
		return -EPROTO;
	if (resp.err)
		return resp.err < 0 ? resp.err : -EPROTO;
	b->buf = malloc(resp.len ? resp.len : 1);
	if (!b->buf)
		return -ENOMEM;	/* the stream is out of step now: the server ends */
	if (read_full(CHILD_CHAN, b->buf, resp.len) < 0) {
		free(b->buf);
		b->buf = NULL;
		return -EPIPE;
	}
	b->len = resp.len;
	b->plain = resp.plain;
	memcpy(b->type, resp.type, sizeof(b->type));
	b->type[sizeof(b->type) - 1] = '\0';
	return 0;
}

static unsigned int choose(void *ctx, const char *accept)
{
	(void)ctx;
	return nsl_http_repr(accept);
}

/*
 * The system calls the server makes once it serves: HTTP on sockets it
 * accepts, epoll, the channel, the clock, memory (never executable),
 * and leaving. Everything else kills it (then the parent starts another).
 */
static const char *const allowed[] = {
	"read", "write", "readv", "writev", "recvfrom", "recvmsg", "sendto", "sendmsg",
	"accept", "accept4", "close", "shutdown", "setsockopt", "getsockopt",
	"getsockname", "getpeername", "poll", "ppoll", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "epoll_ctl", "fcntl", "brk", "munmap", "mremap", "madvise",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "futex",
	"rt_sigreturn", "rt_sigprocmask", "restart_syscall", "sched_yield",
	"getpid", "gettid", "getrandom", "exit", "exit_group",
};

/* Shuts the jail's doors: once the server is set up, before it serves. */
static int lock_in(void *ctx)
{
	scmp_filter_ctx f;
	time_t now = time(NULL);
	struct tm tm;
	int err;

	(void)ctx;
	/* the library's Date header: the time zone read now, not while serving */
	localtime_r(&now, &tm);
	f = seccomp_init(SCMP_ACT_KILL_PROCESS);
	err = f ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr != __NR_SCMP_ERROR)	/* not every architecture has each */
			err = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	/* memory, but nothing that could run: no PROT_EXEC */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* abort() signals itself */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 0);
	if (!err)
		err = seccomp_load(f);
	if (f)
		seccomp_release(f);
	if (err)
		pr_warn("--listen: cannot load the server's seccomp filter: %s\n",
			strerror(-err));
	return err;
}

/*
 * Empty namespaces, where an unprivileged process may make them (a user
 * namespace first, which lets it make the rest): no network but the
 * socket it holds, no IPC, its own mounts and host name. Then it drops
 * what that namespace gave it: no capability anywhere.
 */
static void empty_namespaces(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[2] = { { 0 } };

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
		    CLONE_NEWNS) && nsl_verbose)
		pr_warn("--listen: the server process stays in the tool's namespaces: %s\n",
			strerror(errno));
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	syscall(SYS_capset, &hdr, none);
}

int nsl_jail_child_main(int argc, char **argv)
{
	const struct nsl_http_app app = { .choose = choose, .fetch = fetch, .ready = lock_in };
	int err;

	nsl_verbose = argc > 2 && !strcmp(argv[2], "-v");
	signal(SIGPIPE, SIG_IGN);
	/* the thread that started us goes: so do we */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	empty_namespaces();
	/* the channel is also the stop signal: the parent closes it */
	err = nsl_http_serve(CHILD_SOCK, CHILD_CHAN, &app);
	_exit(err ? 1 : 0);
}
