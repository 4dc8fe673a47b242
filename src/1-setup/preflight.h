/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What can be checked before anything touches the kernel, so that a bad
 * invocation fails early with one line naming the cause and loads nothing.
 */
#ifndef NSL_PREFLIGHT_H
#define NSL_PREFLIGHT_H

#include "options.h"

/*
 * --listen run by root without --user: the user the tool takes itself
 * (o->user set, o->user_taken: main() says so once it listens), or
 * -ENOENT after one line when there is none. 0 when --user was given or
 * nothing needs one.
 */
int nsl_preflight_user(struct nsl_options *o);

/* 0, or a negative errno after one line on stderr saying what is missing. */
int nsl_preflight(const struct nsl_options *o);

/*
 * Whether we run in a user namespace other than the initial one (a
 * rootless container): its root cannot load BPF.
 */
bool nsl_in_user_namespace(void);

#endif /* NSL_PREFLIGHT_H */
