/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the reports go (-o FILE, or standard output): one sink, written
 * one whole report at a time. Three kinds, chosen at open:
 *
 *  - a stream: standard output, a pipe, a device, or a file that is not
 *    a regular one: written as it is;
 *  - a regular file: written as a stream too, and followed across
 *    rotation (renamed or removed: the next report starts a new file of
 *    that name);
 *  - the atomic file of -F prometheus -o FILE, for node_exporter's
 *    textfile collector: each report is written whole to FILE.tmp and
 *    renamed over FILE.
 *
 * Pure userspace (stdio and the formats), unit-tested on the host
 * (tests/unit/test_output.c).
 */
#ifndef NSL_OUTPUT_H
#define NSL_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include "report.h"

enum nsl_output_kind { NSL_OUTPUT_STREAM, NSL_OUTPUT_FOLLOWED, NSL_OUTPUT_ATOMIC };

struct nsl_output_conf {
	const char *path;		/* NULL: standard output */
	enum nsl_format format;		/* -F prometheus -o FILE: the atomic file */
	bool append;			/* --append: a stream file is not truncated */
};

struct nsl_output {
	enum nsl_output_kind kind;
	const char *path;		/* NULL: standard output */
	const char *name;		/* for messages: the path or "standard output" */
	char tmp[PATH_MAX];		/* the atomic file's FILE.tmp */
	FILE *f;			/* the stream written now; NULL: atomic */
	bool eof_marker;		/* a Prometheus stream: "# EOF" after each */
	bool warned;			/* said that a rotated file cannot be reopened */
};

/*
 * Opens the sink c describes: a stream or followed file at once (so that
 * a bad path fails before anything is loaded), the atomic file not (its
 * temporary is made at each write; see nsl_output_atomic_tmp()). 0 or a
 * negative errno, with nothing to close.
 */
int nsl_output_open(struct nsl_output *out, const struct nsl_output_conf *c);

/*
 * Writes one report whole in format fo, to the file that is current when
 * it begins (nsl_output_reopen() first, for a followed file). 0, -EPIPE
 * when nobody reads a stream any more, or another negative errno.
 */
int nsl_output_write(struct nsl_output *out, const struct nsl_report *rep,
		     const struct nsl_format_opts *fo);

/*
 * A followed file that was renamed or removed: opens a file of its name
 * again, for appending, and closes the old one. When that fails it says
 * so once and goes on writing to the old file. Nothing to do for the
 * other kinds. 0, or the negative errno of the failed open.
 */
int nsl_output_reopen(struct nsl_output *out);

/*
 * An fd whose POLLERR/POLLHUP says nobody reads the stream any more (a
 * pipe whose reader left, a terminal hung up), or -1: a file (followed or
 * atomic) never goes away so.
 */
int nsl_output_gone_fd(const struct nsl_output *out);

/* The atomic file's temporary (FILE.tmp), or NULL for the other kinds. */
const char *nsl_output_atomic_tmp(const struct nsl_output *out);

/* Closes the file written now (not standard output). 0 or a negative errno. */
int nsl_output_close(struct nsl_output *out);

#endif /* NSL_OUTPUT_H */
