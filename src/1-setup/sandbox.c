// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
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
