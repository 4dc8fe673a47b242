/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtimes' state files as the container naming reads them
 * (containers.c, cni.c, rt_*.c): only regular files that root owns and only root
 * may write, not through a symbolic link, at most NSL_STATE_MAX bytes. A
 * rootless runtime keeps its state in its user's home, which a tenant
 * writes: never read. Test seam: NSL_TEST_STATE_ROOT prefixes every path
 * (tests/integration/test_containers.sh).
 */
#ifndef NSL_STATEFILE_H
#define NSL_STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "report.h"

/* the largest state file read: a bundle's config.json is some 10 KiB */
#define NSL_STATE_MAX (8u << 20)
/* a name longer than this is cut: Kubernetes' names are at most 253 */
#define NSL_NAME_MAX 253

/* Whether [s, s + n) is a container id (NSL_CONTAINER_ID_LEN lowercase hex digits). */
bool nsl_is_id(const char *s, size_t n);

/* The path where state file path lies, in full[4096]: 0, or -1 (too long). */
int nsl_state_path(char full[4096], const char *path);

/* State file path's text, NUL-terminated (malloc'ed), or NULL. */
char *nsl_state_text(const char *path);

/* State file path parsed as JSON (json_object_put() it), or NULL. */
json_object *nsl_state_json(const char *path);

/*
 * The inode of the network namespace that a runtime pinned at path (a
 * bind mount on nsfs under /run/netns/ or /var/run/netns/, without "..",
 * the last component not a link), looked at now; 0 for any other path, a
 * stale one (its mount gone) included. The path comes from a file the
 * runtime's callers fill: nothing else is looked at.
 */
uint64_t nsl_pinned_netns(const char *path);

/* obj[key] as a string of at most NSL_NAME_MAX bytes (malloc'ed), or NULL. */
char *nsl_str_of(json_object *obj, const char *key);

#endif /* NSL_STATEFILE_H */
