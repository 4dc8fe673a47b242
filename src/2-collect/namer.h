/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The namer: a process of ours that keeps root's uid and CAP_SYS_PTRACE
 * after the tool dropped its privileges, and names containers for it
 * (containers.c): the runtimes' state files are root's, often readable
 * by root alone, and a process's network namespace (/proc/PID/ns/net) is
 * behind ptrace's read check. It answers the tool and nobody else, over
 * a socket pair, and reads nothing the tool does not ask for.
 */
#ifndef NSL_NAMER_H
#define NSL_NAMER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "containers.h"

/* argv[1] of our own executable run as the namer (main.c) */
#define NSL_NAMER_ARGV1 "--namer-process--"

struct nsl_namer {
	int fd;		/* our end of the socket pair; -1: no namer, name ourselves */
	pid_t pid;
	/*
	 * A route netlink socket in the namespace whose interfaces -I
	 * groups (-n PATH's; the loader's), for 'I' questions; -1: ours
	 */
	int links_fd;
};

/*
 * Starts the namer, a fresh exec of our executable, while we are still
 * root (before nsl_privs_drop()), with links_fd (or -1) for its
 * questions about interfaces. 0, or -errno (n->fd stays -1: the tool
 * then names what it can itself).
 */
int nsl_namer_start(struct nsl_namer *n, int links_fd);
void nsl_namer_stop(struct nsl_namer *n);

/*
 * nsl_container_of_cgroup() and nsl_containers_of_netns(), asked of the
 * namer where it runs, done here where not (n NULL, or no namer). A namer that stops answering
 * (gone, or stuck for NSL_NAMER_WAIT_MS) is stopped: what it was asked,
 * and everything after, is unnamed.
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

/* The namer's life (main.c, for NSL_NAMER_ARGV1): never returns. */
void __attribute__((noreturn)) nsl_namer_main(int argc, char **argv);

#endif /* NSL_NAMER_H */
