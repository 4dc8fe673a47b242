/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Netfilter BPF links (kernel 6.4+), which Debian's libbpf 1.1.2 does not
 * know: the program type and the link are set up by hand, here only.
 */
#ifndef NSL_NFLINK_H
#define NSL_NFLINK_H

/* include/uapi/linux/bpf.h of 6.4+: values fixed by the kernel ABI */
#define NSL_BPF_PROG_TYPE_NETFILTER 32
#define NSL_BPF_NETFILTER 45

/* include/uapi/linux/netfilter.h */
#define NSL_NFPROTO_IPV4 2
#define NSL_NFPROTO_IPV6 10
#define NSL_NF_INET_PRE_ROUTING 0
#define NSL_NF_INET_LOCAL_IN 1
#define NSL_NF_INET_FORWARD 2

/*
 * Attaches prog_fd to hook hooknum of family pf in the calling thread's
 * current network namespace. Returns the link fd (closing it detaches) or
 * a negative errno.
 */
int nsl_nf_link_create(int prog_fd, int pf, int hooknum, int priority);

/*
 * The same at the first free priority from edge on, moving by step (+1 from
 * the first, -1 from the last): priorities taken by other BPF hooks are busy.
 */
int nsl_nf_link_at_edge(int prog_fd, int pf, int hooknum, int edge, int step);

/* Loads an accept-all netfilter program and links it: does the kernel allow it? */
int nsl_nf_probe(void);

#endif /* NSL_NFLINK_H */
