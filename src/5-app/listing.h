/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the set-up stage decided, told to the user: the hooks and how each
 * attaches (-l, and the "attached" lines at start), what this kernel's
 * BPF lacks, and where the netfilter hooks look.
 */
#ifndef NSL_LISTING_H
#define NSL_LISTING_H

#include <stdbool.h>
#include <stdio.h>
#include "loader.h"
#include "options.h"

/* One line per hook (all: the disabled ones and the opt-in notes too). */
void nsl_list_hooks(const struct nsl_loader *l, FILE *f, bool all);
/* What this kernel's BPF lacks that the tool makes up for, or cannot. */
void nsl_list_kernel_notes(const struct nsl_loader *l, FILE *f);
/*
 * -I -n -1: how groups of dead namespaces are found (at once, by the
 * program of bpf/netns_gone.bpf.h, or after --group-idle, and why); with
 * it or -C, the quota of an unprivileged owner's groups.
 */
void nsl_list_group_policy(const struct nsl_loader *l, const struct nsl_options *o, FILE *f);
/* The network namespace the netfilter hooks' links live in (stderr). */
void nsl_list_netfilter_scope(const struct nsl_loader *l, const struct nsl_options *o);

/*
 * "netstacklat: attached ..." and the hooks on stderr, once set-up is
 * done (the word scripts and tests wait for: every hook runs, privileges
 * are dropped, /metrics serves)
 */
void nsl_list_attached(const struct nsl_loader *l, const struct nsl_options *o);

/*
 * -l without the privileges to probe: every hook with the methods it tries,
 * in order, and what it measures; nothing loaded (bcc's tools list so)
 */
void nsl_list_hooks_unprobed(FILE *f);

/* One line for systemd's STATUS=: the hooks running and their methods. */
void nsl_status_line(const struct nsl_loader *l, char *buf, size_t len);

#endif /* NSL_LISTING_H */
