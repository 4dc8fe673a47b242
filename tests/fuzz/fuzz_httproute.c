// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the request router and the content negotiation of
 * the /metrics server (src/4-sink/httproute.c), which read what any client
 * sends. An input is "method\0target\0Accept\0Accept-Encoding": what
 * libmicrohttpd hands the server, none of which can hold a NUL. A missing
 * method or target is "" (the API takes no NULL there), a missing header
 * NULL (not sent). Each part gets a heap buffer of its exact size, so that
 * ASan sees any read past its end.
 *
 * Besides crashes, it aborts where an answer breaks what httproute.h
 * promises, each promise checked from its definition (the RFC's, the
 * header's) rather than from httproute.c's code, so that a slip there is
 * not copied into its check.
 *
 * The corpus, tests/fuzz/corpus/httproute/: named inputs written by hand
 * (Prometheus' scrapes with and without native histograms, curl's, other
 * methods and targets, odd weights), hashed ones that make fuzz-merge
 * kept for reaching new code.
 *
 *   make fuzz FUZZER=httproute   # FUZZ_TIME seconds, into .output/fuzz/new/
 *   .output/fuzz/fuzz_httproute -runs=0 tests/fuzz/corpus/httproute # replay
 */
#define _GNU_SOURCE /* strcasestr */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "httproute.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The part at *p, up to the next NUL or the end, in a heap buffer of its
 * exact size; NULL where the part before ended the input (*p is NULL).
 */
static char *next_part(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul;
	size_t len;
	char *s;

	if (!*p)
		return NULL;
	nul = *p < end ? memchr(*p, '\0', end - *p) : NULL;
	len = (nul ? nul : end) - *p;
	s = malloc(len + 1);
	if (s) {
		if (len)
			memcpy(s, *p, len);
		s[len] = '\0';
	}
	*p = nul ? nul + 1 : NULL;
	return s;
}

/*
 * RFC 9110 5.6.2: a token is one or more visible ASCII characters other
 * than the delimiters; written as the complement of httproute.c's list of
 * tchar, so that one list checks the other.
 */
static bool rfc_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e ||
		    strchr("\"(),/:;<=>?@[\\]{}", *s))
			return false;
	return true;
}

static bool has_lower(const char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			return true;
	return false;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static void check_route(const char *method, const char *target)
{
	enum nsl_route r = nsl_http_route(method, target);
	enum nsl_route own = nsl_http_route(method, "/metrics");
	bool get_or_head = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	bool served = r == NSL_ROUTE_METRICS || r == NSL_ROUTE_NOT_ALLOWED;
	bool own_served =
	    own == NSL_ROUTE_METRICS || own == NSL_ROUTE_NOT_ALLOWED;

	/* http.c answers each value by name: one past the last gets a 400 */
	if ((unsigned int)r > NSL_ROUTE_BAD_REQUEST)
		abort();
	/*
	 * The method is judged before the target, which can only turn what
	 * the method gets at /metrics (200, 405) into a 404.
	 */
	if (r != own && !(r == NSL_ROUTE_NOT_FOUND && own_served))
		abort();
	/* only GET and HEAD are served; they are never 400, 405 or 501 */
	if ((own == NSL_ROUTE_METRICS) != get_or_head)
		abort();
	/* 400 exactly for a method that is not a token */
	if ((own == NSL_ROUTE_BAD_REQUEST) != !rfc_token(method))
		abort();
	/*
	 * Methods are case-sensitive (RFC 9110 9.1) and the registry's are
	 * upper case: "get" or "Post" is a 501.
	 */
	if (rfc_token(method) && has_lower(method) &&
	    own != NSL_ROUTE_NOT_IMPLEMENTED)
		abort();
	/*
	 * The one resource: "/metrics" itself, or an absolute-form target
	 * (RFC 9112 3.2.2, "scheme://authority/metrics") whose path it is.
	 * Any other origin-form target, "/metrics/" or "/metrics?" (a
	 * decoded %3F) included, is a 404.
	 */
	if (served && strcmp(target, "/metrics") != 0 &&
	    (target[0] == '/' || !strstr(target, "://") ||
	     !ends_with(target, "/metrics")))
		abort();
}

static void check_repr(const char *accept)
{
	unsigned int repr = nsl_http_repr(accept);
	bool named = accept &&
		     strcasestr(accept, "application/vnd.google.protobuf") &&
		     strcasestr(accept, "io.prometheus.client.MetricFamily");

	/* the jail's channel carries it; metrics.c renders only these two */
	if (repr != NSL_REPR_TEXT && repr != NSL_REPR_PROTOBUF)
		abort();
	if ((repr == NSL_REPR_PROTOBUF) != nsl_prom_accepts_pb(accept))
		abort();
	/*
	 * Protobuf only for a scraper that names it: a text-only one must
	 * never get bytes it cannot read. No header is text.
	 */
	if (repr == NSL_REPR_PROTOBUF && !named)
		abort();
}

static void check_gzip(const char *accept_encoding)
{
	bool named = accept_encoding && (strcasestr(accept_encoding, "gzip") ||
					 strchr(accept_encoding, '*'));

	/* gzip only where the client named it, or "*": no header is identity */
	if (nsl_http_accepts_gzip(accept_encoding) && !named)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	char *method = next_part(&p, data + size);
	char *target = next_part(&p, data + size);
	char *accept = next_part(&p, data + size);
	char *accept_encoding = next_part(&p, data + size);

	check_route(method ? method : "", target ? target : "");
	check_repr(accept);
	check_gzip(accept_encoding);
	free(method);
	free(target);
	free(accept);
	free(accept_encoding);
	return 0;
}
