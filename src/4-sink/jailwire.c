// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's channel (jailwire.h): records read and written whole, by the
 * parent (jail.c) and the child (jailchild.c) alike.
 */
#include <errno.h>
#include <unistd.h>
#include "jailwire.h"

/* All of buf, or -1 (errno; 0 at EOF). */
ssize_t nsl_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = 0;
			return -1;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int nsl_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}
