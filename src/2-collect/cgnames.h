/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup v2 ids named by their paths (the groups of -C). */
#ifndef NSL_CGNAMES_H
#define NSL_CGNAMES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Path of cgroup id relative to the cgroup2 mount, or NULL (no such
 * cgroup under the mount, or not looked for yet); the caller frees it.
 * An id not known yet is looked for by a walk of the hierarchy, at most
 * one per tick; until then, NULL. recheck: the path it gave is wrong now
 * (moved, or gone): looked for again at the next walk (this tick's, if
 * none was made yet); until then, the old path.
 */
char *nsl_cgroup_path(uint64_t id, bool recheck);
/* A new tick (a report interval): one walk more is allowed. */
void nsl_cgroup_names_tick(void);
void nsl_cgroup_cache_free(void);

#endif /* NSL_CGNAMES_H */
