// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "sandbox.h"

/*
 * Built with AddressSanitizer (clang says so by __has_feature, gcc by
 * __SANITIZE_ADDRESS__): its runtime makes calls of its own in any
 * process, at any malloc. It maps its allocator's regions with madvise()
 * advice the C library never gives (MADV_NOHUGEPAGE, MADV_DONTDUMP), and
 * sets and unsets an alternate signal stack. Killed for those, a namer
 * or a /metrics server of the ASan build died now and then under the
 * tests, which saw it once, by a descriptor gone (CI of stop 54).
 * A report of the runtime is lost in there still: its log file is opened
 * to write, which stays closed; the process is killed, and the tool says
 * its helper is gone, which the tests look for (stop_tool).
 */
#if defined(__SANITIZE_ADDRESS__)
#define NSL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NSL_SANITIZED 1
#endif
#endif

scmp_filter_ctx nsl_sandbox_new(void)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
#ifdef NSL_SANITIZED
	static const char *const runtime[] = { "madvise", "sigaltstack" };

	if (f && nsl_sandbox_allow(f, runtime, sizeof(runtime) / sizeof(runtime[0]))) {
		seccomp_release(f);
		f = NULL;
	}
#endif
	return f;
}

int nsl_sandbox_allow(scmp_filter_ctx f, const char *const *names, size_t n)
{
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);

		if (nr != __NR_SCMP_ERROR)	/* not every architecture has each */
			err = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	return err;
}

int nsl_sandbox_allow_memory(scmp_filter_ctx f)
{
	static const char *const calls[] = { "brk", "munmap" };
	int err = nsl_sandbox_allow(f, calls, sizeof(calls) / sizeof(calls[0]));

	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 1,
				       NSL_ARG32(2, MADV_DONTNEED));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 1,
				       NSL_ARG32(2, MADV_FREE));
	/* flags, an unsigned long: all 64 bits */
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mremap), 1,
				       SCMP_A3(SCMP_CMP_EQ, 0));
	if (!err)
		err = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mremap), 1,
				       SCMP_A3(SCMP_CMP_EQ, MREMAP_MAYMOVE));
	return err;
}

int nsl_sandbox_allow_abort(scmp_filter_ctx f)
{
	return seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 2,
				NSL_ARG32(0, getpid()), NSL_ARG32(1, syscall(SYS_gettid)));
}

/*
 * Landlock, by its system calls (the C library has no wrappers), at the
 * ABI the kernel says it has: each ABI handles more rights, and a right a
 * ruleset handles is refused wherever no rule grants it. Debian's
 * linux/landlock.h is older than some kernels: the later rights by value.
 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)		/* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)	/* ABI 5 */
#endif
#define LL_NET_TCP ((1ULL << 0) | (1ULL << 1))		/* ABI 4: bind, connect */
#define LL_SCOPED ((1ULL << 0) | (1ULL << 1))		/* ABI 6: abstract unix, signals */
#ifndef __NR_landlock_create_ruleset			/* the same on every architecture */
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes a shorter one */
struct ll_ruleset {
	uint64_t fs, net, scoped;
};

/* struct landlock_path_beneath_attr (packed: 12 bytes) */
struct __attribute__((packed)) ll_beneath {
	uint64_t allowed;
	int32_t parent_fd;
};

int nsl_sandbox_confine_reads(const char *const *dirs, size_t n)
{
	const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	struct ll_ruleset attr = { .fs = LANDLOCK_ACCESS_FS_MAKE_SYM * 2 - 1 };	/* ABI 1 */
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	size_t size = sizeof(attr.fs);
	int rs, err = 0;

	if (abi < 0)
		return errno == ENOSYS || errno == EOPNOTSUPP ? -EOPNOTSUPP : -errno;
	if (abi >= 2)
		attr.fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 4)
		attr.net = LL_NET_TCP, size = 2 * sizeof(uint64_t);
	if (abi >= 5)
		attr.fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 6)
		attr.scoped = LL_SCOPED, size = sizeof(attr);
	rs = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0)
		return -errno;
	for (size_t i = 0; !err && i < n; i++) {
		struct ll_beneath rule = { .allowed = read };

		rule.parent_fd = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rule.parent_fd < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				err = -errno;
			continue;
		}
		if (syscall(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0))
			err = -errno;
		close(rule.parent_fd);
	}
	if (!err && syscall(__NR_landlock_restrict_self, rs, 0))
		err = -errno;
	close(rs);
	return err;
}
