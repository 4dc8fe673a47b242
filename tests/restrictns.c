// SPDX-License-Identifier: GPL-2.0-only
/*
 * restrictns - run a command as systemd's RestrictNamespaces= would, for
 * the test that the package's unit lets the /metrics jail have its
 * namespaces (tests/integration/test_jail.sh). systemd builds the same
 * kind of seccomp filter (src/shared/seccomp-util.c,
 * seccomp_restrict_namespaces()): unshare() and clone() with a namespace
 * flag outside the list fail with EPERM, clone3() (whose flags a filter
 * cannot read) with ENOSYS so that callers fall back to clone(), and
 * setns() to a type outside the list, or to any type (0) unless every one
 * is allowed, with EPERM.
 *
 *   restrictns "user pid net ipc uts mnt" COMMAND [ARG...]
 *
 * Names as in the unit: cgroup ipc net mnt pid user uts (time too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct {
	const char *name;
	unsigned long flag;
} kinds[] = {
	{ "cgroup", CLONE_NEWCGROUP }, { "ipc", CLONE_NEWIPC }, { "net", CLONE_NEWNET },
	{ "mnt", CLONE_NEWNS }, { "pid", CLONE_NEWPID }, { "user", CLONE_NEWUSER },
	{ "uts", CLONE_NEWUTS }, { "time", CLONE_NEWTIME },
};

int main(int argc, char **argv)
{
	unsigned long allowed = 0, all = 0;
	scmp_filter_ctx f;
	int err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: restrictns \"NAMES\" COMMAND [ARG...]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		all |= kinds[i].flag;
		if (strstr(argv[1], kinds[i].name))
			allowed |= kinds[i].flag;
	}
	f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f)
		return 1;
	for (size_t i = 0; !err && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		unsigned long bit = kinds[i].flag;

		if (allowed & bit)
			continue;
		err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit));
		if (!err)
			err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					       SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit));
		if (!err)
			err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1,
					       SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
	}
	if (!err && allowed != all)
		err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1,
				       SCMP_A1(SCMP_CMP_EQ, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* as under systemd's NoNewPrivileges=yes, which a filter needs unprivileged */
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (!err)
		err = seccomp_load(f);
	seccomp_release(f);
	if (err) {
		fprintf(stderr, "restrictns: %s\n", strerror(-err));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "restrictns: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
