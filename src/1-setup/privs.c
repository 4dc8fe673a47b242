// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* Two 32-bit words per set: _LINUX_CAPABILITY_VERSION_3. */
struct capsets {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
};

static int caps_get(struct capsets *c)
{
	memset(c, 0, sizeof(*c));
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capget, &c->hdr, c->data) ? -errno : 0;
}

/* Sets effective and permitted to exactly `keep` (a bit mask of caps < 64). */
static int caps_set(uint64_t effective, uint64_t permitted)
{
	struct capsets c = { .hdr.version = _LINUX_CAPABILITY_VERSION_3 };

	c.data[0].effective = (uint32_t)effective;
	c.data[1].effective = (uint32_t)(effective >> 32);
	c.data[0].permitted = (uint32_t)permitted;
	c.data[1].permitted = (uint32_t)(permitted >> 32);
	return syscall(SYS_capset, &c.hdr, c.data) ? -errno : 0;
}

static bool has_cap(const struct capsets *c, int cap)
{
	return c->data[cap / 32].effective & (1u << (cap % 32));
}

bool nsl_privs_can_load(void)
{
	struct capsets c;

	if (caps_get(&c))
		return false;
	return has_cap(&c, CAP_SYS_ADMIN) ||
	       (has_cap(&c, CAP_BPF) && has_cap(&c, CAP_PERFMON));
}

static int switch_user(const char *name)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return errno ? -errno : -ENOENT;
	/* keep the permitted set across setuid, to drop it ourselves after */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
	    setuid(pw->pw_uid))
		return -errno;
	if (setuid(0) == 0) /* must be impossible now */
		return -EPERM;
	return prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) ? -errno : 0;
}

/*
 * A lookup in a map we own, the bpf() command reports need: "no such key"
 * is an answer, EPERM is the refusal. probe_fd must have 4-byte keys and
 * small, not per-CPU values.
 */
static bool map_readable(int fd)
{
	__u64 value[8];
	__u32 key = 0;

	return bpf_map_lookup_elem(fd, &key, value) == 0 || errno != EPERM;
}

void nsl_privs_empty_bounding_set(void)
{
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno == EINVAL)
			break;	/* past the kernel's last capability */
}

int nsl_privs_drop(const char *user, int probe_fd, bool *kept_bpf)
{
	const uint64_t bpf = 1ULL << CAP_BPF;
	int err;

	*kept_bpf = false;
	/* nothing we exec (we exec nothing) may regain privileges */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	/* the bounding set needs CAP_SETPCAP, which we still have here */
	nsl_privs_empty_bounding_set();
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (user && (err = switch_user(user)))
		return err;
	/* try with nothing effective, CAP_BPF still permitted to fall back on */
	if (caps_set(0, bpf)) /* a kernel without CAP_BPF: nothing to keep */
		return caps_set(0, 0);
	if (!map_readable(probe_fd)) {
		*kept_bpf = true;
		return caps_set(bpf, bpf);
	}
	return caps_set(0, 0);
}

int nsl_privs_keep_only(int cap)
{
	return nsl_privs_keep(cap >= 0 ? 1ULL << cap : 0);
}

int nsl_privs_keep(uint64_t keep)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	nsl_privs_empty_bounding_set();
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return caps_set(keep, keep) ? -errno : 0;
}

int nsl_privs_try(const char *user, int (*fn)(void *ctx), void *ctx)
{
	bool kept_bpf;
	int status, err;
	pid_t pid;

	fflush(NULL);	/* nothing buffered may be written twice */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* no map to probe yet: -1 makes it drop CAP_BPF too */
		if (nsl_privs_drop(user, -1, &kept_bpf))
			_exit(EPERM);
		err = fn(ctx);
		_exit(err < 0 && -err < 256 ? -err : err ? EIO : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}
