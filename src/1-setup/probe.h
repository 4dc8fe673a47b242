/* SPDX-License-Identifier: GPL-2.0-only */
/* What the running kernel is: its version (its symbols: ksyms.h). */
#ifndef NSL_PROBE_H
#define NSL_PROBE_H

#include <stdint.h>

/* The running kernel's version as major << 8 | minor, or -1. */
int nsl_kernel_version(void);
#define NSL_KERNEL(major, minor) ((major) << 8 | (minor))

#endif /* NSL_PROBE_H */
