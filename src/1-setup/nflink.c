// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "nflink.h"

/*
 * The BPF_LINK_CREATE part of union bpf_attr for netfilter links, as in
 * include/uapi/linux/bpf.h since 6.4 (our installed header is older).
 * The kernel requires the bytes past what it knows to be zero, so the
 * struct is passed with its own size.
 */
struct nsl_nf_link_attr {
	__u32 prog_fd;
	__u32 target_fd;	/* unused for netfilter */
	__u32 attach_type;	/* NSL_BPF_NETFILTER */
	__u32 flags;
	__u32 pf;
	__u32 hooknum;
	__s32 priority;
	__u32 nf_flags;
};

int nsl_nf_link_create(int prog_fd, int pf, int hooknum, int priority)
{
	struct nsl_nf_link_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = NSL_BPF_NETFILTER;
	attr.pf = pf;
	attr.hooknum = hooknum;
	attr.priority = priority;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/*
 * The kernel refuses a second BPF netfilter hook at a priority already
 * taken by one (nf_hook_entries_grow(): -EBUSY), which tcp-start and
 * udp-start on LOCAL_IN, or a second netstacklat, would hit: step inwards
 * from the edge until a free priority is found.
 */
#define NSL_NF_PRIO_TRIES 64

int nsl_nf_link_at_edge(int prog_fd, int pf, int hooknum, int edge, int step)
{
	int fd = -EBUSY;

	for (int i = 0; i < NSL_NF_PRIO_TRIES && fd == -EBUSY; i++)
		fd = nsl_nf_link_create(prog_fd, pf, hooknum, edge + i * step);
	return fd;
}

int nsl_nf_probe(void)
{
	static const struct bpf_insn accept[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = NSL_BPF_NETFILTER);
	int prog, link;

	prog = bpf_prog_load(NSL_BPF_PROG_TYPE_NETFILTER, "nsl_nf_probe", "GPL",
			     accept, 2, &opts);
	if (prog < 0)
		return -errno;
	/* priorities INT_MIN and INT_MAX are reserved: the kernel says ERANGE */
	link = nsl_nf_link_at_edge(prog, NSL_NFPROTO_IPV4, NSL_NF_INET_LOCAL_IN,
				   INT_MAX - 1, -1);
	close(prog);
	if (link < 0)
		return link;
	close(link);
	return 0;
}
