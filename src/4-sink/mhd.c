// SPDX-License-Identifier: GPL-2.0-only
/* libmicrohttpd, loaded on demand (mhd.h says why). */
#include <dlfcn.h>
#include <errno.h>
#include "log.h"
#include "mhd.h"

struct nsl_mhd nsl_mhd;

int nsl_mhd_load(void)
{
	void *lib;

	if (nsl_mhd.start_daemon)
		return 0;
	lib = dlopen(NSL_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		pr_warn("--listen: %s\n", dlerror());
		return -ENOENT;
	}
#define MHD_FN_LOAD(name)						\
	nsl_mhd.name = (__typeof__(nsl_mhd.name))dlsym(lib, "MHD_" #name); \
	if (!nsl_mhd.name) {						\
		pr_warn("--listen: %s lacks MHD_" #name "\n", NSL_MHD_SONAME); \
		return -ENOSYS;						\
	}
	MHD_FUNCS(MHD_FN_LOAD)
	return 0;
}
