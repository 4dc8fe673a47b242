/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /metrics endpoint: libmicrohttpd serving what a render callback
 * produces, one scrape at a time.
 */
#ifndef NSL_HTTP_H
#define NSL_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* Fills *buf (malloc'ed, the caller frees) and *len; 0 or a negative errno. */
typedef int (*nsl_render_fn)(void *ctx, char **buf, size_t *len);

struct nsl_http {
	int sock;			/* bound and listening, or -1 */
	struct MHD_Daemon *daemon;
	nsl_render_fn render;
	void *ctx;
};

/*
 * Binds and listens on addr:port (numeric, IPv4 or IPv6). Done early, while
 * privileged (ports below 1024) and before anything is loaded, so that a
 * port in use is a start-up error. Returns 0 or a negative errno.
 */
int nsl_http_bind(struct nsl_http *h, const char *addr, uint16_t port);

/*
 * Starts serving on the bound socket in a thread of libmicrohttpd's. Start
 * it after dropping privileges: a thread keeps the credentials it was
 * created with.
 */
int nsl_http_start(struct nsl_http *h, nsl_render_fn render, void *ctx);

void nsl_http_stop(struct nsl_http *h);

#endif /* NSL_HTTP_H */
