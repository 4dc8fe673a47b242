// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the /metrics server answers, by method and target, and in which
 * representation and encoding (src/4-sink/httproute.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "httproute.h"

static void test_metrics(void **state)
{
	(void)state;
	assert_int_equal(nsl_http_route("GET", "/metrics"), NSL_ROUTE_METRICS);
	assert_int_equal(nsl_http_route("HEAD", "/metrics"), NSL_ROUTE_METRICS);
}

/* RFC 9112 3.2.2: a server MUST accept the absolute form. */
static void test_absolute_form(void **state)
{
	(void)state;
	assert_int_equal(nsl_http_route("GET", "http://127.0.0.1:9469/metrics"),
			 NSL_ROUTE_METRICS);
	assert_int_equal(nsl_http_route("GET", "HTTP://[::1]:9469/metrics"),
			 NSL_ROUTE_METRICS);
	assert_int_equal(nsl_http_route("HEAD", "http://host/metrics"), NSL_ROUTE_METRICS);
	assert_int_equal(nsl_http_route("GET", "http://host"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "http://host/"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "http://host/metrics/x"), NSL_ROUTE_NOT_FOUND);
	/* not a scheme: an origin-form target that is simply not ours */
	assert_int_equal(nsl_http_route("GET", "1http://host/metrics"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "http:/host/metrics"), NSL_ROUTE_NOT_FOUND);
}

static void test_not_found(void **state)
{
	(void)state;
	assert_int_equal(nsl_http_route("GET", "/"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "/metrics/"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "/Metrics"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", "*"), NSL_ROUTE_NOT_FOUND);
	assert_int_equal(nsl_http_route("GET", ""), NSL_ROUTE_NOT_FOUND);
	/* a known method on a target that does not exist: 404 before 405 */
	assert_int_equal(nsl_http_route("POST", "/nothing"), NSL_ROUTE_NOT_FOUND);
}

/* RFC 9110 15.5.6: known to the server, not supported by the resource. */
static void test_not_allowed(void **state)
{
	const char *m[] = { "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE",
			    "CONNECT", "PROPFIND", "MKCOL", "VERSION-CONTROL" };

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		assert_int_equal(nsl_http_route(m[i], "/metrics"), NSL_ROUTE_NOT_ALLOWED);
}

/* RFC 9110 9.1: methods are case-sensitive; an unknown one is 501. */
static void test_not_implemented(void **state)
{
	const char *m[] = { "get", "Get", "head", "FOO", "GETS", "GE", "BREW",
			    "X-CUSTOM", "G.E.T" };

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(nsl_http_route(m[i], "/metrics"), NSL_ROUTE_NOT_IMPLEMENTED);
		assert_int_equal(nsl_http_route(m[i], "/nothing"), NSL_ROUTE_NOT_IMPLEMENTED);
	}
}

/* A method must be a token (RFC 9110 5.6.2). */
static void test_bad_method(void **state)
{
	const char *m[] = { "", "GET/metrics", "G(T", "G\"T", "GE T", "G\tT",
			    "G\x01T", "G\x7fT", "G\xc3\xa9T", "{GET}" };

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		assert_int_equal(nsl_http_route(m[i], "/metrics"), NSL_ROUTE_BAD_REQUEST);
}

/* Content negotiation: protobuf only when asked for, by q weight. */
static void test_prom_accept(void **state)
{
	(void)state;
	/* Prometheus 2.42 with --enable-feature=native-histograms */
	assert_true(nsl_prom_accepts_pb(
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,"
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		"q=0.5,*/*;q=0.1"));
	/* ... and without it */
	assert_false(nsl_prom_accepts_pb(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	/* older scrapers' header: protobuf at 0.7 over text at 0.3 */
	assert_true(nsl_prom_accepts_pb(
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1"));
	assert_false(nsl_prom_accepts_pb(NULL));
	assert_false(nsl_prom_accepts_pb(""));
	assert_false(nsl_prom_accepts_pb("*/*"));
	assert_false(nsl_prom_accepts_pb("text/plain"));
	/* spaces, case, weights */
	assert_true(nsl_prom_accepts_pb(" Application/Vnd.Google.Protobuf ; proto=io.prometheus.client.MetricFamily ; encoding=delimited"));
	assert_false(nsl_prom_accepts_pb("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;q=0"));
	assert_false(nsl_prom_accepts_pb("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;q=0.2,text/plain;q=0.9"));
	/* another message type, or an encoding we do not write */
	assert_false(nsl_prom_accepts_pb("application/vnd.google.protobuf;proto=other.Message"));
	assert_false(nsl_prom_accepts_pb("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text"));
	assert_false(nsl_prom_accepts_pb("application/vnd.google.protobuf"));
}

/* The representation a scrape gets: protobuf where the Accept header prefers it. */
static void test_repr(void **state)
{
	(void)state;
	/* the values the jail's channel carries */
	assert_int_equal(NSL_REPR_TEXT, 0);
	assert_int_equal(NSL_REPR_PROTOBUF, 1);
	assert_int_equal(nsl_http_repr(NULL), NSL_REPR_TEXT);
	assert_int_equal(nsl_http_repr(""), NSL_REPR_TEXT);
	assert_int_equal(nsl_http_repr("*/*"), NSL_REPR_TEXT);
	assert_int_equal(nsl_http_repr("text/plain;version=0.0.4"), NSL_REPR_TEXT);
	assert_int_equal(nsl_http_repr(
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1"),
		NSL_REPR_PROTOBUF);
	assert_int_equal(nsl_http_repr(
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited;q=0.2,text/plain;q=0.9"), NSL_REPR_TEXT);
}

static void test_accepts_gzip(void **state)
{
	(void)state;
	/* Prometheus' header, curl --compressed's, a browser's */
	assert_true(nsl_http_accepts_gzip("gzip"));
	assert_true(nsl_http_accepts_gzip("deflate, gzip, br, zstd"));
	assert_true(nsl_http_accepts_gzip("gzip, deflate, br"));
	/* none, identity only, or gzip refused */
	assert_false(nsl_http_accepts_gzip(NULL));
	assert_false(nsl_http_accepts_gzip(""));
	assert_false(nsl_http_accepts_gzip("identity"));
	assert_false(nsl_http_accepts_gzip("deflate, br"));
	assert_false(nsl_http_accepts_gzip("gzip;q=0"));
	assert_false(nsl_http_accepts_gzip("gzip ; q=0.000, identity"));
	/* weights, spaces, case, the old name, and "*" */
	assert_true(nsl_http_accepts_gzip(" GZip ;q=0.5"));
	assert_true(nsl_http_accepts_gzip("x-gzip"));
	assert_true(nsl_http_accepts_gzip("*"));
	assert_true(nsl_http_accepts_gzip("br;q=1, *;q=0.1"));
	assert_false(nsl_http_accepts_gzip("*;q=0"));
	/* gzip named with 0 is refused even where "*" would take it */
	assert_false(nsl_http_accepts_gzip("gzip;q=0, *"));
	/* a token that merely starts or ends like it */
	assert_false(nsl_http_accepts_gzip("gzipx, xgzip"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_prom_accept),
		cmocka_unit_test(test_repr),
		cmocka_unit_test(test_accepts_gzip),
		cmocka_unit_test(test_absolute_form),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_allowed),
		cmocka_unit_test(test_not_implemented),
		cmocka_unit_test(test_bad_method),
	};

	return cmocka_run_group_tests_name("httproute", tests, NULL, NULL);
}
