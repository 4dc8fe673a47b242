/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The jail's children as processes (jail.h). They are started by a
 * process of their own, the starter, forked while we are still root:
 * it takes the jail's user (a uid of its own: never ours, so that no
 * child can signal or trace us), keeps the listening socket, our
 * executable and the children's standard error, and on our word starts
 * a child in new namespaces, or kills and reaps it. We can no longer
 * signal a process of that user once we dropped our capabilities: the
 * starter does it for us.
 */
#ifndef NSL_JAILPROC_H
#define NSL_JAILPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* the jail's user: the package's, else nobody (docs/security.md) */
#define NSL_JAIL_USER "netstacklat-http"
/* the starter answers each word within this (it only forks, or reaps) */
#define NSL_JAIL_STARTER_MS 2000

/*
 * A listening socket on addr:port (numeric, IPv4 or IPv6), non-blocking:
 * its fd, or a negative errno.
 */
int nsl_jail_listen(const char *addr, uint16_t port);

struct nsl_jail_starter {
	pid_t pid;			/* 0: none */
	int ctl;			/* our end of its channel, or -1 */
};

/*
 * Forks the starter, which holds sock, exe_fd and log_fd (the children's
 * standard error) from then on: the caller may close its copies. Run by
 * root, it takes the jail's user, or nobody where the package's is
 * missing, or tool_user's where the tool runs as nobody too (said on
 * stderr). 0 or a negative errno.
 */
int nsl_jail_starter_fork(struct nsl_jail_starter *s, int exe_fd, int sock, int log_fd,
			  const char *tool_user);

/* A new child: its pid, *chan our end of its channel (non-blocking); or a negative errno. */
pid_t nsl_jail_spawn(struct nsl_jail_starter *s, int *chan);

/* The child killed (if it still ran) and reaped; why: how it ended, in words. */
void nsl_jail_end(struct nsl_jail_starter *s, char *why, size_t len);

/* The starter told to go (it kills its child first); reaped if it went within 0.5 s. */
void nsl_jail_starter_stop(struct nsl_jail_starter *s);

#endif /* NSL_JAILPROC_H */
