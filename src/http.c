// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics endpoint: a small HTTP/1.1 server in one thread of ours.
 *
 * It does only what a scraper needs: GET or HEAD of /metrics, one request
 * per connection ("Connection: close"), no request bodies, no TLS (put a
 * proxy in front for that). Doing it here instead of linking libmicrohttpd
 * saves its GnuTLS dependency chain: 2.9 MiB of resident memory in every
 * run, and a TLS stack in a process that starts as root.
 *
 * Limits, so that no client can hold the server: NSL_HTTP_CONNS
 * connections at once (more wait in the listen backlog), a request head of
 * at most NSL_HTTP_REQ_MAX bytes (else 431), and NSL_HTTP_TIMEOUT_MS from
 * accept to the last byte of the answer (an idle or slow client is
 * dropped), and at most NSL_HTTP_ANSWERING rendered answers held while
 * their clients read them (an answer with thousands of groups has
 * megabytes).
 * One thread renders one scrape at a time, so the render callback never
 * runs concurrently with itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "http.h"

struct nsl_http_conn {
	int fd;				/* -1: free slot */
	int64_t deadline_ms;		/* CLOCK_MONOTONIC */
	size_t req_len;
	char req[NSL_HTTP_REQ_MAX];
	char *out;			/* the whole answer, once known */
	size_t out_len, out_off;
};

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
	h->sock = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (h->sock < 0)
		return -errno;
	setsockopt(h->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->sock, (struct sockaddr *)&ss, len) || listen(h->sock, 64)) {
		err = -errno;
		close(h->sock);
		h->sock = -1;
		return err;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_close(struct nsl_http_conn *c)
{
	char sink[4096];

	if (c->fd < 0)
		return;
	/*
	 * Unread input at close() makes the kernel send a reset, which can
	 * cut off the answer at the client: read what is there first (a
	 * bounded amount: a client that keeps sending gets its reset).
	 */
	shutdown(c->fd, SHUT_WR);
	for (int i = 0; i < 16; i++)
		if (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
			break;
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
}

/* Queues the answer: head, and body unless head_only. Takes body. */
static void respond(struct nsl_http_conn *c, const char *status,
		    const char *type, const char *extra, char *body,
		    size_t len, bool head_only)
{
	char *out;
	size_t n;
	int hn;

	hn = asprintf(&out, "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
		      "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
		      status, type, len, extra);
	if (hn < 0) {
		free(body);
		conn_close(c);
		return;
	}
	n = (size_t)hn;
	if (!head_only && len) {
		char *all = realloc(out, n + len);

		if (!all) {
			free(out);
			free(body);
			conn_close(c);
			return;
		}
		memcpy(all + n, body, len);
		out = all;
		n += len;
	}
	free(body);
	c->out = out;
	c->out_len = n;
	c->out_off = 0;
}

static void respond_text(struct nsl_http_conn *c, const char *status,
			 const char *extra, const char *text, bool head_only)
{
	char *body = strdup(text);

	respond(c, status, "text/plain", extra, body, body ? strlen(body) : 0,
		head_only);
}

/* c->req holds a whole request head: answer it. */
static void handle(struct nsl_http *h, struct nsl_http_conn *c)
{
	char method[8], target[256], version[16];
	char *body = NULL, *q;
	size_t len = 0;
	bool head;

	/* "METHOD SP TARGET SP HTTP/1.x" (RFC 9112 3); longer ones are 400 */
	if (sscanf(c->req, "%7[A-Z] %255[^ \r\n] %15[^ \r\n]", method, target,
		   version) != 3 || strncmp(version, "HTTP/1.", 7) != 0) {
		respond_text(c, "400 Bad Request", "", "bad request\n", false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET") != 0) {
		respond_text(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n",
			     "GET /metrics\n", false);
		return;
	}
	q = strchr(target, '?');	/* a query string is ignored */
	if (q)
		*q = '\0';
	if (strcmp(target, "/metrics") != 0) {
		respond_text(c, "404 Not Found", "", "try /metrics\n", head);
		return;
	}
	if (h->render(h->ctx, &body, &len)) {
		free(body);
		respond_text(c, "500 Internal Server Error", "",
			     "cannot read the maps\n", head);
		return;
	}
	respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", "",
		body, len, head);
}

static bool head_complete(const struct nsl_http_conn *c)
{
	return memmem(c->req, c->req_len, "\r\n\r\n", 4) ||
	       memmem(c->req, c->req_len, "\n\n", 2);
}

static void conn_read(struct nsl_http *h, struct nsl_http_conn *c)
{
	/* one byte kept for the terminating NUL sscanf() needs */
	ssize_t n = recv(c->fd, c->req + c->req_len,
			 sizeof(c->req) - 1 - c->req_len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->req_len += (size_t)n;
	c->req[c->req_len] = '\0';
	if (head_complete(c))
		handle(h, c);
	else if (c->req_len == sizeof(c->req) - 1)
		respond_text(c, "431 Request Header Fields Too Large", "",
			     "request head too large\n", false);
}

static void conn_write(struct nsl_http_conn *c)
{
	ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		conn_close(c);
		return;
	}
	c->out_off += (size_t)n;
	if (c->out_off == c->out_len)
		conn_close(c);
}

/*
 * When a connection that is still waiting for its request may give its
 * slot to a new one. A scraper sends its request at once, so clients that
 * hold connections open without asking cannot lock scrapers out for long;
 * a connection being answered is never evicted.
 */
static int64_t evictable_at(const struct nsl_http_conn *c)
{
	return c->deadline_ms - NSL_HTTP_TIMEOUT_MS + NSL_HTTP_IDLE_MS;
}

/* A free slot, else the oldest evictable one (closed if evict); or NULL. */
static struct nsl_http_conn *free_slot(struct nsl_http *h, int64_t now,
				       bool evict)
{
	struct nsl_http_conn *oldest = NULL;

	for (int i = 0; i < NSL_HTTP_CONNS; i++) {
		struct nsl_http_conn *c = &h->conns[i];

		if (c->fd < 0)
			return c;
		if (!c->out && now >= evictable_at(c) &&
		    (!oldest || c->deadline_ms < oldest->deadline_ms))
			oldest = c;
	}
	if (oldest && evict)
		conn_close(oldest);
	return oldest;
}

/*
 * Accepts what waits. Returns false when accepting failed for want of
 * resources (EMFILE, ENOBUFS, ...): the connection stays in the backlog
 * and the caller waits a moment instead of polling it again at once.
 */
static bool accept_conns(struct nsl_http *h, int64_t now)
{
	struct nsl_http_conn *c;
	int fd;

	while (free_slot(h, now, false)) {
		fd = accept4(h->sock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return errno == EAGAIN || errno == EINTR ||
			       errno == ECONNABORTED;
		c = free_slot(h, now, true);
		c->fd = fd;
		c->deadline_ms = now + NSL_HTTP_TIMEOUT_MS;
		c->req_len = 0;
	}
	return true;
}

static void *serve(void *arg)
{
	struct nsl_http *h = arg;
	struct pollfd pfd[NSL_HTTP_CONNS + 2];
	int slot[NSL_HTTP_CONNS + 2];
	int64_t pause_until = 0;

	for (;;) {
		int64_t now = now_ms(), timeout = -1;
		bool room = false;
		int n = 2, answering = 0;

		for (int i = 0; i < NSL_HTTP_CONNS; i++)
			answering += h->conns[i].fd >= 0 && h->conns[i].out;
		pfd[0] = (struct pollfd){ .fd = h->wake[0], .events = POLLIN };
		for (int i = 0; i < NSL_HTTP_CONNS; i++) {
			struct nsl_http_conn *c = &h->conns[i];
			int64_t wake;

			if (now >= c->deadline_ms)
				conn_close(c);
			if (c->fd < 0) {
				room = true;
				continue;
			}
			/* its deadline, or when free_slot() may take it */
			wake = c->deadline_ms;
			if (!c->out && now < evictable_at(c))
				wake = evictable_at(c);
			else if (!c->out)
				room = true;
			if (timeout < 0 || wake - now < timeout)
				timeout = wake - now;
			/*
			 * Each answer is rendered whole and held until sent:
			 * with NSL_HTTP_ANSWERING of them pending (clients
			 * that do not read), requests wait unread.
			 */
			if (!c->out && answering >= NSL_HTTP_ANSWERING)
				continue;
			slot[n] = i;
			pfd[n++] = (struct pollfd){
				.fd = c->fd, .events = c->out ? POLLOUT : POLLIN };
		}
		/*
		 * No slot to take, or accepting paused: new connections wait
		 * in the backlog.
		 */
		if (now < pause_until) {
			room = false;
			if (timeout < 0 || pause_until - now < timeout)
				timeout = pause_until - now;
		}
		pfd[1] = (struct pollfd){ .fd = room ? h->sock : -1, .events = POLLIN };
		if (poll(pfd, n, (int)timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		for (int j = 2; j < n; j++) {
			struct nsl_http_conn *c = &h->conns[slot[j]];

			if (!pfd[j].revents)
				continue;
			if (c->out)
				conn_write(c);
			else
				conn_read(h, c);
			/* answered at once: usually all of it fits the socket */
			if (c->fd >= 0 && c->out && c->out_off == 0)
				conn_write(c);
		}
		if (pfd[1].revents && !accept_conns(h, now_ms()))
			pause_until = now_ms() + 100;
	}
	return NULL;
}

int nsl_http_start(struct nsl_http *h, nsl_render_fn render, void *ctx)
{
	sigset_t all, old;
	int err;

	h->render = render;
	h->ctx = ctx;
	h->conns = calloc(NSL_HTTP_CONNS, sizeof(*h->conns));
	if (!h->conns)
		return -ENOMEM;
	for (int i = 0; i < NSL_HTTP_CONNS; i++)
		h->conns[i].fd = -1;
	if (pipe2(h->wake, O_CLOEXEC))
		return -errno;
	h->has_pipe = true;
	/*
	 * The server's thread inherits our signal mask: with every signal
	 * blocked there, SIGINT/SIGTERM/SIGHUP reach the main thread and
	 * interrupt its sleep between reports at once.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&h->thread, NULL, serve, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	h->serving = !err;
	return err;
}

void nsl_http_stop(struct nsl_http *h)
{
	if (h->serving) {
		/* the thread leaves its poll() when the pipe turns readable */
		while (write(h->wake[1], "x", 1) < 0 && errno == EINTR)
			;
		pthread_join(h->thread, NULL);
		h->serving = false;
	}
	if (h->has_pipe) {
		close(h->wake[0]);
		close(h->wake[1]);
		h->has_pipe = false;
	}
	for (int i = 0; h->conns && i < NSL_HTTP_CONNS; i++)
		conn_close(&h->conns[i]);
	free(h->conns);
	h->conns = NULL;
	if (h->sock >= 0)
		close(h->sock);
	h->sock = -1;
}
