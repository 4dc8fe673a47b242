/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /metrics in a jail (issues #32, #44): the HTTP server (libmicrohttpd,
 * which parses what any client sends) runs in a child process that holds
 * its listening socket, one channel to us and a pipe for its messages,
 * and nothing else: a fresh image of our executable (no mapping of the
 * BPF object's data, no map or program fd), an empty environment, no
 * capabilities, no_new_privs, resource limits, empty namespaces where the
 * kernel lets an unprivileged process make them, and a seccomp allow-list
 * with every argument that selects an operation checked. It asks us for
 * an answer over the channel; the application that started the jail
 * renders it (struct nsl_jail_app: the jail knows nothing of what it
 * serves) and we send it back, compressed.
 *
 * We never wait on the child: the channel is non-blocking on our side and
 * every record the child owes us has a deadline (the rest of a record it
 * began, the answer to a ping when it has been quiet, the reading of an
 * answer). A child that misses one, breaks the protocol or dies is killed
 * and another started, backing off while they keep failing. Renders are
 * bounded too: an answer is reused while it is younger than its render
 * took, and the next render waits as long as the last one took.
 * docs/security.md says what the child holds and why.
 */
#ifndef NSL_JAIL_H
#define NSL_JAIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "jailcache.h"
#include "jailproc.h"
#include "jailwire.h"

/* a dead child is started again after this, doubled while they keep failing ... */
#define NSL_JAIL_RESPAWN_MS 1000
/* ... up to this; a child that served this long starts the count again */
#define NSL_JAIL_BACKOFF_MAX_MS 30000
/* from its start to its word that it serves (exec, the library, seccomp) */
#define NSL_JAIL_START_MS 10000
/* a quiet child is pinged this often ... */
#define NSL_JAIL_PING_MS 3000
/* ... and owes each record this soon: a pong, the rest of a record it began */
#define NSL_JAIL_DEADLINE_MS 2000
/* it reads an answer of ours within this */
#define NSL_JAIL_ANSWER_MS 5000
/* its messages forwarded to our standard error, at most, per second */
#define NSL_JAIL_LOG_BYTES 16384

struct nsl_jail {
	struct nsl_jail_starter starter;	/* holds the socket and our executable */
	struct nsl_jail_cache cache;	/* what we render, and the bounds on it */
	int chan;			/* our end of the channel (non-blocking), or -1 */
	int log[2];			/* the children's standard error: we read [0] */
	pid_t child;			/* 0: none */
	bool ready;			/* it said it serves */
	int64_t spawned_ms, ready_ms, next_start_ms, backoff_ms;
	int64_t heard_ms;		/* its last record */
	int64_t rec_due_ms;		/* it owes the rest of a record by then (0: none) */
	int64_t pong_due_ms;		/* ... the answer to our ping */
	int64_t out_due_ms;		/* ... to have read our answer */
	unsigned int pings;		/* pings it owes a pong */
	struct jail_req in;		/* the record it is sending */
	size_t in_got;
	struct jail_resp out;		/* the record we are sending */
	const char *out_body;		/* its body (kept[]'s), or NULL */
	size_t out_len, out_done;	/* header and body */
	int pending;			/* a request waiting for the next render, or -1 */
	int64_t log_second;		/* NSL_JAIL_LOG_BYTES per second of the clock */
	size_t log_bytes;
	bool down_said;			/* we said it is down, not yet that it serves */
	uint64_t restarts;		/* children started again after one ended */
	int wake[2];			/* a byte stops the thread */
	bool has_pipes, serving;
	pthread_t thread;
};

/* A jail with nothing yet: nsl_jail_stop() may be called on it. */
#define NSL_JAIL_INIT { .starter = { .ctl = -1 }, .chan = -1, .log = { -1, -1 }, \
			.wake = { -1, -1 }, .pending = -1 }

/*
 * Binds and listens on addr:port (numeric, IPv4 or IPv6), and forks the
 * starter of the children (jailproc.h), which holds the socket from then
 * on. Done early, while privileged (ports below 1024, the jail's user)
 * and before anything is loaded, so that a port in use is a start-up
 * error. tool_user: the user the tool runs as after set-up (NULL: its
 * own). Returns 0 or a negative errno.
 */
int nsl_jail_bind(struct nsl_jail *j, const char *addr, uint16_t port, const char *tool_user);

/*
 * Starts the child and waits until it says it serves (at most
 * NSL_JAIL_START_MS), then a thread of ours that answers it and replaces
 * it when it ends. Call it after dropping privileges: the child gets the
 * credentials we have then. 0, or a negative errno when no child serves
 * (what it said is on our standard error).
 */
int nsl_jail_start(struct nsl_jail *j, const struct nsl_jail_app *app);

/* Stops the thread and the child, closes the socket; never waits on the child. */
void nsl_jail_stop(struct nsl_jail *j);

/* Children started again after one ended (read by the render, in the thread). */
uint64_t nsl_jail_restarts(const struct nsl_jail *j);

/* Nanoseconds we spent rendering answers for it, since the start. */
uint64_t nsl_jail_render_ns(const struct nsl_jail *j);

#endif /* NSL_JAIL_H */
