// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's child (jailchild.h), after the exec: empty namespaces, no
 * capability, then the server (src/4-sink/http.c) on its socket, shut in
 * by a seccomp allow-list, with answers fetched from the parent over its
 * channel (jailwire.h). docs/security.md says what it holds and why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "http.h"
#include "httproute.h"
#include "jailchild.h"
#include "jailwire.h"
#include "log.h"

/* largest answer the child takes (the parent's are far smaller) */
#define MAX_ANSWER (1ULL << 30)

/* The server asks the parent for an answer, and waits for it. */
static int fetch(void *ctx, unsigned int repr, struct nsl_http_body *b)
{
	struct jail_req req = { .magic = NSL_JAIL_MAGIC, .repr = repr };
	struct jail_resp resp;
	int err;

	(void)ctx;
	err = nsl_write_full(NSL_JAIL_CHAN, &req, sizeof(req));
	if (err)
		return err;
	if (nsl_read_full(NSL_JAIL_CHAN, &resp, sizeof(resp)) < 0)
		return -EPIPE;
	if (resp.magic != NSL_JAIL_MAGIC || resp.len > MAX_ANSWER)
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

static unsigned int choose(void *ctx, const char *accept)
{
	(void)ctx;
	return nsl_http_repr(accept);
}

/*
 * The system calls the server makes once it serves: HTTP on sockets it
 * accepts, epoll, the channel, the clock, memory (never executable),
 * and leaving. Everything else kills it (then the parent starts another).
 */
static const char *const allowed[] = {
	"read", "write", "readv", "writev", "recvfrom", "recvmsg", "sendto", "sendmsg",
	"accept", "accept4", "close", "shutdown", "setsockopt", "getsockopt",
	"getsockname", "getpeername", "poll", "ppoll", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "epoll_ctl", "fcntl", "brk", "munmap", "mremap", "madvise",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "futex",
	"rt_sigreturn", "rt_sigprocmask", "restart_syscall", "sched_yield",
	"getpid", "gettid", "getrandom", "exit", "exit_group",
};

/* Shuts the jail's doors: once the server is set up, before it serves. */
static int lock_in(void *ctx)
{
	scmp_filter_ctx f;
	time_t now = time(NULL);
	struct tm tm;
	int err;

	(void)ctx;
	/* the library's Date header: the time zone read now, not while serving */
	localtime_r(&now, &tm);
	f = seccomp_init(SCMP_ACT_KILL_PROCESS);
	err = f ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr != __NR_SCMP_ERROR)	/* not every architecture has each */
			err = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	/* memory, but nothing that could run: no PROT_EXEC */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* abort() signals itself */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 0);
	if (!err)
		err = seccomp_load(f);
	if (f)
		seccomp_release(f);
	if (err)
		pr_warn("--listen: cannot load the server's seccomp filter: %s\n",
			strerror(-err));
	return err;
}

/*
 * Empty namespaces, where an unprivileged process may make them (a user
 * namespace first, which lets it make the rest): no network but the
 * socket it holds, no IPC, its own mounts and host name. Then it drops
 * what that namespace gave it: no capability anywhere.
 */
static void empty_namespaces(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[2] = { { 0 } };

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
		    CLONE_NEWNS) && nsl_verbose)
		pr_warn("--listen: the server process stays in the tool's namespaces: %s\n",
			strerror(errno));
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	syscall(SYS_capset, &hdr, none);
}

int nsl_jail_child_main(int argc, char **argv)
{
	const struct nsl_http_app app = { .choose = choose, .fetch = fetch, .ready = lock_in };
	int err;

	nsl_verbose = argc > 2 && !strcmp(argv[2], "-v");
	signal(SIGPIPE, SIG_IGN);
	/* the thread that started us goes: so do we */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	empty_namespaces();
	/* the channel is also the stop signal: the parent closes it */
	err = nsl_http_serve(NSL_JAIL_SOCK, NSL_JAIL_CHAN, &app);
	_exit(err ? 1 : 0);
}
