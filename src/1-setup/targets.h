/* SPDX-License-Identifier: GPL-2.0-only */
/* Network namespaces and cgroup v2 directories, as -n and -c name them. */
#ifndef NSL_TARGETS_H
#define NSL_TARGETS_H

#include <stddef.h>
#include <stdint.h>

/* Inode number of the network namespace at path (nsfs file). */
int nsl_netns_inode(const char *path, uint64_t *ino);
/* Finds a path (/run/netns/X or /proc/PID/ns/net) of the netns with inode ino. */
int nsl_netns_find(uint64_t ino, char *path, size_t len);
/* Enters the netns at path; *saved gets an fd to return with nsl_netns_leave(). */
int nsl_netns_enter(const char *path, int *saved);
int nsl_netns_leave(int saved);

/* Mount point of cgroup v2, or NULL if there is none. */
const char *nsl_cgroup2_root(void);
/* cgroup v2 id (what bpf_get_current_cgroup_id() returns) of a cgroup dir. */
int nsl_cgroup_id(const char *path, uint64_t *id);

#endif /* NSL_TARGETS_H */
