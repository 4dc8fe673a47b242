/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Answers of /metrics kept compressed (issue #31: 4,096 groups make tens
 * of megabytes of text, about a twentieth of that as gzip): a stream that
 * deflates what is written to it into a gzip member in memory, and the
 * reader that inflates such a member piece by piece for a client that
 * does not take gzip. zlib, which libbpf already needs.
 */
#ifndef NSL_GZIP_H
#define NSL_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <zlib.h>

/*
 * The window of the members we make: 2^NSL_GZ_WINDOW_BITS bytes. An
 * exposition repeats its label sets within a few lines, so a small window
 * loses little, and it is what every inflating client of ours holds.
 */
#define NSL_GZ_WINDOW_BITS 13

struct nsl_gz {
	z_stream zs;
	char *buf;		/* the member so far (then all of it) */
	size_t len, cap;
	uint64_t plain;		/* bytes written to the stream */
	bool failed;
};

/*
 * A stream whose bytes end up in *z as one gzip member: z->buf (malloc'ed,
 * the caller frees it), z->len, and z->plain the bytes written. fclose()
 * finishes the member; it returns EOF (and z->buf is NULL) when anything
 * failed. NULL (errno set) when the stream cannot be made.
 */
FILE *nsl_gz_open(struct nsl_gz *z);

struct nsl_gunzip {
	z_stream zs;
	bool done;
};

/* Inflates the member src[0 .. len) (it must outlive g). 0 or -ENOMEM. */
int nsl_gunzip_init(struct nsl_gunzip *g, const void *src, size_t len);
/* Its next bytes into out: how many (0 at its end), or -1 if corrupt. */
ssize_t nsl_gunzip_read(struct nsl_gunzip *g, void *out, size_t max);
void nsl_gunzip_end(struct nsl_gunzip *g);

#endif /* NSL_GZIP_H */
