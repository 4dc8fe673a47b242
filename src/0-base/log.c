// SPDX-License-Identifier: GPL-2.0-only
/* What log.h's macros read: set once by main() (or the jailed child's). */
#include "log.h"

bool nsl_verbose;
bool nsl_libbpf_quiet;
