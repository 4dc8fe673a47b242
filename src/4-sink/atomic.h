/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The writes of the report sink (output.h): a rendered report written
 * whole to an fd, and the atomic file of -F prometheus -o FILE, each
 * report written to a temporary of a new name in FILE's directory and
 * renamed over FILE. output.c calls these; they call nothing of it.
 */
#ifndef NSL_ATOMIC_H
#define NSL_ATOMIC_H

#include <stddef.h>
#include "output.h"

/*
 * The atomic file's directory, held open (out->dir_fd), and path's name
 * in it (out->base), if path may be replaced: 0 or a negative errno, with
 * nothing to close.
 */
int nsl_open_atomic(struct nsl_output *out, const char *path);

/*
 * All of buf to fd, through short and interrupted writes; NSL_OUTPUT_STOP_MS
 * more once *out->stopping. 0 or a negative errno (-ETIMEDOUT: the stop's).
 */
int nsl_write_all(struct nsl_output *out, int fd, const char *buf, size_t len);

/* out's rendered report, as a new FILE: 0 or a negative errno. */
int nsl_write_atomically(struct nsl_output *out);

/*
 * Makes a temporary in the atomic file's directory and removes it, as
 * each write will: 0 or a negative errno. For the start-up check, in a
 * child with the privileges the tool will run with (nsl_privs_try()).
 */
int nsl_output_try_temporary(void *out);

#endif /* NSL_ATOMIC_H */
