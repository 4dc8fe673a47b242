/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /metrics in a jail (issue #32): the HTTP server (libmicrohttpd, which
 * parses what any client sends) runs in a child process that holds its
 * listening socket and one channel to us, and nothing else: a fresh image
 * of our executable (no mapping of the BPF object's data, no map or
 * program fd), no capabilities, no_new_privs, the tool's user, empty
 * namespaces where the kernel lets an unprivileged process make them, and
 * a seccomp allow-list. It asks us for an answer over the channel; the
 * application that started the jail renders it (struct nsl_jail_app: the
 * jail knows nothing of what it serves) and we send it back, compressed.
 * A child that dies is started again (counted, at most once a second);
 * reports never wait for it. docs/security.md says what it holds and why.
 */
#ifndef NSL_JAIL_H
#define NSL_JAIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* argv[1] of the child: main() hands over to nsl_jail_child_main() */
#define NSL_JAIL_ARGV1 "--jailed-metrics-server"
/* a dead child is started again at most this often */
#define NSL_JAIL_RESPAWN_MS 1000

/* What the parent serves: an answer of representation repr rendered into out. */
struct nsl_jail_app {
	void *ctx;
	/* *type: its Content-Type (a static string). 0 or a negative errno. */
	int (*render)(void *ctx, unsigned int repr, FILE *out, const char **type);
};

struct nsl_jail {
	int sock;			/* bound and listening, or -1 */
	int exe_fd;			/* our executable, opened at bind: the child's image */
	struct nsl_jail_app app;
	int chan;			/* our end of the channel to the child, or -1 */
	pid_t child;			/* 0: none */
	int64_t spawned_ms;		/* when the last one was started */
	uint64_t restarts;		/* children started again after they died */
	int wake[2];			/* a byte stops the thread */
	bool has_pipe, serving;
	pthread_t thread;
};

/*
 * Binds and listens on addr:port (numeric, IPv4 or IPv6). Done early, while
 * privileged (ports below 1024) and before anything is loaded, so that a
 * port in use is a start-up error. Returns 0 or a negative errno.
 */
int nsl_jail_bind(struct nsl_jail *j, const char *addr, uint16_t port);

/*
 * Starts the child, and a thread of ours that answers it and starts it
 * again when it dies. Call it after dropping privileges: the child gets
 * the credentials we have then.
 */
int nsl_jail_start(struct nsl_jail *j, const struct nsl_jail_app *app);

/* Stops the thread and the child, closes the socket. */
void nsl_jail_stop(struct nsl_jail *j);

/* Children started again after they died (read by the render, in the thread). */
uint64_t nsl_jail_restarts(const struct nsl_jail *j);

#endif /* NSL_JAIL_H */
