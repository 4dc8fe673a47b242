/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tool may run in a cgroup namespace of its own (a container's on a
 * cgroup v2 node) while it sees the node's whole hierarchy mounted in:
 * processes' cgroups as /proc/PID/cgroup shows them, made paths of it.
 */
#ifndef NSL_CGROUPNS_H
#define NSL_CGROUPNS_H

#include <stddef.h>

/*
 * A cgroup path as /proc/PID/cgroup gives it (relative to the root of our
 * cgroup namespace, "/.." stepping out of it) as a path of the hierarchy
 * under the cgroup2 mount, in buf (or path itself, where the two are
 * one); NULL where that cannot be told (cgroupns.c).
 */
const char *nsl_cgroup_path_of_proc(const char *path, char *buf, size_t size);

#endif /* NSL_CGROUPNS_H */
