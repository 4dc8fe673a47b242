// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which answer a request for the /metrics server gets, by method and
 * target. libmicrohttpd accepts any non-empty method and any target; RFC
 * 9110 wants 405 (with Allow) for a method the server knows but the
 * resource does not support, and 501 for one it does not know. "Knows"
 * is the IANA HTTP method registry: what a client can mean by a method.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* ---- content negotiation (RFC 9110 12.5) ---- */

/* Skips optional whitespace (RFC 9110 OWS). */
static const char *ows(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* [p, end) with OWS trimmed at both ends equals s, ignoring case. */
static bool token_is(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	p = ows(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (size_t)(end - p) == n && !strncasecmp(p, s, n);
}

/* A parameter "name=value" of a list element: [name, eq) and [v, vend). */
struct param {
	const char *name, *eq, *v, *vend;
};

/*
 * The element's next parameter after *semi (its ';', NULL: none left),
 * which moves on; false when there is none. The weight "q" is one.
 */
static bool next_param(const char **semi, const char *end, struct param *pa)
{
	while (*semi) {
		const char *name = *semi + 1, *next = memchr(name, ';', end - name);

		pa->vend = next ? next : end;
		*semi = next;
		pa->eq = memchr(name, '=', pa->vend - name);
		if (pa->eq) {
			pa->name = name;
			pa->v = ows(pa->eq + 1, pa->vend);
			return true;
		}
	}
	return false;
}

/*
 * Walks the elements of a comma-separated header value (NULL: none):
 * calls each(p, name_end, semi, end, ctx) for every element [p, end),
 * its name [p, name_end) and its first ';' (NULL: no parameters).
 */
static void each_element(const char *list, void (*each)(const char *p, const char *name_end,
							const char *semi, const char *end,
							void *ctx), void *ctx)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		const char *semi;

		if (!end)
			end = p + strlen(p);
		semi = memchr(p, ';', end - p);
		each(p, semi ? semi : end, semi, end, ctx);
		p = *end ? end + 1 : end;
	}
}

/* The best weights an Accept header gives each of our two media types. */
struct accept_q {
	double pb, text;
};

/* One media range of an Accept header: protobuf or text, and its weight. */
static void media_range(const char *p, const char *type_end, const char *semi,
			const char *end, void *ctx)
{
	struct accept_q *aq = ctx;
	bool pb = token_is(p, type_end, "application/vnd.google.protobuf");
	bool text = token_is(p, type_end, "text/plain") ||
		    token_is(p, type_end, "text/*") || token_is(p, type_end, "*/*");
	bool proto_ok = false, encoding_ok = true;
	struct param pa;
	double q = 1;

	while (next_param(&semi, end, &pa)) {
		if (token_is(pa.name, pa.eq, "q"))
			q = strtod(pa.v, NULL);
		else if (token_is(pa.name, pa.eq, "proto"))
			proto_ok = token_is(pa.v, pa.vend, "io.prometheus.client.MetricFamily");
		else if (token_is(pa.name, pa.eq, "encoding"))
			encoding_ok = token_is(pa.v, pa.vend, "delimited");
		else if (token_is(pa.name, pa.eq, "version") && text)
			text = token_is(pa.v, pa.vend, "0.0.4");
	}
	if (pb && proto_ok && encoding_ok && q > aq->pb)
		aq->pb = q;
	else if (text && !pb && q > aq->text)
		aq->text = q;
}

bool nsl_prom_accepts_pb(const char *accept)
{
	struct accept_q aq = { 0, 0 };

	each_element(accept, media_range, &aq);
	return aq.pb > 0 && aq.pb >= aq.text;
}

unsigned int nsl_http_repr(const char *accept)
{
	return nsl_prom_accepts_pb(accept) ? NSL_REPR_PROTOBUF : NSL_REPR_TEXT;
}

/* The weights an Accept-Encoding header gives gzip and "*" (-1: not named). */
struct encoding_q {
	double gzip, any;
};

static void coding(const char *p, const char *name_end, const char *semi,
		   const char *end, void *ctx)
{
	struct encoding_q *eq = ctx;
	struct param pa;
	double q = 1;

	while (next_param(&semi, end, &pa))
		if (token_is(pa.name, pa.eq, "q"))
			q = strtod(pa.v, NULL);
	if (token_is(p, name_end, "gzip") || token_is(p, name_end, "x-gzip"))
		eq->gzip = q > eq->gzip ? q : eq->gzip;
	else if (token_is(p, name_end, "*"))
		eq->any = q > eq->any ? q : eq->any;
}

bool nsl_http_accepts_gzip(const char *accept_encoding)
{
	struct encoding_q eq = { -1, -1 };

	each_element(accept_encoding, coding, &eq);
	return eq.gzip >= 0 ? eq.gzip > 0 : eq.any > 0;
}
