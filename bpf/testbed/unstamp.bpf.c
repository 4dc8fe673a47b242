// SPDX-License-Identifier: GPL-2.0-only
/*
 * Testbed: a tc (cls_bpf, direct-action) program for a receiver's ingress
 * that takes the RX timestamp off every packet, as if it had arrived while
 * the kernel's RX timestamping was off (which the tool itself prevents).
 * test_samples.sh checks that every hook counts such packets
 * (no_rx_tstamp) instead of skipping them unseen.
 *
 * Why this works (v6.1 to v7.2): netif_rx() and __netif_receive_skb_core()
 * stamp the skb (net_timestamp_check()) before the ingress qdisc runs
 * (sch_handle_ingress()); a tc program's write to __sk_buff->tstamp at
 * ingress sets skb->tstamp and, for a program that does not read
 * tstamp_type, marks it a REALTIME stamp (bpf_convert_tstamp_write(),
 * net/core/filter.c), so ip_local_deliver_finish() ->
 * skb_clear_delivery_time() leaves the 0 alone: the IP hooks, the socket
 * queue and the reader all see none.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_OK 0

char LICENSE[] SEC("license") = "GPL";

SEC("tc")
int unstamp(struct __sk_buff *skb)
{
	skb->tstamp = 0;
	return TC_ACT_OK;
}
