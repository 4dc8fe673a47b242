// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jail's child as a process (jailproc.h): fork() and an exec of our
 * own executable (fexecve of the file opened at bind: the same program
 * after a package upgrade, and a fresh address space: nothing of the BPF
 * object's mappings). The child's side is jailchild.c.
 *
 * Relies on: fds not marked close-on-exec surviving execve(2) (the child
 * keeps exactly its standard error, the log pipe, its socket, fd 3, and
 * its channel, fd 4: every other is closed before the exec); the
 * environment being what execve(2) is given (none); capabilities and
 * no_new_privs surviving execve(2) as they are (the parent has dropped
 * them all, no file capability adds any, and no_new_privs forbids setuid
 * gains); SIGKILL ending a stopped process too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "jail.h"
#include "jailproc.h"
#include "log.h"

/*
 * The environment the child gets: none. A sanitizer build passes its
 * options on, so that its reports land where the tests look for them.
 */
static char **child_env(void)
{
#ifdef NSL_JAIL_SANITIZED
	static const char *const keep[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS" };
	static char *env[3];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		for (char **e = environ; e && *e; e++)
			if (!strncmp(*e, keep[i], strlen(keep[i])) &&
			    (*e)[strlen(keep[i])] == '=') {
				env[n++] = *e;
				break;
			}
	env[n] = NULL;
	return env;
#else
	static char *none[] = { NULL };

	return none;
#endif
}

/*
 * In the forked child, before the exec: only async-signal-safe calls (the
 * parent has threads). fds 0 and 1 to /dev/null (standard output may be
 * the reports' pipe), 2 the log pipe, the socket and the channel at 3 and
 * 4, our executable at 5 (close-on-exec), nothing else.
 */
static void exec_child(int exe_fd, int sock_fd, int log_fd, int chan, int null,
		       char **argv, char **env)
{
	int sock = fcntl(sock_fd, F_DUPFD, 10), ch = fcntl(chan, F_DUPFD, 10);
	int exe = fcntl(exe_fd, F_DUPFD, 10), log = fcntl(log_fd, F_DUPFD, 10);
	sigset_t none;

	if (sock < 0 || ch < 0 || exe < 0 || log < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(log, 2) < 0 || dup2(sock, NSL_JAIL_SOCK) < 0 ||
	    dup2(ch, NSL_JAIL_CHAN) < 0 || dup2(exe, 5) < 0 || fcntl(5, F_SETFD, FD_CLOEXEC) < 0)
		_exit(127);
	if (syscall(SYS_close_range, 6U, ~0U, 0U))
		for (int fd = 6; fd < 65536; fd++)
			close(fd);
	/*
	 * The signal mask survives fork() and exec: a child forked by the
	 * keeper thread (a restart), which blocks every signal, or during
	 * set-up, which holds SIGINT/TERM/HUP, would serve with them blocked
	 * (SIGTERM from an administrator then did nothing).
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	syscall(SYS_execveat, 5, "", argv, env, AT_EMPTY_PATH);
	_exit(127);
}

pid_t nsl_jail_spawn(int exe_fd, int sock, int log_fd, int *chan)
{
	/* not in the forked child: it may not allocate */
	char **env = child_env(), *argv[5] = { "netstacklat", NSL_JAIL_ARGV1 }, **arg = argv + 2;
	int sv[2], null, err;

	if (nsl_verbose)
		*arg++ = "-v";
	/*
	 * Test seam: a child that asks for answers as fast as it can, and
	 * serves nothing (the render bound's test, test_jail.sh)
	 */
	if (getenv("NETSTACKLAT_TEST_JAIL_FLOOD"))
		*arg++ = NSL_JAIL_FLOOD;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0) {
		err = -errno;
		goto fail;
	}
	pid = fork();
	if (!pid)
		exec_child(exe_fd, sock, log_fd, sv[1], null, argv, env);
	err = pid < 0 ? -errno : 0;
	close(null);
	if (err || fcntl(sv[0], F_SETFL, O_NONBLOCK)) {
		if (!err) {
			err = -errno;
			nsl_jail_end(pid, NULL, 0);
		}
		goto fail;
	}
	close(sv[1]);
	*chan = sv[0];
	return pid;
fail:
	close(sv[0]);
	close(sv[1]);
	return err;
}

void nsl_jail_end(pid_t pid, char *why, size_t len)
{
	int st = 0;
	pid_t got;

	kill(pid, SIGKILL);
	while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (!why)
		return;
	if (got < 0)
		snprintf(why, len, "cannot be reaped: %s", strerror(errno));
	else if (WIFEXITED(st))
		snprintf(why, len, "exited with status %d", WEXITSTATUS(st));
	else if (WTERMSIG(st) == SIGSYS)
		snprintf(why, len, "was killed by its seccomp filter (a forbidden system call)");
	else
		snprintf(why, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
}
