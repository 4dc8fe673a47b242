// SPDX-License-Identifier: GPL-2.0-only
/*
 * trafficgen - deterministic TCP/UDP traffic for netstacklat integration tests
 *
 * The integration tests run a server in one network namespace and a client
 * in another (joined by veth) and compare what netstacklat measured against
 * what this program did.  Everything here exists to make that comparison
 * exact:
 *
 *  - the server counts only read()/recv() calls that returned > 0 bytes,
 *    which is what the tracer sees as a "socket read that delivered data";
 *  - the server can sleep before each read so that queued data provably sits
 *    in the socket receive queue for at least --read-delay-ms;
 *  - the report carries the server/client PID so tests can filter on it;
 *  - with --rx-stamps the server reports, per read, the RX timestamp the
 *    kernel gave the read (SO_TIMESTAMPNS: the one the tracer's read hook
 *    measures from) against the times it found data queued and read it;
 *  - every wait is bounded (poll timeouts plus a hard alarm), so a broken
 *    test fails quickly instead of hanging CI.
 *
 * Build: gcc -O2 -Wall -Wextra -Werror -std=gnu11 tests/trafficgen.c
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG			"trafficgen"

#define EXIT_SOCK		1	/* socket or file error at run time */
#define EXIT_USAGE		2	/* bad command line */
#define EXIT_GUARD		3	/* hard overall time limit hit */

#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_SEC		1000000000ULL

#define MAX_BUF_SIZE		(64U << 20)
#define MAX_COUNT		(1ULL << 48)
#define MAX_DURATION_S		86400.0

#define DEFAULT_READ_SIZE	65536
#define DEFAULT_MSG_SIZE	1000
#define DEFAULT_COUNT		1000
#define DEFAULT_INTERVAL_US	1000

#define CONNECT_RETRY_NS	(5 * NSEC_PER_SEC)
#define CONNECT_BACKOFF_NS	(50 * NSEC_PER_MSEC)
#define CLOSE_WAIT_NS		(10 * NSEC_PER_SEC)
#define GUARD_SLACK_S		15
#define GUARD_COUNT_S		120

/*
 * Longest single poll().  A SIGTERM that lands between checking the stop
 * flag and entering poll() is not noticed until poll() returns, so keeping
 * each poll short bounds how late such a signal can be acted on.
 */
#define POLL_SLICE_MS		100

enum role {
	ROLE_SERVER,
	ROLE_CLIENT,
};

struct config {
	enum role role;
	int socktype;			/* SOCK_STREAM or SOCK_DGRAM */
	const char *proto;		/* "tcp" or "udp", for the report */
	const char *addr;
	char port[8];
	struct sockaddr_storage sa;
	socklen_t salen;
	int family;
	uint64_t count;			/* 0: no limit */
	uint64_t duration_ns;		/* 0: no limit */
	unsigned int guard_s;
	/* server */
	uint64_t read_delay_ns;
	uint64_t start_delay_ns;	/* once, before the first read */
	size_t read_size;
	unsigned int rcvbuf;		/* SO_RCVBUF, 0: the kernel's default */
	const char *ready_file;
	/* client */
	size_t msg_size;
	uint64_t interval_ns;
	bool errqueue;			/* TX timestamps, read back (TCP) */
	bool oob;			/* each message's last byte urgent (TCP) */
	bool peek;			/* server: 0-byte MSG_PEEK first (UDP) */
	bool rx_stamps;			/* server: per-read RX stamps reported */
	bool splice;			/* server: reads by splice() (TCP) */
	uint64_t stall_ns;		/* server: one sleep a second, 0: none */
	uint64_t spin_ns;		/* server: busy work after each read, 0: none */
	unsigned int keep_queued;	/* server: bytes left queued while they grow */
	uint64_t read_batch;		/* server: reads a wake-up, at most */
	/* both */
	int protocol;			/* socket(): 0, or IPPROTO_MPTCP */
	/* both */
	const char *report;
};

/* server --rx-stamps: one read, CLOCK_REALTIME ns (the stamps' clock) */
struct rx_read {
	int64_t ready;			/* poll() said data was queued */
	int64_t start;			/* the read was called */
	int64_t stamp;			/* the read's SCM_TIMESTAMPNS, 0: none */
	int64_t done;			/* the read returned */
	int64_t bytes;
};
#define MAX_RX_READS 4096

struct stats {
	uint64_t ops;			/* reads (server) or writes (client) */
	uint64_t bytes;
	uint64_t errqueue_reads;	/* client --errqueue */
	struct rx_read *rx;		/* server --rx-stamps: the first reads */
	size_t n_rx;
};

static volatile sig_atomic_t stop_requested;
static char guard_msg[96];
static size_t guard_msg_len;

static const char usage_text[] =
"usage:\n"
"  " PROG " server --proto tcp|udp --bind ADDR --port N [--read-delay-ms N]\n"
"             [--start-delay-ms N] [--read-size B] [--rcvbuf B]\n"
"             [--duration-s S] [--count N]\n"
"             [--ready-file PATH] [--report PATH] [--mptcp] [--peek]\n"
"             [--rx-stamps] [--splice] [--stall-ms N] [--read-spin-us N]\n"
"             [--keep-queued B]\n"
"             [--read-batch N]\n"
"  " PROG " client --proto tcp|udp --connect ADDR --port N [--msg-size B]\n"
"             [--count N] [--interval-us U] [--duration-s S] [--errqueue]\n"
"             [--oob] [--mptcp] [--report PATH]\n"
"\n"
"ADDR is a numeric IPv4 or IPv6 address (IPv6 without brackets).\n"
"server: accepts one TCP connection (or binds UDP) and counts reads that\n"
"  returned data; with --read-delay-ms it waits until data is queued, then\n"
"  sleeps that long before every read; --start-delay-ms sleeps once more\n"
"  before the first read (a backlog).  --read-size defaults to 65536.\n"
"  --rcvbuf sets SO_RCVBUF (the kernel doubles it) before listen/bind;\n"
"  SO_RCVBUFFORCE where allowed (above net.core.rmem_max).\n"
"  --peek (UDP): before each read, a 0-byte recv(MSG_PEEK) of the next\n"
"  datagram, which the read then takes (peeks are not counted).\n"
"  --rx-stamps: SO_TIMESTAMPNS on; the report's \"rx\" lists, for each of\n"
"  the first 4096 reads, [ready, start, stamp, done, bytes]: CLOCK_REALTIME\n"
"  ns when poll() found data, when the read was called, the RX stamp it\n"
"  returned (that of the last skb it took; 0: none), when it returned;\n"
"  and its bytes.\n"
"  --splice (TCP): each read is a splice() of the socket into a pipe, which\n"
"  is spliced on into /dev/null (tcp_splice_read(): tcp_read_sock(), never\n"
"  tcp_recvmsg()); no RX stamps come back (0 in \"rx\").\n"
"  --stall-ms N: once a second, the reader sleeps N ms before its read.\n"
"  --read-spin-us N: after each read, the reader spins N us (work done per\n"
"  message, on its CPU: a reader slower than its sender, never asleep).\n"
"  --keep-queued B: before each read, waits until at least B bytes are\n"
"  charged to the socket's receive memory (SO_MEMINFO), or until that has\n"
"  not grown for 1 s (the sender is done): a queue that stands through the\n"
"  sender's pauses, drained at its end.\n"
"  --read-batch N: after the wait (and --read-delay-ms), up to N reads\n"
"  back to back, each while poll() says data is still queued (a reader\n"
"  that works in batches, and sleeps between them).\n"
"  Stops at TCP EOF, after --count reads, or after --duration-s; a UDP\n"
"  server needs --count or --duration-s.  --ready-file is created\n"
"  (containing the PID) once the socket is listening/bound.\n"
"client: sends --count messages of --msg-size bytes (defaults 1000, 1000),\n"
"  --interval-us apart (default 1000, 0 = back to back), or sends until\n"
"  --duration-s elapses.  TCP: retries refused connects for 5 s, then\n"
"  shuts down writing and waits up to 10 s for the server to close.\n"
"  --errqueue (TCP): software TX timestamps on, and after each message the\n"
"  error queue is read (recvmsg MSG_ERRQUEUE) until empty, waiting up to\n"
"  100 ms for its first entry; the report counts them (errqueue_reads).\n"
"  --oob (TCP): each message is sent with MSG_OOB (its last byte urgent).\n"
"--mptcp (both, TCP): Multipath TCP sockets (IPPROTO_MPTCP).\n"
"--duration-s accepts fractions (e.g. 0.5).\n"
"Prints one JSON report line on stdout (also to --report PATH, atomically).\n"
"Exit: 0 ok, 1 socket/file error, 2 usage error, 3 hard time limit hit.\n";

/* ---- small helpers ---------------------------------------------------- */

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* Report a failed system call by name; always returns -1 for chaining. */
static int sys_error(const char *call)
{
	fprintf(stderr, PROG ": %s: %s\n", call, strerror(errno));
	return -1;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* A deadline of 0 means "none"; otherwise it is an absolute now_ns() value. */
static uint64_t deadline_after(uint64_t delta_ns)
{
	return delta_ns ? now_ns() + delta_ns : 0;
}

static bool deadline_passed(uint64_t deadline)
{
	return deadline && now_ns() >= deadline;
}

static uint64_t earlier_deadline(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

/*
 * Sleep for ns, resuming after unrelated interruptions.  Returns false if a
 * stop was requested, so callers can skip the work the sleep preceded.
 */
static bool sleep_ns(uint64_t ns)
{
	struct timespec req = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	while (nanosleep(&req, &req) < 0) {
		if (errno != EINTR || stop_requested)
			break;
	}
	return !stop_requested;
}

/*
 * Wait until fd has one of events, the deadline passes or a stop is
 * requested.  Returns 1 when ready (errors and hangups count as ready so the
 * following read/send reports them), 0 on timeout or stop, -1 on error.
 */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int timeout, ret;

	for (;;) {
		if (stop_requested)
			return 0;
		timeout = POLL_SLICE_MS;
		if (deadline) {
			uint64_t now = now_ns();

			if (now >= deadline)
				return 0;
			if (deadline - now < POLL_SLICE_MS * NSEC_PER_MSEC)
				timeout = (deadline - now + NSEC_PER_MSEC - 1) /
					  NSEC_PER_MSEC;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret > 0)
			return 1;
		if (ret < 0 && errno != EINTR)
			return sys_error("poll");
	}
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Replace path with data atomically: test scripts poll for the file and read
 * it as soon as it exists, so it must never be visible half written.  The
 * temporary lives next to path because rename() cannot cross filesystems.
 */
static int write_file_atomic(const char *path, const char *data)
{
	size_t tmp_len = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(tmp_len);
	int fd, ret = -1;

	if (!tmp)
		return sys_error("malloc");
	snprintf(tmp, tmp_len, "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": mkostemp %s: %s\n", tmp,
			strerror(errno));
		goto out;
	}
	/* mkostemp() creates 0600; the reader may be a different user. */
	if (fchmod(fd, 0644) < 0 || write_all(fd, data, strlen(data)) < 0) {
		fprintf(stderr, PROG ": write %s: %s\n", tmp, strerror(errno));
		close(fd);
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fprintf(stderr, PROG ": close %s: %s\n", tmp, strerror(errno));
		goto out_unlink;
	}
	if (rename(tmp, path) < 0) {
		fprintf(stderr, PROG ": rename %s: %s\n", path,
			strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out;
out_unlink:
	unlink(tmp);
out:
	free(tmp);
	return ret;
}

/* ---- signals and the hard guard --------------------------------------- */

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * Last resort when something blocks longer than any poll timeout allows
 * (or a bug loops forever).  Only async-signal-safe calls: the message was
 * formatted up front.
 */
static void on_guard(int sig)
{
	(void)sig;
	if (write(STDERR_FILENO, guard_msg, guard_msg_len) < 0) {
		/* nothing useful left to do */
	}
	_exit(EXIT_GUARD);
}

static void setup_signals(const struct config *cfg)
{
	struct sigaction sa = { .sa_handler = on_stop };

	/*
	 * No SA_RESTART: a SIGTERM must break blocking calls (EINTR) so the
	 * loops can notice stop_requested and still print the report.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	/* A vanished peer must produce EPIPE, not kill us before the report. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	sa.sa_handler = on_guard;
	sigaction(SIGALRM, &sa, NULL);
	guard_msg_len = snprintf(guard_msg, sizeof(guard_msg),
				 PROG ": hard time limit of %u s exceeded, "
				 "aborting\n", cfg->guard_s);
	alarm(cfg->guard_s);
}

/* ---- command line ------------------------------------------------------ */

enum {
	OPT_PROTO = 256,
	OPT_BIND,
	OPT_CONNECT,
	OPT_PORT,
	OPT_READ_DELAY,
	OPT_START_DELAY,
	OPT_READ_SIZE,
	OPT_DURATION,
	OPT_COUNT,
	OPT_READY_FILE,
	OPT_REPORT,
	OPT_MSG_SIZE,
	OPT_INTERVAL,
	OPT_RCVBUF,
	OPT_ERRQUEUE,
	OPT_OOB,
	OPT_PEEK,
	OPT_RX_STAMPS,
	OPT_MPTCP,
	OPT_SPLICE,
	OPT_STALL,
	OPT_SPIN,
	OPT_KEEP,
	OPT_READ_BATCH,
};

/* Separate tables so an option of the other role is rejected by name. */
static const struct option server_opts[] = {
	{ "proto",		required_argument, NULL, OPT_PROTO },
	{ "bind",		required_argument, NULL, OPT_BIND },
	{ "port",		required_argument, NULL, OPT_PORT },
	{ "read-delay-ms",	required_argument, NULL, OPT_READ_DELAY },
	{ "start-delay-ms",	required_argument, NULL, OPT_START_DELAY },
	{ "read-size",		required_argument, NULL, OPT_READ_SIZE },
	{ "mptcp",		no_argument,	   NULL, OPT_MPTCP },
	{ "rcvbuf",		required_argument, NULL, OPT_RCVBUF },
	{ "peek",		no_argument,	   NULL, OPT_PEEK },
	{ "rx-stamps",		no_argument,	   NULL, OPT_RX_STAMPS },
	{ "splice",		no_argument,	   NULL, OPT_SPLICE },
	{ "stall-ms",		required_argument, NULL, OPT_STALL },
	{ "read-spin-us",	required_argument, NULL, OPT_SPIN },
	{ "keep-queued",	required_argument, NULL, OPT_KEEP },
	{ "read-batch",		required_argument, NULL, OPT_READ_BATCH },
	{ "duration-s",		required_argument, NULL, OPT_DURATION },
	{ "count",		required_argument, NULL, OPT_COUNT },
	{ "ready-file",		required_argument, NULL, OPT_READY_FILE },
	{ "report",		required_argument, NULL, OPT_REPORT },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option client_opts[] = {
	{ "proto",		required_argument, NULL, OPT_PROTO },
	{ "connect",		required_argument, NULL, OPT_CONNECT },
	{ "port",		required_argument, NULL, OPT_PORT },
	{ "msg-size",		required_argument, NULL, OPT_MSG_SIZE },
	{ "count",		required_argument, NULL, OPT_COUNT },
	{ "interval-us",	required_argument, NULL, OPT_INTERVAL },
	{ "duration-s",		required_argument, NULL, OPT_DURATION },
	{ "errqueue",		no_argument,	   NULL, OPT_ERRQUEUE },
	{ "oob",		no_argument,	   NULL, OPT_OOB },
	{ "mptcp",		no_argument,	   NULL, OPT_MPTCP },
	{ "report",		required_argument, NULL, OPT_REPORT },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *opt_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return "?";
}

/*
 * Strict unsigned parse.  strtoull() alone would accept " 5", "+5" and
 * wrap "-1" to a huge value; none of those is a sane test parameter.
 */
static uint64_t parse_uint(const char *name, const char *s, uint64_t min,
			   uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	return v;
bad:
	usage_error("--%s: invalid value '%s' (expected integer %llu..%llu)",
		    name, s, (unsigned long long)min, (unsigned long long)max);
}

/* Seconds, fractions allowed ("0.5"), converted to nanoseconds. */
static uint64_t parse_duration(const char *name, const char *s)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	/* The comparisons are also false for NaN. */
	if (errno || *end || !(v >= 0.001 && v <= MAX_DURATION_S))
		goto bad;
	return (uint64_t)(v * NSEC_PER_SEC + 0.5);
bad:
	usage_error("--%s: invalid value '%s' (expected seconds 0.001..%.0f)",
		    name, s, MAX_DURATION_S);
}

static int parse_proto(const char *s)
{
	if (!strcmp(s, "tcp"))
		return SOCK_STREAM;
	if (!strcmp(s, "udp"))
		return SOCK_DGRAM;
	usage_error("--proto: invalid value '%s' (expected tcp or udp)", s);
}

/* Numeric only: tests must never depend on name resolution. */
static void resolve_addr(struct config *cfg, const char *name)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = cfg->socktype,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};
	struct addrinfo *res;
	int err;

	err = getaddrinfo(cfg->addr, cfg->port, &hints, &res);
	if (err)
		usage_error("--%s: invalid address '%s' (numeric IPv4/IPv6, "
			    "no brackets): %s", name, cfg->addr,
			    gai_strerror(err));
	memcpy(&cfg->sa, res->ai_addr, res->ai_addrlen);
	cfg->salen = res->ai_addrlen;
	cfg->family = res->ai_family;
	freeaddrinfo(res);
}

static void handle_opt(struct config *cfg, const struct option *opts,
		       int val, const char *arg)
{
	const char *name = opt_name(opts, val);

	switch (val) {
	case OPT_PROTO:
		cfg->socktype = parse_proto(arg);
		cfg->proto = cfg->socktype == SOCK_STREAM ? "tcp" : "udp";
		break;
	case OPT_BIND:
	case OPT_CONNECT:
		if (!arg[0])
			usage_error("--%s: empty address", name);
		cfg->addr = arg;
		break;
	case OPT_PORT:
		/* as unsigned short: gcc 14 (trixie) cannot see the 65535
		 * bound through parse_uint() and fails -Wformat-truncation */
		snprintf(cfg->port, sizeof(cfg->port), "%hu",
			 (unsigned short)parse_uint(name, arg, 1, 65535));
		break;
	case OPT_READ_DELAY:
		cfg->read_delay_ns = parse_uint(name, arg, 0, 3600000) *
				     NSEC_PER_MSEC;
		break;
	case OPT_START_DELAY:
		cfg->start_delay_ns = parse_uint(name, arg, 0, 3600000) *
				      NSEC_PER_MSEC;
		break;
	case OPT_READ_SIZE:
		cfg->read_size = parse_uint(name, arg, 1, MAX_BUF_SIZE);
		break;
	case OPT_MSG_SIZE:
		cfg->msg_size = parse_uint(name, arg, 1, MAX_BUF_SIZE);
		break;
	case OPT_RCVBUF:
		cfg->rcvbuf = parse_uint(name, arg, 1, MAX_BUF_SIZE);
		break;
	case OPT_ERRQUEUE:
		cfg->errqueue = true;
		break;
	case OPT_RX_STAMPS:
		cfg->rx_stamps = true;
		break;
	case OPT_PEEK:
		cfg->peek = true;
		break;
	case OPT_SPLICE:
		cfg->splice = true;
		break;
	case OPT_STALL:
		cfg->stall_ns = parse_uint(name, arg, 1, 999) * NSEC_PER_MSEC;
		break;
	case OPT_SPIN:
		cfg->spin_ns = parse_uint(name, arg, 1, 1000000) * 1000;
		break;
	case OPT_KEEP:
		cfg->keep_queued = parse_uint(name, arg, 1, 1U << 30);
		break;
	case OPT_READ_BATCH:
		cfg->read_batch = parse_uint(name, arg, 1, 1000000);
		break;
	case OPT_OOB:
		cfg->oob = true;
		break;
	case OPT_MPTCP:
		cfg->protocol = IPPROTO_MPTCP;
		break;
	case OPT_COUNT:
		cfg->count = parse_uint(name, arg, 1, MAX_COUNT);
		break;
	case OPT_INTERVAL:
		cfg->interval_ns = parse_uint(name, arg, 0, 3600000000ULL) *
				   NSEC_PER_USEC;
		break;
	case OPT_DURATION:
		cfg->duration_ns = parse_duration(name, arg);
		break;
	case OPT_READY_FILE:
	case OPT_REPORT:
		if (!arg[0])
			usage_error("--%s: empty path", name);
		if (val == OPT_READY_FILE)
			cfg->ready_file = arg;
		else
			cfg->report = arg;
		break;
	}
}

static void check_required(struct config *cfg)
{
	const char *addr_opt = cfg->role == ROLE_SERVER ? "bind" : "connect";

	if (!cfg->proto)
		usage_error("--proto: missing (required)");
	if (!cfg->addr)
		usage_error("--%s: missing (required)", addr_opt);
	if (!cfg->port[0])
		usage_error("--port: missing (required)");
	/*
	 * UDP has no EOF, so without a limit the server would only ever end
	 * by signal or by the hard guard.
	 */
	if (cfg->role == ROLE_SERVER && cfg->socktype == SOCK_DGRAM &&
	    !cfg->count && !cfg->duration_ns)
		usage_error("--count/--duration-s: a udp server needs at "
			    "least one of them");
	if (cfg->role == ROLE_CLIENT && !cfg->count && !cfg->duration_ns)
		cfg->count = DEFAULT_COUNT;
	if (cfg->errqueue && cfg->socktype != SOCK_STREAM)
		usage_error("--errqueue: only with --proto tcp");
	if (cfg->oob && cfg->socktype != SOCK_STREAM)
		usage_error("--oob: only with --proto tcp");
	if (cfg->peek && cfg->socktype != SOCK_DGRAM)
		usage_error("--peek: only with --proto udp");
	if (cfg->splice && cfg->socktype != SOCK_STREAM)
		usage_error("--splice: only with --proto tcp");
	if (cfg->protocol && cfg->socktype != SOCK_STREAM)
		usage_error("--mptcp: only with --proto tcp");
	resolve_addr(cfg, addr_opt);
}

static unsigned int guard_seconds(const struct config *cfg)
{
	if (cfg->duration_ns)
		return (cfg->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC +
		       GUARD_SLACK_S;
	return GUARD_COUNT_S;
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	const struct option *opts;
	int c;

	if (argc < 2)
		usage_error("missing mode 'server' or 'client' (see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "server"))
		cfg->role = ROLE_SERVER;
	else if (!strcmp(argv[1], "client"))
		cfg->role = ROLE_CLIENT;
	else
		usage_error("unknown mode '%s' (expected server or client)",
			    argv[1]);
	opts = cfg->role == ROLE_SERVER ? server_opts : client_opts;
	cfg->read_size = DEFAULT_READ_SIZE;
	cfg->msg_size = DEFAULT_MSG_SIZE;
	cfg->interval_ns = DEFAULT_INTERVAL_US * NSEC_PER_USEC;

	/* Leading ':' lets us tell a missing value from an unknown option. */
	opterr = 0;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			usage_error("--%s: missing value",
				    opt_name(opts, optopt));
		case '?':
			usage_error("%s: unknown option '%s'", argv[0],
				    argv[optind - 1]);
		default:
			handle_opt(cfg, opts, c, optarg);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	check_required(cfg);
	cfg->guard_s = guard_seconds(cfg);
}

/* ---- server ------------------------------------------------------------ */

static int open_server_socket(const struct config *cfg)
{
	int one = 1;
	int fd;

	fd = socket(cfg->family, cfg->socktype | SOCK_CLOEXEC, cfg->protocol);
	if (fd < 0)
		return sys_error("socket");
	/* Back-to-back test runs must not fail on a TIME_WAIT leftover. */
	if (cfg->socktype == SOCK_STREAM &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
		sys_error("setsockopt(SO_REUSEADDR)");
		goto err;
	}
	/*
	 * before listen(): an accepted socket inherits it. SO_RCVBUFFORCE
	 * (CAP_NET_ADMIN) where it may, so that a size above
	 * net.core.rmem_max is had; below it the two set the same
	 * (sk_setsockopt(): sk_rcvbuf = max(2 * size, SOCK_MIN_RCVBUF))
	 */
	if (cfg->rcvbuf &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &cfg->rcvbuf, sizeof(cfg->rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cfg->rcvbuf,
		       sizeof(cfg->rcvbuf)) < 0) {
		sys_error("setsockopt(SO_RCVBUF)");
		goto err;
	}
	if (bind(fd, (const struct sockaddr *)&cfg->sa, cfg->salen) < 0) {
		sys_error("bind");
		goto err;
	}
	if (cfg->socktype == SOCK_STREAM && listen(fd, 1) < 0) {
		sys_error("listen");
		goto err;
	}
	return fd;
err:
	close(fd);
	return -1;
}

/* The file holds our PID so a test can start filtering before traffic. */
static int signal_ready(const char *path)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	return write_file_atomic(path, buf);
}

/* Returns the connected fd, -2 if the deadline or a stop came first. */
static int accept_one(int lfd, uint64_t deadline)
{
	int fd, ret;

	for (;;) {
		ret = wait_fd(lfd, POLLIN, deadline);
		if (ret <= 0)
			return ret < 0 ? -1 : -2;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		/* The pending connection may have been reset meanwhile. */
		if (errno != EINTR && errno != ECONNABORTED)
			return sys_error("accept");
	}
}

/*
 * recvmsg() with room for SCM_TIMESTAMPNS: *stamp is the RX stamp the
 * kernel put there (TCP: tcp_recv_timestamp(), from the last skb the read
 * copied from; UDP: the datagram's), 0 if none.
 */
static ssize_t read_stamped(int fd, char *buf, size_t size, int64_t *stamp)
{
	char control[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c;
	struct timespec ts;
	ssize_t n = recvmsg(fd, &msg, 0);

	*stamp = 0;
	for (c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*stamp = (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		}
	}
	return n;
}

/*
 * One read (TCP) or recv (UDP); with --rx-stamps through recvmsg(), the
 * RX stamp in *stamp.  Returns bytes, 0 for TCP EOF, -1 for an error and
 * -2 for "nothing counted, carry on" (EINTR, empty datagram).
 */
/* --splice: the pipe the socket is spliced into, and /dev/null after it */
static int splice_pipe[2] = { -1, -1 }, splice_null = -1;

static ssize_t read_spliced(const struct config *cfg, int fd)
{
	ssize_t n, out;

	n = splice(fd, NULL, splice_pipe[1], NULL, cfg->read_size,
		   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n < 0 && errno == EAGAIN)
		return -2;
	for (ssize_t left = n; left > 0; left -= out) {
		out = splice(splice_pipe[0], NULL, splice_null, NULL, left,
			     SPLICE_F_MOVE);
		if (out <= 0)
			return sys_error("splice(pipe, /dev/null)");
	}
	return n;
}

static ssize_t read_once(const struct config *cfg, int fd, char *buf,
			 int64_t *stamp)
{
	ssize_t n;

	if (cfg->splice) {
		*stamp = 0;
		n = read_spliced(cfg, fd);
		if (n == -2)
			return n;
	} else if (cfg->rx_stamps) {
		n = read_stamped(fd, buf, cfg->read_size, stamp);
	} else if (cfg->socktype == SOCK_STREAM) {
		n = read(fd, buf, cfg->read_size);
	} else {
		/* the datagram is queued (poll said so): the peek returns 0 */
		if (cfg->peek && recv(fd, buf, 0, MSG_PEEK) < 0)
			return errno == EINTR ? -2 : sys_error("recv(MSG_PEEK)");
		n = recv(fd, buf, cfg->read_size, 0);
	}
	if (n > 0)
		return n;
	/* A zero-length datagram is data, not EOF, but carries no bytes. */
	if (n == 0)
		return cfg->socktype == SOCK_STREAM ? 0 : -2;
	if (errno == EINTR)
		return -2;
	return sys_error(cfg->socktype == SOCK_STREAM ? "read" : "recv");
}


/* The bytes charged to fd's receive memory (sk_rmem_alloc); -1: unknown. */
static long long rmem_alloc(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 ||
	    len <= SK_MEMINFO_RMEM_ALLOC * sizeof(mem[0]))
		return -1;
	return mem[SK_MEMINFO_RMEM_ALLOC];
}

/*
 * --keep-queued: until at least keep bytes are queued, or what is queued
 * has not grown for 1 s: then the sender is done, and every later read
 * goes at once (the queue drained). Polls every 100 us; false: stop
 * requested.
 */
static bool wait_queued(int fd, unsigned int keep)
{
	static bool sender_done;
	long long q = rmem_alloc(fd), prev = q;
	uint64_t grew = now_ns();

	while (!sender_done && q >= 0 && q < keep) {
		if (now_ns() - grew >= NSEC_PER_SEC) {
			sender_done = true;
			break;
		}
		if (!sleep_ns(100 * 1000))
			return false;
		q = rmem_alloc(fd);
		if (q > prev)
			grew = now_ns();
		prev = q;
	}
	return true;
}

static int receive_loop(const struct config *cfg, int fd, uint64_t deadline,
			struct stats *st)
{
	char *buf = malloc(cfg->read_size);
	uint64_t start_delay_ns = cfg->start_delay_ns;
	uint64_t next_stall = now_ns() + NSEC_PER_SEC;
	int64_t ready = 0, start = 0, stamp = 0;
	uint64_t batch_left = 0;
	int ret = 0;
	ssize_t n;

	if (!buf)
		return sys_error("malloc");
	while (!cfg->count || st->ops < cfg->count) {
		/* --read-batch: the batch goes on while data is queued */
		if (batch_left) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, 0) <= 0)
				batch_left = 0;
			else if (cfg->rx_stamps)
				ready = realtime_ns();
		}
		if (batch_left)
			goto read;
		batch_left = cfg->read_batch ? cfg->read_batch : 1;
		ret = wait_fd(fd, POLLIN, deadline);
		if (ret <= 0)
			break;
		ret = 0;
		if (cfg->rx_stamps)
			ready = realtime_ns();
		/*
		 * Sleep only once data is queued, right before the read: that
		 * way the data being read has sat in the receive queue for at
		 * least read-delay-ms.  Sleeping before poll() instead would
		 * let data that arrives after the sleep be read at once.
		 */
		if (cfg->read_delay_ns && !sleep_ns(cfg->read_delay_ns))
			break;
		/* A backlog: what arrives meanwhile queues up before one read. */
		if (start_delay_ns && !sleep_ns(start_delay_ns))
			break;
		start_delay_ns = 0;
		if (cfg->keep_queued && !wait_queued(fd, cfg->keep_queued))
			break;
		/* --stall-ms: the queue fills behind a reader that sleeps */
		if (cfg->stall_ns && now_ns() >= next_stall) {
			if (!sleep_ns(cfg->stall_ns))
				break;
			next_stall += NSEC_PER_SEC;
		}
read:
		batch_left--;
		if (deadline_passed(deadline))
			break;
		if (cfg->rx_stamps)
			start = realtime_ns();
		n = read_once(cfg, fd, buf, &stamp);
		if (n == 0)
			break;
		if (n == -1) {
			ret = -1;
			break;
		}
		if (n > 0 && st->rx && st->n_rx < MAX_RX_READS)
			st->rx[st->n_rx++] = (struct rx_read){
				.ready = ready, .start = start, .stamp = stamp,
				.done = realtime_ns(), .bytes = n };
		if (n > 0) {
			st->ops++;
			st->bytes += n;
		}
		if (cfg->spin_ns) {
			uint64_t until = now_ns() + cfg->spin_ns;

			while (now_ns() < until)
				;
		}
	}
	free(buf);
	return ret;
}

static int run_server(const struct config *cfg, uint64_t deadline,
		      struct stats *st)
{
	int lfd, fd, ret;

	/* Never let a waiting script see a stale file from an older run. */
	if (cfg->ready_file)
		unlink(cfg->ready_file);
	lfd = open_server_socket(cfg);
	if (lfd < 0)
		return -1;
	if (cfg->ready_file && signal_ready(cfg->ready_file) < 0) {
		close(lfd);
		return -1;
	}
	if (cfg->socktype == SOCK_DGRAM) {
		fd = lfd;
	} else {
		fd = accept_one(lfd, deadline);
		/* Exactly one connection per run: refuse any later ones. */
		close(lfd);
		if (fd == -2)
			return 0;
		if (fd < 0)
			return -1;
	}
	if (cfg->splice) {
		splice_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (splice_null < 0 || pipe2(splice_pipe, O_CLOEXEC) < 0) {
			close(fd);
			return sys_error("--splice: open(/dev/null) or pipe2");
		}
	}
	/* on the socket that reads (the accepted one: TCP), before any read */
	if (cfg->rx_stamps) {
		int on = 1;

		st->rx = calloc(MAX_RX_READS, sizeof(*st->rx));
		if (!st->rx || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
			close(fd);
			return sys_error("--rx-stamps: calloc or setsockopt(SO_TIMESTAMPNS)");
		}
	}
	ret = receive_loop(cfg, fd, deadline, st);
	close(fd);
	return ret;
}

/* ---- client ------------------------------------------------------------ */

static int set_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, flags);
}

/*
 * connect() bounded by deadline.  A blocking connect to a host that drops
 * SYNs would otherwise sit in the kernel's SYN retries for minutes.
 * Returns 0 or -1 with errno set.
 */
static int connect_bounded(const struct config *cfg, int fd, uint64_t deadline)
{
	socklen_t len = sizeof(int);
	int err = 0, ret;

	if (set_nonblock(fd, true) < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)&cfg->sa, cfg->salen) < 0) {
		if (errno != EINPROGRESS)
			return -1;
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret < 0)
			return -1;
		if (ret == 0) {
			errno = stop_requested ? EINTR : ETIMEDOUT;
			return -1;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			return -1;
		if (err) {
			errno = err;
			return -1;
		}
	}
	return set_nonblock(fd, false);
}

/*
 * Connect, retrying refusals so the client may be started right after the
 * server without racing its listen().  Returns fd, -1 error, -2 stopped.
 */
static int connect_retry(const struct config *cfg, uint64_t run_deadline)
{
	uint64_t deadline = earlier_deadline(deadline_after(CONNECT_RETRY_NS),
					     run_deadline);
	int fd, err;

	for (;;) {
		fd = socket(cfg->family, cfg->socktype | SOCK_CLOEXEC, cfg->protocol);
		if (fd < 0)
			return sys_error("socket");
		if (connect_bounded(cfg, fd, deadline) == 0)
			return fd;
		err = errno;
		/* A failed connect leaves the socket unusable: start over. */
		close(fd);
		/* Only "nobody listening yet" is worth another try. */
		if (err == ECONNREFUSED && !deadline_passed(deadline) &&
		    sleep_ns(CONNECT_BACKOFF_NS) && !deadline_passed(deadline))
			continue;
		if (stop_requested)
			return -2;
		errno = err;
		return sys_error("connect");
	}
}

/*
 * Send one TCP message completely.  MSG_DONTWAIT plus poll keeps a server
 * that reads slowly from blocking us past --duration-s.  Bytes that did go
 * out are counted even if the message is cut short, so byte totals still
 * match the server's.  Returns 1 sent, 0 cut short (deadline/stop), -1 error.
 */
static int send_stream_msg(int fd, const char *buf, size_t len, int flags,
			   uint64_t deadline, struct stats *st)
{
	ssize_t n;
	int ret;

	while (len) {
		n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL | flags);
		if (n > 0) {
			st->bytes += n;
			buf += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return sys_error("send");
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret <= 0)
			return ret;
	}
	st->ops++;
	return 1;
}

/*
 * Send one datagram.  ECONNREFUSED only reports an ICMP error for an
 * earlier datagram (server not up yet, or gone) and ENOBUFS a full device
 * queue; the datagram was not sent, which is normal UDP loss for a test
 * generator, so it is not counted and we carry on.
 */
static int send_dgram_msg(int fd, const char *buf, size_t len,
			  uint64_t deadline, struct stats *st)
{
	ssize_t n;
	int ret;

	for (;;) {
		n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0) {
			st->ops++;
			st->bytes += n;
			return 1;
		}
		if (errno == ECONNREFUSED || errno == ENOBUFS)
			return 1;
		if (errno != EAGAIN && errno != EINTR)
			return sys_error("send");
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret <= 0)
			return ret;
	}
}

/*
 * --errqueue: reads the TX timestamps of what was sent back from the error
 * queue (sock_queue_err_skb() puts a clone of the sent skb there, owned by
 * this socket), as applications that timestamp their sends do. Waits up to
 * 100 ms for the first one, then reads until the queue is empty.
 */
static int drain_errqueue(int fd, struct stats *st)
{
	uint64_t deadline = deadline_after(100 * NSEC_PER_MSEC);
	char data[2048], ctrl[512];
	bool got = false;

	for (;;) {
		struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctrl,
				    .msg_controllen = sizeof(ctrl) };
		ssize_t n = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (n >= 0) {
			st->errqueue_reads++;
			got = true;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return sys_error("recvmsg(MSG_ERRQUEUE)");
		/* poll() reports a non-empty error queue as POLLERR */
		if (got || wait_fd(fd, 0, deadline) <= 0)
			return 0;
	}
}

static int send_loop(const struct config *cfg, int fd, uint64_t deadline,
		     struct stats *st)
{
	char *msg = malloc(cfg->msg_size);
	uint64_t i;
	int ret = 0;

	if (!msg)
		return sys_error("malloc");
	/* A recognisable pattern helps when eyeballing a packet capture. */
	for (i = 0; i < cfg->msg_size; i++)
		msg[i] = 'a' + i % 26;

	for (i = 0; !cfg->count || i < cfg->count; i++) {
		if (i && cfg->interval_ns && !sleep_ns(cfg->interval_ns))
			break;
		if (stop_requested || deadline_passed(deadline))
			break;
		if (cfg->socktype == SOCK_STREAM)
			ret = send_stream_msg(fd, msg, cfg->msg_size,
					      cfg->oob ? MSG_OOB : 0, deadline, st);
		else
			ret = send_dgram_msg(fd, msg, cfg->msg_size, deadline,
					     st);
		if (ret <= 0)
			break;
		if (cfg->errqueue && drain_errqueue(fd, st) < 0) {
			ret = -1;
			break;
		}
	}
	free(msg);
	return ret < 0 ? -1 : 0;
}

/*
 * Half-close and wait for the server's close, so the server has read
 * everything (and its report is final) by the time we exit.  A reset also
 * means the server is gone; only our own sending can fail the run.
 */
static void wait_peer_close(int fd)
{
	uint64_t deadline = deadline_after(CLOSE_WAIT_NS);
	char buf[4096];
	ssize_t n;

	if (shutdown(fd, SHUT_WR) < 0) {
		sys_error("shutdown");
		return;
	}
	while (wait_fd(fd, POLLIN, deadline) > 0) {
		n = read(fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
}

static int run_client(const struct config *cfg, uint64_t deadline,
		      struct stats *st)
{
	int one = 1;
	int fd, ret;

	fd = connect_retry(cfg, deadline);
	if (fd == -2)
		return 0;
	if (fd < 0)
		return -1;
	/*
	 * With an interval each message should be its own segment (one skb
	 * per message for the tracer); Nagle would hold small writes back
	 * waiting for the previous ACK.
	 */
	if (cfg->socktype == SOCK_STREAM && cfg->interval_ns &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		sys_error("setsockopt(TCP_NODELAY)");
		close(fd);
		return -1;
	}
	if (cfg->errqueue) {
		int ts = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts)) < 0) {
			sys_error("setsockopt(SO_TIMESTAMPING)");
			close(fd);
			return -1;
		}
	}
	ret = send_loop(cfg, fd, deadline, st);
	if (cfg->socktype == SOCK_STREAM && ret == 0)
		wait_peer_close(fd);
	close(fd);
	return ret;
}

/* ---- report and main --------------------------------------------------- */

static int emit_report(const struct config *cfg, const struct stats *st)
{
	bool server = cfg->role == ROLE_SERVER;
	char *line = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&line, &len);
	int ret = 0;

	if (!f)
		return sys_error("open_memstream");
	fprintf(f, "{\"role\":\"%s\",\"proto\":\"%s\",\"%s\":%llu,"
		"\"bytes\":%llu,\"errqueue_reads\":%llu,\"pid\":%ld",
		server ? "server" : "client", cfg->proto,
		server ? "reads" : "writes", (unsigned long long)st->ops,
		(unsigned long long)st->bytes,
		(unsigned long long)st->errqueue_reads, (long)getpid());
	if (st->rx) {
		fputs(",\"rx\":[", f);
		for (i = 0; i < st->n_rx; i++)
			fprintf(f, "%s[%lld,%lld,%lld,%lld,%lld]", i ? "," : "",
				(long long)st->rx[i].ready, (long long)st->rx[i].start,
				(long long)st->rx[i].stamp,
				(long long)st->rx[i].done, (long long)st->rx[i].bytes);
		fputc(']', f);
	}
	fputs("}\n", f);
	if (fclose(f))
		return sys_error("open_memstream");
	fputs(line, stdout);
	fflush(stdout);
	if (cfg->report)
		ret = write_file_atomic(cfg->report, line);
	free(line);
	return ret;
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	struct stats st = { 0 };
	uint64_t deadline;
	int ret;

	parse_args(argc, argv, &cfg);
	setup_signals(&cfg);
	/* --duration-s bounds the whole run, including accept/connect. */
	deadline = deadline_after(cfg.duration_ns);

	if (cfg.role == ROLE_SERVER)
		ret = run_server(&cfg, deadline, &st);
	else
		ret = run_client(&cfg, deadline, &st);

	/*
	 * Report even after an error: a test then fails on a clear count
	 * mismatch plus the error message, and the exit code still says 1.
	 */
	if (emit_report(&cfg, &st) < 0)
		ret = -1;
	free(st.rx);
	return ret < 0 ? EXIT_SOCK : 0;
}
