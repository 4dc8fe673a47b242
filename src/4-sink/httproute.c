// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which answer a request for the /metrics server gets, by method and
 * target. libmicrohttpd accepts any non-empty method and any target; RFC
 * 9110 wants 405 (with Allow) for a method the server knows but the
 * resource does not support, and 501 for one it does not know. "Knows"
 * is the IANA HTTP method registry: what a client can mean by a method.
 */
#include <stdbool.h>
#include <string.h>
#include "httproute.h"

/* The IANA HTTP Method Registry (RFC 9110 16.1), as of 2024. */
static const char *const known_methods[] = {
	"ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "CONNECT",
	"COPY", "DELETE", "GET", "HEAD", "LABEL", "LINK", "LOCK", "MERGE",
	"MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE",
	"MOVE", "OPTIONS", "ORDERPATCH", "PATCH", "POST", "PRI", "PROPFIND",
	"PROPPATCH", "PUT", "QUERY", "REBIND", "REPORT", "SEARCH", "TRACE",
	"UNBIND", "UNCHECKOUT", "UNLINK", "UNLOCK", "UPDATE",
	"UPDATEREDIRECTREF", "VERSION-CONTROL",
};

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* RFC 9110 5.6.2: token = 1*tchar */
static bool is_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!is_alpha(*s) && !is_digit(*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return false;
	return true;
}

static bool is_known(const char *method)
{
	for (size_t i = 0; i < sizeof(known_methods) / sizeof(known_methods[0]); i++)
		if (!strcmp(method, known_methods[i]))
			return true;
	return false;
}

/*
 * The path of an absolute-form target (RFC 3986 scheme "://" authority
 * path), or the target itself. No path at all is "/" (RFC 9112 3.2.1).
 */
static const char *path_of(const char *target)
{
	const char *p = target;

	if (!is_alpha(*p))
		return target;
	while (is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (strncmp(p, "://", 3) != 0)
		return target;
	p = strchr(p + 3, '/');
	return p ? p : "/";
}

enum nsl_route nsl_http_route(const char *method, const char *target)
{
	bool get_or_head = !strcmp(method, "GET") || !strcmp(method, "HEAD");

	if (!is_token(method))
		return NSL_ROUTE_BAD_REQUEST;
	if (!get_or_head && !is_known(method))
		return NSL_ROUTE_NOT_IMPLEMENTED;
	if (strcmp(path_of(target), "/metrics") != 0)
		return NSL_ROUTE_NOT_FOUND;
	return get_or_head ? NSL_ROUTE_METRICS : NSL_ROUTE_NOT_ALLOWED;
}
