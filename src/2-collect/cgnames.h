/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup v2 ids named by their paths (the groups of -C). */
#ifndef NSL_CGNAMES_H
#define NSL_CGNAMES_H

#include <stdint.h>

/*
 * Path of cgroup id relative to the cgroup2 mount, or NULL (no such
 * cgroup under the mount now); the caller frees it.
 */
char *nsl_cgroup_path(uint64_t id);
void nsl_cgroup_cache_free(void);

#endif /* NSL_CGNAMES_H */
