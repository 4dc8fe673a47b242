/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The namer's own side (namerproc.c): what the tool and the namer agree
 * on to start it and to ask it (namer.h is the tool's side), and its
 * life once started.
 */
#ifndef NSL_NAMERPROC_H
#define NSL_NAMERPROC_H

#include <stddef.h>
#include <stdint.h>
#include "containers.h"

/* argv[1] of our own executable run as the namer (main.c) */
#define NSL_NAMER_ARGV1 "--namer-process--"
/* the namer's end of the socket pair, in the namer */
#define NSL_NAMER_FD 3
/* the loader's route netlink socket in -n's namespace, where given (argv[3]) */
#define NSL_NAMER_LINKS_FD 4
/* the most namespaces or interfaces one question asks about */
#define NSL_NAMER_BATCH 512
/*
 * The longest question: its kind, its number, and a path of PATH_MAX with
 * its NUL ('C'), or a batch of inodes ('N'; 'I' is half that)
 */
#define NSL_NAMER_MSG_MAX (1 + 4 + 4096 + 1)
/*
 * A batch named where we are (the namer's work, or the tool's where there
 * is none): kind 'N', items are namespaces' inodes; 'I', ifindexes of
 * ours, named by the namespace at their links' other ends (peers.c).
 * ask[i].c set.
 */
void nsl_namer_name_batch(char kind, int links_fd, const void *items,
			  struct nsl_netns_ask *ask, size_t nr);

/* The size of an item of a batch of kind 'N' (an inode) or 'I' (an ifindex) */
static inline size_t nsl_namer_item_size(char kind)
{
	return kind == 'N' ? sizeof(uint64_t) : sizeof(uint32_t);
}

/* The namer's life (main.c, for NSL_NAMER_ARGV1): never returns. */
void __attribute__((noreturn)) nsl_namer_main(int argc, char **argv);

#endif /* NSL_NAMERPROC_H */
