/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /metrics endpoint: libmicrohttpd driven by a thread of ours
 * (src/http.c), serving what the application renders. See
 * docs/security.md for the limits and what they guarantee.
 */
#ifndef NSL_HTTP_H
#define NSL_HTTP_H

#include <pthread.h>
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

/*
 * What the application serves on /metrics, in one or more representations
 * (the text exposition; later Prometheus' protobuf one). For each request
 * the server asks choose() which one the request wants, then render() for
 * its bytes, unless an answer of that representation rendered less than
 * NSL_HTTP_FRESH_MS ago is alive: concurrent scrapes share one answer.
 * Both run in the server's thread, never concurrently with themselves.
 */
struct nsl_http_app {
	void *ctx;
	/*
	 * The representation (0 .. NSL_HTTP_MAX_REPRS - 1) a request with
	 * this Accept header (NULL: none) gets.
	 */
	unsigned int (*choose)(void *ctx, const char *accept);
	/*
	 * Renders representation repr into out (which compresses as it
	 * goes: the server keeps answers as gzip), and *type, its
	 * Content-Type (a static string). Returns 0 or a negative errno
	 * (the request gets 500).
	 */
	int (*render)(void *ctx, unsigned int repr, FILE *out, const char **type);
};

struct MHD_Daemon;
struct nsl_http_conn;
struct nsl_http_answer;

struct nsl_http {
	int sock;			/* bound and listening, or -1 */
	struct nsl_http_app app;
	struct MHD_Daemon *daemon;	/* owns sock once started */
	struct nsl_http_conn *conns;	/* NSL_HTTP_CONNS: deadlines */
	/* the newest answer of each representation, while it may be reused */
	struct nsl_http_answer *newest[NSL_HTTP_MAX_REPRS];
	/* rendered answers alive, per representation: one's readers never
	 * starve the other's scrapers */
	unsigned int answers[NSL_HTTP_MAX_REPRS];
	size_t answer_bytes[NSL_HTTP_MAX_REPRS];
	unsigned int inflating;		/* inflated responses alive */
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
int nsl_http_start(struct nsl_http *h, const struct nsl_http_app *app);

/* Stops the thread, closes every connection and the socket. */
void nsl_http_stop(struct nsl_http *h);

#endif /* NSL_HTTP_H */
