// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namer (namer.h). Why a process of its own: after set-up the tool
 * holds no capability (docs/security.md), and with --user or --listen not
 * even root's uid. Naming a container needs both, a little: the runtimes'
 * state files are root's and some are mode 0600 (docker's, podman's), and
 * the network namespace of a process of another user, or of one with
 * capabilities we lack, is behind ptrace's read check
 * (__ptrace_may_access(): the same uid and a subset of its capabilities,
 * else CAP_SYS_PTRACE). So before dropping privileges the tool starts
 * this process, a fresh exec of its own executable, which keeps root's
 * uid and CAP_SYS_PTRACE alone (no_new_privs, an empty bounding set),
 * every other descriptor closed (but the loader's route netlink socket in
 * -n PATH's namespace, with -I), and answers two questions over a
 * SOCK_SEQPACKET pair, one message each way:
 *
 *   'C' PATH          the container of cgroup PATH: one answer
 *   'N' INO...        the containers of network namespaces (up to
 *                     NSL_NAMER_BATCH inodes): one answer each
 *   'I' IFINDEX...    the containers of the namespaces that interfaces
 *                     of ours lead to (peers.c): one answer each
 *
 * An answer is a 0 byte (none), or 1 and the container: its runtime's
 * index in runtimes[] plus one (0: unsaid), the id's length (0 or 64) and
 * digits, then five strings (name, pod, pod namespace, pod uid,
 * container), each a 16-bit length (0xffff: none) and its bytes. It dies
 * with the tool (PR_SET_PDEATHSIG, and the socket's end), ignores the
 * signals a terminal or systemd sends the tool's group, and reads only
 * what containers.c reads for a question.
 *
 * What it reads is partly tenants' (a bundle's annotations, a container's
 * name, /proc of their processes) and it runs as root: a seccomp
 * allow-list (lock_in()) leaves it the calls that read, and nothing that
 * writes a file, runs a program, signals, or reaches the network. A call
 * outside the list kills it; the tool then says so and names containers
 * itself, with its own privileges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include "log.h"
#include "namer.h"
#include "peers.h"
#include "privs.h"
#include "sandbox.h"

#define NAMER_FD 3
/* the loader's route netlink socket in -n's namespace, where given (argv[3]) */
#define NAMER_LINKS_FD 4
/* the longest question: 'C' and a path of PATH_MAX with its NUL; or 'N' and a batch */
#define NSL_NAMER_BATCH 512
#define MSG_MAX (1 + 4096 + 1)
/* the longest answer: five names of at most 253 bytes, and the rest */
#define ANSWER_MAX 2048
#define NSL_NAMER_WAIT_MS 5000

static const char *const runtimes[] = { "containerd", "cri-o", "docker", "podman" };

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool bad;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->bad = true;
		return;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = s ? strnlen(s, 0xfffe) : 0;
	uint16_t len = s ? (uint16_t)n : 0xffff;

	put(b, &len, sizeof(len));
	put(b, s, n);
}

static bool get(struct buf *b, void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->bad = true;
		return false;
	}
	memcpy(v, b->p + b->len, n);
	b->len += n;
	return true;
}

/* A string of the answer, or NULL (none, or a malformed answer: b->bad) */
static char *get_str(struct buf *b)
{
	uint16_t len;
	char *s;

	if (!get(b, &len, sizeof(len)))
		return b->bad = true, NULL;
	if (len == 0xffff)
		return NULL;
	if (b->len + len > b->cap || !(s = strndup((const char *)b->p + b->len, len)))
		return b->bad = true, NULL;
	b->len += len;
	return s;
}

/* The namer's side: c as an answer into a, its length */
static size_t encode(const struct nsl_container *c, unsigned char *a)
{
	struct buf b = { .p = a, .cap = ANSWER_MAX };
	uint8_t rt = 0, present = c != NULL, idlen;

	put(&b, &present, 1);
	if (!c)
		return b.len;
	for (size_t i = 0; c->runtime && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strcmp(c->runtime, runtimes[i]))
			rt = (uint8_t)(i + 1);
	idlen = (uint8_t)strnlen(c->id, sizeof(c->id) - 1);
	put(&b, &rt, 1);
	put(&b, &idlen, 1);
	put(&b, c->id, idlen);
	put_str(&b, c->name);
	put_str(&b, c->pod);
	put_str(&b, c->pod_namespace);
	put_str(&b, c->pod_uid);
	put_str(&b, c->container);
	if (b.bad) {	/* cannot be (names are cut at 253): none rather than half */
		a[0] = 0;
		return 1;
	}
	return b.len;
}

/* The tool's side: an answer of len bytes; NULL for none or malformed (*bad) */
static struct nsl_container *decode(unsigned char *a, size_t len, bool *bad)
{
	struct buf b = { .p = a, .cap = len };
	struct nsl_container *c;
	uint8_t present = 0, rt = 0, idlen = 0;

	*bad = !get(&b, &present, 1);
	if (*bad || !present)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!get(&b, &rt, 1) || !get(&b, &idlen, 1) || idlen >= sizeof(c->id) ||
	    rt > sizeof(runtimes) / sizeof(runtimes[0]) || !get(&b, c->id, idlen)) {
		*bad = true;
		nsl_container_free(c);
		return NULL;
	}
	c->runtime = rt ? runtimes[rt - 1] : NULL;
	c->name = get_str(&b);
	c->pod = get_str(&b);
	c->pod_namespace = get_str(&b);
	c->pod_uid = get_str(&b);
	c->container = get_str(&b);
	if (b.bad || b.len != len) {
		*bad = true;
		nsl_container_free(c);
		return NULL;
	}
	return c;
}

/* The size of an item of a batch of kind 'N' (an inode) or 'I' (an ifindex) */
static size_t item_size(char kind)
{
	return kind == 'N' ? sizeof(uint64_t) : sizeof(uint32_t);
}

/*
 * A batch named (the namer's work, or the tool's where there is none):
 * kind 'N', items are namespaces' inodes; 'I', ifindexes of ours, named
 * by the namespace at their links' other ends (peers.c). ask[i].c set.
 */
static void name_batch(char kind, int links_fd, const void *items,
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

static void answer(const struct nsl_container *c)
{
	unsigned char a[ANSWER_MAX];
	size_t len = encode(c, a);

	if (send(NAMER_FD, a, len, MSG_NOSIGNAL) != (ssize_t)len)
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

void nsl_namer_main(int argc, char **argv)
{
	static unsigned char q[MSG_MAX + 1];
	struct nsl_netns_ask ask[NSL_NAMER_BATCH];
	int links_fd = -1;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the tool that started us, still there (else nobody would kill us) */
	if (argc < 3 || getppid() != (pid_t)atol(argv[2]))
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 3)
		links_fd = NAMER_LINKS_FD;
	syscall(SYS_close_range, links_fd >= 0 ? NAMER_LINKS_FD + 1U : NAMER_FD + 1U, ~0U, 0U);
	/* without CAP_SYS_PTRACE (a container's bounding set), less is named */
	if (nsl_privs_keep_only(CAP_SYS_PTRACE) && nsl_privs_keep_only(-1))
		_exit(1);
	if (lock_in())
		_exit(1);	/* no namer: the tool names, as itself */
	for (;;) {
		ssize_t n = recv(NAMER_FD, q, MSG_MAX, 0);
		size_t nr;

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			_exit(0);
		}
		if (q[0] == 'C') {
			struct nsl_container *c;

			q[n] = '\0';
			c = nsl_container_of_cgroup((const char *)q + 1);
			answer(c);
			nsl_container_free(c);
		} else if ((q[0] == 'N' || q[0] == 'I') && (n - 1) % item_size(q[0]) == 0 &&
			   (nr = (size_t)(n - 1) / item_size(q[0])) <= NSL_NAMER_BATCH) {
			name_batch(q[0], links_fd, q + 1, ask, nr);
			for (size_t i = 0; i < nr; i++) {
				answer(ask[i].c);
				nsl_container_free(ask[i].c);
			}
		} else {
			_exit(1);	/* not ours */
		}
	}
}

int nsl_namer_start(struct nsl_namer *n, int links_fd)
{
	char parent[24];
	int sv[2];
	pid_t pid;

	n->fd = -1;
	n->pid = 0;
	n->links_fd = links_fd;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	snprintf(parent, sizeof(parent), "%ld", (long)getpid());
	fflush(NULL);	/* nothing buffered may be written twice */
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "netstacklat", NSL_NAMER_ARGV1, parent,
				 links_fd >= 0 ? "links" : NULL, NULL };
		/* out of the way of the two below first (F_DUPFD: not close-on-exec) */
		int links = links_fd >= 0 ? fcntl(links_fd, F_DUPFD, 10) : -1;
		int null;

		if (links_fd >= 0 && links < 0)
			_exit(127);
		/* dup2() onto itself would keep close-on-exec */
		if (sv[1] == NAMER_FD ? fcntl(NAMER_FD, F_SETFD, 0) : dup2(sv[1], NAMER_FD) < 0)
			_exit(127);
		if (links >= 0 && dup2(links, NAMER_LINKS_FD) < 0)
			_exit(127);
		/* none of the tool's output: a pipe's reader sees its end with the tool's */
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		for (int fd = 0; null >= 0 && fd <= 2; fd++)
			dup2(null, fd);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -errno;
	}
	n->fd = sv[0];
	n->pid = pid;
	return 0;
}

void nsl_namer_stop(struct nsl_namer *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	if (n->pid > 0) {
		kill(n->pid, SIGKILL);
		while (waitpid(n->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	n->pid = 0;
}

/* A namer that failed us is stopped: we name ourselves from then on. */
static void namer_failed(struct nsl_namer *n, const char *why)
{
	pr_warn("the container namer %s: containers are named with the tool's own "
		"privileges from now on (docs/containers.md)\n", why);
	nsl_namer_stop(n);
}

static bool namer_send(struct nsl_namer *n, const void *q, size_t len)
{
	if (send(n->fd, q, len, MSG_NOSIGNAL) == (ssize_t)len)
		return true;
	namer_failed(n, "is gone");
	return false;
}

/* The next answer: *ok false where the namer failed (and is stopped now) */
static struct nsl_container *namer_answer(struct nsl_namer *n, bool *ok)
{
	unsigned char a[ANSWER_MAX];
	struct pollfd p = { .fd = n->fd, .events = POLLIN };
	struct nsl_container *c;
	ssize_t len;
	bool bad;
	int r;

	*ok = false;
	while ((r = poll(&p, 1, NSL_NAMER_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (r <= 0) {
		namer_failed(n, "does not answer");
		return NULL;
	}
	len = recv(n->fd, a, sizeof(a), MSG_DONTWAIT);
	if (len <= 0) {
		namer_failed(n, "is gone");
		return NULL;
	}
	c = decode(a, (size_t)len, &bad);
	if (bad) {
		namer_failed(n, "gave an answer that is not one");
		return NULL;
	}
	*ok = true;
	return c;
}

struct nsl_container *nsl_namer_cgroup(struct nsl_namer *n, const char *path)
{
	unsigned char q[MSG_MAX];
	size_t len = path ? strlen(path) : 0;
	bool ok;

	if (!path)
		return NULL;
	if (!n || n->fd < 0 || len + 2 > sizeof(q))
		return nsl_container_of_cgroup(path);
	q[0] = 'C';
	memcpy(q + 1, path, len + 1);	/* with its NUL */
	if (!namer_send(n, q, len + 2))
		return nsl_container_of_cgroup(path);
	return namer_answer(n, &ok);
}

/* A batch of nr items of kind ('N', 'I') named, by the namer where it answers */
static void namer_batch(struct nsl_namer *n, char kind, const unsigned char *items,
			struct nsl_netns_ask *ask, size_t nr)
{
	unsigned char q[1 + 8 * NSL_NAMER_BATCH];
	size_t size = item_size(kind), done = 0;

	while (done < nr) {
		size_t k = nr - done < NSL_NAMER_BATCH ? nr - done : NSL_NAMER_BATCH;
		bool ok = true;

		if (!n || n->fd < 0) {
			name_batch(kind, n ? n->links_fd : -1, items + done * size, ask + done, k);
			done += k;
			continue;
		}
		q[0] = (unsigned char)kind;
		memcpy(q + 1, items + done * size, k * size);
		if (!namer_send(n, q, 1 + k * size))
			continue;	/* stopped now: the tool names them */
		for (size_t i = 0; i < k && ok; i++)
			ask[done + i].c = namer_answer(n, &ok);
		if (!ok)
			return;	/* the rest stays unnamed */
		done += k;
	}
}

void nsl_namer_netns(struct nsl_namer *n, struct nsl_netns_ask *ask, size_t nr)
{
	uint64_t *ino = malloc(nr * sizeof(*ino) + 1);

	if (!ino)
		return;
	for (size_t i = 0; i < nr; i++)
		ino[i] = ask[i].ino;
	namer_batch(n, 'N', (const unsigned char *)ino, ask, nr);
	free(ino);
}

void nsl_namer_links(struct nsl_namer *n, const uint32_t *ifindex,
		     struct nsl_netns_ask *ask, size_t nr)
{
	namer_batch(n, 'I', (const unsigned char *)ifindex, ask, nr);
}
