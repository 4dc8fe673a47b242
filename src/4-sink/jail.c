// SPDX-License-Identifier: GPL-2.0-only
/*
 * /metrics in a jail (jail.h): the socket, and a thread of ours (the
 * keeper) that answers the child's requests and replaces the child when
 * it ends or fails us. The child as a process is jailproc.c, its side
 * jailchild.c, what the two send each other jailwire.h.
 *
 * The keeper never blocks on the child: our end of the channel is
 * non-blocking, and poll() waits for the earliest of what the child owes
 * (jail.h: NSL_JAIL_DEADLINE_MS, NSL_JAIL_ANSWER_MS), the next ping, the
 * next start, the next render. Only a render (our code) and the reaping
 * of a child we have just SIGKILLed take time in between.
 *
 * Relies on: a socket staying in the network namespace it was made in,
 * so a child in an empty one still accepts on it; a unix stream socket
 * delivering what one side wrote in order, and EOF (or POLLHUP) to the
 * other once every copy of one end is closed (the child's dies with it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "clock.h"
#include "jail.h"
#include "jailcache.h"
#include "jailproc.h"
#include "log.h"

int nsl_jail_bind(struct nsl_jail *j, const char *addr, uint16_t port, const char *tool_user)
{
	/* the program that runs now, whatever replaces its file later */
	int sock = -1, exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), err;

	*j = (struct nsl_jail)NSL_JAIL_INIT;
	err = exe < 0 ? -errno : 0;
	if (!err)
		err = sock = nsl_jail_listen(addr, port);
	/* non-blocking at both ends: a child that writes too much loses it */
	if (err >= 0 && pipe2(j->log, O_CLOEXEC | O_NONBLOCK))
		err = -errno;
	/* the starter holds the socket, the executable and the log's end from here */
	if (err >= 0)
		err = nsl_jail_starter_fork(&j->starter, exe, sock, j->log[1], tool_user);
	if (exe >= 0)
		close(exe);
	if (sock >= 0)
		close(sock);
	if (j->log[1] >= 0)
		close(j->log[1]);
	j->log[1] = -1;
	return err < 0 ? err : 0;
}

/* ---- the child's life ---- */

static int64_t min_due(int64_t a, int64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* It is gone or must go: killed, reaped, the next one scheduled. */
static void child_ended(struct nsl_jail *j, const char *cause)
{
	int64_t now = nsl_mono_ms();
	char why[96] = "";

	close(j->chan);
	j->chan = -1;
	nsl_jail_end(&j->starter, why, sizeof(why));
	j->child = 0;
	__atomic_add_fetch(&j->restarts, 1, __ATOMIC_RELAXED);
	/* one that served long enough starts the count of failures again */
	if (j->ready && now - j->ready_ms >= NSL_JAIL_BACKOFF_MAX_MS)
		j->backoff_ms = NSL_JAIL_RESPAWN_MS;
	j->next_start_ms = j->spawned_ms + j->backoff_ms;
	j->backoff_ms = j->backoff_ms * 2 > NSL_JAIL_BACKOFF_MAX_MS ?
			NSL_JAIL_BACKOFF_MAX_MS : j->backoff_ms * 2;
	/* once per state change: not at every failure of a loop of them */
	if (!j->down_said)
		pr_warn("--listen: the server process %s%s%s%s%s\n", cause ? cause : why,
			cause ? " (it " : "", cause ? why : "", cause ? ")" : "",
			j->serving ? "; starting another, backing off while they fail" : "");
	j->down_said = true;
	j->ready = false;
	j->in_got = j->out_len = j->out_done = 0;
	j->rec_due_ms = j->pong_due_ms = j->out_due_ms = 0;
	j->pings = 0;
	j->pending = -1;
}

static void start_child(struct nsl_jail *j, int64_t now)
{
	pid_t pid = nsl_jail_spawn(&j->starter, &j->chan);

	j->spawned_ms = now;
	if (pid < 0) {
		if (!j->down_said)
			pr_warn("--listen: cannot start the server process: %s\n",
				strerror((int)-pid));
		j->down_said = true;
		j->next_start_ms = now + j->backoff_ms;
		return;
	}
	j->child = pid;
	j->heard_ms = now;
	/* it owes us its word that it serves */
	j->pong_due_ms = now + NSL_JAIL_START_MS;
}

/* ---- what we send it ---- */

static void send_record(struct nsl_jail *j, uint32_t kind, int err, const struct nsl_jail_kept *k)
{
	memset(&j->out, 0, sizeof(j->out));
	j->out.magic = NSL_JAIL_MAGIC;
	j->out.kind = kind;
	j->out.err = err;
	j->out_body = NULL;
	if (k) {
		j->out.len = k->len;
		j->out.plain = k->plain;
		memcpy(j->out.type, k->type, sizeof(j->out.type));
		j->out_body = k->gz;
	}
	j->out_len = sizeof(j->out) + j->out.len;
	j->out_done = 0;
	/* what it owes for a ping is the pong (pong_due_ms), not its reading */
	j->out_due_ms = kind == NSL_JAIL_ANSWER ? nsl_mono_ms() + NSL_JAIL_ANSWER_MS : 0;
}

/* What we send, as far as the channel takes it now: NULL, or why the child must go. */
static const char *flush_out(struct nsl_jail *j)
{
	while (j->out_done < j->out_len) {
		struct iovec iov[2];
		int n = 0;
		ssize_t w;

		if (j->out_done < sizeof(j->out))
			iov[n++] = (struct iovec){ (char *)&j->out + j->out_done,
						   sizeof(j->out) - j->out_done };
		if (j->out.len) {
			size_t at = j->out_done > sizeof(j->out) ? j->out_done - sizeof(j->out) : 0;

			iov[n++] = (struct iovec){ (char *)j->out_body + at, j->out.len - at };
		}
		w = writev(j->chan, iov, n);
		if (w < 0)	/* EPIPE: it ended, and its status says how */
			return errno == EAGAIN || errno == EINTR ? NULL :
			       errno == EPIPE || errno == ECONNRESET ? "" : "broke its channel";
		j->out_done += (size_t)w;
	}
	j->out_len = j->out_done = 0;
	j->out_due_ms = 0;
	return NULL;
}

/* Answers request repr now: kept, or rendered; or later (j->pending). */
static void answer(struct nsl_jail *j, unsigned int repr)
{
	const struct nsl_jail_kept *k;
	int err;

	if (nsl_mono_ns() < nsl_jail_cache_due(&j->cache, repr, nsl_mono_ns())) {
		j->pending = (int)repr;
		return;
	}
	k = nsl_jail_cache_answer(&j->cache, repr, &err);
	send_record(j, NSL_JAIL_ANSWER, err, k);
}

/* ---- what it sends us ---- */

/* A whole record from the child: 0, or what it did wrong. */
static const char *take_record(struct nsl_jail *j, int64_t now)
{
	uint32_t what = j->in.repr;

	j->in_got = 0;
	j->rec_due_ms = 0;
	j->heard_ms = now;
	if (j->in.magic != NSL_JAIL_MAGIC)
		return "sent a record without the magic";
	if (what == NSL_JAIL_READY) {
		if (j->ready)
			return "said twice that it serves";
		j->ready = true;
		j->ready_ms = now;
		j->pong_due_ms = 0;
		if (j->down_said)
			pr_warn("--listen: serving again (%" PRIu64 " restarts)\n",
				nsl_jail_restarts(j));
		j->down_said = false;
		return NULL;
	}
	if (!j->ready)
		return "asked before it said it serves";
	if (what == NSL_JAIL_PONG) {
		if (!j->pings)
			return "answered a ping we did not send";
		if (!--j->pings)
			j->pong_due_ms = 0;
		return NULL;
	}
	if (what >= NSL_JAIL_REPRS)
		return "asked for a representation there is none of";
	answer(j, what);
	return NULL;
}

/* Reads what the channel holds of its record: 0, or why the child must go. */
static const char *read_in(struct nsl_jail *j, int64_t now)
{
	ssize_t n = read(j->chan, (char *)&j->in + j->in_got, sizeof(j->in) - j->in_got);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? NULL : "closed its channel";
	if (!n)
		return "";	/* it ended: its status says how */
	if (!j->in_got)
		j->rec_due_ms = now + NSL_JAIL_DEADLINE_MS;
	j->in_got += (size_t)n;
	return j->in_got == sizeof(j->in) ? take_record(j, now) : NULL;
}

/* Its standard error to ours, NSL_JAIL_LOG_BYTES a second at most. */
static void forward_log(struct nsl_jail *j, int64_t now)
{
	char buf[4096];
	ssize_t n;

	if (now / 1000 != j->log_second) {
		j->log_second = now / 1000;
		j->log_bytes = 0;
	}
	if (j->log_bytes >= NSL_JAIL_LOG_BYTES)
		return;
	n = read(j->log[0], buf, sizeof(buf));
	if (!n) {	/* the starter and its children are gone */
		close(j->log[0]);
		j->log[0] = -1;
	}
	if (n <= 0)
		return;
	j->log_bytes += (size_t)n;
	while (write(STDERR_FILENO, buf, (size_t)n) < 0 && errno == EINTR)
		;
}

/*
 * One round of the keeper: what is due, then a wait of at most max_ms for
 * the child, the wake pipe or the next due time. False when woken to stop.
 */
static bool keep(struct nsl_jail *j, int max_ms)
{
	struct pollfd pfd[3] = { { .fd = j->wake[0], .events = POLLIN },
				 { .fd = j->log[0], .events = POLLIN },
				 { .fd = -1 } };
	int64_t now = nsl_mono_ms(), due, owed;
	const char *wrong = NULL;

	if (!j->child && now >= j->next_start_ms)
		start_child(j, now);
	owed = min_due(min_due(j->rec_due_ms, j->pong_due_ms), j->out_due_ms);
	if (j->child && owed && now >= owed) {
		child_ended(j, j->pong_due_ms && now >= j->pong_due_ms ?
			    (j->ready ? "did not answer a ping in time" : "did not start in time") :
			    j->rec_due_ms && now >= j->rec_due_ms ?
			    "did not finish a request in time" : "did not read an answer in time");
		return true;
	}
	if (j->pending >= 0) {
		unsigned int repr = (unsigned int)j->pending;

		j->pending = -1;
		answer(j, repr);	/* or pending again */
	}
	/* a quiet child is asked whether it still is there */
	if (j->child && j->ready && !j->pings && !j->out_len && j->pending < 0 &&
	    now - j->heard_ms >= NSL_JAIL_PING_MS) {
		j->pings++;
		j->pong_due_ms = now + NSL_JAIL_DEADLINE_MS;
		send_record(j, NSL_JAIL_PING, 0, NULL);
	}
	if (j->out_len && (wrong = flush_out(j))) {
		child_ended(j, *wrong ? wrong : NULL);
		return true;
	}

	due = j->child ? min_due(owed, j->ready && !j->pings ? j->heard_ms + NSL_JAIL_PING_MS : 0) :
	      j->next_start_ms;
	/* in ms, rounded up */
	due = min_due(min_due(due, j->pending >= 0 ?
			      nsl_jail_cache_due(&j->cache, (unsigned int)j->pending,
						 nsl_mono_ns()) / 1000000 + 1 : 0),
		      j->out_len ? j->out_due_ms : 0);
	if (j->child) {
		pfd[2].fd = j->chan;
		/* one request at a time: the next is read once this one is answered */
		pfd[2].events = j->out_len ? POLLOUT : j->pending < 0 ? POLLIN : 0;
	}
	if (j->log_bytes >= NSL_JAIL_LOG_BYTES && now / 1000 == j->log_second) {
		pfd[1].fd = -1;
		due = min_due(due, (now / 1000 + 1) * 1000);
	}
	due = due ? due - now : max_ms;
	if (due > max_ms)
		due = max_ms;
	if (poll(pfd, 3, (int)(due < 0 ? 0 : due)) < 0 && errno != EINTR)
		usleep(100 * 1000);	/* ENOMEM: a moment, not a spin */
	if (pfd[0].revents)
		return false;
	now = nsl_mono_ms();
	if (pfd[1].revents)
		forward_log(j, now);
	if (j->child && pfd[2].revents) {
		if (j->out_len)
			wrong = flush_out(j);
		else if (j->pending < 0)
			wrong = read_in(j, now);
		else if (pfd[2].revents & (POLLHUP | POLLERR))
			wrong = "";	/* it ended while its answer waited */
	}
	if (wrong)
		child_ended(j, *wrong ? wrong : NULL);
	return true;
}

static void *keeper(void *arg)
{
	struct nsl_jail *j = arg;

	while (keep(j, 1000))
		;
	return NULL;
}

int nsl_jail_start(struct nsl_jail *j, const struct nsl_jail_app *app)
{
	int64_t give_up = nsl_mono_ms() + NSL_JAIL_START_MS + 1000;
	sigset_t all, old;
	int err;

	j->cache.app = *app;
	j->backoff_ms = NSL_JAIL_RESPAWN_MS;
	if (pipe2(j->wake, O_CLOEXEC))
		return -errno;
	j->has_pipes = true;
	/* the first child, here: the endpoint is up when it says it serves */
	while (!j->ready && nsl_mono_ms() < give_up && !j->down_said)
		keep(j, 100);
	if (!j->ready) {
		pr_warn("--listen: the server process did not start (its messages are above)\n");
		return -ECHILD;
	}
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
	/* the starter kills its child when we close its channel: no wait here */
	nsl_jail_starter_stop(&j->starter);
	j->child = 0;
	if (j->chan >= 0)
		close(j->chan);
	j->chan = -1;
	if (j->has_pipes) {
		for (int i = 0; i < 2; i++)
			close(j->wake[i]);
		j->has_pipes = false;
	}
	if (j->log[0] >= 0)
		close(j->log[0]);
	j->log[0] = -1;
	nsl_jail_cache_free(&j->cache);
}

uint64_t nsl_jail_restarts(const struct nsl_jail *j)
{
	return __atomic_load_n(&j->restarts, __ATOMIC_RELAXED);
}

uint64_t nsl_jail_render_ns(const struct nsl_jail *j)
{
	return nsl_jail_cache_render_ns(&j->cache);
}
