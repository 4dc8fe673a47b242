/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where an interface of ours leads: the network namespace its link's other
 * end lives in (a pod's veth or netkit seen from the node), so that a
 * group of the node's end is named after the pod (namer.c).
 */
#ifndef NSL_PEERS_H
#define NSL_PEERS_H

#include <stddef.h>
#include <stdint.h>

/*
 * For each ifindex[i] of the namespace of links_fd (a route netlink
 * socket, which answers about the namespace it was made in; -1: one of
 * the caller's namespace is made), the inode of the namespace its link's
 * other end is in, in peer[i]; 0 where it has none in another namespace,
 * or no process lives there (the namespace is found through one of its
 * processes), or it is not known.
 */
void nsl_link_peers(int links_fd, const uint32_t *ifindex, uint64_t *peer, size_t n);

/*
 * The inode of the network namespace of process pid ("PID" under the
 * /proc directory at, or a path such as "/proc/self" with AT_FDCWD), or
 * 0: gone, or behind ptrace's read check. One fstatat(), for the walks
 * of /proc (here and containers.c).
 */
uint64_t nsl_proc_netns(int at, const char *pid);

#endif /* NSL_PEERS_H */
