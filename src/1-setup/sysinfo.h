/* SPDX-License-Identifier: GPL-2.0-only */
/* What the tool needs to know about, or set up in, the running system. */
#ifndef NSL_SYSINFO_H
#define NSL_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "netstacklat.h"

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
/*
 * Path of cgroup id relative to the cgroup2 mount, or NULL (no such
 * cgroup under the mount now); the caller frees it.
 */
char *nsl_cgroup_path(uint64_t id);
void nsl_cgroup_cache_free(void);

/* The running kernel's version as major << 8 | minor, or -1. */
int nsl_kernel_version(void);
#define NSL_KERNEL(major, minor) ((major) << 8 | (minor))

/*
 * Addresses (at) and extents (len) of the kernel functions names[0..n-1]
 * from /proc/kallsyms; 0 and 0 for one not found or hidden. at must be
 * zeroed by the caller. 0 or a negative errno.
 */
int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len);

#endif /* NSL_SYSINFO_H */
