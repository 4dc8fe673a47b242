// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sink's writes (atomic.h): a report written whole to an fd, and the
 * atomic file of -F prometheus -o FILE, replaced through a temporary.
 *
 * Relies on rename(2) replacing its target atomically (POSIX): a reader
 * of FILE sees the previous report or the new one, whole, never a mix;
 * and on write(2) to a pipe or a slow device returning a short count, or
 * -1 with EINTR, when a signal interrupts it (our handlers have no
 * SA_RESTART).
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "atomic.h"
#include "clock.h"

/*
 * What the atomic file may replace: nothing, or a regular file. Not a
 * symbolic link (-ELOOP, as O_NOFOLLOW says it for the other -o files), a
 * device (/dev/null) or a directory (-EINVAL), which rename(2) would
 * replace (or fail on) in place of what the user meant.
 */
static int replaceable(const struct nsl_output *out)
{
	struct stat st;

	if (fstatat(out->dir_fd, out->base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

/* The atomic file's directory, held open, and its name in it. */
int nsl_open_atomic(struct nsl_output *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int err;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		strcpy(dir, ".");
	if (slash && slash == path)
		strcpy(dir, "/");
	if (snprintf(out->base, sizeof(out->base), "%s", slash ? slash + 1 : path) >=
	    (int)sizeof(out->base) || !out->base[0])
		return -EINVAL;
	out->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (out->dir_fd < 0)
		return -errno;
	err = replaceable(out);
	if (err) {
		close(out->dir_fd);
		out->dir_fd = -1;
	}
	return err;
}

/* Waits until fd takes more, up to deadline (0: no limit). */
static int wait_writable(int fd, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int64_t left = deadline ? deadline - nsl_mono_ms() : -1;

	if (deadline && left <= 0)
		return -ETIMEDOUT;
	poll(&p, 1, (int)left);	/* EINTR: the caller looks at stopping again */
	return 0;
}

/*
 * All of buf, through short and interrupted writes. Once the tool is
 * stopping, the rest gets NSL_OUTPUT_STOP_MS: the fd turns non-blocking
 * (its flags restored after, as it may be shared, a terminal say) and we
 * wait for room with a deadline.
 */
int nsl_write_all(struct nsl_output *out, int fd, const char *buf, size_t len)
{
	int64_t deadline = 0;
	int flags = -1, err = 0;

	while (len && !err) {
		ssize_t n;

		if (!deadline && out->stopping && *out->stopping) {
			deadline = nsl_mono_ms() + NSL_OUTPUT_STOP_MS;
			flags = fcntl(fd, F_GETFL);
			if (flags >= 0)
				fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		}
		n = write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= n;
		} else if (n == 0) {
			err = -EIO;
		} else if (errno == EAGAIN) {
			err = wait_writable(fd, deadline);
		} else if (errno != EINTR) {
			err = -errno;
		}
	}
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags);
	return err;
}

/*
 * A new temporary in the atomic file's directory: FILE.XXXXXXXX.tmp, a
 * name no one can guess, made with O_EXCL | O_NOFOLLOW (never a file or
 * link that was there). Its name in name. An fd or a negative errno.
 */
static int make_temporary(const struct nsl_output *out, char *name, size_t size)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	for (int tries = 0; tries < 16; tries++) {
		unsigned char r[8];
		char x[sizeof(r) + 1];
		int fd;

		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return -EAGAIN;
		for (size_t i = 0; i < sizeof(r); i++)
			x[i] = digits[r[i] % (sizeof(digits) - 1)];
		x[sizeof(r)] = '\0';
		if (snprintf(name, size, "%s.%s.tmp", out->base, x) >= (int)size)
			return -ENAMETOOLONG;
		fd = openat(out->dir_fd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int nsl_output_try_temporary(void *arg)
{
	const struct nsl_output *out = arg;
	char name[NAME_MAX + 1];
	int fd = make_temporary(out, name, sizeof(name));

	if (fd < 0)
		return fd;
	close(fd);
	return unlinkat(out->dir_fd, name, 0) ? -errno : 0;
}

/* Written whole and synced to a temporary, then renamed over FILE. */
int nsl_write_atomically(struct nsl_output *out)
{
	char name[NAME_MAX + 1];
	int fd, err;

	fd = make_temporary(out, name, sizeof(name));
	if (fd < 0)
		return fd;
	err = nsl_write_all(out, fd, out->buf, out->len);
	/* on disk before its name is: a crash leaves the old report or the new */
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err)
		err = replaceable(out);
	if (!err && renameat(out->dir_fd, name, out->dir_fd, out->base))
		err = -errno;
	if (err)
		unlinkat(out->dir_fd, name, 0);
	return err;
}
