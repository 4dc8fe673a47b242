// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thread of walkns.h. It answers over two pipes, one int each way:
 * a link's descriptor gets an iterator's descriptor (or -errno), made by
 * BPF_ITER_CREATE in this thread; DROP and DROP_BPF set its capabilities
 * (capset() and the bounding set are per thread: the tool's own drop
 * does not reach it, and a thread left with root's capabilities in the
 * tool's address space would be the tool's; --user's ids reach it, and
 * clear its capabilities, as its keep-caps flag is off); STOP ends it. It blocks
 * every signal, so that the tool's go to the main thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/capability.h>
#include "privs.h"
#include "walkns.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

enum { WALKNS_STOP = -1, WALKNS_DROP = -2, WALKNS_DROP_BPF = -3 };

struct nsl_walkns {
	pthread_t thread;
	int req[2];	/* main -> thread */
	int ans[2];	/* thread -> main */
	int netns_fd;
};

static int put_int(int fd, int v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -EIO;
}

static int get_int(int fd, int *v)
{
	ssize_t n;

	do
		n = read(fd, v, sizeof(*v));
	while (n < 0 && errno == EINTR);
	return n == sizeof(*v) ? 0 : -EIO;
}

static void *walkns_main(void *arg)
{
	struct nsl_walkns *w = arg;
	sigset_t all;
	int req, err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	err = setns(w->netns_fd, CLONE_NEWNET) ? -errno : 0;
	/*
	 * CAP_SETUID and CAP_SETGID until the tool's drop (nsl_walkns_drop()):
	 * glibc makes every thread of the process take --user's ids
	 * (setgroups, setgid, setuid: the setxid broadcast) and aborts the
	 * process where one thread may not
	 */
	if (!err)
		err = nsl_privs_keep(1ULL << CAP_BPF | 1ULL << CAP_SETUID |
				     1ULL << CAP_SETGID);
	if (put_int(w->ans[1], err) || err)
		return NULL;
	while (!get_int(w->req[0], &req) && req != WALKNS_STOP) {
		int ans;

		if (req == WALKNS_DROP || req == WALKNS_DROP_BPF)
			ans = nsl_privs_keep_only(req == WALKNS_DROP ? -1 : CAP_BPF);
		else if ((ans = bpf_iter_create(req)) < 0)
			ans = -errno;
		if (put_int(w->ans[1], ans))
			break;
	}
	return NULL;
}

static void walkns_free(struct nsl_walkns *w)
{
	for (int i = 0; i < 2; i++) {
		if (w->req[i] >= 0)
			close(w->req[i]);
		if (w->ans[i] >= 0)
			close(w->ans[i]);
	}
	if (w->netns_fd >= 0)
		close(w->netns_fd);
	free(w);
}

struct nsl_walkns *nsl_walkns_start(const char *path)
{
	struct nsl_walkns *w = calloc(1, sizeof(*w));
	int err, first;

	if (!w)
		return NULL;
	w->req[0] = w->req[1] = w->ans[0] = w->ans[1] = -1;
	w->netns_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w->netns_fd < 0 || pipe2(w->req, O_CLOEXEC) || pipe2(w->ans, O_CLOEXEC))
		goto fail;
	err = pthread_create(&w->thread, NULL, walkns_main, w);
	if (err) {
		errno = err;
		goto fail;
	}
	if (get_int(w->ans[0], &first) || first) {
		pthread_join(w->thread, NULL);
		errno = first < 0 ? -first : EIO;
		goto fail;
	}
	close(w->netns_fd);
	w->netns_fd = -1;
	return w;
fail:
	err = errno;
	walkns_free(w);
	errno = err;
	return NULL;
}

static int ask(struct nsl_walkns *w, int req)
{
	int ans;

	if (!w)
		return -ENOENT;
	if (put_int(w->req[1], req) || get_int(w->ans[0], &ans))
		return -EIO;
	return ans;
}

int nsl_walkns_iter(struct nsl_walkns *w, int link_fd)
{
	return link_fd < 0 ? -EBADF : ask(w, link_fd);
}

int nsl_walkns_drop(struct nsl_walkns *w, bool keep_bpf)
{
	return ask(w, keep_bpf ? WALKNS_DROP_BPF : WALKNS_DROP);
}

void nsl_walkns_stop(struct nsl_walkns *w)
{
	if (!w)
		return;
	put_int(w->req[1], WALKNS_STOP);
	pthread_join(w->thread, NULL);
	walkns_free(w);
}
