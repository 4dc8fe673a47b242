// SPDX-License-Identifier: GPL-2.0-only
/* The checks before anything is loaded (preflight.h). */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "loader.h"
#include "log.h"
#include "preflight.h"
#include "privs.h"

/*
 * The /metrics server parses what any local client sends. Run by root
 * without --user, it would run as uid 0: without capabilities, yet the
 * owner of root's files and processes, and so would the process that
 * holds the BPF objects after set-up. Like tcpdump and chronyd, the tool
 * then takes a user of its own (issue #32 item 2): the package's
 * "netstacklat", else "nobody" (its files are then opened and reopened
 * as that user, as with --user).
 */
int nsl_preflight_user(struct nsl_options *o)
{
	static const char *const users[] = { "netstacklat", "nobody" };

	if (o->user || !o->listen_port || geteuid() != 0)
		return 0;
	for (unsigned int i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		if (getpwnam(users[i])) {
			o->user = users[i];
			o->user_taken = true;
			return 0;
		}
	}
	pr_warn("--listen as root needs --user NAME: no user 'netstacklat' "
		"or 'nobody' here to take\n");
	return -ENOENT;
}

/*
 * Whether we run in a user namespace other than the initial one, whose
 * uid_map alone is "0 0 4294967295" (user_namespaces(7)): there root
 * passes every check of ours and no bpf() load, which needs the
 * capabilities in the initial namespace (bpf_capable(): capable(), not
 * ns_capable()).
 */
bool nsl_in_user_namespace(void)
{
	unsigned long long inside, outside, count;
	FILE *f = fopen("/proc/self/uid_map", "re");
	int n;

	if (!f)
		return false;	/* no user namespaces at all */
	n = fscanf(f, "%llu %llu %llu", &inside, &outside, &count);
	fclose(f);
	return n != 3 || inside || outside || count != 4294967295ULL;
}

int nsl_preflight(const struct nsl_options *o)
{
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		pr_warn("this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)\n");
		return -ENOSYS;
	}
	if (nsl_in_user_namespace()) {
		pr_warn("runs in a user namespace (a rootless container?), whose root "
			"cannot load BPF: that needs root of the host's initial user "
			"namespace. Run it on the host, or in a container that shares "
			"the host's user namespace (privileged)\n");
		return -EPERM;
	}
	if (!nsl_privs_can_load()) {
		pr_warn("needs root: CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN "
			"(and CAP_NET_ADMIN for netfilter hooks)\n");
		return -EPERM;
	}
	/*
	 * A new group takes the next id with an atomic fetch-and-add
	 * (group_hist_get() in the BPF program), which the verifier refuses
	 * before v5.12 (commit 5ca419f2864a, "bpf: Add BPF_FETCH field /
	 * create atomic_fetch_add instruction").
	 */
	if ((o->group_ifindex || o->group_cgroup) && !nsl_loader_has_atomic_fetch()) {
		pr_warn("%s: grouped histograms need BPF atomic fetch-and-add "
			"(Linux 5.12); this kernel is older\n",
			o->group_ifindex ? "-I" : "-C");
		return -EOPNOTSUPP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_warn("kernel without BTF (/sys/kernel/btf/vmlinux: %s); "
			"CO-RE needs CONFIG_DEBUG_INFO_BTF\n", strerror(errno));
		return -ENOENT;
	}
	for (unsigned int i = 0; i < o->nr_pids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			pr_warn("-p: no process %u\n", o->pids[i]);
			return -ESRCH;
		}
	}
	if (o->user && !getpwnam(o->user)) {
		pr_warn("--user: no user '%s'\n", o->user);
		return -ENOENT;
	}
	return 0;
}
