/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a parsed request gets from the /metrics server, by its method and
 * target (RFC 9110 9.1, 15.5.5, 15.5.6, 15.6.2; RFC 9112 3.2), and in
 * which representation and encoding, by its Accept and Accept-Encoding
 * headers (RFC 9110 12.5).
 * Pure: unit-tested on the host (tests/unit/test_httproute.c). The request
 * line itself (version, spaces, length) is checked by libmicrohttpd
 * before this is asked (src/http.c).
 */
#ifndef NSL_HTTPROUTE_H
#define NSL_HTTPROUTE_H

#include <stdbool.h>

enum nsl_route {
	NSL_ROUTE_METRICS,		/* GET or HEAD of /metrics: 200 */
	NSL_ROUTE_NOT_FOUND,		/* any other target: 404 */
	NSL_ROUTE_NOT_ALLOWED,		/* a known method but GET/HEAD: 405 */
	NSL_ROUTE_NOT_IMPLEMENTED,	/* a method we do not know: 501 */
	NSL_ROUTE_BAD_REQUEST,		/* a method that is not a token: 400 */
};

/*
 * method as sent (method names are case-sensitive: "get" is not GET);
 * target without its query string, in origin form ("/metrics") or
 * absolute form ("http://host:port/metrics", RFC 9112 3.2.2).
 */
enum nsl_route nsl_http_route(const char *method, const char *target);

/*
 * Whether an HTTP Accept header (NULL: none) prefers the protobuf
 * exposition (application/vnd.google.protobuf;
 * proto=io.prometheus.client.MetricFamily; encoding=delimited) to the
 * text one, by its q weights: what Prometheus asks for when native
 * histograms are enabled.
 */
bool nsl_prom_accepts_pb(const char *accept);

/*
 * Whether an Accept-Encoding header (NULL: none) takes gzip (RFC 9110
 * 12.5.3): "gzip" or "x-gzip", or else "*", with a weight above 0.
 * Prometheus sends "gzip".
 */
bool nsl_http_accepts_gzip(const char *accept_encoding);

#endif /* NSL_HTTPROUTE_H */
