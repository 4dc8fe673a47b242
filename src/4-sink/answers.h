/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The /metrics server's answers (src/4-sink/http.c drives the library):
 * each representation's newest one serves every scrape while it is fresh,
 * within NSL_HTTP_ANSWERS, NSL_HTTP_ANSWER_BYTES and NSL_HTTP_INFLATING
 * (http.h). Also the server's state, which both files use.
 */
#ifndef NSL_ANSWERS_H
#define NSL_ANSWERS_H

#include <stdbool.h>
#include <stdint.h>
#include "http.h"
#include "mhd.h"

struct nsl_http_conn {
	int fd;				/* -1: free slot */
	bool cut;			/* shut down for being overdue */
	int64_t deadline_ms;		/* CLOCK_MONOTONIC */
};

struct nsl_http_answer;

/* The server's state: the library's daemon, the deadlines, the answers. */
struct nsl_http {
	struct nsl_http_app app;
	struct MHD_Daemon *daemon;	/* owns the listening socket */
	struct nsl_http_conn conns[NSL_HTTP_CONNS];
	/* the newest answer of each representation, while it may be reused */
	struct nsl_http_answer *newest[NSL_HTTP_MAX_REPRS];
	/* rendered answers alive, per representation: one's readers never
	 * starve the other's scrapers */
	unsigned int answers[NSL_HTTP_MAX_REPRS];
	size_t answer_bytes[NSL_HTTP_MAX_REPRS];
	unsigned int inflating;		/* inflated responses alive */
};

/* Drops cached answers too old to serve; returns when the next will be. */
int64_t nsl_expire_answers(struct nsl_http *h, int64_t now);

/* The cache lets go of representation repr's newest answer. */
void nsl_answer_drop(struct nsl_http *h, unsigned int repr);

/*
 * The answer for a scrape of representation repr, or NULL: *status says
 * why (500: cannot render, 503: no room).
 */
struct nsl_http_answer *nsl_answer_for(struct nsl_http *h, unsigned int repr,
				       unsigned int *status);

/* Queues answer a on c, gzip'ed or inflated as c takes it (else *status). */
enum MHD_Result nsl_queue_answer(struct nsl_http *h, struct MHD_Connection *c,
				 struct nsl_http_answer *a, unsigned int *status);

#endif /* NSL_ANSWERS_H */
