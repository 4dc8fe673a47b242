/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CNI plugins' result cache, where the runtimes keep which container
 * each network namespace was set up for (for containers.c).
 */
#ifndef NSL_CNI_H
#define NSL_CNI_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

#define NSL_CNI_RESULTS "/var/lib/cni/results"

/*
 * For each network namespace inode ino[i] that a cached result was set up
 * in, its container's id (a pod's sandbox under containerd
 * and CRI-O) in ids[i]; "-" where results of two containers claim it; ""
 * for the others. Returns how many were found (ids).
 */
size_t nsl_cni_sandboxes(const uint64_t *ino, size_t n,
			 char (*ids)[NSL_CONTAINER_ID_LEN + 1]);

#endif /* NSL_CNI_H */
