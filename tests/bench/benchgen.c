// SPDX-License-Identifier: GPL-2.0-only
/*
 * benchgen - the two workloads of scripts/bench that trafficgen lacks.
 *
 *   benchgen rr-server ADDR PORT READY_FILE
 *   benchgen rr-client ADDR PORT SECONDS SEED
 *   benchgen cg-reader ADDR PORT READY_FILE CGROUP_DIR GROUPS
 *
 * rr: TCP request/response, one transaction at a time (netperf TCP_RR
 * style). Each request starts with an 8-byte header {request length,
 * response length}; both lengths are drawn from a PRNG seeded with SEED,
 * uniform in [MIN_MSG, MAX_MSG] (one segment each over veth), so a run is
 * the same sequence of transactions every time. The client prints
 * {"transactions":N,"seconds":S,"seed":SEED} on stdout.
 *
 * cg-reader: a TCP server that, after every read that returned data, moves
 * itself to the next of GROUPS cgroups CGROUP_DIR/0 .. CGROUP_DIR/GROUPS-1
 * (cgroup v2: writing "0" to cgroup.procs moves the writer), so that
 * netstacklat -C sees tcp-socket-read samples in GROUPS cgroups from one
 * process. Ends at EOF and prints {"reads":N,"moves":N}.
 *
 * Both servers accept one connection and write their PID to READY_FILE
 * once listening. Every run is bounded by alarm().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG		"benchgen"
#define MIN_MSG		16
#define MAX_MSG		1400
#define GUARD_S		30	/* beyond the run's own length */
#define CONNECT_TRIES	100	/* 50 ms apart */

struct rr_hdr {
	uint32_t req_len;	/* including this header */
	uint32_t resp_len;
};

static char buf[65536];

static void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: small, fast, and the same sequence on every machine */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t rng_len(uint64_t *s)
{
	return MIN_MSG + rng_next(s) % (MAX_MSG - MIN_MSG + 1);
}

static struct sockaddr_in parse_addr(const char *addr, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(atoi(port)) };

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || !sa.sin_port) {
		fprintf(stderr, PROG ": bad address %s:%s\n", addr, port);
		exit(2);
	}
	return sa;
}

static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

/* Listens, tells READY_FILE, returns the one accepted connection. */
static int serve_one(const char *addr, const char *port, const char *ready)
{
	struct sockaddr_in sa = parse_addr(addr, port);
	int one = 1, lfd, fd;
	FILE *f;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		die("bind/listen");
	f = fopen(ready, "w");
	if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f))
		die(ready);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		die("accept");
	close(lfd);
	return fd;
}

/* Reads exactly len bytes; 0 at a clean EOF before the first byte. */
static int read_full(int fd, char *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n == 0 && got == 0)
			return 0;
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			errno = n ? errno : EPIPE;
			die("read");
		}
		got += n;
	}
	return 1;
}

static void write_full(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		p += n;
		len -= n;
	}
}

static int rr_server(char **argv)
{
	int fd = serve_one(argv[0], argv[1], argv[2]);
	struct rr_hdr h;

	alarm(3600);
	set_nodelay(fd);
	while (read_full(fd, (char *)&h, sizeof(h))) {
		if (h.req_len < sizeof(h) || h.req_len > sizeof(buf) ||
		    h.resp_len > sizeof(buf)) {
			fprintf(stderr, PROG ": bad request header\n");
			return 1;
		}
		read_full(fd, buf, h.req_len - sizeof(h));
		write_full(fd, buf, h.resp_len);
	}
	return 0;
}

static int rr_client(char **argv)
{
	struct sockaddr_in sa = parse_addr(argv[0], argv[1]);
	double secs = atof(argv[2]), start, end;
	uint64_t seed = strtoull(argv[3], NULL, 10), n = 0;
	int fd = -1;

	if (secs <= 0) {
		fprintf(stderr, PROG ": bad duration %s\n", argv[2]);
		return 2;
	}
	alarm((unsigned int)secs + GUARD_S);
	seed = seed ? seed : 1; /* xorshift stays 0 from 0 */
	for (int i = 0; i < CONNECT_TRIES; i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if (errno != ECONNREFUSED)
			die("connect");
		close(fd);
		fd = -1;
		usleep(50000);
	}
	if (fd < 0)
		die("connect");
	set_nodelay(fd);
	memset(buf, 'r', sizeof(buf));
	start = now_s();
	end = start + secs;
	do {
		struct rr_hdr h = { rng_len(&seed), rng_len(&seed) };

		memcpy(buf, &h, sizeof(h));
		write_full(fd, buf, h.req_len);
		if (!read_full(fd, buf, h.resp_len)) {
			errno = EPIPE;
			die("read");
		}
		n++;
	} while ((n & 63) || now_s() < end);
	printf("{\"transactions\":%llu,\"seconds\":%.6f,\"seed\":%s}\n",
	       (unsigned long long)n, now_s() - start, argv[3]);
	close(fd);
	return 0;
}

static int cg_reader(char **argv)
{
	int fd = serve_one(argv[0], argv[1], argv[2]);
	const char *dir = argv[3];
	unsigned long groups = strtoul(argv[4], NULL, 10), moves = 0, reads = 0;
	char path[4096];

	if (!groups) {
		fprintf(stderr, PROG ": bad group count %s\n", argv[4]);
		return 2;
	}
	alarm(3600);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		int cg;

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read");
		}
		reads++;
		snprintf(path, sizeof(path), "%s/%lu/cgroup.procs", dir,
			 moves++ % groups);
		cg = open(path, O_WRONLY | O_CLOEXEC);
		if (cg < 0 || write(cg, "0", 1) != 1)
			die(path);
		close(cg);
	}
	printf("{\"reads\":%lu,\"moves\":%lu}\n", reads, moves);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "rr-server"))
		return rr_server(argv + 2);
	if (argc == 6 && !strcmp(argv[1], "rr-client"))
		return rr_client(argv + 2);
	if (argc == 7 && !strcmp(argv[1], "cg-reader"))
		return cg_reader(argv + 2);
	fprintf(stderr,
		"usage: " PROG " rr-server ADDR PORT READY_FILE\n"
		"       " PROG " rr-client ADDR PORT SECONDS SEED\n"
		"       " PROG " cg-reader ADDR PORT READY_FILE CGROUP_DIR "
		"GROUPS\n");
	return 2;
}
