/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a parsed request gets from the /metrics server, by its method and
 * target (RFC 9110 9.1, 15.5.5, 15.5.6, 15.6.2; RFC 9112 3.2), and in
 * which representation and encoding, by its Accept and Accept-Encoding
 * headers (RFC 9110 12.5).
 * Pure: unit-tested on the host (tests/unit/test_httproute.c). The request
 * line itself (version, spaces, length) is checked by libmicrohttpd
 * before this is asked (src/4-sink/http.c).
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
 * The representations of /metrics: the text exposition, and Prometheus'
 * protobuf one (native histograms at --resolution 2, 4, 8) for scrapers
 * whose Accept header prefers it (src/3-format/prom_pb.c).
 */
enum nsl_metrics_repr {
	NSL_REPR_TEXT = 0,		/* text/plain; version=0.0.4 */
	NSL_REPR_PROTOBUF = 1,		/* delimited io.prometheus.client.MetricFamily */
};

/*
 * The representation (enum nsl_metrics_repr) a scrape with this Accept
 * header (NULL: none) gets: asked in the jailed server, rendered by the
 * tool (src/4-sink/metrics.c).
 */
unsigned int nsl_http_repr(const char *accept);

/*
 * Whether an Accept-Encoding header (NULL: none) takes gzip (RFC 9110
 * 12.5.3): "gzip" or "x-gzip", or else "*", with a weight above 0.
 * Prometheus sends "gzip".
 */
bool nsl_http_accepts_gzip(const char *accept_encoding);

#endif /* NSL_HTTPROUTE_H */
