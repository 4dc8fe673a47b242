// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report sink (output.h): standard output, -o FILE as a stream that
 * follows rotation, or -F prometheus -o FILE replaced atomically.
 *
 * Relies on rename(2) replacing its target atomically (POSIX): a reader
 * of FILE sees the previous report or the new one, whole, never a mix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "log.h"
#include "output.h"

int nsl_output_open(struct nsl_output *out, const struct nsl_output_conf *c)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->path = c->path;
	out->name = c->path ? c->path : "standard output";
	out->eof_marker = c->format == NSL_FMT_PROMETHEUS;
	if (!c->path) {
		out->kind = NSL_OUTPUT_STREAM;
		out->f = stdout;
		return 0;
	}
	/*
	 * node_exporter's textfile collector may read FILE at any moment:
	 * each report goes to FILE.tmp (ignored by the collector, which
	 * reads *.prom) and is renamed over FILE.
	 */
	if (c->format == NSL_FMT_PROMETHEUS) {
		out->kind = NSL_OUTPUT_ATOMIC;
		out->eof_marker = false;	/* one exposition a file */
		snprintf(out->tmp, sizeof(out->tmp), "%s.tmp", c->path);
		return 0;
	}
	out->f = fopen(c->path, c->append ? "a" : "w");
	if (!out->f)
		return -errno;
	/* a FIFO or a device has no name to follow */
	out->kind = !fstat(fileno(out->f), &st) && S_ISREG(st.st_mode) ?
		    NSL_OUTPUT_FOLLOWED : NSL_OUTPUT_STREAM;
	return 0;
}

/*
 * When logrotate (or anyone) renames or removes the file, the next report
 * goes to a file of that name again, opened for appending (logrotate's
 * "create" made it, or we do). Checked before each report, so a report is
 * never split: it goes whole to the file that was current when it began,
 * and the old one is flushed and closed. (copytruncate would lose what is
 * written while it copies.)
 */
int nsl_output_reopen(struct nsl_output *out)
{
	struct stat a, b;
	FILE *f;

	if (out->kind != NSL_OUTPUT_FOLLOWED)
		return 0;
	if (!fstat(fileno(out->f), &a) && !stat(out->path, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	f = fopen(out->path, "a");
	if (!f) {
		int err = -errno;

		/* keep writing where we did; say it once */
		if (!out->warned)
			pr_warn("-o: %s was moved away and cannot be opened again (%s): "
				"writing on to the old file\n", out->path, strerror(-err));
		out->warned = true;
		return err;
	}
	if (fclose(out->f))
		pr_warn("-o: closing the rotated %s: %s\n", out->path, strerror(errno));
	out->warned = false;
	out->f = f;
	return 0;
}

static int write_atomically(struct nsl_output *out, const struct nsl_report *rep,
			    const struct nsl_format_opts *fo)
{
	FILE *f;
	int err;

	f = fopen(out->tmp, "w");
	if (!f)
		return -errno;
	err = nsl_format_report(f, rep, fo);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(out->tmp, out->path))
		err = -errno;
	if (err)
		unlink(out->tmp);
	return err;
}

/*
 * A stream of Prometheus expositions (stdout, a pipe, -o without the
 * atomic file) ends each with "# EOF", as OpenMetrics does: a comment to
 * parsers of the text format, and the line a consumer splits the stream
 * at (one exposition alone would repeat its HELP lines).
 */
int nsl_output_write(struct nsl_output *out, const struct nsl_report *rep,
		     const struct nsl_format_opts *fo)
{
	int err;

	if (out->kind == NSL_OUTPUT_ATOMIC)
		return write_atomically(out, rep, fo);
	nsl_output_reopen(out);
	err = nsl_format_report(out->f, rep, fo);
	if (!err && out->eof_marker &&
	    (fputs("# EOF\n", out->f) == EOF || fflush(out->f) == EOF))
		err = errno > 0 ? -errno : -EIO;
	return err;
}

int nsl_output_gone_fd(const struct nsl_output *out)
{
	return out->kind == NSL_OUTPUT_STREAM ? fileno(out->f) : -1;
}

const char *nsl_output_atomic_tmp(const struct nsl_output *out)
{
	return out->kind == NSL_OUTPUT_ATOMIC ? out->tmp : NULL;
}

int nsl_output_close(struct nsl_output *out)
{
	int err = 0;

	/* standard output is the process's: exit() flushes it */
	if (out->f && out->f != stdout && fclose(out->f))
		err = -errno;
	out->f = NULL;
	return err;
}
