/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The namer: a process of ours that keeps root's uid and CAP_SYS_PTRACE
 * after the tool dropped its privileges, and names containers for it
 * (containers.c): the runtimes' state files are root's, often readable
 * by root alone, and a process's network namespace (/proc/PID/ns/net) is
 * behind ptrace's read check. It answers the tool and nobody else, over
 * a socket pair, and reads nothing the tool does not ask for; the
 * runtimes' state, its Landlocked reader reads. The tool's side is
 * namer.c, the namer's namerproc.c.
 *
 * The tool never waits on it for long, never for good: a question waits
 * NSL_NAMER_WAIT_MS at most, and while the namer owes answers to one that
 * timed out (stopped, wedged in the kernel, slow) the tool asks nothing:
 * the groups new meanwhile stay unnamed, for their lives (a series'
 * labels never change), and the tool asks again once the namer has
 * caught up. Its answers carry their question's number: a late one is
 * dropped, never taken for a later question's.
 *
 * Which process parses the runtimes' state (tenants' words, in part):
 *  - no namer was started (the tool not started by root; or its start
 *    failed, out of processes or memory, before the namer ran a line):
 *    the tool names what it can itself, with its own privileges, as a
 *    tool started by a user has always done (docs/containers.md);
 *  - a namer that ran and is gone (dead: killed by its seccomp list, or
 *    its confinement failed; its socket closed; an answer that is not
 *    one): nothing is named from then on, said once. Whatever ended it may
 *    have been a tenant's file, which the tool would then parse without
 *    the namer's sandbox; and the tool, without root's uid, cannot start
 *    another.
 */
#ifndef NSL_NAMER_H
#define NSL_NAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "containers.h"
#include "namerproc.h"

/* How long a question waits for all its answers */
#define NSL_NAMER_WAIT_MS 5000

struct nsl_namer {
	int fd;		/* our end of the socket pair; -1: none (see gone) */
	pid_t pid;	/* the namer, until reaped; 0: none */
	/*
	 * A route netlink socket in the namespace whose interfaces -I
	 * groups (-n PATH's; the loader's), for 'I' questions; -1: ours
	 */
	int links_fd;
	uint32_t seq;	/* the number of the last question asked */
	size_t owed;	/* its answers not come yet: it did not answer in time */
	bool gone;	/* it ran, and ended: nothing is named any more */
	bool silent;	/* said that it does not answer, not yet that it does */
	unsigned long refused;	/* answers whose names were no names (names.h) */
};

/*
 * Starts the namer, a fresh exec of our executable, while we are still
 * root (before nsl_privs_drop()), with links_fd (or -1) for its
 * questions about interfaces. 0, or -errno (n->fd stays -1: the tool
 * then names what it can itself).
 */
int nsl_namer_start(struct nsl_namer *n, int links_fd);
/* Closes our end, and reaps the namer if it is gone: never waits for it */
void nsl_namer_stop(struct nsl_namer *n);

/*
 * nsl_container_of_cgroup() and nsl_containers_of_netns(), asked of the
 * namer where it runs, done here where none was started (n NULL, or no
 * namer: see above). Unnamed (NULL) where the namer is gone, busy with a
 * question that timed out, or does not answer in time.
 */
struct nsl_container *nsl_namer_cgroup(struct nsl_namer *n, const char *path);
void nsl_namer_netns(struct nsl_namer *n, struct nsl_netns_ask *ask, size_t nr);

/*
 * The containers of the namespaces that interfaces of the namer's (the
 * tool's) namespace lead to: a pod's veth seen from the node names the
 * pod (peers.h). ask[i].c set; ask[i].ino is the namespace's, 0 if none.
 */
void nsl_namer_links(struct nsl_namer *n, const uint32_t *ifindex,
		     struct nsl_netns_ask *ask, size_t nr);

#endif /* NSL_NAMER_H */
