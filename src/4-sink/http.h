/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /metrics server: libmicrohttpd driven by a loop of ours
 * (src/4-sink/http.c), in the jailed child (src/4-sink/jailchild.c),
 * serving what the parent renders. See docs/security.md for the limits
 * and what they guarantee.
 */
#ifndef NSL_HTTP_H
#define NSL_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NSL_HTTP_CONNS 256		/* connections at once; more wait in the backlog */
#define NSL_HTTP_CONNS_PER_IP 32	/* ... from one client address; more are closed */
#define NSL_HTTP_CONN_MEM 8192		/* bytes per connection (request head: 431 beyond) */
#define NSL_HTTP_IDLE_S 3		/* a connection with nothing read or sent is closed */
#define NSL_HTTP_TIMEOUT_MS 10000	/* accept to last byte sent, whatever the client does */
#define NSL_HTTP_ANSWERS 8		/* rendered answers alive at once, per representation */
#define NSL_HTTP_ANSWER_BYTES (8 << 20)	/* ... and their gzip bytes, per representation */
#define NSL_HTTP_INFLATING 32		/* answers inflated at once for clients without gzip */
#define NSL_HTTP_INFLATE_BLOCK 16384	/* bytes an inflated answer is handed over in */
#define NSL_HTTP_FRESH_MS 1000		/* an answer this young is given to later scrapes too */
#define NSL_HTTP_STALE_MS 5000		/* ... this young, when NSL_HTTP_ANSWERS are alive */
#define NSL_HTTP_MAX_REPRS 4		/* representations of /metrics */

/* An answer as the application made it: a gzip member (src/4-sink/gzip.h). */
struct nsl_http_body {
	char *buf;			/* malloc'ed: the server frees it */
	size_t len;
	uint64_t plain;			/* its length inflated */
	char type[128];			/* its Content-Type */
};

/*
 * What the server serves on /metrics, in one or more representations
 * (the text exposition, Prometheus' protobuf one). For each request it
 * asks choose() which one the request wants, then fetch() for its bytes,
 * unless an answer of that representation made less than
 * NSL_HTTP_FRESH_MS ago is alive: concurrent scrapes share one answer.
 * Both run in the server's thread, one at a time.
 */
struct nsl_http_app {
	void *ctx;
	/*
	 * The representation (0 .. NSL_HTTP_MAX_REPRS - 1) a request with
	 * this Accept header (NULL: none) gets.
	 */
	unsigned int (*choose)(void *ctx, const char *accept);
	/* Representation repr, into *b. 0 or a negative errno (the request gets 500). */
	int (*fetch)(void *ctx, unsigned int repr, struct nsl_http_body *b);
	/*
	 * Called once the server is set up on its socket, before it serves
	 * (the jail shuts its doors there: src/4-sink/jailchild.c). 0 or a
	 * negative errno (the server does not start).
	 */
	int (*ready)(void *ctx);
	/*
	 * Called when stop_fd turns readable: 0 to go on serving, else the
	 * server stops (NULL: it stops).
	 */
	int (*heard)(void *ctx);
};

/*
 * Serves /metrics on the listening socket sock, in the calling thread,
 * until stop_fd hangs up, or turns readable and app->heard() says to stop;
 * then closes every connection
 * (sock too). The jailed child's whole life (src/4-sink/jailchild.c). 0 or a
 * negative errno.
 */
int nsl_http_serve(int sock, int stop_fd, const struct nsl_http_app *app);

#endif /* NSL_HTTP_H */
