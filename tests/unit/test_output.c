// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report sink (src/4-sink/output.c, atomic.c) on real files in a
 * temporary directory: append and truncate, following rotation (renamed,
 * removed, a name that cannot be opened again), the atomic file's
 * replacement, a stream whose reader left, and which kinds poll can watch.
 */
#define _GNU_SOURCE	/* open_memstream, asprintf */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <libgen.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "atomic.h"
#include "format.h"
#include "output.h"

static const struct nsl_format_opts json = { NSL_FMT_JSON, false };
static const struct nsl_format_opts prom = { NSL_FMT_PROMETHEUS, false };

struct dir {
	char path[64];
	char file[96];
};

static int make_dir(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/nsl-test-output.XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(d->file, sizeof(d->file), "%s/out", d->path);
	*state = d;
	return 0;
}

static int remove_dir(void **state)
{
	struct dir *d = *state;
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", d->path) < 0)
		return -1;
	if (system(cmd))
		return -1;
	free(cmd);
	free(d);
	return 0;
}

/* A report told apart by its time: the formats print it. */
static struct nsl_report report(long sec)
{
	struct nsl_report r = { .time = { sec, 0 }, .interval_s = 1.0 };

	r.hook_enabled[NSL_HOOK_TCP_START] = true;
	return r;
}

/* What format fo writes for report(sec), as a string to free. */
static char *expected(long sec, const struct nsl_format_opts *fo)
{
	struct nsl_report r = report(sec);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(nsl_format_report(f, &r, fo), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *mem = open_memstream(&buf, &len);
	FILE *f = fopen(path, "r");

	assert_non_null(mem);
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(f);
	fclose(mem);
	return buf;
}

static void write_report(struct nsl_output *out, long sec,
			 const struct nsl_format_opts *fo)
{
	struct nsl_report r = report(sec);

	assert_int_equal(nsl_output_write(out, &r, fo), 0);
}

/* path holds exactly the reports of times a, then b (b < 0: none); a < 0: nothing. */
static void assert_holds(const char *path, const char *prefix, long a, long b)
{
	char *want_a = a >= 0 ? expected(a, &json) : strdup("");
	char *want_b = b >= 0 ? expected(b, &json) : NULL;
	char *got = slurp(path), *want;

	assert_true(asprintf(&want, "%s%s%s", prefix, want_a, want_b ? want_b : "") >= 0);
	assert_string_equal(got, want);
	free(want);
	free(got);
	free(want_a);
	free(want_b);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Entries of a directory (but . and ..). */
static int entries(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

static void test_truncates_without_append(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };

	put(d->file, "an earlier run's report\n");
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(out.kind, NSL_OUTPUT_FOLLOWED);
	write_report(&out, 100, &json);
	write_report(&out, 101, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "", 100, 101);
}

static void test_append_keeps(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON,
					   .append = true };

	put(d->file, "an earlier run's report\n");
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "an earlier run's report\n", 100, -1);
}

/* logrotate without copytruncate: rename, then (maybe) create */
static void test_follows_rename(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	char rotated[128];

	snprintf(rotated, sizeof(rotated), "%s.1", d->file);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(rename(d->file, rotated), 0);
	write_report(&out, 101, &json);
	/* logrotate's create: the file of that name is appended to */
	assert_int_equal(rename(d->file, rotated), 0);
	put(d->file, "created by logrotate\n");
	write_report(&out, 102, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(rotated, "", 101, -1);
	assert_holds(d->file, "created by logrotate\n", 102, -1);
}

static void test_follows_unlink(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };

	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(unlink(d->file), 0);
	write_report(&out, 101, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "", 101, -1);
}

/* A name that cannot be opened again: the reports go on to the old file. */
static void test_rotation_cannot_reopen(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	char moved[128];

	snprintf(moved, sizeof(moved), "%s.moved", d->file);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(rename(d->file, moved), 0);
	assert_int_equal(mkdir(d->file, 0755), 0);	/* open(dir): EISDIR */
	assert_int_equal(nsl_output_reopen(&out), -EISDIR);
	assert_true(out.warned);
	write_report(&out, 101, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(moved, "", 100, 101);
	assert_int_equal(rmdir(d->file), 0);
}

/*
 * A name the process can no longer look at (it runs as --user after
 * opening the file as root, in a directory only root can search): stat()
 * fails with EACCES, which says nothing of a rotation. The reports go on
 * to the open file, which is not taken for moved (nor warned about as
 * one: "was moved away" was said, wrongly); one line says rotation cannot
 * be followed. Root only (setresuid), in a child that drops to nobody.
 */
static void test_rotation_unseen_is_not_a_move(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	int status;
	pid_t pid;

	if (geteuid()) {
		skip();
		return;
	}
	assert_int_equal(chmod(d->path, 0700), 0);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct nsl_report r = report(101);
		struct stat st;
		bool ok;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		ok = stat(d->file, &st) && errno == EACCES &&
		     !nsl_output_write(&out, &r, &json) &&
		     !out.warned && out.blind;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "", 100, 101);
}

/*
 * The atomic file: each report replaces the last whole, by rename; one
 * opened before the replacement still reads the old report whole, and no
 * temporary is left behind.
 */
static void test_atomic_replaces(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_PROMETHEUS };
	char *want, *got;
	FILE *old;

	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(out.kind, NSL_OUTPUT_ATOMIC);
	assert_true(nsl_output_is_atomic(&out));
	assert_int_equal(entries(d->path), 0);	/* nothing made at open */
	assert_int_equal(nsl_output_try_temporary(&out), 0);
	assert_int_equal(entries(d->path), 0);	/* ... nor by the check */
	write_report(&out, 100, &prom);
	old = fopen(d->file, "r");
	assert_non_null(old);
	write_report(&out, 101, &prom);
	assert_int_equal(entries(d->path), 1);	/* no temporary left */

	want = expected(101, &prom);	/* no "# EOF": one exposition a file */
	got = slurp(d->file);
	assert_string_equal(got, want);
	free(got);
	free(want);

	want = expected(100, &prom);
	got = calloc(1, strlen(want) + 16);
	assert_non_null(got);
	assert_int_equal(fread(got, 1, strlen(want) + 15, old), strlen(want));
	assert_string_equal(got, want);
	fclose(old);
	free(got);
	free(want);
	assert_int_equal(nsl_output_close(&out), 0);
}

static void test_atomic_failure_leaves_nothing(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	char path[128];
	struct nsl_output_conf c = { .path = path, .format = NSL_FMT_PROMETHEUS };
	struct nsl_report r = report(100);

	/* no directory: said at open */
	snprintf(path, sizeof(path), "%s/missing/out.prom", d->path);
	assert_int_equal(nsl_output_open(&out, &c), -ENOENT);
	assert_int_equal(nsl_output_close(&out), 0);
	/* the directory made unwritable between reports: nothing left */
	c.path = d->file;
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &prom);
	assert_int_equal(chmod(d->path, 0555), 0);
	if (geteuid() == 0) {	/* root writes anyway: a directory in its place */
		assert_int_equal(chmod(d->path, 0755), 0);
		assert_int_equal(unlink(d->file), 0);
		assert_int_equal(mkdir(d->file, 0755), 0);
		assert_int_equal(nsl_output_write(&out, &r, &prom), -EINVAL);
		assert_int_equal(rmdir(d->file), 0);
	} else {
		assert_int_equal(nsl_output_write(&out, &r, &prom), -EACCES);
		assert_int_equal(chmod(d->path, 0755), 0);
	}
	assert_int_equal(entries(d->path), 0);
	assert_int_equal(nsl_output_close(&out), 0);
}

/* victim: a file of someone else's that holds "precious" */
static void make_victim(const struct dir *d, char *victim, size_t size)
{
	snprintf(victim, size, "%s/victim", d->path);
	put(victim, "precious\n");
}

static void assert_victim_intact(const char *victim)
{
	char *got = slurp(victim);

	assert_string_equal(got, "precious\n");
	free(got);
}

/*
 * Issue #32: a symbolic link or a hard link planted where -o writes
 * never leads a report (or a truncation) into another file: -o refuses
 * it at open (ELOOP, EMLINK), and at a reopen after rotation.
 */
static void test_stream_refuses_links(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	char victim[128];

	make_victim(d, victim, sizeof(victim));
	assert_int_equal(symlink(victim, d->file), 0);
	assert_int_equal(nsl_output_open(&out, &c), -ELOOP);
	assert_victim_intact(victim);
	assert_int_equal(unlink(d->file), 0);
	assert_int_equal(link(victim, d->file), 0);
	assert_int_equal(nsl_output_open(&out, &c), -EMLINK);
	assert_victim_intact(victim);
	assert_int_equal(unlink(d->file), 0);
	/* the file rotated away, a link planted in its place: not followed */
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(unlink(d->file), 0);
	assert_int_equal(symlink(victim, d->file), 0);
	assert_int_equal(nsl_output_reopen(&out), -ELOOP);
	assert_victim_intact(victim);
	assert_int_equal(nsl_output_close(&out), 0);
}

/*
 * The atomic file: a link planted at its old fixed temporary (FILE.tmp)
 * is never written through (the temporaries have new names, made with
 * O_EXCL); a symbolic link or a device in place of FILE is not replaced:
 * refused at open (/dev/null too), and a report lost if it appears later.
 */
static void test_atomic_refuses_links(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_PROMETHEUS };
	struct nsl_report r = report(101);
	char victim[128], tmp[160];

	make_victim(d, victim, sizeof(victim));
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->file);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_try_temporary(&out), 0);
	write_report(&out, 100, &prom);
	assert_victim_intact(victim);
	/* FILE replaced by a link between reports: that report is lost */
	assert_int_equal(unlink(d->file), 0);
	assert_int_equal(symlink(victim, d->file), 0);
	/* a link is said to be one (ELOOP, as O_NOFOLLOW), not "not a regular file" */
	assert_int_equal(nsl_output_write(&out, &r, &prom), -ELOOP);
	assert_victim_intact(victim);
	assert_int_equal(entries(d->path), 3);	/* victim, the two links */
	assert_int_equal(nsl_output_close(&out), 0);
	assert_int_equal(nsl_output_open(&out, &c), -ELOOP);
	assert_int_equal(nsl_output_close(&out), 0);
	c.path = "/dev/null";
	assert_int_equal(nsl_output_open(&out, &c), -EINVAL);
	assert_int_equal(nsl_output_close(&out), 0);
}

/* fd 1 to path (opened write-only with flags); the fd to give stdout_back() */
static int stdout_to(const char *path, int flags)
{
	int fd, saved;

	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | flags, 0644);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, 1), 1);
	close(fd);
	return saved;
}

static void stdout_back(int saved)
{
	fflush(stdout);
	assert_int_equal(dup2(saved, 1), 1);
	close(saved);
}

/*
 * Standard output: a Prometheus stream ends each exposition with "# EOF".
 * fd 1 goes to a file for the test.
 */
static void test_stdout_prometheus_eof(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .format = NSL_FMT_PROMETHEUS };
	char *want_a = expected(100, &prom), *want_b = expected(101, &prom);
	char *want, *got;
	int saved = stdout_to(d->file, O_CREAT | O_TRUNC);

	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(out.kind, NSL_OUTPUT_STREAM);
	assert_string_equal(out.name, "standard output");
	write_report(&out, 100, &prom);
	write_report(&out, 101, &prom);
	assert_int_equal(nsl_output_close(&out), 0);
	stdout_back(saved);

	assert_true(asprintf(&want, "%s# EOF\n%s# EOF\n", want_a, want_b) >= 0);
	got = slurp(d->file);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(want_a);
	free(want_b);
}

/* -o /dev/stdout >> log: the caller's file is added to, not emptied. */
static void test_stdout_by_name_not_truncated(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = "/dev/stdout", .format = NSL_FMT_JSON };
	int saved;

	put(d->file, "the caller's line\n");
	saved = stdout_to(d->file, O_APPEND);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(nsl_output_close(&out), 0);
	stdout_back(saved);
	assert_holds(d->file, "the caller's line\n", 100, -1);
}

/* A pipe whose reader left: -EPIPE (the loop's quiet exit), and poll can watch it. */
static void test_stream_reader_gone(void **state)
{
	struct nsl_output out;
	char path[64];
	const struct nsl_output_conf c = { .path = path, .format = NSL_FMT_JSON };
	struct nsl_report r = report(100);
	int p[2];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(out.kind, NSL_OUTPUT_STREAM);	/* a pipe: nothing to follow */
	assert_true(nsl_output_gone_fd(&out) >= 0);
	close(p[0]);
	assert_int_equal(nsl_output_write(&out, &r, &json), -EPIPE);
	nsl_output_close(&out);
	close(p[1]);
}

/* Only a stream can go away so; files are never watched. */
static void test_gone_fd_by_kind(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };

	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_gone_fd(&out), -1);
	assert_false(nsl_output_is_atomic(&out));
	assert_int_equal(nsl_output_close(&out), 0);
	c.format = NSL_FMT_PROMETHEUS;
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_gone_fd(&out), -1);
	assert_int_equal(nsl_output_close(&out), 0);
	c.path = "/dev/null";
	c.format = NSL_FMT_TABLE;
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(out.kind, NSL_OUTPUT_STREAM);
	assert_true(nsl_output_gone_fd(&out) >= 0);
	assert_int_equal(nsl_output_close(&out), 0);
}

static void test_open_fails_cleanly(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	char path[128];
	const struct nsl_output_conf c = { .path = path, .format = NSL_FMT_JSON };

	snprintf(path, sizeof(path), "%s/missing/out.json", d->path);
	assert_int_equal(nsl_output_open(&out, &c), -ENOENT);
	assert_int_equal(out.fd, -1);
	assert_int_equal(nsl_output_close(&out), 0);
}

/*
 * A disk that fills: RLIMIT_FSIZE makes the write past the limit fail
 * (EFBIG, as ENOSPC would) after part of the report went in. The file is
 * cut back to the report before, the report counts as lost, and the next
 * one, with room again, lands whole after it: no torn line.
 */
static void test_failed_write_leaves_no_part(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	struct rlimit old, lim;
	struct nsl_report r = report(101);
	struct stat st;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	write_report(&out, 100, &json);
	assert_int_equal(stat(d->file, &st), 0);
	lim = old;
	lim.rlim_cur = st.st_size + 20;	/* room for a part of the next */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(nsl_output_write(&out, &r, &json), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(nsl_output_lost(&out), 1);
	assert_int_equal(out.failing, EFBIG);
	assert_holds(d->file, "", 100, -1);
	write_report(&out, 102, &json);
	assert_int_equal(out.failing, 0);
	assert_int_equal(nsl_output_lost(&out), 1);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "", 100, 102);
}

/* A failing sink says so once, not at every report (then once a minute). */
static void test_failure_said_once(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	char path[128];
	const struct nsl_output_conf c = { .path = path, .format = NSL_FMT_PROMETHEUS };
	struct nsl_report r = report(100);
	int64_t said;

	/* its directory removed after the open */
	snprintf(path, sizeof(path), "%s/gone", d->path);
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/out.prom");
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(rmdir(dirname(strdupa(path))), 0);
	assert_int_equal(nsl_output_write(&out, &r, &prom), -ENOENT);
	said = out.said_ms;
	assert_true(said > 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(nsl_output_write(&out, &r, &prom), -ENOENT);
	assert_true(out.said_ms == said);
	assert_int_equal(nsl_output_lost(&out), 6);
	assert_int_equal(nsl_output_close(&out), 0);
}

/* Rendered under a lock, written after: the same bytes as one write. */
static void test_render_then_flush(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };
	struct nsl_report r = report(100);

	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_render(&out, &r, &json), 0);
	assert_int_equal(access(d->file, F_OK), 0);
	assert_holds(d->file, "", -1, -1);	/* nothing written yet */
	assert_int_equal(nsl_output_flush(&out), 0);
	assert_int_equal(nsl_output_flush(&out), 0);	/* nothing pending: nothing */
	assert_int_equal(nsl_output_close(&out), 0);
	assert_holds(d->file, "", 100, -1);
}

/*
 * A reader that stopped reading: once the tool is stopping, a blocked
 * write gives up after NSL_OUTPUT_STOP_MS instead of hanging for ever.
 */
static void test_stopping_bounds_blocked_write(void **state)
{
	volatile sig_atomic_t stopping = 1;
	struct nsl_output out;
	char path[64], junk[4096] = { 0 };
	const struct nsl_output_conf c = { .path = path, .format = NSL_FMT_JSON };
	struct nsl_report r = report(100);
	struct timespec a, b;
	int p[2], flags;
	double s;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	flags = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, flags | O_NONBLOCK);
	while (write(p[1], junk, sizeof(junk)) > 0)
		;	/* the pipe is full */
	fcntl(p[1], F_SETFL, flags);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	assert_int_equal(nsl_output_open(&out, &c), 0);
	out.stopping = &stopping;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(nsl_output_write(&out, &r, &json), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(s >= NSL_OUTPUT_STOP_MS / 1000.0 - 0.05 && s < NSL_OUTPUT_STOP_MS / 1000.0 + 1);
	assert_int_equal(nsl_output_lost(&out), 1);
	/* the shared file's flags are as they were: blocking */
	assert_int_equal(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);
	nsl_output_close(&out);
	close(p[0]);
	close(p[1]);
}

/* -o FIFO nobody reads: an error at once, not a hang at start. */
static void test_fifo_without_reader(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	const struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON };

	assert_int_equal(mkfifo(d->file, 0600), 0);
	assert_int_equal(nsl_output_open(&out, &c), -ENXIO);
	assert_int_equal(nsl_output_close(&out), 0);
}

/*
 * --user: the file the open creates (as root) is the user's (its group
 * the one it was made with), so that the
 * user can open it again after a rotation or a SIGHUP; a file that was
 * there keeps its owner. Root only (chown).
 */
static void test_created_file_is_the_users(void **state)
{
	struct dir *d = *state;
	struct nsl_output out;
	struct nsl_output_conf c = { .path = d->file, .format = NSL_FMT_JSON, .append = true,
				     .chown = true, .uid = 65534 };
	struct stat st;

	if (geteuid()) {
		skip();
		return;
	}
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_int_equal(stat(d->file, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, getegid());	/* the directory's, as made */
	/* there already (root's): left as it is */
	assert_int_equal(unlink(d->file), 0);
	put(d->file, "root's\n");
	assert_int_equal(nsl_output_open(&out, &c), 0);
	assert_int_equal(nsl_output_close(&out), 0);
	assert_int_equal(stat(d->file, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)
		T(test_truncates_without_append),
		T(test_append_keeps),
		T(test_follows_rename),
		T(test_follows_unlink),
		T(test_rotation_cannot_reopen),
		T(test_rotation_unseen_is_not_a_move),
		T(test_atomic_replaces),
		T(test_atomic_failure_leaves_nothing),
		T(test_stdout_prometheus_eof),
		T(test_stdout_by_name_not_truncated),
		T(test_stream_reader_gone),
		T(test_gone_fd_by_kind),
		T(test_open_fails_cleanly),
		T(test_failed_write_leaves_no_part),
		T(test_failure_said_once),
		T(test_render_then_flush),
		T(test_stopping_bounds_blocked_write),
		T(test_fifo_without_reader),
		T(test_created_file_is_the_users),
		T(test_stream_refuses_links),
		T(test_atomic_refuses_links),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
