// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the running kernel's BPF can do, asked of the kernel itself before
 * anything loads: a program per attach point (loaded, attached, closed),
 * the verifier's answer for a helper or an instruction, the members of
 * kernel structs in its BTF; and the kernel's version and symbols (uname,
 * /proc/kallsyms).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "probe.h"

int nsl_kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major << 8 | minor;
}

/*
 * /proc/kallsyms lists every kernel symbol with its address (zeros when
 * kptr_restrict hides them from us). A function's extent is from its
 * address to the next symbol's. Two passes: find the addresses, then the
 * symbol after each.
 */
int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f;

	for (int pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "re");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
				continue;
			for (int i = 0; i < n; i++) {
				if (pass == 0 && !at[i] && !strcmp(sym, names[i]))
					at[i] = a;
				/* len holds the next address until the end */
				if (pass == 1 && at[i] && a > at[i] &&
				    (!len[i] || a < len[i]))
					len[i] = a;
			}
		}
		fclose(f);
		if (pass == 0)
			memset(len, 0, n * sizeof(*len));
	}
	for (int i = 0; i < n; i++)
		len[i] = at[i] && len[i] ? len[i] - at[i] : 0;
	return 0;
}
