/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seccomp allow-lists (libseccomp) for the two processes that parse what
 * others wrote: the /metrics server in its jail (src/4-sink/jailchild.c)
 * and the container namer (src/2-collect/namer.c). Each builds its own
 * list from these pieces on nsl_sandbox_new()'s filter, whose default
 * kills the process.
 */
#ifndef NSL_SANDBOX_H
#define NSL_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <seccomp.h>

/*
 * An int argument as the kernel reads it: its low 32 bits (a caller may
 * set the others, which a compare of all 64 would count).
 */
#define NSL_ARG32(n, v) SCMP_CMP((n), SCMP_CMP_MASKED_EQ, 0xffffffffULL, (uint32_t)(v))

/*
 * A filter that kills the process at any call not allowed since; in a
 * sanitizer build, with what its runtime calls already allowed. NULL
 * where none can be made.
 */
scmp_filter_ctx nsl_sandbox_new(void);

/*
 * Allows the calls named, with any arguments; a name this architecture
 * lacks is skipped. 0 or a negative errno.
 */
int nsl_sandbox_allow(scmp_filter_ctx f, const char *const *names, size_t n);

/*
 * What malloc and free need, and nothing that could run: brk, munmap,
 * mmap and mprotect without PROT_EXEC, madvise to give memory back
 * (MADV_DONTNEED, MADV_FREE), mremap in place or moved (never onto
 * another mapping: no MREMAP_FIXED). 0 or a negative errno.
 */
int nsl_sandbox_allow_memory(scmp_filter_ctx f);

/* abort() signals itself, and nothing else: tgkill of this thread only. */
int nsl_sandbox_allow_abort(scmp_filter_ctx f);

/*
 * Landlock (Linux 5.13+, sandbox.c): from now on this process opens files
 * to read, and lists directories, only beneath dirs[] (one that is not
 * there, or no directory, is skipped), and nothing anywhere to write,
 * make, remove or run; where the kernel's Landlock is newer, no TCP
 * socket bound or connected, no signal or abstract unix socket outside.
 * Needs no_new_privs. 0; -EOPNOTSUPP where the kernel has no Landlock
 * (not built, or not among its LSMs); else -errno, and nothing confined.
 */
int nsl_sandbox_confine_reads(const char *const *dirs, size_t n);

#endif /* NSL_SANDBOX_H */
