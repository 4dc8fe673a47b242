/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The standing-queue hooks (tcp-standing-queue, udp-standing-queue): a
 * look at a socket's queue wherever it changes, through the state
 * machine of include/standing.h. The looks are taken by programs of the
 * enqueue and read hooks' fallback (tp_data_ready, tp_recv_length,
 * bpf/tracepoint.bpf.h) where the standing hook took the tracepoint
 * method (shared_hook_on()), or by the fentry/fexit programs below where
 * it took fentry, never both (else each arrival and read is looked at
 * twice where the two methods mix: 6.18's udp-socket-enqueued falls back
 * while the standing hooks take fentry), and by tp_udp_fail_queue (both
 * methods), each only where the hook is on (hook_on(): a constant, so
 * that with the hooks off the verifier drops every look).
 * Part of bpf/netstacklat.bpf.c (included there, in this order).
 */
#ifndef NSL_STANDING_BPF_H
#define NSL_STANDING_BPF_H

/*
 * A socket's run (struct nsl_standing_state), only while one lasts: it is
 * created at the first look above target and deleted when the run ends,
 * so a socket whose queue never stands has none, and memory follows the
 * sockets standing now (docs/hooks.md, "Standing queues", gives the
 * sizes). Freed with the socket (bpf_sk_storage_free() in
 * __sk_destruct()). Socket storage in tracing programs needs v5.11
 * (bpf_sk_storage_get_tracing_proto): the loader asks for it
 * (NSL_NEED_TRACING_SK_STORAGE), so 5.10 has no standing hooks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nsl_standing_state);
} standing_sk SEC(".maps");

/* a queue's head pointer, loaded once (no load merged with another) */
#define QUEUE_NEXT(q) (*(struct sk_buff *volatile *)&(q)->next)

/*
 * The oldest undelivered packet's RX stamp on sk, in *ts: returns 1, or
 * 0 when nothing is queued, or -1 where the look can say nothing. Read
 * without the queue's lock, as sk_queued() does: an empty queue's head
 * points at the queue itself (__skb_queue_head_init()), whose bytes are
 * no skb's; BTF loads and probe reads of freed memory do not fault.
 *
 * TCP: the head of sk_receive_queue (the out-of-order queue is not
 * delivered yet: its wait is the HOL filter's business). Its skbs are
 * owned by sk (tcp_queue_rcv(), tcp_collapse(): skb_set_owner_r()), so a
 * head whose skb->sk is another socket was freed and reused.
 *
 * UDP (net/ipv4/udp.c, v4.13 to 6.18): __skb_recv_udp() reads from
 * udp_sk(sk)->reader_queue, and when that runs dry splices all of
 * sk_receive_queue onto it (skb_queue_splice_tail_init(), both locks
 * held; so does udp_rmem_release() once a read left reader_queue
 * empty); arrivals go to sk_receive_queue's tail. So reader_queue holds
 * the older packets, and its head, where there is one, is the queue's.
 * A splice moves packets from sk_receive_queue to reader_queue, never
 * back: sk_receive_queue's head is read first, then reader_queue's. A
 * splice before the first read leaves them in reader_queue for the
 * second; one between the reads leaves them there too (the first read
 * saw the older head in sk_receive_queue); both empty means what was
 * queued at the first read was read by the second (or nothing was), and
 * what arrived since is younger than the look. Read the other way round
 * (as before), reader_queue empty (just drained), then a splice, then
 * sk_receive_queue empty (just spliced): both looked empty with the
 * queue standing, and the run ended (issue 57, item 7; not seen on this
 * project's 6.18 host, where no look of 323,000 caught it:
 * udp_rmem_release() splices at once when reader_queue runs dry, so it
 * is empty with data behind it for a moment; the order is unit-tested,
 * NSL_UDP_OLDEST()). The first read is a volatile load, the second a
 * helper call (a probe read), which the compiler keeps in that order;
 * x86 does not reorder loads, a weakly ordered CPU may, which the memory
 * rule below covers too.
 * Both empty while sk->sk_rmem_alloc > 0 says nothing: a datagram is
 * charged there from before it is queued (__udp_enqueue_schedule_skb()
 * adds its truesize before __skb_queue_tail(), to 6.17; 6.18 queues a
 * batch, then adds, under the queue's lock) until after it was dequeued:
 * udp_rmem_release() subtracts a read's truesize (and the deficit of
 * earlier reads) once reader_queue is empty after the dequeue (or the
 * deficit reached forward_threshold, a quarter of the buffer), in the
 * same hold of reader_queue's lock: so sk_rmem_alloc reaches 0 right
 * after the last datagram's dequeue, and is above 0 with both queues
 * empty only between the two, in a datagram's way in, or in a splice
 * seen half (a weakly ordered CPU). The error queue is charged there
 * too (sock_queue_err_skb(): ICMP errors with IP_RECVERR, TX stamps),
 * for as long as nobody reads it: with it not empty, the rule is left
 * out (both empty is taken as empty, the order above alone).
 * udp_sock ends past struct sock, where the verifier's type of sk ends:
 * probe reads, with CO-RE.
 *
 * UDP's queued skbs own no socket (udp_rcv() clears skb->sk with the
 * other head state): there is no owner to check.
 *
 * Either: the head's own stamp type is checked (NSL_HEAD_STAMP_IS_RX(),
 * bpf/compat.bpf.h: a reused TX skb's departure time is no RX stamp),
 * then the queue's head is read again, after the stamp: a head that is
 * no longer the queue's may have been freed, and its stamp (read before
 * the second load) said nothing we can trust: -1. A head that is still
 * the queue's was queued while its stamp was read (short of the same
 * address freed, reused and queued again on the same queue in between).
 */
static __always_inline int queue_head(struct sock *sk, __u32 hook, __u64 *ts)
{
	struct sk_buff_head *q = &sk->sk_receive_queue;
	struct sk_buff *head = NULL, *next;

	if (hook == NSL_HOOK_UDP_STANDING) {
		struct udp_sock *up = (void *)sk;
		struct sk_buff_head *eq = &sk->sk_error_queue;
		struct sk_buff *first;	/* sk_receive_queue's: a BTF pointer */
		int which;

		which = NSL_UDP_OLDEST(head,
			({ first = QUEUE_NEXT(q);
			   first == (struct sk_buff *)q ? NULL : first; }),
			({ next = BPF_CORE_READ(up, reader_queue.next);
			   next == (struct sk_buff *)&up->reader_queue ? NULL : next; }),
			sk->sk_backlog.rmem_alloc.counter &&
			QUEUE_NEXT(eq) == (struct sk_buff *)eq);
		if (which <= 0)
			return which;
		/* sk_receive_queue's head (a reader that keeps up): loads */
		if (which == NSL_UDP_RECEIVE) {
			*ts = first->tstamp;
			if (!NSL_HEAD_STAMP_IS_RX(first, *ts, cfg.mono_tstamp_limit,
						  BPF_CORE_READ_BITFIELD))
				return -1;
			return QUEUE_NEXT(q) == first ? 1 : -1;
		}
		/* reader_queue's (a queue behind its reader): probe reads */
		*ts = BPF_CORE_READ(head, tstamp);
		if (!NSL_HEAD_STAMP_IS_RX(head, *ts, cfg.mono_tstamp_limit,
					  BPF_CORE_READ_BITFIELD_PROBED))
			return -1;
		return BPF_CORE_READ(up, reader_queue.next) == head ? 1 : -1;
	}
	head = QUEUE_NEXT(q);
	if (!head || head == (struct sk_buff *)q)
		return 0;
	*ts = head->tstamp;
	if (head->sk != sk ||
	    !NSL_HEAD_STAMP_IS_RX(head, *ts, cfg.mono_tstamp_limit,
				  BPF_CORE_READ_BITFIELD))
		return -1;
	return QUEUE_NEXT(q) == head ? 1 : -1;
}

/*
 * The TCP sockets' HOL state for the standing hook (include/hol.h's, the
 * HOL filter's ranges): an LRU hash keyed as hol_lru (bpf/maps.bpf.h says
 * why not socket storage, and why the inode), of its own because the read
 * hook's state moves only with the reads its filters select (-p, -c, -i,
 * -q, --sample, none of which applies to the standing hooks), is not kept
 * at all with tcp-socket-read off or -y, and a look that moved it would
 * change which reads the filter leaves out. Sized to 1 entry where
 * tcp-standing-queue is off (src/1-setup/object.c). An entry evicted or
 * not made yet starts from zero: the next look takes what the socket's
 * out-of-order count says as a new range, up to rcv_nxt, and judges the
 * heads inside it unsure (never above target wrongly).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NSL_HOL_LRU_ENTRIES);
	__type(key, struct nsl_hol_key);
	__type(value, struct nsl_hol_state);
} standing_hol SEC(".maps");

/*
 * Whether sk's TCP queue head (its stamp read by queue_head()) may carry
 * the stamp of a segment that waited behind a hole: tcp_data_queue()
 * queues the retransmission that fills a hole, then tcp_ofo_queue() moves
 * the out-of-order segments behind it with their arrival stamps (or
 * tcp_try_coalesce() merges one into it, its stamp with it: v5.10 to
 * 6.18), so the head looks old by the retransmission's wait, the
 * network's time, which the HOL filter keeps apart from the host's. Such
 * a head is judged unsure, as a coalesced one is: it neither starts a run
 * nor ends one.
 *
 * The range is the HOL filter's (nsl_hol_exclude(), its own state:
 * standing_hol), moved at every TCP look with a stamped head on a socket
 * that ever saw out-of-order data (tp->rcv_ooopack, never reset), so that
 * a range ends where the first look after the growth found rcv_nxt (the
 * look that tcp_data_ready() fires once the hole is filled, in most
 * cases), and a socket met for the first time is met while its queue is
 * short. The range has an end but no start: a head queued in order
 * before the hole opened (a reader that stopped, then a loss) is unsure
 * too, until the reader reads past the range. A socket that never saw
 * out-of-order data costs one helper call and one load.
 *
 * The head is read again here (sk_receive_queue.next), after its stamp:
 * TCP's head changes only by reads under the socket lock, which the
 * arrival's look and the walk hold; a read look (after the read) may
 * meet another reader's read in between and judge the next head. Its
 * end_seq (TCP_SKB_CB(), the second __u32 of skb->cb) by a fault-tolerant
 * copy, as the read hook's ooo_last_skb: a head freed under a look
 * without the lock. What cannot be read is unsure.
 */
static __always_inline int tcp_head_waited(struct sock *sk)
{
	struct nsl_hol_input in = {};
	struct nsl_hol_state *st;
	struct sk_buff *head;
	struct tcp_sock *tp;
	__u32 head_end;

	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 1;
	in.rcv_ooopack = tp->rcv_ooopack;
	if (!in.rcv_ooopack)
		return 0;
	st = hol_state_in(&standing_hol, sk);
	if (!st)
		return 1;
	/* an unreadable ooo_last_skb: 0, which nsl_hol_range_end() replaces */
	if (hol_input_read(tp, st, &in))
		in.ooo_end_seq = 0;
	nsl_hol_exclude(st, &in);
	if (!st->active)
		return 0;
	/*
	 * The head again: the caller read it before the HOL state, and a
	 * reader on another CPU may have emptied the queue since (the socket
	 * lock is not held here). An empty sk_buff_head points at itself
	 * (__skb_queue_head_init()), and its "cb" would be struct sock's own
	 * bytes: unsure, as for an unreadable head.
	 */
	head = sk->sk_receive_queue.next;
	if (head == (struct sk_buff *)&sk->sk_receive_queue || !head)
		return 1;
	if (bpf_probe_read_kernel(&head_end, sizeof(head_end),
				  (void *)head->cb + 4))
		return 1;
	return nsl_hol_head_waited(st, head_end);
}

/*
 * Whether sk may hold a run: a socket without any BPF socket storage
 * (sk->sk_bpf_storage NULL, one load; the common socket, whose queue
 * never stood) holds none, and a look that starts nothing need not ask
 * the helper. A socket with storage of other BPF programs is asked.
 */
static __always_inline int may_hold_run(struct sock *sk)
{
	return sk->sk_bpf_storage != NULL;
}

/*
 * What a look gave, into the histogram of hook, or of its group under
 * -I (net: its namespace with -I -n -1, the only key these hooks have
 * beside the hook; else NULL; under -C alone they have no group, as no
 * cgroup: hist_grouped()): an ended episode's length, or the standing
 * time and the episode begun, in the histogram's head (struct
 * nsl_hist), so that each group has its own. Where no group can be had
 * (map_full, owner_quota) they are lost, counted as a sample's would be.
 * Atomic adds, grouped or not: the looks come from softirq and from
 * process context (reads, closes, the walks), several programs on one
 * CPU's histogram (hist_field_add_ctx()).
 */
static __always_inline void standing_add(__u32 hook,
					 const struct nsl_standing_out *out,
					 struct net *net)
{
	struct nsl_hist *h = hook_hist(hook, 0, net, hist_grouped(hook));

	if (!h)
		return;
	/* at schema 0 in buckets that hold hours (nsl_hook_slot()) */
	if (out->episode_ns)
		hist_slot_add(h, nsl_hook_slot(hook, out->episode_ns, cfg.schema,
					       cfg.schema_thresholds),
			      out->episode_ns, 1);
	if (out->standing_ns)
		hist_field_add_ctx(&h->standing_ns, out->standing_ns, 1);
	if (out->begun)
		hist_field_add_ctx(&h->standing_begun, 1, 1);
}

/*
 * The floor under a run's start (nsl_standing_start()), CLOCK_MONOTONIC
 * ns, both set by the process (.bss): when the tool's RX timestamps were
 * surely on (src/1-setup/attach.c, after nsl_rx_timestamps_wait(); 0:
 * not known), and when the reader last walked for a report
 * (src/2-collect/reader.c; 0: none yet). In a time namespace the
 * process's CLOCK_MONOTONIC carries an offset BPF's does not: a floor
 * past now starts a run at now, and an unstamped head then says nothing.
 */
__u64 nsl_tstamp_on_ns = 0;
__u64 nsl_report_ns = 0;

/*
 * A look at sk's queue for hook (NSL_HOOK_{TCP,UDP}_STANDING), after the
 * caller's -n. Not sampled (--sample): a run is state that every change
 * of the queue moves. The cheap ways out come first: an empty queue on a
 * socket with no run (no clock read, no helper call), then a head younger
 * than target on one with none (a clock read). Returns whether sk's queue
 * stands after the look (its run is an episode): 1 or 0, or -1 where the
 * look said nothing (the packet hooks' programs ignore it). above_only
 * (a constant): the report's walk (walk_sock()), whose look below target
 * ends only a run gone stale, or a TCP run on an empty queue.
 *
 * Reads no look sees: tcp_splice_read() drains the queue through
 * __tcp_splice_read() -> tcp_read_sock() under lock_sock(), never
 * tcp_recvmsg(); so do sockmap (tcp_read_skb()), TCP_ZEROCOPY_RECEIVE
 * (tcp_zerocopy_receive() from do_tcp_getsockopt()), and kTLS
 * (tls_sw_recvmsg() reads records off the TCP queue with tcp_read_sock()/
 * tcp_read_done()). Their sockets' arrivals are looked at, their reads
 * not: an arrival behind a reader that kept up sees the segment just
 * queued, unsure, and the stale rule ends a run that no look above
 * target extended for an interval, at its last_above.
 */
static __always_inline int standing_look(struct sock *sk, __u32 hook, int above_only)
{
	struct nsl_standing_state *st;
	struct nsl_standing_out out = {};
	enum nsl_standing_seen seen;
	__u64 ts = 0, mono, on, floor;
	__s64 age = 0;
	int queued, standing, unstamped;

	if (!hook_on(hook))
		return -1;
	/* -1: a head we cannot trust, or UDP's queues caught mid-way */
	queued = queue_head(sk, hook, &ts);
	if (queued < 0)
		return -1;
	if (!queued && !may_hold_run(sk))
		return 0;
	/*
	 * A head with no RX stamp at all: queued before timestamping came
	 * on (a queue already standing when the tool started), or rebuilt
	 * by tcp_collapse() (net/ipv4/tcp_input.c: under memory pressure
	 * it copies the queue's skbs into new ones from alloc_skb(), whose
	 * tstamp is 0; the bytes are the old ones, in order). The moment
	 * timestamping was surely on is a lower bound on its age for the
	 * first kind, and a collapsed head holds bytes at least as old as
	 * the stamped head it replaced: an unsure look (a lower bound)
	 * below target, and one that keeps a run on alive (below). Where
	 * that moment is not known, the look says nothing.
	 */
	unstamped = queued && !ts;
	on = nsl_tstamp_on_ns;
	mono = 0;
	if (unstamped) {
		mono = bpf_ktime_get_ns();
		if (!on || on > mono)
			return -1;
		age = mono - on;
	} else if (queued && latency_at(hook, ts, nsl_now(), &age)) {
		return -1;
	}
	seen = nsl_standing_seen(queued, age, cfg.standing_target_ns,
				 hook == NSL_HOOK_TCP_STANDING || unstamped);
	/* a TCP head that may have waited behind a hole: the network's wait */
	if (hook == NSL_HOOK_TCP_STANDING && queued && !unstamped &&
	    tcp_head_waited(sk))
		seen = NSL_STANDING_UNSURE;
	/*
	 * The walk's look below target or at an empty queue: the queue moved
	 * (or, for UDP, the walk caught the reader splicing sk_receive_queue
	 * into reader_queue, both seen empty). It ends a run only where no
	 * look above target extended it for an interval (the stale rule,
	 * include/standing.h), so that a reader no look sees (splice) leaves
	 * no run standing on an empty queue. TCP's empty queue is certain
	 * (one list, and iter/tcp holds the socket lock from v5.15): it ends
	 * the run, and the walk does not count the socket standing.
	 */
	if (above_only && seen != NSL_STANDING_ABOVE &&
	    !(seen == NSL_STANDING_EMPTY && hook == NSL_HOOK_TCP_STANDING))
		seen = NSL_STANDING_UNSURE;
	if (seen != NSL_STANDING_ABOVE && !may_hold_run(sk))
		return 0;
	/*
	 * A run starts at a look above target: only then is one made. The
	 * kernel may refuse it (bpf_sk_storage_charge(): the socket's
	 * sk_omem_alloc would reach its namespace's net.core.optmem_max;
	 * bpf_local_storage's GFP_ATOMIC allocation, or the tool's memory
	 * cgroup, out of memory): no run, counted (no_storage), and the
	 * next look above target asks again.
	 */
	st = bpf_sk_storage_get(&standing_sk, sk, 0,
				seen == NSL_STANDING_ABOVE ?
				BPF_SK_STORAGE_GET_F_CREATE : 0);
	if (!st) {
		if (seen == NSL_STANDING_ABOVE)
			count_event(hook, NSL_CNT_NO_STORAGE);
		return 0;
	}
	/* a run on goes on across an unstamped (collapsed) head */
	if (unstamped && seen == NSL_STANDING_UNSURE && st->first_above)
		seen = NSL_STANDING_ABOVE;
	if (!mono)
		mono = bpf_ktime_get_ns();
	/*
	 * No run yet: the head crossed target at its stamp + target (age
	 * ns ago, less target), not at this look, whichever look it is
	 * (an arrival's, a read's, a drop's, the report's walk).
	 */
	if (seen == NSL_STANDING_ABOVE && !st->first_above) {
		floor = nsl_report_ns > on ? nsl_report_ns : on;
		nsl_standing_start(st, mono - age + cfg.standing_target_ns,
				   floor, mono);
	}
	/*
	 * Two CPUs may look at once (UDP queues without the socket lock, a
	 * reader reads on another CPU, the walk): tracing programs cannot
	 * take a bpf_spin_lock, so the later store wins, and the time between
	 * the two looks may count twice, a few microseconds of a run. The
	 * clock is read here, after the state is found, yet another CPU may
	 * still store a later last_above before ours: nsl_standing_look()
	 * clamps such a now to last_above and never restarts the run on it.
	 */
	nsl_standing_look(st, seen, mono, cfg.standing_interval_ns, &out);
	standing = !out.run_over && st->begun;
	if (out.standing_ns || out.begun || out.episode_ns)
		standing_add(hook, &out, cfg.group_by_netns ? sk_net(sk) : NULL);
	if (out.run_over)
		bpf_sk_storage_delete(&standing_sk, sk);
	return standing;
}

/*
 * The primary method's looks (fentry/fexit; socket storage in tracing
 * programs needs v5.11, NSL_NEED_TRACING_SK_STORAGE). sock_def_readable()
 * is the sk_data_ready of TCP and UDP sockets (sock_init_data()), called
 * once a packet is queued (tcp_data_ready(), __udp_enqueue_schedule_skb())
 * and by TCP's receive-memory drops (tcp_data_queue(): "sk->sk_data_ready"
 * before "goto drop"), as the sk_data_ready tracepoint, which it fires
 * (v6.3+). Every socket family calls it: inet TCP and UDP only. A socket
 * whose owner replaced sk_data_ready (kTLS, sunrpc, an MPTCP subflow) is
 * not seen here.
 */
SEC("fentry/sock_def_readable")
int BPF_PROG(fentry_sock_def_readable, struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;
	__u32 hook;

	if (family != AF_INET && family != AF_INET6)
		return 0;
	if (sk->sk_protocol == IPPROTO_TCP)
		hook = NSL_HOOK_TCP_STANDING;
	else if (sk->sk_protocol == IPPROTO_UDP)
		hook = NSL_HOOK_UDP_STANDING;
	else
		return 0;
	if (hook_on(hook) && sk_netns_selected(sk))
		standing_look(sk, hook, 0);
	return 0;
}

/*
 * After a read: tcp_recvmsg(), udp_recvmsg() and udpv6_recvmsg() take the
 * socket first on every kernel from 5.10 to 7.2 (their other arguments
 * changed: nonblock went in 5.19); what the read left is the queue's new
 * head, or an empty queue. fexit: the read has returned, the socket is
 * released.
 */
#define STANDING_FEXIT(func, hook)				\
	SEC("fexit/" #func)					\
	int BPF_PROG(fexit_##func, struct sock *sk)		\
	{							\
		if (sk_netns_selected(sk))			\
			standing_look(sk, hook, 0);		\
		return 0;					\
	}

STANDING_FEXIT(tcp_recvmsg, NSL_HOOK_TCP_STANDING)
STANDING_FEXIT(udp_recvmsg, NSL_HOOK_UDP_STANDING)
STANDING_FEXIT(udpv6_recvmsg, NSL_HOOK_UDP_STANDING)

/*
 * A datagram dropped for a full receive buffer (or no memory):
 * __udp_queue_rcv_skb() fires this when __udp_enqueue_schedule_skb()
 * refused it (sk is the second argument, before and after v6.10 added
 * the skb). IPv6's drops only where __udpv6_queue_rcv_skb() fires it as
 * well (not before v6.10). With a reader that stopped, drops are all
 * that happens to the queue: the looks that see it stand.
 */
SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(tp_udp_fail_queue, int rc, struct sock *sk)
{
	if (sk_netns_selected(sk))
		standing_look(sk, NSL_HOOK_UDP_STANDING, 0);
	return 0;
}

/*
 * The end of sk's run at its close (TCP: standing_close(); UDP:
 * fentry_udp_close), no look having seen its queue drain: the run, if
 * any, extended to now and ended (nsl_standing_close()), its episode and
 * standing time into hook's histogram, the state deleted.
 */
static __always_inline void standing_end_at_close(struct sock *sk, __u32 hook)
{
	struct nsl_standing_state *st;
	struct nsl_standing_out out = {};

	st = bpf_sk_storage_get(&standing_sk, sk, 0, 0);
	if (!st)
		return;
	nsl_standing_close(st, bpf_ktime_get_ns(), cfg.standing_interval_ns, &out);
	if (out.standing_ns || out.begun || out.episode_ns)
		standing_add(hook, &out, cfg.group_by_netns ? sk_net(sk) : NULL);
	bpf_sk_storage_delete(&standing_sk, sk);
}

/*
 * A TCP socket closed while its queue stands: __tcp_close()
 * (net/ipv4/tcp.c, v5.10 to 6.18) frees every skb of sk_receive_queue
 * first, then, data having been unread, sets TCP_CLOSE (tcp_set_state(),
 * which fires inet_sock_set_state before it stores the state) and sends
 * the reset. A socket never accepted goes when its listener closes:
 * inet_child_forget() (net/ipv4/inet_connection_sock.c) calls
 * tcp_disconnect(), which sets TCP_CLOSE before it purges the queue,
 * on a socket no struct socket owns (sk->sk_socket NULL: not grafted,
 * or orphaned). Either way no look saw the queue drain: a run still on
 * stood until now, and its episode ends here, the tail counted
 * (nsl_standing_close()). A socket that comes to TCP_CLOSE with data
 * queued and an owner (tcp_done() after a reset: tcp_recvmsg() still
 * returns what is queued; connect(AF_UNSPEC)) gets an ordinary look, its
 * run goes on; the close that later purges it sets no state (already
 * TCP_CLOSE) and is not seen: that run keeps its standing time up to its
 * last look, its episode never ends (bpf_sk_storage_free() at
 * __sk_destruct() takes it). The tracepoint fires for every TCP state
 * change: a socket that never held BPF storage leaves at one load.
 */
static __always_inline void standing_close(struct sock *sk)
{
	__u64 ts;

	if (!may_hold_run(sk) || !sk_netns_selected(sk))
		return;
	/*
	 * Anything queued gets the ordinary look; so does a head that
	 * queue_head() cannot trust (-1, not expected here: the socket
	 * lock, held, keeps the queue still), a look that says nothing
	 */
	if (sk->sk_socket && queue_head(sk, NSL_HOOK_TCP_STANDING, &ts) != 0) {
		standing_look(sk, NSL_HOOK_TCP_STANDING, 0);
		return;
	}
	standing_end_at_close(sk, NSL_HOOK_TCP_STANDING);
}

/*
 * A UDP socket closed while its queue stands (fentry only): udp_close()
 * and udpv6's are udp_lib_close(), an inline call of
 * sk_common_release() (include/net/udp.h, net/core/sock.c, v5.10 to
 * 6.18), which unhashes the socket (no walk sees it again) and drops the
 * file's reference; the queues are purged only at its destruction
 * (udp_destruct_common()), with no tracepoint on the way. At its entry
 * the queues are as the reader left them: an ordinary look (a run
 * started where the head crossed target, or extended to now), then the
 * run ends here, its episode into the histogram. The tracepoint method
 * has no such look: docs/hooks.md, "Closed while standing".
 */
SEC("fentry/sk_common_release")
int BPF_PROG(fentry_udp_close, struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	if (!hook_on(NSL_HOOK_UDP_STANDING) || sk->sk_protocol != IPPROTO_UDP ||
	    (family != AF_INET && family != AF_INET6) || !sk_netns_selected(sk))
		return 0;
	standing_look(sk, NSL_HOOK_UDP_STANDING, 0);
	if (may_hold_run(sk))
		standing_end_at_close(sk, NSL_HOOK_UDP_STANDING);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tp_standing_close, struct sock *sk, int oldstate, int newstate)
{
	if (!hook_on(NSL_HOOK_TCP_STANDING) || newstate != TCP_CLOSE ||
	    sk->sk_protocol != IPPROTO_TCP)
		return 0;
	standing_close(sk);
	return 0;
}

/*
 * The report's walks (src/0-base/hooks.c, nsl_walks[]; the reader runs
 * them before it reads the histograms): each socket a walk visits is
 * looked at, as an arrival or a read would, so that a queue that stands
 * with nothing arriving and nobody reading (a stopped reader whose sender
 * stopped too) has its standing time counted up to now in the report,
 * where else the next look would count it whole, later; and each socket
 * whose queue stands gives its group key (the group its looks record to,
 * standing_add()): the reader counts them, the sockets standing now.
 * A walk's look at a head at or above target starts or extends a run.
 * One below target, or at an empty queue, ends a run only where no look
 * above target extended it for an interval (standing_look()), or where a
 * TCP queue is empty: a reader no look sees (splice, zero-copy, sockmap,
 * kTLS) drained it. Otherwise it says nothing: a read that emptied the
 * queue looked itself, and the walk reads the queue without its lock
 * from another CPU than the reader's, and may catch UDP's reader
 * splicing sk_receive_queue into reader_queue, both seen empty
 * (measured: an episode of 3.3 s cut at 0.9 s, when the walk ended runs
 * on any empty look).
 *
 * Two walks may visit one socket in one report (the runs' walk and the
 * sockets' walk of a namespace): the reader bumps nsl_walk_round before
 * each report's walks, and a run tells its socket once a round
 * (nsl_standing_state.walked).
 */
__u32 nsl_walk_round = 0;

static __always_inline void walk_sock(struct bpf_iter_meta *meta, struct sock *sk,
				      __u32 hook, int all_selected)
{
	struct nsl_standing_state *st;
	struct nsl_group_key key = {};
	__u32 round = nsl_walk_round;
	int standing;

	if (!hook_on(hook))
		return;
	/*
	 * The common socket, with nothing queued and no run, in two loads:
	 * nothing is charged to its receive memory (sk_rmem_alloc) while
	 * anything waits in its queues (skb_set_owner_r() charges an skb as
	 * it is queued; sock_rfree() and udp_rmem_release() uncharge it as
	 * it leaves), and no storage at all (may_hold_run()).
	 */
	if (!sk->sk_backlog.rmem_alloc.counter && !may_hold_run(sk))
		return;
	/* a sockets' walk sees the namespace -n selects, and no other */
	if (!all_selected && !sk_netns_selected(sk))
		return;
	standing = standing_look(sk, hook, 1);
	/* a look that said nothing changed nothing: the run, if any, is as it was */
	if (standing == 0 || (standing < 0 && !may_hold_run(sk)))
		return;
	st = bpf_sk_storage_get(&standing_sk, sk, 0, 0);
	if (!st || !st->begun || st->walked == round)
		return;
	st->walked = round;
	key.hook = hook;
	if (cfg.group_by_netns)
		key.netns = nsl_netns_key(sk_net(sk));
	bpf_seq_write(meta->seq, &key, sizeof(key));
}

/*
 * Every TCP socket of the namespace the walk was made in (the seq file's:
 * bpf_iter_init_seq_net() takes the creating thread's; seq_sk_match()):
 * listeners, request and time-wait sockets (no queue of their own: not
 * full sockets, bpf_skc_to_tcp_sock() gives NULL) left out. From v5.15
 * (bpf_iter_tcp_batch) each socket is shown with its lock held
 * (lock_sock_fast()), so its queue holds still for the look. v5.9.
 */
SEC("iter/tcp")
int standing_walk_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (tp && tp->inet_conn.icsk_inet.sk.__sk_common.skc_state != TCP_LISTEN)
		walk_sock(ctx->meta, (struct sock *)tp, NSL_HOOK_TCP_STANDING, 1);
	return 0;
}

/*
 * Every UDP socket (IPv4 and IPv6: one table) of the namespace the walk
 * was made in, as iter/tcp's. Without the socket lock: UDP queues and
 * reads without it anyway (queue_head()). v5.9.
 */
SEC("iter/udp")
int standing_walk_udp(struct bpf_iter__udp *ctx)
{
	struct udp_sock *up = ctx->udp_sk;

	if (up)
		walk_sock(ctx->meta, (struct sock *)up, NSL_HOOK_UDP_STANDING, 1);
	return 0;
}

/*
 * The runs of every namespace (-n -1), through the socket storage map
 * (bpf_sk_storage_map_seq_show(), v5.9: each socket that holds a run,
 * under RCU, the socket held). Map iterators are refused where
 * trampolines are (measured on 6.18 here: EPERM after the verifier),
 * then the namespaces other than the walked one have no walk (-l says
 * so).
 */
SEC("iter/bpf_sk_storage_map")
int standing_walk_runs(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct sock *sk = ctx->sk;

	if (sk && ctx->value)
		walk_sock(ctx->meta, sk, sk->sk_protocol == IPPROTO_TCP ?
			  NSL_HOOK_TCP_STANDING : NSL_HOOK_UDP_STANDING, 0);
	return 0;
}

#endif /* NSL_STANDING_BPF_H */
