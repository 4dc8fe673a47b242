// SPDX-License-Identifier: GPL-2.0-only
/* What the /metrics server answers, by method and target (src/4-sink/httproute.c). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_absolute_form),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_allowed),
		cmocka_unit_test(test_not_implemented),
		cmocka_unit_test(test_bad_method),
	};

	return cmocka_run_group_tests_name("httproute", tests, NULL, NULL);
}
