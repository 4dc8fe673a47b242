/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the reports go (-o FILE, or standard output): one sink, written
 * one whole report at a time. Three kinds, chosen at open:
 *
 *  - a stream: standard output, a pipe, a device, or a file that is not
 *    a regular one: written as it is;
 *  - a regular file: written as a stream too, and followed across
 *    rotation (renamed or removed: the next report starts a new file of
 *    that name; SIGHUP reopens it at once);
 *  - the atomic file of -F prometheus -o FILE, for node_exporter's
 *    textfile collector: each report is written whole to a temporary
 *    of a new name in FILE's directory and renamed over FILE.
 * Files no one can redirect (the tool runs as root in directories that
 * others may write to, issue #32): -o never follows a symbolic link
 * (but the kernel's names of our own descriptors, /dev/stdout, /dev/fd/N)
 * nor writes to a file with other hard links that it did not create;
 * the atomic file's temporaries are made with O_EXCL | O_NOFOLLOW under
 * unpredictable names through a descriptor of the directory, and FILE is
 * replaced only while it is a regular file (or absent).
 *
 * A report is rendered in memory first (nsl_output_render(), cheap, under
 * whatever lock the report's data needs), then written
 * (nsl_output_flush(), which may block on a slow reader, outside it). A
 * write that fails never ends the tool: the report is counted as lost,
 * nothing of it is left in the file, and the next one is tried.
 *
 * Pure userspace, unit-tested on the host (tests/unit/test_output.c).
 */
#ifndef NSL_OUTPUT_H
#define NSL_OUTPUT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/limits.h>
#include "report.h"

enum nsl_output_kind { NSL_OUTPUT_STREAM, NSL_OUTPUT_FOLLOWED, NSL_OUTPUT_ATOMIC };

struct nsl_output_conf {
	const char *path;		/* NULL: standard output */
	enum nsl_format format;		/* -F prometheus -o FILE: the atomic file */
	bool append;			/* --append: a stream file is not truncated */
	/*
	 * --user: a file the open creates is given to this user (chown
	 * true; its group stays the directory's), so that it can open it
	 * again after dropping root: at a SIGHUP, or when it was removed (the
	 * package's log directory is the service user's). A file that
	 * exists keeps its owner.
	 */
	bool chown;
	uid_t uid;
};

/* How long a blocked write may go on once the tool is stopping. */
#define NSL_OUTPUT_STOP_MS 2000
/* A sink that keeps failing says so again at most this often. */
#define NSL_OUTPUT_WARN_EVERY_S 60

struct nsl_output {
	enum nsl_output_kind kind;
	const char *path;		/* NULL: standard output */
	const char *name;		/* for messages: the path or "standard output" */
	int dir_fd;			/* the atomic file's directory (O_PATH), or -1 */
	char base[NAME_MAX + 1];	/* ... and its name there */
	int fd;				/* written now; -1: atomic (none kept) */
	bool eof_marker;		/* a Prometheus stream: "# EOF" after each */
	bool warned;			/* said that a rotated file cannot be reopened */
	bool blind;			/* said that rotation cannot be seen (stat fails) */
	/*
	 * The caller's, after open: non-zero (set by a signal handler) when
	 * the tool is stopping. A write blocked on a reader that does not
	 * read then gets NSL_OUTPUT_STOP_MS more, not forever. NULL: none.
	 */
	const volatile sig_atomic_t *stopping;
	char *buf;			/* the rendered report, not yet written */
	size_t len;
	/*
	 * Reports that could not be written, since the start (reports and
	 * /metrics show it; read with __atomic_load_n from other threads).
	 */
	uint64_t lost;
	int64_t said_ms;		/* when (CLOCK_MONOTONIC), 0: never */
	int failing;			/* the errno of the last failure, 0: none */
};

/*
 * Opens the sink c describes: a stream or followed file at once (so that
 * a bad path fails before anything is loaded; a FIFO without a reader
 * fails with -ENXIO, not a hang), the atomic file not (its temporary is
 * made at each write; see nsl_output_try_temporary() in atomic.h). 0 or
 * a negative errno, with nothing to close.
 */
int nsl_output_open(struct nsl_output *out, const struct nsl_output_conf *c);

/*
 * Renders one report in format fo, in memory, for the next
 * nsl_output_flush() (an earlier one not flushed is dropped). 0 or a
 * negative errno (-ENOMEM).
 */
int nsl_output_render(struct nsl_output *out, const struct nsl_report *rep,
		      const struct nsl_format_opts *fo);

/*
 * Writes the rendered report whole, to the file that is current when it
 * begins (a followed file that was renamed or removed is opened again
 * first), retrying short and interrupted writes. On failure nothing of it
 * stays in a file (a followed file is cut back to its size before; the
 * atomic file keeps the previous report), it counts in out->lost, and a
 * warning says so (at the first failure, then every
 * NSL_OUTPUT_WARN_EVERY_S while it lasts, and when writing works again).
 * 0, -EPIPE when nobody reads a stream any more (the caller ends quietly),
 * or another negative errno: the report is lost, the sink stays usable.
 */
int nsl_output_flush(struct nsl_output *out);

/* nsl_output_render() then nsl_output_flush(). */
int nsl_output_write(struct nsl_output *out, const struct nsl_report *rep,
		     const struct nsl_format_opts *fo);

/*
 * A followed file: opens the file of its name again, for appending (a new
 * one if it was moved away), and closes the old one (SIGHUP, logrotate's
 * postrotate). When that fails it says so once and goes on writing to the
 * old file. Nothing to do for the other kinds. 0, or the negative errno
 * of the failed open.
 */
int nsl_output_reopen(struct nsl_output *out);

/*
 * An fd whose POLLERR/POLLHUP says nobody reads the stream any more (a
 * pipe whose reader left, a terminal hung up), or -1: a file (followed or
 * atomic) never goes away so.
 */
int nsl_output_gone_fd(const struct nsl_output *out);

/* Whether out is the atomic file (its temporaries are made at each write). */
bool nsl_output_is_atomic(const struct nsl_output *out);

/* Reports lost so far; from any thread. */
uint64_t nsl_output_lost(const struct nsl_output *out);

/* Closes the file written now (not standard output). 0 or a negative errno. */
int nsl_output_close(struct nsl_output *out);

#endif /* NSL_OUTPUT_H */
