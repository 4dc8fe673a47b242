/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * podman's own state, where it keeps which network namespace each of its
 * containers runs in, whichever network backend set it up (for
 * containers.c).
 */
#ifndef NSL_RT_PODMAN_H
#define NSL_RT_PODMAN_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/* root podman's graph root and run root, per container: ID/userdata/ */
#define NSL_PODMAN_GRAPH "/var/lib/containers/storage/overlay-containers"
#define NSL_PODMAN_RUN "/run/containers/storage/overlay-containers"

/*
 * For each network namespace inode ino[i] (0: not asked) that podman
 * pinned for one of its containers, the container's id in ids[i] (its
 * sandbox's where its spec names one: a CRI-O pod's); "-" where two
 * claim it or another container joins it; "" for the others. Returns how
 * many were found (ids).
 */
size_t nsl_podman_netns(const uint64_t *ino, size_t n,
			char (*ids)[NSL_CONTAINER_ID_LEN + 1]);

#endif /* NSL_RT_PODMAN_H */
