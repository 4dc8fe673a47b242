// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "http.h"

int nsl_http_bind(struct nsl_http *h, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int one = 1, err;

	memset(h, 0, sizeof(*h));
	h->sock = -1;
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		len = sizeof(*in6);
	} else {
		return -EINVAL;
	}
	h->sock = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (h->sock < 0)
		return -errno;
	setsockopt(h->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->sock, (struct sockaddr *)&ss, len) || listen(h->sock, 16)) {
		err = -errno;
		close(h->sock);
		h->sock = -1;
		return err;
	}
	return 0;
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned int status,
			       char *body, size_t len, const char *type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn,
				    unsigned int status, const char *text)
{
	return respond(conn, status, strdup(text), strlen(text), "text/plain");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **req)
{
	struct nsl_http *h = cls;
	char *body = NULL;
	size_t len = 0;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return respond_text(conn, MHD_HTTP_NOT_FOUND, "try /metrics\n");
	if (h->render(h->ctx, &body, &len))
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "cannot read the maps\n");
	return respond(conn, MHD_HTTP_OK, body, len,
		       "text/plain; version=0.0.4; charset=utf-8");
}

int nsl_http_start(struct nsl_http *h, nsl_render_fn render, void *ctx)
{
	sigset_t all, old;

	h->render = render;
	h->ctx = ctx;
	/*
	 * The server's thread inherits our signal mask: with every signal
	 * blocked there, SIGINT/SIGTERM/SIGHUP reach the main thread and
	 * interrupt its sleep between reports at once.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/*
	 * One internal thread polls and answers: scrapes are served one at a
	 * time, so render() never runs concurrently with itself.
	 */
	h->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
				     NULL, handle, h, MHD_OPTION_LISTEN_SOCKET,
				     h->sock, MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned int)10, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return h->daemon ? 0 : -EIO;
}

void nsl_http_stop(struct nsl_http *h)
{
	if (h->daemon)
		MHD_stop_daemon(h->daemon); /* closes the listen socket too */
	else if (h->sock >= 0)
		close(h->sock);
	h->daemon = NULL;
	h->sock = -1;
}
