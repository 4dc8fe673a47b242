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
#include <sys/stat.h>
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

/*
 * State file path opened read-only after the checks above, made on the
 * descriptor (so that what is checked is what is read): the descriptor,
 * st its fstat(); or -1.
 */
int nsl_state_open(const char *path, struct stat *st);
/* The st_size bytes of an opened state file, NUL-terminated (malloc'ed), or NULL. */
char *nsl_state_read(int fd, const struct stat *st);
/* Whether a and b are the same file unchanged: device, inode, size, mtime, ctime. */
bool nsl_state_same(const struct stat *a, const struct stat *b);
/*
 * Whether a file of identity st may have changed since without its
 * identity changing: its ctime less than a second ago (statefile.c).
 */
bool nsl_state_racy(const struct stat *st);

/* State file path's text, NUL-terminated (malloc'ed), or NULL. */
char *nsl_state_text(const char *path);

/*
 * State file path parsed as JSON (json_object_put() it), or NULL. A
 * file's parse is kept while the file keeps its identity (nsl_state_same()
 * on the descriptor read; a racy one's bytes also compared), so that a
 * lookup per container does not parse podman's containers.json (up to
 * NSL_STATE_MAX) each time: what is returned is shared, a reference of
 * its own (read it, never change it). Kept: files of at least
 * NSL_STATE_CACHE_MIN bytes (a smaller one parses in well under a
 * millisecond: bundles, docker's config.v2.json), at most
 * NSL_STATE_CACHE_FILES of them and NSL_STATE_CACHE_BYTES of their sizes
 * together, least recently used out first. json-c's tree takes 4.5 times
 * the text (measured: docs/performance.md), so at most some 36 MiB of
 * trees (and the text of a racy file, up to 8 MiB more); a node's one
 * containers.json (podman's and CRI-O's storage share it) of 1,000
 * containers is 0.7 MB, its tree 3 MB. One thread of a process calls it
 * (the namer's, or the tool's tick): the cache has no lock.
 */
json_object *nsl_state_json(const char *path);
#define NSL_STATE_CACHE_MIN (64u << 10)
#define NSL_STATE_CACHE_FILES 4
#define NSL_STATE_CACHE_BYTES NSL_STATE_MAX

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
