// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's child (jailchild.h), after the exec: empty namespaces, no
 * capability, then the server (src/4-sink/http.c) on its socket, shut in
 * by a seccomp allow-list, with answers fetched from the parent over its
 * channel (jailwire.h). docs/security.md says what it holds and why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "http.h"
#include "httproute.h"
#include "jailchild.h"
#include "jailwire.h"
#include "log.h"
#include "sandbox.h"

/* the test seam of jailproc.c: ask for answers, serve nothing */
static bool flood;

_Static_assert(NSL_HTTP_MAX_REPRS <= NSL_JAIL_REPRS, "the parent keeps every representation");

/* Answers the parent's ping: 0 or a negative errno. */
static int pong(void)
{
	const struct jail_req rec = { .magic = NSL_JAIL_MAGIC, .repr = NSL_JAIL_PONG };

	return nsl_write_full(NSL_JAIL_CHAN, &rec, sizeof(rec));
}

/*
 * The parent's next record that is not a ping (those are answered on the
 * way): 0, or -EPIPE when the channel ended or broke.
 */
static int next_record(struct jail_resp *resp)
{
	for (;;) {
		if (nsl_read_full(NSL_JAIL_CHAN, resp, sizeof(*resp)) < 0 ||
		    resp->magic != NSL_JAIL_MAGIC)
			return -EPIPE;
		if (resp->kind != NSL_JAIL_PING)
			return 0;
		if (pong())
			return -EPIPE;
	}
}

/* The server asks the parent for an answer, and waits for it. */
static int fetch(void *ctx, unsigned int repr, struct nsl_http_body *b)
{
	struct jail_req req = { .magic = NSL_JAIL_MAGIC, .repr = repr };
	struct jail_resp resp;
	int err;

	(void)ctx;
	err = nsl_write_full(NSL_JAIL_CHAN, &req, sizeof(req));
	if (!err)
		err = next_record(&resp);
	if (err)
		return err;
	if (resp.kind != NSL_JAIL_ANSWER || resp.len > NSL_JAIL_MAX_ANSWER)
		return -EPROTO;
	if (resp.err)
		return resp.err < 0 ? resp.err : -EPROTO;
	b->buf = malloc(resp.len ? resp.len : 1);
	if (!b->buf)
		return -ENOMEM;	/* the stream is out of step now: the server ends */
	if (nsl_read_full(NSL_JAIL_CHAN, b->buf, resp.len) < 0) {
		free(b->buf);
		b->buf = NULL;
		return -EPIPE;
	}
	b->len = resp.len;
	b->plain = resp.plain;
	memcpy(b->type, resp.type, sizeof(b->type));
	b->type[sizeof(b->type) - 1] = '\0';
	return 0;
}

/* The channel turned readable while the server waits: a ping, or the end. */
static int heard(void *ctx)
{
	struct jail_resp resp;

	(void)ctx;
	/* anything but a ping, between requests, is out of step: the end */
	if (nsl_read_full(NSL_JAIL_CHAN, &resp, sizeof(resp)) < 0 ||
	    resp.magic != NSL_JAIL_MAGIC || resp.kind != NSL_JAIL_PING)
		return -EPIPE;
	return pong();
}

static unsigned int choose(void *ctx, const char *accept)
{
	(void)ctx;
	return nsl_http_repr(accept);
}

/*
 * The system calls the server makes once it serves: HTTP on sockets it
 * accepts, epoll, the channel, the clock, memory (never executable),
 * and leaving. Everything else kills it (then the parent starts another),
 * and so does each call below with an argument it never passes.
 */
static const char *const allowed[] = {
	"read", "write", "readv", "writev", "recvfrom", "recvmsg", "sendto",
	"accept", "accept4", "close", "shutdown", "getsockopt",
	"getsockname", "getpeername", "poll", "ppoll", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "epoll_ctl",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "futex",
	"rt_sigreturn", "rt_sigprocmask", "restart_syscall", "sched_yield",
	"getpid", "gettid", "getrandom", "exit", "exit_group",
};

/* The calls allowed with one argument (or two) fixed: each pair is a rule. */
static const struct {
	uint64_t v, v2;
	int nr;
	unsigned int arg, arg2;		/* which: 0-5, or 6 for none */
} fixed[] = {
	/* the library: TCP_NODELAY on what it accepts; ours: SO_LINGER (http.c) */
	{ IPPROTO_TCP, TCP_NODELAY, SCMP_SYS(setsockopt), 1, 2 },
	{ SOL_SOCKET, SO_LINGER, SCMP_SYS(setsockopt), 1, 2 },
	/* flags and close-on-exec, nothing that signals (F_SETOWN, F_SETSIG) */
	{ F_GETFL, 0, SCMP_SYS(fcntl), 1, 6 },
	{ F_SETFL, 0, SCMP_SYS(fcntl), 1, 6 },
	{ F_GETFD, 0, SCMP_SYS(fcntl), 1, 6 },
	{ F_SETFD, 0, SCMP_SYS(fcntl), 1, 6 },
};

/*
 * sendmsg, on any fd but the channel: the parent reads no descriptors,
 * but none is sent its way. "fd != CHAN" in rules that can only test
 * equality: one rule per bit, for the values that agree with CHAN above
 * that bit and differ in it.
 */
static int allow_sendmsg(scmp_filter_ctx f)
{
	int err = 0;

	for (unsigned int bit = 0; !err && bit < 32; bit++) {
		uint64_t mask = (0xffffffffULL << bit) & 0xffffffffULL;

		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(sendmsg), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, mask,
					       ((uint64_t)NSL_JAIL_CHAN ^ (1ULL << bit)) & mask));
	}
	return err;
}

static int add_rules(scmp_filter_ctx f)
{
	int err = nsl_sandbox_allow(f, allowed, sizeof(allowed) / sizeof(allowed[0]));

	for (size_t i = 0; !err && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		err = fixed[i].arg2 < 6 ?
		      seccomp_rule_add(f, SCMP_ACT_ALLOW, fixed[i].nr, 2,
				       NSL_ARG32(fixed[i].arg, fixed[i].v),
				       NSL_ARG32(fixed[i].arg2, fixed[i].v2)) :
		      seccomp_rule_add(f, SCMP_ACT_ALLOW, fixed[i].nr, 1,
				       NSL_ARG32(fixed[i].arg, fixed[i].v));
	if (!err)
		err = allow_sendmsg(f);
	if (!err)
		err = nsl_sandbox_allow_memory(f);
	/* no tkill, no kill */
	return err ? err : nsl_sandbox_allow_abort(f);
}

/* Shuts the jail's doors: once the server is set up, before it serves. */
static int lock_in(void *ctx)
{
	const struct jail_req ready = { .magic = NSL_JAIL_MAGIC, .repr = NSL_JAIL_READY };
	scmp_filter_ctx f;
	time_t now = time(NULL);
	struct tm tm;
	int err;

	(void)ctx;
	/* the library's Date header: the time zone read now, not while serving */
	localtime_r(&now, &tm);
	f = nsl_sandbox_new();
	err = f ? add_rules(f) : -ENOMEM;
	if (!err)
		err = seccomp_load(f);
	if (f)
		seccomp_release(f);
	if (err) {
		pr_warn("--listen: cannot load the server's seccomp filter: %s\n",
			strerror(-err));
		return err;
	}
	/* the parent says the endpoint is up when it hears this */
	err = nsl_write_full(NSL_JAIL_CHAN, &ready, sizeof(ready));
	/* the test seam of jailproc.c: a child that asks and asks, shut in as any */
	while (!err && flood) {
		struct nsl_http_body b = { 0 };

		err = fetch(NULL, 0, &b);
		free(b.buf);
	}
	return err;
}

/*
 * No capability anywhere. The starter (jailproc.c) made its namespaces,
 * where the kernel lets it: a user namespace, in which the exec left it
 * none, its PID namespace (it is process 1 there: the tool is not in
 * sight), and empty network, IPC, UTS and mount ones. Its bounding set
 * was emptied before the exec (jailstarter.c), when it could still be:
 * without CAP_SETPCAP nothing is left to do there. What an exec by a
 * non-root keeps is cleared here too.
 */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[2] = { { 0 } };

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	syscall(SYS_capset, &hdr, none);
}

/*
 * What it may hold, set before anything else runs: descriptors for its
 * connections, no process of its own, no file written (its standard error
 * is a pipe), no core, no locked memory, an address space its answers fit
 * in. 0, or -1 (it must not serve without them).
 */
static int limit_resources(void)
{
	static const struct {
		int res;
		rlim_t max;
	} lim[] = {
		{ RLIMIT_NOFILE, NSL_HTTP_CONNS + 16 },
		{ RLIMIT_NPROC, 0 },
		{ RLIMIT_FSIZE, 0 },
		{ RLIMIT_CORE, 0 },
		{ RLIMIT_MEMLOCK, 0 },
#ifndef NSL_JAIL_SANITIZED
		{ RLIMIT_AS, NSL_JAIL_AS_BYTES },
#endif
	};

	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		struct rlimit r;

		if (getrlimit(lim[i].res, &r))
			return -1;
		/* lower only: a hard limit below ours stays */
		if (r.rlim_max > lim[i].max)
			r.rlim_max = lim[i].max;
		r.rlim_cur = r.rlim_max;
		if (setrlimit(lim[i].res, &r)) {
			pr_warn("--listen: the server process cannot limit its resources: %s\n",
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

int nsl_jail_child_main(int argc, char **argv)
{
	const struct nsl_http_app app = { .choose = choose, .fetch = fetch, .ready = lock_in,
					   .heard = heard };
	int err;

	/* no process of our user may trace us or read our memory from here on */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (int i = 2; i < argc; i++) {
		nsl_verbose |= !strcmp(argv[i], "-v");
		flood |= !strcmp(argv[i], NSL_JAIL_FLOOD);
	}
	signal(SIGPIPE, SIG_IGN);
	/* the thread that started us goes: so do we */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (limit_resources())
		_exit(1);
	drop_capabilities();
	/* the channel is also the stop signal: the parent closes it */
	err = nsl_http_serve(NSL_JAIL_SOCK, NSL_JAIL_CHAN, &app);
	_exit(err ? 1 : 0);
}
