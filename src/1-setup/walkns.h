/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread that lives in -n PATH's network namespace, for the standing
 * hooks' walks of its sockets (iter/tcp, iter/udp): an iterator walks
 * the namespace of the thread that makes it (bpf_iter_init_seq_net()
 * takes current->nsproxy->net_ns at BPF_ITER_CREATE), and after set-up
 * the tool may no longer enter another namespace (setns() needs
 * CAP_SYS_ADMIN). Namespaces are per thread, so this one enters it once,
 * while the tool is privileged, and makes the reader's iterators there.
 */
#ifndef NSL_WALKNS_H
#define NSL_WALKNS_H

#include <stdbool.h>

struct nsl_walkns;

/*
 * The thread, in the namespace at path, with no capability but CAP_BPF,
 * CAP_SETUID and CAP_SETGID (until nsl_walkns_drop()); NULL and errno
 * where it cannot be had.
 */
struct nsl_walkns *nsl_walkns_start(const char *path);

/*
 * A new iterator of link_fd's program, made in the thread's namespace:
 * its descriptor, or a negative errno.
 */
int nsl_walkns_iter(struct nsl_walkns *w, int link_fd);

/*
 * After the tool dropped its privileges (loop.c): the thread keeps
 * CAP_BPF only where the tool kept it (capabilities are per thread).
 */
int nsl_walkns_drop(struct nsl_walkns *w, bool keep_bpf);

void nsl_walkns_stop(struct nsl_walkns *w);

#endif /* NSL_WALKNS_H */
