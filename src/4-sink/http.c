// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics server: libmicrohttpd (Debian's 0.9.75, no TLS) parses
 * and answers HTTP in the jailed child (src/4-sink/jailchild.c); a loop of
 * ours drives it (external polling with epoll) so that the limits the
 * library lacks are enforced between its runs, in the same thread, with
 * no race against it closing sockets. The answers it sends are kept in
 * answers.c.
 *
 * What bounds what (docs/security.md states the guarantees):
 *  - connections: NSL_HTTP_CONNS at once (more wait in the listen
 *    backlog), NSL_HTTP_CONNS_PER_IP from one address (more are closed at
 *    once): the library's limits;
 *  - memory per connection: NSL_HTTP_CONN_MEM, its pool for the request
 *    head and the answer's header (a longer head gets 431, a longer
 *    request line 414);
 *  - time: NSL_HTTP_IDLE_S without progress (the library's timeout), and
 *    NSL_HTTP_TIMEOUT_MS from accept to the last byte, however slowly a
 *    client keeps sending or reading: ours, as the library's timeout
 *    restarts with every byte. An overdue socket is shut down (with a
 *    reset, so the kernel drops what it still holds for the client); the
 *    library sees the hangup in its next run and closes the connection;
 *  - memory for answers: one rendered answer per representation serves
 *    every scrape within NSL_HTTP_FRESH_MS, shared by reference (the
 *    library's response objects are reference-counted; the body is freed
 *    with the last connection sending it), and at most NSL_HTTP_ANSWERS
 *    are alive at once.
 * Every answer says "Connection: close": one request per connection, so
 * that the deadline from accept is the deadline of the request, and of
 * pipelined requests only the first is answered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "answers.h"
#include "clock.h"
#include "http.h"
#include "httproute.h"
#include "mhd.h"
#include "log.h"

/* The library's messages (refused connections, timeouts): with -v only. */
static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!nsl_verbose)
		return;
	fputs("netstacklat: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* Each connection's deadline starts when the library has accepted it. */
static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct nsl_http *h = cls;
	struct nsl_http_conn *slot = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (slot)
			slot->fd = -1;
		return;
	}
	info = nsl_mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!info)
		return;
	for (int i = 0; i < NSL_HTTP_CONNS; i++) {
		if (h->conns[i].fd >= 0)
			continue;
		slot = &h->conns[i];
		slot->fd = info->connect_fd;
		slot->cut = false;
		slot->deadline_ms = nsl_mono_ms() + NSL_HTTP_TIMEOUT_MS;
		*socket_context = slot;
		return;
	}
	/*
	 * Cannot be (the library keeps to NSL_HTTP_CONNS), but no connection
	 * may go without a deadline.
	 */
	shutdown(info->connect_fd, SHUT_RDWR);
}

/*
 * SO_LINGER 0: close() sends a reset, and the kernel frees at once what
 * the client never took (megabytes for one that does not read) instead
 * of keeping it for minutes in an orphaned socket. Only for connections
 * that ended abnormally: after a normal answer, the last bytes may still
 * be on their way.
 */
static void reset_on_close(int fd)
{
	const struct linger rst = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
}

/* A request ended: timed out or failed, its connection closes with a reset. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *info;

	(void)cls;
	(void)req_cls;
	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		return;
	info = nsl_mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (info)
		reset_on_close(info->connect_fd);
}

/*
 * Shuts down the sockets of overdue connections (the library then closes
 * them, with a reset); returns the next deadline (or INT64_MAX).
 */
static int64_t cut_overdue(struct nsl_http *h, int64_t now)
{
	int64_t next = INT64_MAX;

	for (int i = 0; i < NSL_HTTP_CONNS; i++) {
		struct nsl_http_conn *c = &h->conns[i];

		if (c->fd < 0 || c->cut)
			continue;
		if (now < c->deadline_ms) {
			if (c->deadline_ms < next)
				next = c->deadline_ms;
			continue;
		}
		reset_on_close(c->fd);
		shutdown(c->fd, SHUT_RDWR);
		c->cut = true;
	}
	return next;
}

/* A small fixed answer: the status, a line of text, "Connection: close". */
static enum MHD_Result answer_status(struct MHD_Connection *c,
				     unsigned int status)
{
	const char *text, *allow = NULL, *retry = NULL;
	struct MHD_Response *r;
	enum MHD_Result ret;

	switch (status) {
	case MHD_HTTP_NOT_FOUND:
		text = "try /metrics\n";
		break;
	case MHD_HTTP_METHOD_NOT_ALLOWED:
		text = "GET or HEAD /metrics\n";
		allow = "GET, HEAD";
		break;
	case MHD_HTTP_NOT_IMPLEMENTED:
		text = "unknown method\n";
		break;
	case MHD_HTTP_SERVICE_UNAVAILABLE:
		text = "busy: every answer is held by a slow client\n";
		retry = "1";
		break;
	case MHD_HTTP_BAD_REQUEST:
		text = "bad request\n";
		break;
	default:
		text = "cannot read the maps\n";
		break;
	}
	r = nsl_mhd.create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	ret = nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain") &&
	      nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close") &&
	      (!allow || nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow)) &&
	      (!retry || nsl_mhd.add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry)) ?
	      nsl_mhd.queue_response(c, status, r) : MHD_NO;
	nsl_mhd.destroy_response(r);
	return ret;
}

/*
 * Called once a request head is parsed (the library has answered bad
 * request lines, versions and oversized heads itself): answer at once.
 * A body, if any, is not read: the connection closes after the answer.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct nsl_http *h = cls;
	unsigned int repr, status = MHD_HTTP_OK;
	struct nsl_http_answer *a;
	enum nsl_route route;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	route = nsl_http_route(method, url);
	switch (route) {
	case NSL_ROUTE_METRICS:
		break;
	case NSL_ROUTE_NOT_FOUND:
		return answer_status(c, MHD_HTTP_NOT_FOUND);
	case NSL_ROUTE_NOT_ALLOWED:
		return answer_status(c, MHD_HTTP_METHOD_NOT_ALLOWED);
	case NSL_ROUTE_NOT_IMPLEMENTED:
		return answer_status(c, MHD_HTTP_NOT_IMPLEMENTED);
	default:
		return answer_status(c, MHD_HTTP_BAD_REQUEST);
	}
	repr = h->app.choose(h->app.ctx, nsl_mhd.lookup_connection_value(
				     c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	a = repr < NSL_HTTP_MAX_REPRS ? nsl_answer_for(h, repr, &status) : NULL;
	if (a && nsl_queue_answer(h, c, a, &status) == MHD_YES)
		return MHD_YES;
	return answer_status(c, status == MHD_HTTP_OK ? MHD_HTTP_INTERNAL_SERVER_ERROR : status);
}

static void serve(struct nsl_http *h, int stop_fd)
{
	const union MHD_DaemonInfo *di =
		nsl_mhd.get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd pfd[2] = {
		{ .fd = di ? di->epoll_fd : -1, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	bool warned = false;

	for (;;) {
		int64_t now = nsl_mono_ms(), next, wait_ms;
		MHD_UNSIGNED_LONG_LONG mhd_ms;

		next = cut_overdue(h, now);
		wait_ms = nsl_expire_answers(h, now);
		if (next > wait_ms)
			next = wait_ms;
		wait_ms = next == INT64_MAX ? -1 : next - now;
		if (nsl_mhd.get_timeout(h->daemon, &mhd_ms) == MHD_YES &&
		    (wait_ms < 0 || (int64_t)mhd_ms < wait_ms))
			wait_ms = (int64_t)mhd_ms;
		if (poll(pfd, 2, (int)wait_ms) < 0 && errno != EINTR) {
			/* ENOMEM: wait a moment rather than spin or stop serving */
			if (!warned)
				pr_warn("--listen: poll: %s\n", strerror(errno));
			warned = true;
			usleep(100 * 1000);
		}
		if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL) ||
		    (pfd[1].revents && (!h->app.heard || h->app.heard(h->app.ctx))))
			break;
		nsl_mhd.run(h->daemon);
	}
}

int nsl_http_serve(int sock, int stop_fd, const struct nsl_http_app *app)
{
	static struct nsl_http server;	/* one a process: the jailed child's */
	struct nsl_http *h = &server;
	int err;

	err = nsl_mhd_load();
	if (err)
		return err;
	memset(h, 0, sizeof(*h));
	h->app = *app;
	for (int i = 0; i < NSL_HTTP_CONNS; i++)
		h->conns[i].fd = -1;
	h->daemon = nsl_mhd.start_daemon(
		MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
		MHD_OPTION_LISTEN_SOCKET, sock,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)NSL_HTTP_CONNS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)NSL_HTTP_CONNS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)NSL_HTTP_IDLE_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)NSL_HTTP_CONN_MEM,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_END);
	if (!h->daemon)
		return -EINVAL;
	err = app->ready ? app->ready(app->ctx) : 0;
	if (!err)
		serve(h, stop_fd);
	/* closes every connection, so only the cache holds answers then */
	nsl_mhd.stop_daemon(h->daemon);
	h->daemon = NULL;
	for (unsigned int r = 0; r < NSL_HTTP_MAX_REPRS; r++)
		nsl_answer_drop(h, r);
	return err;
}
