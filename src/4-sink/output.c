// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report sink (output.h): standard output, -o FILE as a stream that
 * follows rotation, or -F prometheus -o FILE replaced atomically
 * (atomic.c, which also writes each report whole).
 *
 * Relies on O_APPEND writes going to the end whoever else truncated or
 * wrote the file.
 */
#define _GNU_SOURCE /* open_memstream() */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "atomic.h"
#include "clock.h"
#include "format.h"
#include "log.h"
#include "output.h"

/*
 * The kernel's names of the process's own descriptors (symbolic links to
 * them): -o /dev/stdout >> log is the caller's file, not a link a tenant
 * planted. Every other -o is opened with O_NOFOLLOW.
 */
static bool own_fd_alias(const char *path)
{
	return !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/stderr") ||
	       !strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/self/fd/", 14);
}

/*
 * Opens path to append to; *created: this open made the file (NULL: do
 * not care). O_NONBLOCK for the open only: a FIFO nobody reads fails with
 * ENXIO at once instead of hanging; then writes block as on any stream.
 * A symbolic link fails with ELOOP; an existing regular file with other
 * hard links (one could be anyone's file, linked where we write) with
 * EMLINK.
 */
static int open_stream(const char *path, bool *created)
{
	const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK |
			  (own_fd_alias(path) ? 0 : O_NOFOLLOW);
	int fd = created ? open(path, flags | O_EXCL, 0666) : -1;
	bool made = fd >= 0;
	struct stat st;

	if (created)
		*created = made;
	if (fd < 0 && (!created || errno == EEXIST))
		fd = open(path, flags, 0666);
	if (fd < 0)
		return -errno;
	if (!made && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink > 1) {
		close(fd);
		return -EMLINK;
	}
	if (fcntl(fd, F_SETFL, O_APPEND)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static bool is_stdout(const struct stat *st)
{
	struct stat o;

	return !fstat(STDOUT_FILENO, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}


int nsl_output_open(struct nsl_output *out, const struct nsl_output_conf *c)
{
	bool created;
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->dir_fd = -1;
	out->path = c->path;
	out->name = c->path ? c->path : "standard output";
	out->eof_marker = c->format == NSL_FMT_PROMETHEUS;
	if (!c->path) {
		out->kind = NSL_OUTPUT_STREAM;
		out->fd = STDOUT_FILENO;
		return 0;
	}
	/*
	 * node_exporter's textfile collector may read FILE at any moment:
	 * each report goes to a temporary (FILE.XXXXXXXX.tmp, ignored by the
	 * collector, which reads *.prom) and is renamed over FILE.
	 */
	if (c->format == NSL_FMT_PROMETHEUS) {
		out->kind = NSL_OUTPUT_ATOMIC;
		out->eof_marker = false;	/* one exposition a file */
		return nsl_open_atomic(out, c->path);
	}
	/* appended to always: a report after another's truncation lands at its end */
	out->fd = open_stream(c->path, &created);
	if (out->fd < 0) {
		int err = out->fd;

		out->fd = -1;
		return err;
	}
	if (created && c->chown && fchown(out->fd, c->uid, (gid_t)-1)) {
		int err = -errno;

		nsl_output_close(out);
		return err;
	}
	/* a FIFO or a device has no name to follow */
	out->kind = !fstat(out->fd, &st) && S_ISREG(st.st_mode) ?
		    NSL_OUTPUT_FOLLOWED : NSL_OUTPUT_STREAM;
	/*
	 * Without --append a regular file starts empty, unless it is our
	 * standard output's (-o /dev/stdout >> log): that one is the
	 * caller's, and we add to it as they asked.
	 */
	if (out->kind == NSL_OUTPUT_FOLLOWED && !c->append && !is_stdout(&st) &&
	    ftruncate(out->fd, 0)) {
		int err = -errno;

		nsl_output_close(out);
		return err;
	}
	return 0;
}

static void note_result(struct nsl_output *out, int err);

/* The rendered report, written or not, is let go. */
static void drop_pending(struct nsl_output *out)
{
	free(out->buf);
	out->buf = NULL;
	out->len = 0;
}

int nsl_output_render(struct nsl_output *out, const struct nsl_report *rep,
		      const struct nsl_format_opts *fo)
{
	FILE *f;
	int err;

	drop_pending(out);
	f = open_memstream(&out->buf, &out->len);
	if (!f)
		return -errno;
	err = nsl_format_report(f, rep, fo);
	/*
	 * A stream of Prometheus expositions (stdout, a pipe, -o without
	 * the atomic file) ends each with "# EOF", as OpenMetrics does: a
	 * comment to parsers of the text format, and the line a consumer
	 * splits the stream at (one exposition alone would repeat its HELP
	 * lines).
	 */
	if (!err && out->eof_marker && fputs("# EOF\n", f) == EOF)
		err = -ENOMEM;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		drop_pending(out);
		note_result(out, err);
	}
	return err;
}


int nsl_output_reopen(struct nsl_output *out)
{
	int fd;

	if (out->kind != NSL_OUTPUT_FOLLOWED)
		return 0;
	fd = open_stream(out->path, NULL);
	if (fd < 0) {
		/* keep writing where we did; say it once */
		if (!out->warned)
			pr_warn("-o: cannot open %s again (%s): "
				"writing on to the file already open\n", out->path, strerror(-fd));
		out->warned = true;
		return fd;
	}
	if (close(out->fd))
		pr_warn("-o: closing the rotated %s: %s\n", out->path, strerror(errno));
	out->warned = false;
	out->fd = fd;
	return 0;
}

/*
 * When logrotate (or anyone) renames or removes the file, the next report
 * goes to a file of that name again, opened for appending (logrotate's
 * "create" made it, or we do). Checked before each report, so a report is
 * never split: it goes whole to the file that was current when it began,
 * and the old one is closed. (copytruncate would lose what is written
 * while it copies.)
 */
static void follow(struct nsl_output *out)
{
	struct stat a, b;

	if (!stat(out->path, &b)) {
		if (!fstat(out->fd, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return;
	} else if (errno != ENOENT && errno != ENOTDIR) {
		/*
		 * Not a sign of a move: EACCES when --user cannot search a
		 * directory the file was opened in as root. Rotation cannot
		 * be followed then; the reports go on to the open file.
		 */
		if (!out->blind)
			pr_warn("-o: cannot tell whether %s was rotated (%s): writing on "
				"to the file already open\n", out->path, strerror(errno));
		out->blind = true;
		return;
	}
	nsl_output_reopen(out);
}

/* A failed report leaves nothing of itself: a file is cut back. */
static int write_stream(struct nsl_output *out)
{
	struct stat st;
	bool cut = out->kind == NSL_OUTPUT_FOLLOWED && !fstat(out->fd, &st);
	int err = nsl_write_all(out, out->fd, out->buf, out->len);

	if (err && cut && ftruncate(out->fd, st.st_size))
		pr_warn("-o: cannot cut %s back to %lld bytes: %s\n", out->name,
			(long long)st.st_size, strerror(errno));
	return err;
}

/* Counts and says what failed, rate-limited; and when it works again. */
static void note_result(struct nsl_output *out, int err)
{
	uint64_t lost = nsl_output_lost(out);
	int64_t now;

	if (!err) {
		if (out->failing)
			pr_info("writing the reports to %s again (%llu lost)\n",
				out->name, (unsigned long long)lost);
		out->failing = 0;
		return;
	}
	lost = __atomic_add_fetch(&out->lost, 1, __ATOMIC_RELAXED);
	now = nsl_mono_ms();
	if (!out->failing || now - out->said_ms >= NSL_OUTPUT_WARN_EVERY_S * 1000LL) {
		pr_warn("cannot write the report to %s: %s (%llu lost so far; "
			"trying again each interval)\n", out->name,
			err == -ETIMEDOUT ? "its reader took nothing after the stop" :
					    strerror(-err), (unsigned long long)lost);
		out->said_ms = now;
	}
	out->failing = -err;
}

int nsl_output_flush(struct nsl_output *out)
{
	int err;

	if (!out->buf)
		return 0;
	if (out->kind == NSL_OUTPUT_ATOMIC) {
		err = nsl_write_atomically(out);
	} else {
		if (out->kind == NSL_OUTPUT_FOLLOWED)
			follow(out);
		err = write_stream(out);
	}
	drop_pending(out);
	if (err != -EPIPE)
		note_result(out, err);
	return err;
}

int nsl_output_write(struct nsl_output *out, const struct nsl_report *rep,
		     const struct nsl_format_opts *fo)
{
	int err = nsl_output_render(out, rep, fo);

	return err ?: nsl_output_flush(out);
}

int nsl_output_gone_fd(const struct nsl_output *out)
{
	return out->kind == NSL_OUTPUT_STREAM ? out->fd : -1;
}

bool nsl_output_is_atomic(const struct nsl_output *out)
{
	return out->kind == NSL_OUTPUT_ATOMIC;
}

uint64_t nsl_output_lost(const struct nsl_output *out)
{
	return __atomic_load_n(&out->lost, __ATOMIC_RELAXED);
}

int nsl_output_close(struct nsl_output *out)
{
	int err = 0;

	drop_pending(out);
	/* standard output is the process's */
	if (out->fd >= 0 && out->fd != STDOUT_FILENO && close(out->fd))
		err = -errno;
	out->fd = -1;
	if (out->dir_fd >= 0)
		close(out->dir_fd);
	out->dir_fd = -1;
	return err;
}
