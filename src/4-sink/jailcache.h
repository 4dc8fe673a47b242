/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the jail's keeper (jail.c) gives its child: answers rendered by the
 * application, kept and reused within bounds that hold whatever the child
 * asks (issue #44 item 5): an answer is reused while it is younger than
 * its render took (timed from the render's end), the next render waits as
 * long as the last one took (so at most half of the keeper's time
 * renders), and answers go at most every NSL_JAIL_ANSWER_GAP_MS (a child
 * that asks for reused answers as fast as it can costs little).
 */
#ifndef NSL_JAILCACHE_H
#define NSL_JAILCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "jailwire.h"

/* answers at most this often: a child asks once a second per representation */
#define NSL_JAIL_ANSWER_GAP_MS 50

/* What the parent serves: an answer of representation repr rendered into out. */
struct nsl_jail_app {
	void *ctx;
	/* *type: its Content-Type (a static string). 0 or a negative errno. */
	int (*render)(void *ctx, unsigned int repr, FILE *out, const char **type);
};

/* An answer kept for reuse. */
struct nsl_jail_kept {
	char *gz;			/* a gzip member, or NULL */
	size_t len;
	uint64_t plain;
	char type[128];
	int64_t end_ns, took_ns;	/* when its render ended, and how long it took */
};

struct nsl_jail_cache {
	struct nsl_jail_app app;
	struct nsl_jail_kept kept[NSL_JAIL_REPRS];
	int64_t render_at_ns;		/* the next render may start then */
	int64_t next_answer_ns;		/* ... and the next answer */
	uint64_t render_ns;		/* time spent rendering, since the start */
};

/* When representation repr < NSL_JAIL_REPRS may be answered (CLOCK_MONOTONIC ns). */
int64_t nsl_jail_cache_due(const struct nsl_jail_cache *c, unsigned int repr, int64_t now);

/*
 * Representation repr's answer, now: the one kept, or rendered anew;
 * NULL with *err a negative errno when the render failed.
 */
const struct nsl_jail_kept *nsl_jail_cache_answer(struct nsl_jail_cache *c, unsigned int repr,
						  int *err);

/* Nanoseconds spent rendering (read from any thread). */
uint64_t nsl_jail_cache_render_ns(const struct nsl_jail_cache *c);

void nsl_jail_cache_free(struct nsl_jail_cache *c);

#endif /* NSL_JAILCACHE_H */
