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
 * only what naming a question's matter reads.
 *
 * What it reads is partly tenants' (a bundle's annotations, a container's
 * name, /proc of their processes) and it runs as root: a seccomp
 * allow-list (lock_in()) leaves it the calls that read, and nothing that
 * writes a file, runs a program, signals, or reaches the network. A call
 * outside the list kills it; the tool then says so and names nothing
 * more (namer.h).
 *
 * Every read of runtime state is the reader's, a child of the namer that
 * keeps root's uid but no capability, confined by Landlock (confine())
 * to reading beneath the directories naming needs, and by the same
 * seccomp list. It answers the namer, over a socket pair of their own,
 * in the same format and with the tool's question numbers, so that its
 * answers go to the tool as they are:
 *
 *   'C' PATH          as above: the namer passes the tool's question on
 *   'P' PATH          the container of cgroup PATH as its network
 *                     namespace's (a pod's: the pod): one answer
 *   'U' INO...        namespaces no process was seen in, named by the CNI
 *                     cache and podman's state (0: not asked): one each
 *
 * 'N' and 'I' are answered in two halves (containers.h): the namer
 * follows the links ('I', peers.c: the route netlink socket stays here)
 * and walks /proc, and asks the reader 'P' and 'U' of what it found
 * (name_netns()). Not all in the reader: a process in a Landlock domain
 * passes ptrace's checks only on processes in its domain (landlock's
 * ptrace_access_check hook, since 5.13), so it could no longer see
 * another process's /proc/PID/ns/net, which the walk looks at
 * (measured: stat() of it gives EACCES). The walk reads /proc alone.
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
#include "namerproc.h"
#include "peers.h"
#include "privs.h"
#include "runtimes.h"
#include "sandbox.h"
#include "statefile.h"
#include "targets.h"

/*
 * A batch's namespaces into ask: kind 'N', items are their inodes; 'I',
 * ifindexes of ours, followed to the namespaces at their links' other
 * ends (peers.c: route netlink, where the namer runs it)
 */
static void asks_of(char kind, int links_fd, const void *items,
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
}

void nsl_namer_name_batch(char kind, int links_fd, const void *items,
			  struct nsl_netns_ask *ask, size_t nr)
{
	asks_of(kind, links_fd, items, ask, nr);
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

/* A 'U' question's nr namespaces (0: not asked) named by state: one answer each */
static void by_state(int fd, uint32_t seq, const unsigned char *items, size_t nr)
{
	struct nsl_netns_ask ask[NSL_NAMER_BATCH] = { 0 };

	if (nr > NSL_NAMER_BATCH)
		_exit(1);
	for (size_t i = 0; i < nr; i++)
		memcpy(&ask[i].ino, items + i * sizeof(uint64_t), sizeof(uint64_t));
	nsl_netns_of_state(ask, nr);
	for (size_t i = 0; i < nr; i++) {
		answer(fd, seq, ask[i].c);
		nsl_container_free(ask[i].c);
	}
}

/* The reader's life: questions on fd, from the namer, its parent (see above) */
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
		if (n < 5)
			_exit(1);
		q[n] = '\0';
		memcpy(&seq, q + 1, sizeof(seq));
		if (q[0] == 'U' && (n - 5) % sizeof(uint64_t) == 0) {
			by_state(fd, seq, q + 5, (size_t)(n - 5) / sizeof(uint64_t));
			continue;
		}
		if ((q[0] != 'C' && q[0] != 'P') || n < 6)
			_exit(1);
		c = q[0] == 'C' ? nsl_container_of_cgroup((const char *)q + 5) :
				  nsl_netns_of_cgroup((const char *)q + 5);
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

/* An answer of the reader's, as it is */
struct slot {
	unsigned char a[NSL_ANSWER_MAX];
	size_t len;
};

/* Question q (len bytes) asked of the reader: its nr answers into to[] */
static void ask_reader(int reader, const unsigned char *q, size_t len,
		       struct slot *to, size_t nr)
{
	if (send(reader, q, len, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(1);	/* the reader is gone: so are we */
	for (size_t i = 0; i < nr; i++) {
		ssize_t n;

		while ((n = recv(reader, to[i].a, sizeof(to[i].a), 0)) < 0 && errno == EINTR)
			;
		if (n <= 0)
			_exit(1);
		to[i].len = (size_t)n;
	}
}

static void send_slot(const struct slot *s)
{
	if (send(NSL_NAMER_FD, s->a, s->len, MSG_NOSIGNAL) != (ssize_t)s->len)
		_exit(0);	/* the tool is gone */
}

/*
 * An 'N' or 'I' question (number seq, nr items): the namespaces walked
 * here (and the links followed, peers.c), named by the reader
 * (containers.h's two halves): 'P' PATH for each whose processes are one
 * container's or one pod's (one answer), 'U' INO... for those no process
 * was seen in (one answer each, 0: not asked). Its answers go to the tool
 * as they are, in the order asked; none where the processes are mixed,
 * the first's where a namespace was asked before.
 */
static void name_netns(int reader, int links_fd, uint32_t seq, char kind,
		       const unsigned char *items, size_t nr)
{
	static struct slot slot[NSL_NAMER_BATCH], got[NSL_NAMER_BATCH];
	static unsigned char q[NSL_NAMER_MSG_MAX];
	struct nsl_netns_seen seen[NSL_NAMER_BATCH];
	struct nsl_netns_ask ask[NSL_NAMER_BATCH];
	bool walked, unseen = false;

	/* the route netlink part of 'I' here: the reader has neither the socket nor ptrace */
	asks_of(kind, links_fd, items, ask, nr);
	walked = !nsl_netns_walk(ask, nr, seen);
	q[0] = 'U';
	memcpy(q + 1, &seq, sizeof(seq));
	for (size_t i = 0; i < nr; i++) {
		uint64_t ino = walked && seen[i].saw == NSL_NETNS_UNSEEN ? ask[i].ino : 0;

		memcpy(q + 5 + i * sizeof(ino), &ino, sizeof(ino));
		unseen |= ino != 0;
		slot[i].len = nsl_answer_encode(NULL, seq, slot[i].a);
	}
	if (unseen)
		ask_reader(reader, q, 5 + nr * sizeof(uint64_t), got, nr);
	for (size_t i = 0; walked && i < nr; i++) {
		size_t len = seen[i].path ? strlen(seen[i].path) : 0;

		if (seen[i].saw == NSL_NETNS_UNSEEN && unseen) {
			slot[i] = got[i];
		} else if (seen[i].saw == NSL_NETNS_ONE && seen[i].path && 5 + len + 1 <= sizeof(q)) {
			q[0] = 'P';
			memcpy(q + 5, seen[i].path, len + 1);	/* with its NUL */
			ask_reader(reader, q, 5 + len + 1, &slot[i], 1);
		} else if (seen[i].saw == NSL_NETNS_AGAIN) {
			slot[i] = slot[seen[i].first];
		}
	}
	if (walked)
		nsl_netns_seen_free(seen, nr);
	for (size_t i = 0; i < nr; i++)
		send_slot(&slot[i]);
}

void nsl_namer_main(int argc, char **argv)
{
	static unsigned char q[NSL_NAMER_MSG_MAX + 1];
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
			struct slot a;

			ask_reader(reader, q, (size_t)n, &a, 1);
			send_slot(&a);
		} else if ((q[0] == 'N' || q[0] == 'I') &&
			   (n - 5) % nsl_namer_item_size(q[0]) == 0 &&
			   (nr = (size_t)(n - 5) / nsl_namer_item_size(q[0])) <= NSL_NAMER_BATCH) {
			name_netns(reader, links_fd, seq, q[0], q + 5, nr);
		} else {
			_exit(1);	/* not ours */
		}
	}
}
