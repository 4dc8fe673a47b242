// SPDX-License-Identifier: GPL-2.0-only
/*
 * Testbed: an XDP program that passes every packet, slowly. Attached to a
 * veth's end it gives that end NAPI (veth_enable_xdp(): the peer's
 * transmits go through the 256-packet receive ring, xdp_ring, which NAPI
 * polls) instead of netif_rx(); a few microseconds of work per packet
 * (NAPI_SPIN rounds of a loop) make that ring fill under a flood, and
 * with a qdisc on the peer a full ring makes veth_xmit() return
 * NETDEV_TX_BUSY from v6.16 (test_handover_requeued).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define NAPI_SPIN 100000	/* ~50 us a packet here */

SEC("xdp")
int napi_pass(struct xdp_md *ctx)
{
	__u32 i, x = 0;

	for (i = 0; i < NAPI_SPIN; i++)
		x += i * ctx->rx_queue_index;
	return x == 1 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
