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
struct netstacklat_bpf;

/* probe.c */
/* Whether the program of section sec loads and attaches here; else why not. */
int nsl_probe_section(const struct btf *vmlinux, const char *sec,
		      char *why, size_t len);
/* What this kernel's BPF lacks, into l (clock_mono and the like). */
void nsl_probe_kernel_bpf(struct nsl_loader *l, const struct btf *vmlinux);
/* Parameters of the tracepoint in vmlinux BTF (its ctx excluded), or -1. */
int nsl_tracepoint_args(const struct btf *vmlinux, const char *tp);

/* targets.c */
/* Into the netns of -n (*saved: -1 when none), and back out of it. */
int nsl_enter_target_netns(struct nsl_loader *l, int *saved);
int nsl_leave_target_netns(int saved, int err);
/* Filter maps: after load (the maps exist), before attach (no samples yet). */
int nsl_fill_filters(struct nsl_loader *l, const struct nsl_options *o);

/* object.c: builds what the plan chose; knows nothing of plan.c */
/*
 * The BPF object, opened (not loaded). The skeleton's open embeds the
 * whole object (330 KB) in every file that calls it: object.c alone does.
 */
struct netstacklat_bpf *nsl_object_open(void);
/* The BPF object, configured, with the programs of the hooks in mask. */
struct netstacklat_bpf *nsl_object_build(const struct nsl_loader *l,
					 const struct nsl_options *o,
					 uint32_t hooks);
/* Loads an object with the programs of the hooks in mask: 0 or -errno. */
int nsl_object_try(const struct nsl_loader *l, const struct nsl_options *o,
		   uint32_t hooks);
/*
 * Every group id is free at start: the queue the BPF side pops them from
 * (bpf/group_id.bpf.h) holds 0..groups-1, in that order. 0 or -errno.
 */
int nsl_object_fill_free_ids(const struct nsl_loader *l, const struct nsl_options *o);

/* clocksync.c */
/* Gives the BPF side tk_core's offs_real if it reads what we measure. */
void nsl_check_offs_real(struct nsl_loader *l);

#endif /* NSL_SETUP_H */
