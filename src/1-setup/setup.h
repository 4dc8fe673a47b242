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

/* probe.c */
/* Whether the program of section sec loads and attaches here; else why not. */
int nsl_probe_section(const struct btf *vmlinux, const char *sec,
		      char *why, size_t len);
/* What this kernel's BPF lacks, into l (clock_mono and the like). */
void nsl_probe_kernel_bpf(struct nsl_loader *l, const struct btf *vmlinux);
/* Parameters of the tracepoint in vmlinux BTF (its ctx excluded), or -1. */
int nsl_tracepoint_args(const struct btf *vmlinux, const char *tp);

/* clock.c */
/* Gives the BPF side tk_core's offs_real if it reads what we measure. */
void nsl_check_offs_real(struct nsl_loader *l);

#endif /* NSL_SETUP_H */
