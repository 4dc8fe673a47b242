/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The jail's child as a process (jail.h): started from our executable with
 * its descriptors and nothing else, and ended, never waited on longer than
 * a SIGKILL takes.
 */
#ifndef NSL_JAILPROC_H
#define NSL_JAILPROC_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Starts a child of exe_fd serving on sock, with its standard error to
 * log_fd; *chan gets our end of its channel (non-blocking). Its pid, or a
 * negative errno.
 */
pid_t nsl_jail_spawn(int exe_fd, int sock, int log_fd, int *chan);

/* Kills child pid (if it still runs) and reaps it; why: how it ended, in words. */
void nsl_jail_end(pid_t pid, char *why, size_t len);

#endif /* NSL_JAILPROC_H */
