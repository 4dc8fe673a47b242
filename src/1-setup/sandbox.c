// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "sandbox.h"

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
