// SPDX-License-Identifier: GPL-2.0-only
/* gzip members in memory (gzip.h). */
#define _GNU_SOURCE /* fopencookie() */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "gzip.h"

/* 16 + bits: deflate and inflate speak the gzip wrapper (RFC 1952) */
#define GZIP_WRAPPER 16
/* the fastest level: an answer is rendered and compressed once a scrape */
#define GZ_LEVEL Z_BEST_SPEED

/* Room for at least more compressed bytes after len. */
static int gz_reserve(struct nsl_gz *z, size_t more)
{
	size_t cap = z->cap ? z->cap : 16384;
	char *p;

	while (cap - z->len < more)
		cap *= 2;
	if (cap == z->cap)
		return 0;
	p = realloc(z->buf, cap);
	if (!p)
		return -1;
	z->buf = p;
	z->cap = cap;
	return 0;
}

/* Deflates what zs holds as input, with flush; -1 on failure. */
static int gz_deflate(struct nsl_gz *z, int flush)
{
	int ret;

	do {
		if (gz_reserve(z, 4096))
			return -1;
		z->zs.next_out = (Bytef *)z->buf + z->len;
		z->zs.avail_out = (uInt)(z->cap - z->len);
		ret = deflate(&z->zs, flush);
		z->len = z->cap - z->zs.avail_out;
		if (ret == Z_STREAM_ERROR)
			return -1;
	} while (z->zs.avail_in || (flush == Z_FINISH && ret != Z_STREAM_END));
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
	struct nsl_gz *z = cookie;

	if (z->failed)
		goto fail;
	z->zs.next_in = (Bytef *)buf;
	z->zs.avail_in = (uInt)size;	/* stdio writes its buffer's worth */
	if (gz_deflate(z, Z_NO_FLUSH)) {
		z->failed = true;
		goto fail;
	}
	z->plain += size;
	return (ssize_t)size;
fail:
	errno = ENOMEM;
	return -1;
}

static int gz_close(void *cookie)
{
	struct nsl_gz *z = cookie;
	int err = z->failed || gz_deflate(z, Z_FINISH);

	deflateEnd(&z->zs);
	if (!err)
		return 0;
	free(z->buf);
	z->buf = NULL;
	z->len = z->cap = 0;
	errno = ENOMEM;
	return EOF;
}

FILE *nsl_gz_open(struct nsl_gz *z)
{
	static const cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	FILE *f;

	memset(z, 0, sizeof(*z));
	if (deflateInit2(&z->zs, GZ_LEVEL, Z_DEFLATED, GZIP_WRAPPER + NSL_GZ_WINDOW_BITS,
			 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return NULL;
	}
	f = fopencookie(z, "w", io);
	if (!f)
		deflateEnd(&z->zs);
	return f;
}

int nsl_gunzip_init(struct nsl_gunzip *g, const void *src, size_t len)
{
	memset(g, 0, sizeof(*g));
	g->zs.next_in = (Bytef *)src;
	g->zs.avail_in = (uInt)len;
	return inflateInit2(&g->zs, GZIP_WRAPPER + NSL_GZ_WINDOW_BITS) == Z_OK ? 0 : -ENOMEM;
}

ssize_t nsl_gunzip_read(struct nsl_gunzip *g, void *out, size_t max)
{
	int ret;

	if (g->done || !max)
		return 0;
	g->zs.next_out = out;
	g->zs.avail_out = (uInt)max;
	do	/* a call may only read a header: 0 bytes are no end */
		ret = inflate(&g->zs, Z_NO_FLUSH);
	while (ret == Z_OK && g->zs.avail_out == max);
	if (ret == Z_STREAM_END)
		g->done = true;
	else if (ret != Z_OK)
		return -1;	/* Z_BUF_ERROR too: the member ends early */
	return (ssize_t)(max - g->zs.avail_out);
}

void nsl_gunzip_end(struct nsl_gunzip *g)
{
	inflateEnd(&g->zs);
}
