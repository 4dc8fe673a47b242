/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the jail's two processes (jail.h) share: the descriptors the
 * parent (jail.c) starts the child (jailchild.c) with, and the records
 * they send each other over the channel, read and written whole.
 */
#ifndef NSL_JAILWIRE_H
#define NSL_JAILWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* the child's descriptors */
#define NSL_JAIL_SOCK 3
#define NSL_JAIL_CHAN 4
#define NSL_JAIL_MAGIC 0x6e736c6a	/* "nslj" */

/* The child asks for an answer of representation repr. */
struct jail_req {
	uint32_t magic;
	uint32_t repr;
};

/* The parent answers: err (0 or -errno), then len bytes of a gzip member. */
struct jail_resp {
	uint32_t magic;
	int32_t err;
	uint64_t len;
	uint64_t plain;
	char type[128];
};

/* All of buf from fd, or -1 (errno; 0 at EOF). */
ssize_t nsl_read_full(int fd, void *buf, size_t len);

/* All of buf to fd: 0 or a negative errno. */
int nsl_write_full(int fd, const void *buf, size_t len);

#endif /* NSL_JAILWIRE_H */
