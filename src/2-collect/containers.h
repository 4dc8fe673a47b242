/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The container, and the Kubernetes pod, that a group's cgroup belongs
 * to, from the runtimes' own state (docs/containers.md): the cgroup path
 * says which runtime and which container id (and a pod's uid); the
 * runtime's files give the names. Resolved once, when a group is first
 * seen, and kept with it: a series' labels never change.
 */
#ifndef NSL_CONTAINERS_H
#define NSL_CONTAINERS_H

#include "report.h"

/*
 * The container of cgroup path (relative to the cgroup2 mount), or NULL:
 * the path names none, or no memory. Every name it holds is one the
 * runtime wrote, or NULL; the caller frees it with nsl_container_free().
 */
struct nsl_container *nsl_container_of_cgroup(const char *path);
void nsl_container_free(struct nsl_container *c);
/* A copy of c (NULL: none, or no memory) */
struct nsl_container *nsl_container_dup(const struct nsl_container *c);

/*
 * The containers of network namespaces, by inode: ask[i].c is set to the
 * container (or, for a pod's namespace, the pod: no container name) that
 * every process living in namespace ask[i].ino belongs to; where no
 * process is seen in it, the pod sandbox or podman container the CNI
 * result cache (cni.c) or podman's own state (rt_podman.c) says it was set
 * up for; else left NULL (a process in no container or in another one,
 * the host's namespace, no memory). One walk of /proc, and one of the CNI
 * cache and of podman's state, for all of ask: the caller
 * gathers the namespaces first seen in a report. Needs root (a process's
 * ns/net is behind ptrace's read check): another user sees none.
 * A namespace asked more than once (its groups of several hooks) gets
 * the same answer each time.
 */
struct nsl_netns_ask {
	uint64_t ino;
	struct nsl_container *c;
};
void nsl_containers_of_netns(struct nsl_netns_ask *ask, size_t n);

/*
 * nsl_containers_of_netns() in its two halves, for the namer
 * (namerproc.c), which does the first and has its Landlocked reader do
 * the second: the walk of /proc needs ptrace's read check on other
 * processes' ns/net, which a Landlocked process fails; the naming reads
 * runtimes' state, tenants' words in part, which the walk never does.
 *
 * 1. nsl_netns_walk(): what the processes of each ask[i].ino say, into
 *    seen[i] (the caller's n entries; -1 where /proc cannot be walked:
 *    nothing named). No state file read: a cgroup path is taken apart,
 *    never looked up. nsl_netns_seen_free() frees the paths.
 * 2. nsl_netns_of_cgroup(): the namespace of seen path's container (a
 *    pod's: the pod, no container's names); nsl_netns_of_state(): the
 *    namespaces no process was seen in, each ask[i].ino not 0 (the
 *    UNSEEN), by the CNI cache and podman's state, ask[i].c set where
 *    they say. An AGAIN gets its first's answer, a MIXED none.
 */
enum nsl_netns_saw {
	NSL_NETNS_UNSEEN,	/* no process seen in it */
	NSL_NETNS_ONE,		/* all in one container, or one pod: path */
	NSL_NETNS_MIXED,	/* processes of the host, or of several: none */
	NSL_NETNS_AGAIN,	/* asked before, at ask[first] */
};
struct nsl_netns_seen {
	enum nsl_netns_saw saw;
	char *path;	/* NSL_NETNS_ONE: the first process's cgroup path */
	size_t first;	/* NSL_NETNS_AGAIN: the first ask of its inode */
};
int nsl_netns_walk(const struct nsl_netns_ask *ask, size_t n, struct nsl_netns_seen *seen);
void nsl_netns_seen_free(struct nsl_netns_seen *seen, size_t n);
struct nsl_container *nsl_netns_of_cgroup(const char *path);
void nsl_netns_of_state(struct nsl_netns_ask *ask, size_t n);

/*
 * The part of a cgroup path that names a container, filled into c (id,
 * runtime, pod_uid; the names are left alone). Returns the length of the
 * path up to the end of the container's own cgroup (its processes may
 * have made more below it), or -1 where the path names no container. For
 * the unit tests and nsl_container_of_cgroup().
 */
int nsl_container_parse_path(const char *path, struct nsl_container *c);

#endif /* NSL_CONTAINERS_H */
