// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the running kernel's BPF can do, asked of the kernel itself before
 * anything loads: a program per attach point (loaded, attached, closed),
 * the verifier's answer for a helper or an instruction, the members of
 * kernel structs in its BTF; and the kernel's version (uname).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "hooks.h"
#include "ksyms.h"
#include "loader.h"
#include "log.h"
#include "nflink.h"
#include "probe.h"
#include "setup.h"

/*
 * Probing: a two-instruction TRACING program aimed at the same target as
 * the real one, loaded and attached, then closed. This catches what makes a
 * method unusable before the real load, which is all-or-nothing: blocked
 * trampolines (EPERM at load on our CI machines), a target the compiler
 * inlined (missing from BTF), or a tracepoint this kernel lacks.
 */
/* Netfilter links: one answer for the three hooks that use them. */
static int probe_netfilter(char *why, size_t len)
{
	static int probed = 1; /* 1: not yet */

	if (probed == 1)
		probed = nsl_nf_probe();
	if (probed)
		snprintf(why, len, "netfilter link: %s%s", strerror(-probed),
			 nsl_kernel_version() < NSL_KERNEL(6, 4) ?
			 " (BPF netfilter links came with Linux 6.4)" : "");
	return probed;
}

int nsl_probe_section(const struct btf *vmlinux, const char *sec,
		      char *why, size_t len)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	const char *target = strchr(sec, '/');
	char tpname[128];
	int id, fd, link;

	if (!strcmp(sec, "netfilter"))
		return probe_netfilter(why, len);
	if (!target) {
		snprintf(why, len, "bad section %s", sec);
		return -EINVAL;
	}
	target++;
	if (!strncmp(sec, "tp_btf/", 7)) {
		opts.expected_attach_type = BPF_TRACE_RAW_TP;
		snprintf(tpname, sizeof(tpname), "btf_trace_%s", target);
		id = btf__find_by_name_kind(vmlinux, tpname, BTF_KIND_TYPEDEF);
	} else if (!strncmp(sec, "iter/", 5)) {
		/* an iterator's target: its bpf_iter_<target> (DEFINE_BPF_ITER_FUNC) */
		opts.expected_attach_type = BPF_TRACE_ITER;
		snprintf(tpname, sizeof(tpname), "bpf_iter_%s", target);
		id = btf__find_by_name_kind(vmlinux, tpname, BTF_KIND_FUNC);
	} else {
		opts.expected_attach_type = strncmp(sec, "fexit/", 6) ?
			BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
		id = btf__find_by_name_kind(vmlinux, target, BTF_KIND_FUNC);
	}
	if (id < 0) {
		snprintf(why, len, "%s: not in kernel BTF (missing or inlined)", sec);
		return -ENOENT;
	}
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nsl_probe", "GPL", ret0, 2, &opts);
	if (fd < 0) {
		/*
		 * A tracing program that root may not load: the kernel blocks
		 * BPF trampolines (measured on our CI machines: EPERM before the
		 * verifier runs, for a two-instruction program)
		 */
		snprintf(why, len, "%s: load: %s%s", sec, strerror(errno),
			 errno != EPERM || opts.expected_attach_type == BPF_TRACE_RAW_TP ? "" :
			 opts.expected_attach_type == BPF_TRACE_ITER ?
			 " (this kernel refuses this iterator, as it may trampolines?)" :
			 " (BPF trampolines blocked on this kernel?)");
		return -errno;
	}
	/* an iterator attaches to what it walks: the load says enough */
	if (opts.expected_attach_type == BPF_TRACE_ITER) {
		close(fd);
		return 0;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		snprintf(why, len, "%s: attach: %s", sec, strerror(errno));
		close(fd);
		return -errno;
	}
	close(link);
	close(fd);
	return 0;
}

/*
 * Whether a tracing program (tp_btf, as fentry/fexit for helpers) may call
 * helper id here: a program that calls it with bad arguments is refused
 * either way, and the verifier's log tells why: "unknown func" (or
 * "invalid func") when the helper is not one of the program type's
 * (check_helper_call(): get_func_proto() gave none), anything else
 * when it is. libbpf 1.1's libbpf_probe_bpf_helper() does not probe
 * tracing programs (they need an attach target). Attached to the
 * kfree_skb tracepoint (every kernel since 5.5 has its BTF), never
 * attached in fact.
 */
static bool tracing_has_helper(const struct btf *vmlinux, int id)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_5 },
		{ .code = BPF_JMP | BPF_CALL, .imm = id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	char log[4096] = "";
	int fd, tp;

	tp = btf__find_by_name_kind(vmlinux, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF);
	if (tp < 0)
		return false;
	opts.expected_attach_type = BPF_TRACE_RAW_TP;
	opts.attach_btf_id = tp;
	opts.log_buf = log;
	opts.log_size = sizeof(log);
	opts.log_level = 1;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nsl_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return !strstr(log, "unknown func") && !strstr(log, "invalid func");
}

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC where the kernel keeps it, for the
 * BPF side's clock check on kernels without bpf_ktime_get_tai_ns()
 * (cfg.offs_real_addr, bpf/clock.bpf.h): tk_core.timekeeper.offs_real.
 * tk_core is a static variable of kernel/time/timekeeping.c (so in the
 * sources of v5.10, v6.1 and v6.12; from v6.13 a macro over
 * timekeeper_data[], but those kernels have the TAI helper), an anonymous struct { seqcount_raw_spinlock_t seq;
 * struct timekeeper timekeeper; }: its address from /proc/kallsyms
 * (CONFIG_KALLSYMS_ALL), the offsets from the kernel's BTF. 0 when
 * anything is missing; the loader checks what it reads against its own
 * measure before using it (nsl_check_offs_real()).
 */
static uint64_t offs_real_address(const struct btf *vmlinux)
{
	static const char *const names[1] = { "tk_core" };
	uint64_t at[1] = { 0 }, len[1] = { 0 };
	const struct btf_type *t;
	const struct btf_member *m;
	int seq, tk, align;
	long long seq_size;

	if (nsl_ksym_ranges(names, 1, at, len) || !at[0])
		return 0;
	seq = btf__find_by_name_kind(vmlinux, "seqcount_raw_spinlock_t", BTF_KIND_TYPEDEF);
	tk = btf__find_by_name_kind(vmlinux, "timekeeper", BTF_KIND_STRUCT);
	if (seq < 0 || tk < 0)
		return 0;
	seq_size = btf__resolve_size(vmlinux, seq);
	align = btf__align_of(vmlinux, tk);
	if (seq_size <= 0 || align <= 0)
		return 0;
	t = btf__type_by_id(vmlinux, tk);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(vmlinux, m->name_off), "offs_real") != 0)
			continue;
		return at[0] + (seq_size + align - 1) / align * align +
		       btf_member_bit_offset(t, i) / 8;
	}
	return 0;
}

/*
 * Whether the verifier takes atomic fetch-and-add (BPF_ATOMIC with
 * BPF_FETCH, v5.12: commit 5ca419f2864a, "bpf: Add BPF_FETCH field /
 * create atomic_fetch_add instruction"): a socket filter that adds to a
 * stack slot with it.
 */
bool nsl_loader_has_atomic_fetch(void)
{
	static int known = -1;
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (known >= 0)
		return known;
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "nsl_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	known = fd >= 0;
	if (fd >= 0)
		close(fd);
	return known;
}

/* Whether struct or union id has member, also inside anonymous ones. */
static bool btf_id_has_member(const struct btf *vmlinux, int id, const char *member,
			      int depth)
{
	const struct btf_type *t = btf__type_by_id(vmlinux, id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 4)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(vmlinux, m->name_off);

		if (name && !strcmp(name, member))
			return true;
		/* struct_group() and the like: unnamed struct/union members */
		if ((!name || !*name) &&
		    btf_id_has_member(vmlinux, btf__resolve_type(vmlinux, m->type),
				      member, depth + 1))
			return true;
	}
	return false;
}

static bool btf_has_member(const struct btf *vmlinux, const char *type,
			   const char *member)
{
	int id = btf__find_by_name_kind(vmlinux, type, BTF_KIND_STRUCT);

	return id >= 0 && btf_id_has_member(vmlinux, id, member, 0);
}

/* What this kernel's BPF lacks, and how the tool makes up for it. */
void nsl_probe_kernel_bpf(struct nsl_loader *l, const struct btf *vmlinux)
{
	/*
	 * Before v5.18 (no skb->mono_delivery_time, nor tstamp_type since
	 * v6.11) a departure time can reach the read hooks, which count it
	 * in not_rx_tstamp (nsl_read_tstamp_is_rx(), bpf/compat.bpf.h): the
	 * reports show that counter for them there.
	 */
	bool marked = btf_has_member(vmlinux, "sk_buff", "tstamp_type") ||
		      btf_has_member(vmlinux, "sk_buff", "mono_delivery_time");

	if (!marked)
		nsl_counter_kernel_hooks[NSL_CNT_NOT_RX_TSTAMP] |=
			1u << NSL_HOOK_TCP_SOCK_READ | 1u << NSL_HOOK_UDP_SOCK_READ;
	l->clock_mono = !tracing_has_helper(vmlinux, BPF_FUNC_ktime_get_tai_ns);
	l->no_task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE,
						       NULL) <= 0;
	if (l->clock_mono)
		l->offs_real_addr = offs_real_address(vmlinux);
	pr_debug("clock: %s; task storage: %s; departure times %s\n",
		 l->clock_mono ? "bpf_ktime_get_ns() + offset" : "bpf_ktime_get_tai_ns()",
		 l->no_task_storage ? "no" : "yes",
		 marked ? "marked in the skb" : "told by value");
}

/* Parameters of the tracepoint in vmlinux BTF (its ctx excluded), or -1. */
int nsl_tracepoint_args(const struct btf *vmlinux, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	/* typedef -> pointer -> func_proto(void *ctx, args...) */
	t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
	if (!btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(vmlinux, t->type);
	return btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;
}

int nsl_kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major << 8 | minor;
}
