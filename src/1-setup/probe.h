/* SPDX-License-Identifier: GPL-2.0-only */
/* What the running kernel is: its version, where its functions are. */
#ifndef NSL_PROBE_H
#define NSL_PROBE_H

#include <stdint.h>

/* The running kernel's version as major << 8 | minor, or -1. */
int nsl_kernel_version(void);
#define NSL_KERNEL(major, minor) ((major) << 8 | (minor))

/*
 * Addresses (at) and extents (len) of the kernel functions names[0..n-1]
 * from /proc/kallsyms; 0 and 0 for one not found or hidden. at must be
 * zeroed by the caller. 0 or a negative errno.
 */
int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len);

#endif /* NSL_PROBE_H */
