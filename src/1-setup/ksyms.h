/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the running kernel's functions are: /proc/kallsyms. */
#ifndef NSL_KSYMS_H
#define NSL_KSYMS_H

#include <stdint.h>

/*
 * Addresses (at) and extents (len: to the next symbol's address) of the
 * kernel symbols names[0..n-1] from /proc/kallsyms; 0 and 0 for one not
 * found or hidden (kptr_restrict). at must be zeroed by the caller. 0 or
 * a negative errno.
 */
int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len);

/* The same, from fd (kallsyms' format), read to its end. */
int nsl_ksym_ranges_fd(int fd, const char *const *names, int n, uint64_t *at,
		       uint64_t *len);

#endif /* NSL_KSYMS_H */
