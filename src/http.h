/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /metrics endpoint: a small HTTP/1.1 server (src/http.c) in a thread
 * of its own, serving what a render callback produces, one scrape at a time.
 */
#ifndef NSL_HTTP_H
#define NSL_HTTP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fills *buf (malloc'ed, the caller frees) and *len; 0 or a negative errno. */
typedef int (*nsl_render_fn)(void *ctx, char **buf, size_t *len);

#define NSL_HTTP_CONNS 32		/* connections served at once */
#define NSL_HTTP_REQ_MAX 8192		/* request head, bytes */
#define NSL_HTTP_TIMEOUT_MS 10000	/* accept to last byte answered */
#define NSL_HTTP_IDLE_MS 1000		/* no request yet: slot may be reused */
#define NSL_HTTP_ANSWERING 4		/* answers rendered and held at once */

struct nsl_http_conn;

struct nsl_http {
	int sock;			/* bound and listening, or -1 */
	nsl_render_fn render;
	void *ctx;
	struct nsl_http_conn *conns;	/* NSL_HTTP_CONNS slots */
	int wake[2];			/* pipe: a byte stops the thread */
	bool has_pipe;
	bool serving;			/* the thread runs */
	pthread_t thread;
};

/*
 * Binds and listens on addr:port (numeric, IPv4 or IPv6). Done early, while
 * privileged (ports below 1024) and before anything is loaded, so that a
 * port in use is a start-up error. Returns 0 or a negative errno.
 */
int nsl_http_bind(struct nsl_http *h, const char *addr, uint16_t port);

/*
 * Starts serving on the bound socket in a thread of its own. Start it after
 * dropping privileges: a thread keeps the credentials it was created with.
 */
int nsl_http_start(struct nsl_http *h, nsl_render_fn render, void *ctx);

/* Stops the thread, closes every connection and the socket. */
void nsl_http_stop(struct nsl_http *h);

#endif /* NSL_HTTP_H */
