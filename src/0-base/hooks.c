// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "hooks.h"

#define FENTRY(...) { NSL_METHOD_FENTRY, { __VA_ARGS__ } }
#define FENTRY_NEEDS(what, ...) { NSL_METHOD_FENTRY, { __VA_ARGS__ }, .need = (what) }
#define TP(...) { NSL_METHOD_TRACEPOINT, { __VA_ARGS__ } }
#define TP_NEEDS(what, ...) { NSL_METHOD_TRACEPOINT, { __VA_ARGS__ }, .need = (what) }
#define NF(prog, place) { NSL_METHOD_NETFILTER, { prog }, place }
#define NF_TP_NEEDS(what, prog, place, ...) \
	{ NSL_METHOD_NETFILTER, { prog, __VA_ARGS__ }, place, .need = (what) }

const struct nsl_hook_desc nsl_hooks[NSL_NR_HOOKS] = {
	[NSL_HOOK_IP_START] = {
		.name = "ip-start",
		.desc = "packet reaches the IP layer (past tc ingress)",
		.cands = { FENTRY("fentry_ip_rcv_core", "fentry_ip6_rcv_core"),
			   NF("nf_ip_start", NSL_NF_PRE_ROUTING_FIRST) },
	},
	[NSL_HOOK_TCP_START] = {
		.name = "tcp-start",
		.desc = "packet reaches TCP (past IP and routing)",
		.cands = { FENTRY("fentry_tcp_v4_rcv", "fentry_tcp_v6_rcv"),
			   NF("nf_l4_start", NSL_NF_LOCAL_IN_LAST) },
	},
	[NSL_HOOK_UDP_START] = {
		.name = "udp-start",
		.desc = "packet reaches UDP",
		.cands = { FENTRY("fentry_udp_rcv", "fentry_udpv6_rcv"),
			   NF("nf_l4_start", NSL_NF_LOCAL_IN_LAST) },
	},
	[NSL_HOOK_TCP_SOCK_ENQUEUED] = {
		.name = "tcp-socket-enqueued",
		.desc = "packet is queued on a TCP socket",
		.cands = { FENTRY("fexit_tcp_queue_rcv"),
			   TP("tp_data_ready") },
	},
	[NSL_HOOK_UDP_SOCK_ENQUEUED] = {
		.name = "udp-socket-enqueued",
		.desc = "packet is queued on a UDP socket",
		/* fentry reads the skb, fexit records it if it was queued */
		.cands = { FENTRY_NEEDS(NSL_NEED_UDP_QUEUED_ON_RETURN,
					"fentry_udp_enqueue_schedule_skb",
					"fexit_udp_enqueue_schedule_skb"),
			   TP("tp_data_ready") },
	},
	[NSL_HOOK_TCP_SOCK_READ] = {
		.name = "tcp-socket-read",
		.desc = "packet is read by the application (TCP)",
		.reader_ctx = true,
		.cands = { FENTRY("fentry_tcp_recv_timestamp"),
			   TP("tp_tcp_copy_datagram", "tp_recv_length") },
	},
	[NSL_HOOK_UDP_SOCK_READ] = {
		.name = "udp-socket-read",
		.desc = "packet is read by the application (UDP)",
		.reader_ctx = true,
		/*
		 * skb_copy_datagram_iovec does not see every UDP read (linear
		 * skbs are copied without it: 256 reads, 0 events on 6.18);
		 * consume_skb from skb_consume_udp() does, on 6.3 to 6.17.
		 */
		.cands = { FENTRY("fentry_skb_consume_udp"),
			   TP_NEEDS(NSL_NEED_UDP_FREE_SITE, "tp_udp_consume_skb",
				    "tp_recv_length") },
	},
	[NSL_HOOK_NETNS_HANDOVER] = {
		.name = "netns-handover",
		.desc = "packet is handed to a pod's netns (veth, netkit)",
		.opt_in = true,
		/*
		 * The RX stamp is remembered where the packet is forwarded
		 * (the forward path clears it) and measured where veth hands
		 * it over, after the qdisc (bpf/handover.bpf.h); forgotten
		 * when the packet is dropped on the way.
		 */
		.cands = { FENTRY_NEEDS(NSL_NEED_HANDOVER_DEVS,
					"fentry_ip_forward_finish",
					"fentry_ip6_forward",
					"fentry_dev_forward_skb", "tp_handover_drop"),
			   NF_TP_NEEDS(NSL_NEED_HANDOVER_DEVS, "nf_handover_forward",
				       NSL_NF_FORWARD_LAST, "tp_handover_xmit",
				       "tp_handover_drop") },
	},
	/*
	 * Looks at a socket's queue where it changes (bpf/standing.bpf.h):
	 * on arrival (sock_def_readable, or the sk_data_ready tracepoint in
	 * it; TCP's drops call it too), after every read (fexit of the
	 * protocol's recvmsg, or sock_recv_length, v6.3), at UDP's drops
	 * for a full buffer, and at TCP's close (inet_sock_set_state); and at each report the walks of nsl_walks[]
	 * below, where they load. Opt-in: a look costs every packet and
	 * read of the protocol (docs/performance.md, "Standing queues").
	 */
	[NSL_HOOK_TCP_STANDING] = {
		.name = "tcp-standing-queue",
		.desc = "a TCP socket's queue stands (CoDel: 1 ms for 10 ms)",
		.opt_in = true,
		.cands = { FENTRY_NEEDS(NSL_NEED_TRACING_SK_STORAGE,
					"fentry_sock_def_readable",
					"fexit_tcp_recvmsg", "tp_standing_close"),
			   TP("tp_data_ready", "tp_recv_length", "tp_standing_close") },
	},
	[NSL_HOOK_UDP_STANDING] = {
		.name = "udp-standing-queue",
		.desc = "a UDP socket's queue stands (CoDel: 1 ms for 10 ms)",
		.opt_in = true,
		.cands = { FENTRY_NEEDS(NSL_NEED_TRACING_SK_STORAGE,
					"fentry_sock_def_readable",
					"fexit_udp_recvmsg", "fexit_udpv6_recvmsg",
					"tp_udp_fail_queue", "fentry_udp_close"),
			   TP("tp_data_ready", "tp_recv_length",
			      "tp_udp_fail_queue") },
	},
};

#define HOOK(h) (1u << NSL_HOOK_##h)
#define ALL_HOOKS ((1u << NSL_NR_HOOKS) - 1)
#define STANDING_HOOKS (HOOK(TCP_STANDING) | HOOK(UDP_STANDING))

/*
 * The sockets' walks (iter/tcp, iter/udp: v5.9, sk storage from them
 * v5.11) see every socket of one namespace, a queue that no look saw
 * stand included; the runs' walk sees the runs of all of them, where
 * map iterators load (refused on 6.18 here, as trampolines are).
 */
const struct nsl_walk_desc nsl_walks[NSL_NR_WALKS] = {
	[NSL_WALK_TCP] = { "standing_walk_tcp", HOOK(TCP_STANDING), false,
			   "the report's walk of the TCP sockets" },
	[NSL_WALK_UDP] = { "standing_walk_udp", HOOK(UDP_STANDING), false,
			   "the report's walk of the UDP sockets" },
	[NSL_WALK_RUNS] = { "standing_walk_runs", STANDING_HOOKS, true,
			    "the report's walk of other namespaces' runs" },
};
/* the hooks that see an skb on its way in, with the skb's own tstamp */
#define RX_HOOKS (HOOK(IP_START) | HOOK(TCP_START) | HOOK(UDP_START) | \
		  HOOK(TCP_SOCK_ENQUEUED) | HOOK(UDP_SOCK_ENQUEUED) | \
		  HOOK(NETNS_HANDOVER))

uint32_t nsl_counter_kernel_hooks[NSL_NR_COUNTERS];

const struct nsl_counter_desc nsl_counters[NSL_NR_COUNTERS] = {
	[NSL_CNT_HOL_EXCLUDED] = {
		"hol_excluded",
		"TCP reads left out as possibly HOL-blocked.",
		HOOK(TCP_SOCK_READ) },
	[NSL_CNT_HOL_READ_ERROR] = {
		"hol_read_errors",
		"TCP reads left out because the HOL check could not read the socket.",
		HOOK(TCP_SOCK_READ) },
	[NSL_CNT_NOT_RX_TSTAMP] = {
		"not_rx_tstamp",
		"Packets skipped for carrying a departure, not an RX, timestamp.",
		RX_HOOKS },
	[NSL_CNT_NEGATIVE] = {
		"negative_latency",
		"Samples dropped for an RX timestamp later than now (stamped before the clock was set back).",
		ALL_HOOKS },
	[NSL_CNT_MAP_FULL] = {
		"map_full",
		"Samples dropped because the per-group histogram map was full.",
		ALL_HOOKS },
	[NSL_CNT_CLOCK_STEP] = {
		"clock_step",
		"Samples dropped because the kernel's clock was set (step, TAI "
		"offset) and the tool had not yet followed.",
		ALL_HOOKS },
	[NSL_CNT_UNCHANGED_TAIL] = {
		"unchanged_tail",
		"sk_data_ready calls (tracepoint fallback) that found the tail "
		"of the receive queue already sampled: no new skb, or one of a "
		"batch.",
		HOOK(TCP_SOCK_ENQUEUED) | HOOK(UDP_SOCK_ENQUEUED) },
	[NSL_CNT_QUEUE_EMPTY] = {
		"queue_empty",
		"UDP datagrams the reader took before sk_data_ready (tracepoint "
		"fallback) could sample them: UDP queues without the socket lock.",
		HOOK(UDP_SOCK_ENQUEUED) },
	[NSL_CNT_MPTCP_EXCLUDED] = {
		"mptcp_excluded",
		"MPTCP reads left out by the HOL filter, which cannot see "
		"their subflows (-y records them).",
		HOOK(TCP_SOCK_READ) },
	[NSL_CNT_NO_RX_TSTAMP] = {
		"no_rx_tstamp",
		"Packets (reads) without an RX timestamp: they arrived while the "
		"kernel's RX timestamping was off (before the tool turned it on), "
		"or, for TCP reads, their last skb was rebuilt when the kernel "
		"collapsed the receive queue (TcpExtTCPRcvCollapsed).",
		/* netns-handover: handover_unmatched; a look with none says nothing */
		ALL_HOOKS & ~HOOK(NETNS_HANDOVER) & ~STANDING_HOOKS },
	[NSL_CNT_HANDOVER_UNMATCHED] = {
		"handover_unmatched",
		"Packets handed to another network namespace with no RX "
		"timestamp of their own and none remembered from forwarding "
		"(forwarded before the tool started or in another namespace "
		"than its netfilter link, segmented on the way, bridged "
		"without br_netfilter).",
		HOOK(NETNS_HANDOVER) },
	[NSL_CNT_OWNER_QUOTA] = {
		"owner_quota",
		"Samples dropped because their network namespace or cgroup had "
		"no histogram yet and the unprivileged user that made or owns it "
		"holds its --owner-quota of them (-I -n -1, -C).",
		ALL_HOOKS },
	[NSL_CNT_NO_STORAGE] = {
		"no_storage",
		"Looks at a queue above target that started no run because the "
		"kernel refused the socket's storage (its option memory at "
		"net.core.optmem_max, or no memory).",
		STANDING_HOOKS },
	[NSL_CNT_WALK_FAILED] = {
		"walk_failed",
		"Reports whose walk of this hook's sockets failed (tried again "
		"at the next report): a silent queue's time waits for its next "
		"look, its socket not counted standing.",
		STANDING_HOOKS },
};

const struct nsl_value_desc nsl_standing_values[NSL_NR_SV] = {
	[NSL_SV_SECONDS] = {
		"standing_queue_seconds",
		"Seconds sockets' queues spent standing, counted as they stand "
		"(its rate: the sockets standing).",
		.ns = true },
	[NSL_SV_BEGUN] = {
		"standing_episodes_begun",
		"Standing-queue episodes begun (the histogram counts those that "
		"ended)." },
	[NSL_SV_SOCKETS] = {
		"standing_sockets",
		"Sockets whose queue stands when the report was read.",
		.gauge = true },
};

bool nsl_hook_standing(int h)
{
	return h == NSL_HOOK_TCP_STANDING || h == NSL_HOOK_UDP_STANDING;
}

double nsl_value_number(const struct nsl_value_desc *d, uint64_t v)
{
	return d->ns ? v * 1e-9 : (double)v;
}

int nsl_value_snprint(char *buf, size_t len, const struct nsl_value_desc *d,
		      uint64_t v)
{
	if (d->ns)
		return snprintf(buf, len, "%.9f", v * 1e-9);
	return snprintf(buf, len, "%" PRIu64, v);
}

const char *nsl_hook_names(uint32_t hooks, const char *sep, char *buf,
			   size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int h = 0; h < NSL_NR_HOOKS && n < len; h++)
		if (hooks & (1u << h))
			n += snprintf(buf + n, len - n, "%s%s", n ? sep : "",
				      nsl_hooks[h].name);
	return buf;
}

int nsl_hook_by_name(const char *name)
{
	for (int i = 0; i < NSL_NR_HOOKS; i++)
		if (!strcmp(nsl_hooks[i].name, name))
			return i;
	return -1;
}

const char *nsl_method_name(enum nsl_method m)
{
	switch (m) {
	case NSL_METHOD_FENTRY:
		return "fentry";
	case NSL_METHOD_TRACEPOINT:
		return "tracepoint";
	case NSL_METHOD_NETFILTER:
		return "netfilter";
	default:
		return "none";
	}
}
