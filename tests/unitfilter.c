// SPDX-License-Identifier: GPL-2.0-only
/*
 * unitfilter - run a command as systemd's RestrictAddressFamilies= and
 * SystemCallFilter= would, for the test that the package's unit lets -I
 * follow a node's veths to their pods (tests/integration/test_package.sh;
 * no systemd runs here to take the unit itself). systemd builds the same
 * kinds of seccomp filter (src/shared/seccomp-util.c), one each:
 *
 *  - seccomp_restrict_address_families(), an allow-list: socket() of a
 *    family outside it fails with EAFNOSUPPORT (socketpair() is left
 *    alone: it makes AF_UNIX pairs only);
 *  - the SystemCallFilter= allow-list: every other call fails with
 *    SystemCallErrorNumber= (here EPERM, the unit's).
 *
 *   unitfilter "AF_INET AF_INET6 AF_UNIX" SYSCALLS COMMAND [ARG...]
 *
 * SYSCALLS: a file of the calls allowed, one a line (the unit's sets
 * expanded by `systemd-analyze syscall-filter`); "" for no call filter.
 * NoNewPrivileges= is set too, as systemd does for a filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

static const struct {
	const char *name;
	int af;
} families[] = {
	{ "AF_UNIX", AF_UNIX }, { "AF_INET", AF_INET }, { "AF_INET6", AF_INET6 },
	{ "AF_NETLINK", AF_NETLINK }, { "AF_PACKET", AF_PACKET },
};

/* Whether family af is in the unit's list (names as in the unit) */
static int allowed(const char *list, int af)
{
	char word[32];
	const char *p = list;
	int n;

	while (sscanf(p, "%31s%n", word, &n) == 1) {
		for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
			if (!strcmp(word, families[i].name) && families[i].af == af)
				return 1;
		p += n;
	}
	return 0;
}

static int restrict_families(const char *list)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int err = f ? 0 : -ENOMEM;

	for (int af = 0; !err && af < AF_MAX; af++)
		if (!allowed(list, af))
			err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
					       SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)af));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
				       SCMP_A0(SCMP_CMP_GE, (scmp_datum_t)AF_MAX));
	if (!err)
		err = seccomp_load(f);
	seccomp_release(f);
	return err;
}

static int filter_calls(const char *path)
{
	scmp_filter_ctx f;
	char name[128];
	FILE *in;
	int err = 0;

	if (!*path)
		return 0;
	if (!(in = fopen(path, "r")))
		return -errno;
	f = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!f) {
		fclose(in);
		return -ENOMEM;
	}
	while (!err && fscanf(in, "%127s", name) == 1) {
		int nr = seccomp_syscall_resolve_name(name);

		/* a name this architecture lacks: as systemd, skipped */
		if (nr != __NR_SCMP_ERROR)
			err = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	fclose(in);
	if (!err)
		err = seccomp_load(f);
	seccomp_release(f);
	return err;
}

int main(int argc, char **argv)
{
	int err;

	if (argc < 4) {
		fprintf(stderr, "usage: unitfilter \"FAMILIES\" SYSCALLS COMMAND [ARG...]\n");
		return 2;
	}
	err = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
	if (!err)
		err = restrict_families(argv[1]);
	if (!err)
		err = filter_calls(argv[2]);
	if (err) {
		fprintf(stderr, "unitfilter: %s\n", strerror(-err));
		return 1;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "unitfilter: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
