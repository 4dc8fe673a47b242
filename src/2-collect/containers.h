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
 * The part of a cgroup path that names a container, filled into c (id,
 * runtime, pod_uid; the names are left alone). Returns the length of the
 * path up to the end of the container's own cgroup (its processes may
 * have made more below it), or -1 where the path names no container. For
 * the unit tests and nsl_container_of_cgroup().
 */
int nsl_container_parse_path(const char *path, struct nsl_container *c);

#endif /* NSL_CONTAINERS_H */
