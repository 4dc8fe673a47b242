/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Least privilege: once the programs are attached and the maps are open,
 * the process only needs its file descriptors. See docs/security.md.
 */
#ifndef NSL_PRIVS_H
#define NSL_PRIVS_H

#include <stdbool.h>
#include <stdint.h>

/* Does the process hold what loading needs (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)? */
bool nsl_privs_can_load(void);

/*
 * Drops every capability (bounding set included), sets no_new_privs and,
 * with user != NULL, switches to that user and its groups. probe_fd is a
 * map fd (4-byte keys, small values): if reading it needs CAP_BPF on this kernel (before 6.5 with
 * kernel.unprivileged_bpf_disabled, every bpf() command checked it), that
 * one capability is kept, and *kept_bpf says so. Returns 0 or -errno.
 */
int nsl_privs_drop(const char *user, int probe_fd, bool *kept_bpf);

/*
 * Keeps the uid and capability cap alone (effective and permitted; the
 * bounding set emptied, no_new_privs), none with cap < 0: the container
 * namer's (src/2-collect/namer.c). Returns 0 or -errno.
 */
int nsl_privs_keep_only(int cap);

/* The same for a set of capabilities (a bit mask of caps < 64). */
int nsl_privs_keep(uint64_t caps);

/*
 * Empties the calling thread's capability bounding set, as far as it
 * holds CAP_SETPCAP (in its user namespace); async-signal-safe.
 */
void nsl_privs_empty_bounding_set(void);

/*
 * Runs fn(ctx) in a child of ours holding what this process will hold
 * after nsl_privs_drop(user, -1, ...): no capability, and user's ids with
 * user != NULL; returns what fn returned (0 or a negative errno). Root
 * without CAP_DAC_OVERRIDE cannot create files in a directory it does not
 * own, such as a textfile directory of node_exporter's user: this is how
 * the start-up finds out.
 */
int nsl_privs_try(const char *user, int (*fn)(void *ctx), void *ctx);

#endif /* NSL_PRIVS_H */
