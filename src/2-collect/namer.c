// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namer, the tool's side (namer.h; the namer's is namerproc.c): its
 * start and end, the questions, and what is taken of the answers. The
 * namer keeps root's uid, which the tool (--user, --listen) may not: the
 * tool cannot always kill it (kill(2): EPERM), and one that is stopped
 * (SIGSTOP) or wedged in the kernel does not end when its socket does.
 * So nothing here waits on it without a bound: a question waits
 * NSL_NAMER_WAIT_MS at most, a namer that ended is reaped with WNOHANG
 * (at the next question, and at the end), and one that lingers dies with
 * the tool (PR_SET_PDEATHSIG) or at its socket's end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "log.h"
#include "names.h"
#include "namer.h"

int nsl_namer_start(struct nsl_namer *n, int links_fd)
{
	char parent[24];
	int sv[2];
	pid_t pid;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
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
		if (sv[1] == NSL_NAMER_FD ? fcntl(NSL_NAMER_FD, F_SETFD, 0) :
					    dup2(sv[1], NSL_NAMER_FD) < 0)
			_exit(127);
		if (links >= 0 && dup2(links, NSL_NAMER_LINKS_FD) < 0)
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

/* The namer reaped if it has ended; never waits */
static void reap(struct nsl_namer *n)
{
	pid_t r = n->pid > 0 ? waitpid(n->pid, NULL, WNOHANG) : 0;

	if (r == n->pid || (r < 0 && errno == ECHILD))
		n->pid = 0;
}

void nsl_namer_stop(struct nsl_namer *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	if (n->pid <= 0)
		return;
	/*
	 * Root's namer, and we no longer root: EPERM. It ends at its
	 * socket's end (recv() gives 0), unless stopped or wedged; then
	 * with us (PR_SET_PDEATHSIG). A killed one, or one that reads its
	 * end, is gone within a millisecond or so: reaped if within 100 ms
	 * (no zombie left behind at our exit), else left.
	 */
	if (kill(n->pid, SIGKILL) && errno != ESRCH)
		pr_debug("cannot end the container namer (%s): it ends with the tool\n",
			 strerror(errno));
	for (int i = 0; i < 20 && n->pid > 0; i++) {
		reap(n);
		if (n->pid > 0)
			usleep(5000);
	}
	if (n->refused)
		pr_info("%lu containers left unnamed: a name from their runtimes' "
			"state was none\n", n->refused);
}

/* A namer that ran and failed us: said once, nothing named from now on (namer.h) */
static void namer_gone(struct nsl_namer *n, const char *why)
{
	pr_warn("the container namer %s: no container is named from now on "
		"(docs/containers.md)\n", why);
	n->gone = true;
	n->owed = 0;
	nsl_namer_stop(n);
}

/* An answer came, to the question of the moment: said if none had */
static void answered(struct nsl_namer *n)
{
	if (n->silent)
		pr_info("the container namer answers again: new groups are named\n");
	n->silent = false;
}

static void not_answering(struct nsl_namer *n)
{
	if (!n->silent)
		pr_warn("the container namer does not answer within %d s: groups new "
			"meanwhile stay unnamed; asked again once it has answered "
			"(docs/containers.md)\n", NSL_NAMER_WAIT_MS / 1000);
	n->silent = true;
}

/* c, or NULL where a name of it is none (names.h): counted, said once */
static struct nsl_container *accept_names(struct nsl_namer *n, struct nsl_container *c)
{
	const char *why = c ? nsl_names_invalid(c) : NULL;

	if (!why)
		return c;
	if (n && !n->refused++)
		pr_warn("a container's %s from its runtime's state is no such name: "
			"left unnamed (said once)\n", why);
	nsl_container_free(c);
	return NULL;
}

/*
 * An answer, if one is there (1: *seq, *c), none yet (0), or the namer
 * failed us (-1; gone now)
 */
static int take(struct nsl_namer *n, uint32_t *seq, struct nsl_container **c)
{
	unsigned char a[NSL_ANSWER_MAX];
	ssize_t len = recv(n->fd, a, sizeof(a), MSG_DONTWAIT);

	if (len < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (len <= 0) {
		namer_gone(n, "is gone");
		return -1;
	}
	if (nsl_answer_decode(a, (size_t)len, seq, c)) {
		namer_gone(n, "gave an answer that is not one");
		return -1;
	}
	return 1;
}

/*
 * Whether the namer may be asked now: it runs, and owes nothing (what it
 * owes a question that timed out is dropped as it comes)
 */
static bool ready(struct nsl_namer *n)
{
	struct nsl_container *c;
	uint32_t seq;

	reap(n);
	while (n->fd >= 0 && n->owed && take(n, &seq, &c) > 0) {
		if (seq == n->seq && !--n->owed)
			answered(n);
		nsl_container_free(c);
	}
	return n->fd >= 0 && !n->owed;
}

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/*
 * Question q of len bytes (its kind and matter set; its number set here)
 * asked of the namer, its nr answers in c[] (NULL for each not come in
 * NSL_NAMER_WAIT_MS, or the namer not asked: see ready())
 */
static void ask_namer(struct nsl_namer *n, unsigned char *q, size_t len,
		      struct nsl_container **c, size_t nr)
{
	struct pollfd p = { .fd = n->fd, .events = POLLIN };
	struct timespec deadline;
	uint32_t seq;

	for (size_t i = 0; i < nr; i++)
		c[i] = NULL;
	if (!ready(n))
		return;
	n->seq++;
	memcpy(q + 1, &n->seq, sizeof(n->seq));
	/* it owes nothing, so it read all before: room for this one */
	if (send(n->fd, q, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
		if (errno == EAGAIN)
			not_answering(n);
		else
			namer_gone(n, "is gone");
		return;
	}
	n->owed = nr;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += NSL_NAMER_WAIT_MS / 1000;
	while (n->owed) {
		struct nsl_container *got;
		long ms = ms_left(&deadline);
		int r;

		if (ms <= 0) {
			not_answering(n);
			return;
		}
		p.fd = n->fd;
		r = poll(&p, 1, (int)ms);
		if (r <= 0)
			continue;	/* EINTR, or the time is up: see above */
		r = take(n, &seq, &got);
		if (r < 0)
			return;
		if (!r)
			continue;
		if (seq != n->seq) {	/* late, for an earlier question */
			nsl_container_free(got);
			continue;
		}
		c[nr - n->owed] = accept_names(n, got);
		n->owed--;
		answered(n);
	}
}

/* No namer was started (namer.h): the tool names itself */
static bool naming_ourselves(const struct nsl_namer *n)
{
	return !n || (n->fd < 0 && !n->gone);
}

struct nsl_container *nsl_namer_cgroup(struct nsl_namer *n, const char *path)
{
	unsigned char q[NSL_NAMER_MSG_MAX];
	size_t len = path ? strlen(path) : 0;
	struct nsl_container *c;

	if (!path)
		return NULL;
	if (naming_ourselves(n))
		return accept_names(n, nsl_container_of_cgroup(path));
	if (5 + len + 1 > sizeof(q))
		return NULL;
	q[0] = 'C';
	memcpy(q + 5, path, len + 1);	/* with its NUL */
	ask_namer(n, q, 5 + len + 1, &c, 1);
	return c;
}

/* A batch of nr items of kind ('N', 'I') named, by the namer where there is one */
static void namer_batch(struct nsl_namer *n, char kind, const unsigned char *items,
			struct nsl_netns_ask *ask, size_t nr)
{
	unsigned char q[5 + 8 * NSL_NAMER_BATCH];
	struct nsl_container *c[NSL_NAMER_BATCH];
	size_t size = nsl_namer_item_size(kind);

	for (size_t done = 0, k; done < nr; done += k) {
		k = nr - done < NSL_NAMER_BATCH ? nr - done : NSL_NAMER_BATCH;
		if (naming_ourselves(n)) {
			nsl_namer_name_batch(kind, n ? n->links_fd : -1, items + done * size,
					     ask + done, k);
			for (size_t i = 0; i < k; i++)
				ask[done + i].c = accept_names(n, ask[done + i].c);
			continue;
		}
		q[0] = (unsigned char)kind;
		memcpy(q + 5, items + done * size, k * size);
		ask_namer(n, q, 5 + k * size, c, k);
		for (size_t i = 0; i < k; i++)
			ask[done + i].c = c[i];
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
