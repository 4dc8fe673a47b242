/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the set-up stage (src/1-setup): what its files share with one
 * another. The other stages use loader.h, the stage's interface.
 */
#ifndef NSL_SETUP_H
#define NSL_SETUP_H

#include <stddef.h>
#include <stdint.h>
#include "loader.h"

struct btf;

/* clock.c */
/* Gives the BPF side tk_core's offs_real if it reads what we measure. */
void nsl_check_offs_real(struct nsl_loader *l);

#endif /* NSL_SETUP_H */
