/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the jail's two processes (jail.h) share: the descriptors the
 * parent (jail.c) starts the child (jailchild.c) with, the records they
 * send each other over the channel, and the limits each holds the other
 * to. The parent never trusts a record: it reads them without blocking,
 * with a deadline, and a record it does not expect ends the child.
 */
#ifndef NSL_JAILWIRE_H
#define NSL_JAILWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* argv[1] of the child: main() hands over to nsl_jail_child_main() */
#define NSL_JAIL_ARGV1 "--jailed-metrics-server"
/* argv of a child that floods us with requests (a test seam: jailproc.c) */
#define NSL_JAIL_FLOOD "--test-flood"

/* the child's descriptors: 2 is a pipe the parent forwards to its stderr */
#define NSL_JAIL_SOCK 3
#define NSL_JAIL_CHAN 4
#define NSL_JAIL_MAGIC 0x6e736c6a	/* "nslj" */

/* representations the parent renders and keeps: 0 .. NSL_JAIL_REPRS - 1 */
#define NSL_JAIL_REPRS 4
/*
 * The largest answer either side takes: a gzip member (4,096 groups at
 * --resolution 8 make a few MiB), and the child's address space: the
 * program and its libraries (12 MiB), one answer being fetched, the
 * answers it keeps (http.h: NSL_HTTP_ANSWER_BYTES per representation),
 * its connections' memory, with room to spare. It shares the service's
 * MemoryMax= with us.
 */
#define NSL_JAIL_MAX_ANSWER (32ULL << 20)
#define NSL_JAIL_AS_BYTES (160ULL << 20)

/* a sanitizer build: its shadow memory needs terabytes of address space */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define NSL_JAIL_SANITIZED 1
#endif

/* What the child sends: an answer of representation repr, or one of these. */
#define NSL_JAIL_READY 0x100	/* set up and shut in: it serves from now on */
#define NSL_JAIL_PONG 0x101	/* it answers a ping */

struct jail_req {
	uint32_t magic;
	uint32_t repr;
};

/* What the parent sends. */
enum nsl_jail_kind {
	NSL_JAIL_ANSWER = 1,	/* err (0 or -errno), then len bytes of a gzip member */
	NSL_JAIL_PING = 2,	/* answer with NSL_JAIL_PONG */
};

struct jail_resp {
	uint32_t magic;
	uint32_t kind;
	int32_t err;
	uint32_t pad;
	uint64_t len;
	uint64_t plain;
	char type[128];
};

/* All of buf from fd, or -1 (errno; 0 at EOF). */
ssize_t nsl_read_full(int fd, void *buf, size_t len);

/* All of buf to fd: 0 or a negative errno. */
int nsl_write_full(int fd, const void *buf, size_t len);

#endif /* NSL_JAILWIRE_H */
