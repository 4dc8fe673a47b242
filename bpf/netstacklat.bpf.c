// SPDX-License-Identifier: GPL-2.0-only
/*
 * netstacklat BPF side: thin hook programs, one shared record path.
 *
 * Data flow: hook program -> record_*() (timestamp check, filters, HOL
 * filter) -> record_latency() -> histogram map. Userspace reads the maps.
 * One object, in parts by concern, included below in this order: the
 * clock (clock.bpf.h), the maps (maps.bpf.h), where a sample is recorded
 * (record.bpf.h), the filters and the way in for an skb (filters.bpf.h),
 * TCP reads and the HOL filter (reads.bpf.h), the standing queues' looks
 * (standing.bpf.h), then the programs of each
 * attach method: fentry.bpf.h, tracepoint.bpf.h, netfilter.bpf.h, and
 * the opt-in netns-handover hook (handover.bpf.h), and the tracepoint
 * program that tells the reader of dead namespaces' groups
 * (netns_gone.bpf.h).
 *
 * Every hook has an ordered list of attach methods (src/0-base/hooks.c); the
 * loader enables only the programs of the method it picked for each hook,
 * so the fentry and the tracepoint programs of one hook never both run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "compat.bpf.h"
#include "netstacklat.h"
#include "hist.h"
#include "hol.h"
#include "sample.h"
#include "standing.h"
#include "group_id.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_UDPLITE 136
#define IPPROTO_MPTCP 262

char LICENSE[] SEC("license") = "GPL";

const volatile struct nsl_config cfg = {};

#include "clock.bpf.h"

#include "maps.bpf.h"
#include "owner_quota.bpf.h"
#include "record.bpf.h"
#include "filters.bpf.h"
#include "reads.bpf.h"
/* the standing-queue hooks' looks, for the programs below */
#include "standing.bpf.h"
#include "fentry.bpf.h"
#include "tracepoint.bpf.h"
#include "netfilter.bpf.h"
/* netns-handover: its own map and programs, over the record path above */
#include "handover.bpf.h"
/* -I -n -1: groups of dead namespaces, told to the reader at once */
#include "netns_gone.bpf.h"
