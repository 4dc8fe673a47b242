// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namer's side (namer.h; the tool's is namer.c). Why a process of
 * its own: after set-up the tool holds no capability (docs/security.md),
 * and with --user or --listen not even root's uid. Naming a container
 * needs both, a little: the runtimes' state files are root's and some
 * are mode 0600 (docker's, podman's), and the network namespace of a
 * process of another user, or of one with capabilities we lack, is
 * behind ptrace's read check (__ptrace_may_access(): the same uid and a
 * subset of its capabilities, else CAP_SYS_PTRACE). So before dropping
 * privileges the tool starts this process, a fresh exec of its own
 * executable, which keeps root's uid and CAP_SYS_PTRACE alone
 * (no_new_privs, an empty bounding set), every other descriptor closed
 * (but the loader's route netlink socket in -n PATH's namespace, with
 * -I), and answers three questions over a SOCK_SEQPACKET pair, one
 * message each way, each question a kind, a 32-bit number, and its
 * matter:
 *
 *   'C' PATH          the container of cgroup PATH: one answer
 *   'N' INO...        the containers of network namespaces (up to
 *                     NSL_NAMER_BATCH inodes): one answer each
 *   'I' IFINDEX...    the containers of the namespaces that interfaces
 *                     of ours lead to (peers.c): one answer each
 *
 * Each answer carries its question's number (names.c has the format). It
 * dies with the tool (PR_SET_PDEATHSIG, and the socket's end), ignores
 * the signals a terminal or systemd sends the tool's group, and reads
 * only what containers.c reads for a question.
 *
 * What it reads is partly tenants' (a bundle's annotations, a container's
 * name, /proc of their processes) and it runs as root: a seccomp
 * allow-list (lock_in()) leaves it the calls that read, and nothing that
 * writes a file, runs a program, signals, or reaches the network. A call
 * outside the list kills it; the tool then says so and names nothing
 * more (namer.h).
 *
 * 'C' questions, which read runtime state alone, are answered by the
 * reader, a child of the namer that keeps root's uid but no capability,
 * confined by Landlock (confine()) to reading beneath the directories
 * naming needs, and by the same seccomp list. Not the namer itself: a
 * process in a Landlock domain passes ptrace's checks only on processes
 * in its domain (landlock's ptrace_access_check hook, since 5.13), so it
 * could no longer see another process's /proc/PID/ns/net, which the
 * namespace questions ask (measured: stat() of it gives EACCES).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include "names.h"
#include "namer.h"
#include "peers.h"
#include "privs.h"
#include "runtimes.h"
#include "sandbox.h"
#include "statefile.h"
#include "targets.h"

void nsl_namer_name_batch(char kind, int links_fd, const void *items,
			  struct nsl_netns_ask *ask, size_t nr)
{
	uint32_t ifindex[NSL_NAMER_BATCH];
	uint64_t peer[NSL_NAMER_BATCH];

	if (kind == 'I') {
		memcpy(ifindex, items, nr * sizeof(*ifindex));
		nsl_link_peers(links_fd, ifindex, peer, nr);
	} else {
		memcpy(peer, items, nr * sizeof(*peer));
	}
	for (size_t i = 0; i < nr; i++) {
		ask[i].ino = peer[i];
		ask[i].c = NULL;
	}
	nsl_containers_of_netns(ask, nr);
}

static void answer(int fd, uint32_t seq, const struct nsl_container *c)
{
	unsigned char a[NSL_ANSWER_MAX];
	size_t len = nsl_answer_encode(c, seq, a);

	if (send(fd, a, len, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(0);	/* the tool is gone */
}

/*
 * The calls the namer makes once it answers: its socket, files opened to
 * read (containers.c) and directories walked (/proc, the runtimes'
 * state), a route netlink socket (peers.c), memory, and leaving.
 */
static const char *const allowed[] = {
	"read", "pread64", "close", "lseek", "fstat", "newfstatat", "statx",
	"stat", "lstat", "getdents64", "recvfrom", "recvmsg", "sendto", "sendmsg",
	"clock_gettime", "futex", "rt_sigreturn", "rt_sigprocmask",
	"restart_syscall", "getpid", "gettid", "getrandom", "exit", "exit_group",
};

/*
 * Opened to write, create, truncate or append: not allowed. O_TMPFILE
 * holds O_DIRECTORY, which opendir() sets: its own bit alone.
 */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | \
		     (O_TMPFILE & ~O_DIRECTORY))

static int lock_in(void)
{
	scmp_filter_ctx f = nsl_sandbox_new();
	int err = f ? nsl_sandbox_allow(f, allowed, sizeof(allowed) / sizeof(allowed[0])) :
		      -ENOMEM;

	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, WRITE_FLAGS, 0));
	/* open(2) where the architecture has it (x86-64; arm64 has openat only) */
	if (!err && seccomp_syscall_resolve_name("open") != __NR_SCMP_ERROR)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, WRITE_FLAGS, 0));
	/* fdopendir() asks a descriptor's flags; close-on-exec */
	for (int cmd = F_GETFD; !err && cmd <= F_GETFL; cmd++)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, NSL_ARG32(1, cmd));
	/* peers.c asks the kernel's routing of links, and nothing else */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
				       NSL_ARG32(0, AF_NETLINK), NSL_ARG32(2, NETLINK_ROUTE));
	/* a message of the C library on its way out: to stderr, /dev/null */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, NSL_ARG32(0, 2));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1, NSL_ARG32(0, 2));
	if (!err)
		err = nsl_sandbox_allow_memory(f);
	if (!err)
		err = nsl_sandbox_allow_abort(f);
	if (!err)
		err = seccomp_load(f);
	if (f)
		seccomp_release(f);
	return err;
}

#define MAX_STATE_DIRS 64

/*
 * The reader's reads confined (Landlock) to beneath what naming reads:
 * /proc (a process's cgroup), the cgroup2 mount, the pinned namespaces
 * (/run/netns, /var/run/netns), and the runtimes' state directories
 * (runtimes.h; each under NSL_TEST_STATE_ROOT where that is set). Landlock
 * judges the file an open lands on, by its place in the mount tree: a
 * path through a link (/proc/PID/root/..., the magic link to another
 * process's root; a symlink among a state path's directories, which
 * O_NOFOLLOW leaves to be followed) lands where the link points, and is
 * refused there unless that is beneath one of these too. /proc's
 * ptrace-checked files of other processes (root, environ, mem) are closed
 * to it anyway, by its domain (see above). -EOPNOTSUPP: no Landlock here.
 */
static int confine(void)
{
	const char *state[MAX_STATE_DIRS], *dirs[MAX_STATE_DIRS + 4];
	static char full[MAX_STATE_DIRS][4096];
	size_t nr = nsl_runtime_state_dirs(state, MAX_STATE_DIRS), n = 0;
	const char *cg = nsl_cgroup2_root();

	if (nr > MAX_STATE_DIRS)
		return -E2BIG;
	dirs[n++] = "/proc";
	dirs[n++] = "/run/netns";
	dirs[n++] = "/var/run/netns";
	if (cg)
		dirs[n++] = cg;
	for (size_t i = 0; i < nr; i++) {
		if (nsl_state_path(full[i], state[i]))
			return -ENAMETOOLONG;
		dirs[n++] = full[i];
	}
	return nsl_sandbox_confine_reads(dirs, n);
}

/* The reader's life: 'C' questions on fd, from the namer, its parent */
static void __attribute__((noreturn)) reader_main(int fd, pid_t namer)
{
	static unsigned char q[NSL_NAMER_MSG_MAX + 1];
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != namer)
		_exit(1);
	/* root's uid reads root's state files; no capability, no ptrace */
	if (nsl_privs_keep_only(-1))
		_exit(1);
	err = confine();
	/* without Landlock, the seccomp list alone (docs/security.md) */
	if ((err && err != -EOPNOTSUPP) || lock_in())
		_exit(1);
	for (;;) {
		ssize_t n = recv(fd, q, NSL_NAMER_MSG_MAX, 0);
		struct nsl_container *c;
		uint32_t seq;

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			_exit(0);
		}
		if (q[0] != 'C' || n < 6)
			_exit(1);
		q[n] = '\0';
		memcpy(&seq, q + 1, sizeof(seq));
		c = nsl_container_of_cgroup((const char *)q + 5);
		answer(fd, seq, c);
		nsl_container_free(c);
	}
}

/* The reader started, our end of its socket; -errno */
static int start_reader(int links_fd)
{
	pid_t self = getpid(), pid;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		close(NSL_NAMER_FD);
		if (links_fd >= 0)
			close(links_fd);
		reader_main(sv[1], self);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -errno;
	}
	return sv[0];
}

/* A 'C' question passed to the reader, its answer back to the tool as it is */
static void relay(int reader, const unsigned char *q, size_t len)
{
	unsigned char a[NSL_ANSWER_MAX];
	ssize_t n;

	if (send(reader, q, len, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(1);	/* the reader is gone: so are we */
	while ((n = recv(reader, a, sizeof(a), 0)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		_exit(1);
	if (send(NSL_NAMER_FD, a, (size_t)n, MSG_NOSIGNAL) != n)
		_exit(0);	/* the tool is gone */
}

void nsl_namer_main(int argc, char **argv)
{
	static unsigned char q[NSL_NAMER_MSG_MAX + 1];
	struct nsl_netns_ask ask[NSL_NAMER_BATCH];
	int links_fd = -1, reader;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the tool that started us, still there (else nobody would kill us) */
	if (argc < 3 || getppid() != (pid_t)atol(argv[2]))
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 3)
		links_fd = NSL_NAMER_LINKS_FD;
	syscall(SYS_close_range, links_fd >= 0 ? NSL_NAMER_LINKS_FD + 1U : NSL_NAMER_FD + 1U,
		~0U, 0U);
	/* without CAP_SYS_PTRACE (a container's bounding set), less is named */
	if (nsl_privs_keep_only(CAP_SYS_PTRACE) && nsl_privs_keep_only(-1))
		_exit(1);
	reader = start_reader(links_fd);
	if (reader < 0 || lock_in())
		_exit(1);	/* no namer: the tool names nothing (namer.h) */
	for (;;) {
		ssize_t n = recv(NSL_NAMER_FD, q, NSL_NAMER_MSG_MAX, 0);
		uint32_t seq;
		size_t nr;

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			_exit(0);
		}
		if (n < 5)
			_exit(1);	/* not ours */
		memcpy(&seq, q + 1, sizeof(seq));
		if (q[0] == 'C') {
			relay(reader, q, (size_t)n);
		} else if ((q[0] == 'N' || q[0] == 'I') &&
			   (n - 5) % nsl_namer_item_size(q[0]) == 0 &&
			   (nr = (size_t)(n - 5) / nsl_namer_item_size(q[0])) <= NSL_NAMER_BATCH) {
			nsl_namer_name_batch(q[0], links_fd, q + 5, ask, nr);
			for (size_t i = 0; i < nr; i++) {
				answer(NSL_NAMER_FD, seq, ask[i].c);
				nsl_container_free(ask[i].c);
			}
		} else {
			_exit(1);	/* not ours */
		}
	}
}
