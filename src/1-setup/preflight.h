/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What can be checked before anything touches the kernel, so that a bad
 * invocation fails early with one line naming the cause and loads nothing.
 */
#ifndef NSL_PREFLIGHT_H
#define NSL_PREFLIGHT_H

#include "options.h"

/* 0, or a negative errno after one line on stderr saying what is missing. */
int nsl_preflight(const struct nsl_options *o);

#endif /* NSL_PREFLIGHT_H */
