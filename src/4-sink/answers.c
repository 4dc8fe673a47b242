// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics server's answers (answers.h): fetched from the application,
 * kept as gzip, shared by reference between the connections that send
 * them, inflated piece by piece for clients without gzip, and dropped
 * once stale.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "answers.h"
#include "clock.h"
#include "gzip.h"
#include "httproute.h"
#include "mhd.h"

/*
 * A rendered answer, kept as a gzip member (src/4-sink/gzip.h), shared by
 * every connection it was queued on: sent as it is to clients that take
 * gzip, inflated piece by piece for the others.
 */
struct nsl_http_answer {
	struct nsl_http *h;
	unsigned int repr;
	struct MHD_Response *resp;	/* the gzip body; one reference is the cache's */
	char *body;			/* the gzip member */
	size_t len;
	uint64_t plain;			/* its length inflated */
	char type[128];			/* Content-Type */
	unsigned int refs;		/* resp alive, and each inflating response */
	int64_t born_ms;
};

/* An answer inflated for one connection (a client without gzip). */
struct nsl_http_inflate {
	struct nsl_http_answer *a;
	struct nsl_gunzip g;
	uint64_t pos;			/* bytes given to the library */
};

/* Lets go of a reference to an answer: the last frees it. */
static void answer_unref(struct nsl_http_answer *a)
{
	if (--a->refs)
		return;
	a->h->answers[a->repr]--;
	a->h->answer_bytes[a->repr] -= a->len;
	free(a->body);
	free(a);
}

/* The library calls this when the last reference to an answer's gzip body is gone. */
static void answer_free(void *cls)
{
	answer_unref(cls);
}

/* The cache lets go of representation repr's newest answer. */
void nsl_answer_drop(struct nsl_http *h, unsigned int repr)
{
	struct nsl_http_answer *a = h->newest[repr];

	h->newest[repr] = NULL;
	if (a)
		nsl_mhd.destroy_response(a->resp);
}

/* Drops cached answers too old to serve; returns when the next will be. */
int64_t nsl_expire_answers(struct nsl_http *h, int64_t now)
{
	int64_t next = INT64_MAX;

	for (unsigned int r = 0; r < NSL_HTTP_MAX_REPRS; r++) {
		struct nsl_http_answer *a = h->newest[r];

		if (a && now >= a->born_ms + NSL_HTTP_STALE_MS)
			nsl_answer_drop(h, r);
		else if (a && a->born_ms + NSL_HTTP_STALE_MS < next)
			next = a->born_ms + NSL_HTTP_STALE_MS;
	}
	return next;
}

/* Adds the headers every answer of ours has; false on failure. */
static bool common_headers(struct MHD_Response *r, const char *type)
{
	return nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) &&
	       nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT
					   ", " MHD_HTTP_HEADER_ACCEPT_ENCODING) &&
	       nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* Fetches a new answer of representation repr: NULL on failure. */
static struct nsl_http_answer *answer_render(struct nsl_http *h,
					     unsigned int repr, int64_t now)
{
	struct nsl_http_answer *a = calloc(1, sizeof(*a));
	struct nsl_http_body b = { 0 };

	if (!a)
		return NULL;
	a->h = h;
	a->repr = repr;
	if (h->app.fetch(h->app.ctx, repr, &b) || !b.type[0]) {
		free(b.buf);
		free(a);
		return NULL;
	}
	a->body = b.buf;
	a->len = b.len;
	a->plain = b.plain;
	memcpy(a->type, b.type, sizeof(a->type));
	a->type[sizeof(a->type) - 1] = '\0';
	a->resp = nsl_mhd.create_response_from_buffer_with_free_callback_cls(
		a->len, a->body, answer_free, a);
	if (!a->resp) {
		free(a->body);
		free(a);
		return NULL;
	}
	a->born_ms = now;
	a->refs = 1;
	h->answers[repr]++;
	h->answer_bytes[repr] += a->len;
	if (common_headers(a->resp, a->type) &&
	    nsl_mhd.add_response_header(a->resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip"))
		return a;
	nsl_mhd.destroy_response(a->resp);	/* frees a and its body */
	return NULL;
}

/* The library asks for the next bytes of an inflated answer. */
static ssize_t inflate_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct nsl_http_inflate *in = cls;
	ssize_t n;

	if (pos != in->pos)	/* it reads in order: anything else is a bug */
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = nsl_gunzip_read(&in->g, buf, max);
	if (n < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (!n)
		return MHD_CONTENT_READER_END_OF_STREAM;
	in->pos += (uint64_t)n;
	return n;
}

static void inflate_free(void *cls)
{
	struct nsl_http_inflate *in = cls;

	nsl_gunzip_end(&in->g);
	in->a->h->inflating--;
	answer_unref(in->a);
	free(in);
}

/*
 * A response of its own that inflates answer a for one client without
 * gzip (Content-Length: the plain length), or NULL.
 */
static struct MHD_Response *inflated(struct nsl_http *h, struct nsl_http_answer *a)
{
	struct nsl_http_inflate *in = calloc(1, sizeof(*in));
	struct MHD_Response *r;

	if (!in || nsl_gunzip_init(&in->g, a->body, a->len)) {
		free(in);
		return NULL;
	}
	in->a = a;
	a->refs++;
	h->inflating++;
	r = nsl_mhd.create_response_from_callback(a->plain, NSL_HTTP_INFLATE_BLOCK,
						 inflate_read, in, inflate_free);
	if (!r) {
		inflate_free(in);
		return NULL;
	}
	if (common_headers(r, a->type))
		return r;
	nsl_mhd.destroy_response(r);	/* frees in */
	return NULL;
}

/*
 * The answer for a scrape of representation repr: the newest one while
 * fresh; else a new one, unless NSL_HTTP_ANSWERS or NSL_HTTP_ANSWER_BYTES
 * are alive (clients that read slowly hold them), when the newest serves
 * while it is not stale. NULL: *status says why (500: cannot render, 503:
 * no room).
 */
struct nsl_http_answer *nsl_answer_for(struct nsl_http *h, unsigned int repr,
				       unsigned int *status)
{
	struct nsl_http_answer *a = h->newest[repr];
	int64_t now = nsl_mono_ms();
	bool full = h->answers[repr] >= NSL_HTTP_ANSWERS ||
		    h->answer_bytes[repr] >= NSL_HTTP_ANSWER_BYTES;

	if (a && now - a->born_ms < NSL_HTTP_FRESH_MS)
		return a;
	if (a && full && now - a->born_ms < NSL_HTTP_STALE_MS)
		return a;
	nsl_answer_drop(h, repr);
	if (h->answers[repr] >= NSL_HTTP_ANSWERS ||
	    h->answer_bytes[repr] >= NSL_HTTP_ANSWER_BYTES) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		return NULL;
	}
	a = answer_render(h, repr, now);
	if (!a) {
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		return NULL;
	}
	h->newest[repr] = a;
	return a;
}

/*
 * Queues answer a on c: its gzip body for a client that takes gzip, else
 * an inflating response of its own (at most NSL_HTTP_INFLATING at once).
 */
enum MHD_Result nsl_queue_answer(struct nsl_http *h, struct MHD_Connection *c,
				 struct nsl_http_answer *a, unsigned int *status)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (nsl_http_accepts_gzip(nsl_mhd.lookup_connection_value(
		    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)))
		return nsl_mhd.queue_response(c, MHD_HTTP_OK, a->resp);
	if (h->inflating >= NSL_HTTP_INFLATING) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		return MHD_NO;
	}
	r = inflated(h, a);
	if (!r) {
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		return MHD_NO;
	}
	ret = nsl_mhd.queue_response(c, MHD_HTTP_OK, r);
	nsl_mhd.destroy_response(r);	/* the connection holds it now */
	return ret;
}
