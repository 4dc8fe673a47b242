#!/usr/bin/env bash
# Every sample true (issue #22), on the running kernel: reads whose skb
# lost its RX timestamp are counted, not dropped unseen; the clock the
# BPF side measures with is followed in a time namespace and after a
# false alarm. (The fentry-only cases are in the VM test.)
source "$(dirname "$0")/lib.sh"

TESTS=(test_collapsed_reads_counted test_unstamped_counted test_time_namespace
       test_clock_alarm_rearmed test_sampled_same_percentiles test_sampled_counters_thinned
       test_recursion_misses_counted)
UNSTAMP_OBJ=$ROOT/.output/testbed/unstamp.bpf.o

# nstat_of NS COUNTER: the counter's value in NS (absolute, not a delta)
nstat_of() {
	ip netns exec "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 }'
}

# Under receive-buffer pressure TCP collapses the receive queue
# (tcp_prune_queue() -> tcp_collapse()): the new skbs have no RX
# timestamp, and a read whose last skb is one of them has none to give.
# A 32 KiB receive buffer, a reader that sleeps between 200-byte reads and
# a sender of small TCP_NODELAY writes get there within a second. (The
# buffer must hold more than one collapsed skb, ~3.7 KiB of data: the
# tail gets a stamp again when new data coalesces into it.) Every read
# that returned data must be a sample (with or without the HOL filter's
# histogram) or counted in no_rx_tstamp.
test_collapsed_reads_counted() {
	local out=$TMP/collapse.json before after reads n hol norx err
	command -v nstat > /dev/null || { skip "nstat (iproute2) missing"; return; }
	before=$(nstat_of "$NS_B" TcpExtTCPRcvCollapsed)
	serve tcp 5201 --rcvbuf 32768 --read-size 200 --read-delay-ms 10 --duration-s 4 || return
	start_tool "$out" -n "/run/netns/$NS_B" -e tcp-socket-read -p "$SERVER_PID" || return
	client tcp 5201 --count 20000 --msg-size 100 --interval-us 100 --duration-s 3
	wait_server
	stop_tool
	after=$(nstat_of "$NS_B" TcpExtTCPRcvCollapsed)
	reads=$(json_field "$TMP/server.json" reads)
	n=$($JQ "$out" count tcp-socket-read)
	hol=$($JQ "$out" count tcp-socket-read-hol)
	norx=$($JQ "$out" counter tcp-socket-read no_rx_tstamp)
	err=$($JQ "$out" counter tcp-socket-read hol_read_errors)
	echo "  $reads reads: $n samples, $hol left out by the HOL filter, $norx no_rx_tstamp;" \
		"TcpExtTCPRcvCollapsed +$((after - before))"
	expect "TcpExtTCPRcvCollapsed grew (the queue was collapsed)" "$((after - before))" -gt 0
	expect "reads without an RX timestamp (no_rx_tstamp)" "$norx" -gt 0
	expect "samples + left out + no_rx_tstamp = reads" "$((n + hol + norx))" -eq "$reads"
	expect "hol_read_errors" "$err" -eq 0
}

# A packet without any RX stamp, as if it had arrived while the kernel's
# RX timestamping was off (the tool prevents that, so the testbed's
# unstamp program clears the stamp at the receiver's ingress): no hook
# samples it, and every hook that sees it counts it (no_rx_tstamp; the
# enqueue hook's fallback may also find the datagram read already,
# queue_empty, or count a repeat of its tail, unchanged_tail).
test_unstamped_counted() {
	local out=$TMP/unstamped.json reads
	[ -r "$UNSTAMP_OBJ" ] || { fail "testbed unstamp program not built (make test-progs)"; return; }
	AT_EXIT+=("tc -n $NS_B qdisc del dev $IF_B clsact")
	tc -n "$NS_B" qdisc add dev "$IF_B" clsact &&
	tc -n "$NS_B" filter add dev "$IF_B" ingress bpf direct-action obj "$UNSTAMP_OBJ" sec tc ||
		{ fail "cannot attach the unstamp program (tc clsact, cls_bpf)"; return; }
	# it ends once it has read the 100 (or at its 3 s, short of them)
	serve udp 5401 --count 100 --duration-s 3 || return
	# -i: only the packets the unstamp program saw (not lo's)
	start_tool "$out" -n "/run/netns/$NS_B" -i "$IF_B" \
		-e ip-start,udp-start,udp-socket-enqueued,udp-socket-read || return
	client udp 5401 --count 100 --interval-us 1000
	wait_server
	stop_tool
	tc -n "$NS_B" qdisc del dev "$IF_B" clsact
	reads=$(json_field "$TMP/server.json" reads)
	expect "datagrams read" "$reads" -eq 100 || return
	expect_unstamped "$out" "$reads"
}

# A reader that lets its data wait 1.5 s: samples of 1 s or more are
# checked against the clock offsets (a stale TAI offset moves a sample by
# whole seconds). In a time namespace CLOCK_MONOTONIC carries an offset for
# the tool but not for BPF: measured the way userspace sees it, every such
# sample was a clock_step. They must be samples.
test_time_namespace() {
	local out=$TMP/timens.json pid reads n
	unshare --time --monotonic 100000 --fork true 2> /dev/null ||
		{ skip "no time namespaces here (unshare --time)"; return; }
	serve tcp 5202 --start-delay-ms 1500 --count 5 || return
	: > "$TMP/tool.err"
	unshare --time --monotonic 100000 --fork \
		"$NSL" -F json -r 1 -o "$out" -n "/run/netns/$NS_B" -e tcp-socket-read \
		-p "$SERVER_PID" 2> "$TMP/tool.err" &
	BG_PIDS+=($!)
	wait_for 20 grep -q "attached" "$TMP/tool.err" || { fail "tool did not attach"; return; }
	# unshare --fork ignores SIGINT itself: the tool is its child
	pid=$(pgrep -P $! -x netstacklat) || { fail "no tool under unshare"; return; }
	grep -q '^monotonic *100000 ' "/proc/$pid/timens_offsets" ||
		fail "the tool is not in the time namespace: $(cat "/proc/$pid/timens_offsets")"
	client tcp 5202 --count 5 --interval-us 1000
	wait_server
	kill -INT "$pid"
	wait_for 10 eval '! kill -0 '"$pid"' 2> /dev/null' || fail "tool did not stop"
	reads=$(json_field "$TMP/server.json" reads)
	n=$($JQ "$out" count tcp-socket-read)
	expect "clock_step" "$($JQ "$out" counter tcp-socket-read clock_step)" -eq 0
	expect "tcp-socket-read samples (server reads)" "$n" -eq "$reads"
	expect "smallest read bucket bound (ns), >= 1 s" "$($JQ "$out" min_le tcp-socket-read)" -ge $((1 << 30))
}

# bss_of PID: id of the tool's .bss map (struct nsl_clock lives there)
bss_of() {
	local id
	for id in $(bpf_ids_of map "$1"); do
		# not | grep -q: see test_sum_beyond_64_bits (test_daemon.sh)
		[[ $(bpftool map show id "$id" 2> /dev/null) == *"name netstack.bss"* ]] &&
			{ echo "$id"; return 0; }
	done
	return 1
}

# moved_reported ID: nsl_clock.moved_reported in the .bss map ID
moved_reported() {
	bpftool map dump id "$1" -j | python3 -c '
import json, sys
for v in json.load(sys.stdin)[0]["formatted"]["value"][".bss"]:
    if "nsl_clock" in v:
        print(v["nsl_clock"]["moved_reported"])'
}

# The BPF side reports a clock move once (moved_reported), until the loader
# has looked. A false alarm (a program interrupted between its two clock
# reads) leaves the offsets as they were: the loader must still re-arm the
# report, or a later real move is followed only at the next interval.
# Here the flag is set as a false alarm leaves it, while the tool is
# stopped (SIGSTOP): only the loader clears it (the BPF side only sets it,
# and only for a suspicious sample, bpf/clock.bpf.h; no traffic comes
# here), and a stopped process runs no code, so it must read back as
# written, whatever the load. Once the tool runs again it must be clear
# after two more complete reports than there were at the write: the loader
# re-arms right after writing each (nsl_loader_sync_clock()), so the
# re-arm that follows the first of them ran before the second was
# written. No window of time enters. (The earlier versions raced the
# loader's re-arm: a report between the write and the read-back failed
# one in CI; the next, writing 0.3 s after a report with three tries,
# failed once more under load: docs/testing.md, issue #56.)
test_clock_alarm_rearmed() {
	local out=$TMP/alarm.json id n flag ok=1
	command -v bpftool > /dev/null || { skip "bpftool missing"; return; }
	start_tool "$out" -n "/run/netns/$NS_B" -e udp-start || return
	id=$(bss_of "$TOOL_PID") || { fail "no .bss map held by the tool"; stop_tool; return; }
	# the loader in its report loop (it syncs the clock at attach too)
	wait_for 10 more_reports "$out" 0 || { fail "no report within 10 s"; stop_tool; return; }
	kill -STOP "$TOOL_PID"
	# complete reports only: one being written has no newline yet (its
	# re-arm then comes after the write, as the next one's does)
	n=$(wc -l < "$out")
	# the value as it is, with moved_reported (bytes 16-23) set to 1
	bpftool map dump id "$id" -j | python3 -c '
import json, sys
v = json.load(sys.stdin)[0]["value"]
v[16:24] = ["0x01"] + ["0x00"] * 7
print(" ".join(v))' > "$TMP/bss.value"
	# shellcheck disable=SC2046
	bpftool map update id "$id" key 0 0 0 0 value $(cat "$TMP/bss.value") ||
		{ fail "cannot write the .bss map"; ok=; }
	flag=$(moved_reported "$id")
	kill -CONT "$TOOL_PID"
	if [ -z "$ok" ] || ! expect "moved_reported read back, the tool stopped" "$flag" -eq 1; then
		stop_tool
		return
	fi
	if wait_for 15 more_reports "$out" $((n + 1)); then
		expect "moved_reported two reports later" "$(moved_reported "$id")" -eq 0
	else
		fail "no two more reports within 15 s"
	fi
	stop_tool
}

# --sample 16 beside an unsampled instance on the same 4,000 datagrams:
# each CPU lets a random 0-30 packets of a hook pass after each it
# records (1 in 16 on average, sample_skip()), so the sampled count is
# 1/16 of the other's (its standard deviation is about 9 of 250: within
# 5 sigma, lib.sh); and a thinned distribution has the same percentiles, here
# within one bucket.
test_sampled_same_percentiles() {
	local all=$TMP/all.json some=$TMP/some.json pid_all h a s p pa ps
	serve udp 5203 --count 4000 --duration-s 20 || return
	start_tool "$all" -n "/run/netns/$NS_B" -e udp-start,udp-socket-enqueued || return
	pid_all=$TOOL_PID
	start_tool "$some" -n "/run/netns/$NS_B" -e udp-start,udp-socket-enqueued --sample 16 || return
	client udp 5203 --count 4000 --interval-us 100
	wait_server
	stop_tool
	TOOL_PID=$pid_all
	stop_tool
	for h in udp-start udp-socket-enqueued; do
		a=$($JQ "$all" count $h) s=$($JQ "$some" count $h)
		expect "$h: unsampled samples (datagrams)" "$a" -ge 4000
		expect_sampled "$h" "$s" 16 "$a"
		for p in 0.5 0.9; do
			pa=$($JQ "$all" pct $h $p) ps=$($JQ "$some" pct $h $p)
			[ "$ps" -ge $((pa / 2)) ] && [ "$ps" -le $((pa * 2)) ] ||
				fail "$h p$p: sampled <= $ps ns, unsampled <= $pa ns: more than a bucket apart"
		done
		echo "  $h: $a samples, $s sampled; p50 $($JQ "$all" pct $h 0.5) vs $($JQ "$some" pct $h 0.5) ns"
	done
}

# --sample thins the counters of what was not recorded as it thins the
# samples, so that each scaled by N estimates the unsampled run's. The
# enqueue fallback's counters are per sk_data_ready call: 300 urgent
# TCP messages make two calls each, one of them with the tail of the
# previous message (tcp_urg() calls it before queueing the segment):
# about as many unchanged_tail as samples (test_enqueue_once_per_skb,
# test_core.sh). Beside an unsampled instance, --sample 2 must show half
# of each, within 5 sigma of a part of the calls (lib.sh; before,
# unchanged_tail was counted for every call, sampled or not: as many as
# unsampled).
test_sampled_counters_thinned() {
	local all=$TMP/urg-all.json some=$TMP/urg-some.json pid_all a s ua us
	grep -Eq "^  tcp-socket-enqueued +tracepoint" <<< "$("$NSL" -l -e tcp-socket-enqueued)" ||
		{ skip "tcp-socket-enqueued is not the tracepoint fallback here"; return; }
	serve tcp 5204 --read-delay-ms 5 || return
	start_tool "$all" -n "/run/netns/$NS_B" -e tcp-socket-enqueued || return
	pid_all=$TOOL_PID
	start_tool "$some" -n "/run/netns/$NS_B" -e tcp-socket-enqueued --sample 2 || return
	client tcp 5204 --count 300 --interval-us 2000 --msg-size 100 --oob
	wait_server
	stop_tool
	TOOL_PID=$pid_all
	stop_tool
	a=$($JQ "$all" count tcp-socket-enqueued) s=$($JQ "$some" count tcp-socket-enqueued)
	ua=$($JQ "$all" counter tcp-socket-enqueued unchanged_tail)
	us=$($JQ "$some" counter tcp-socket-enqueued unchanged_tail)
	echo "  300 urgent messages: unsampled $a samples, $ua unchanged_tail; --sample 2: $s, $us"
	expect "unsampled unchanged_tail" "$ua" -ge 100 || return
	expect_sampled "samples" "$s" 2 "$a" "$(nproc)" part
	expect_sampled "unchanged_tail" "$us" 2 "$ua" "$(nproc)" part
}

# A process-context sk_data_ready load: a unix datagram socket pair that
# sends to itself as fast as it can, pinned to CPU argv[1] for argv[2]
# seconds. Every send calls sock_def_readable() with bottom halves on,
# so tp_data_ready runs (and returns at once: not inet) in process context.
UNIX_LOAD='
import os, socket, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    for _ in range(1000):
        a.send(b"x")
        b.recv(1)
'

# Recursion misses (issue #33 item 1). UDP datagrams leave the sender
# through tbf, which holds them and releases each from its watchdog (an
# hrtimer, in softirq on the way out of the timer interrupt); the softirq
# delivers the datagram over veth to the receiver, whose sk_data_ready
# runs tp_data_ready. Where the interrupt came while tp_data_ready ran for
# the unix load on that CPU, the kernel skips the nested run
# (__bpf_trace_run(), 6.1+) and counts it in recursion_misses only.
# Every datagram read is then a sample, a counter of udp-socket-enqueued,
# or one of tp_data_ready's recursion misses. The misses are machine-wide
# (any socket's nested sk_data_ready, other traffic's too: other tests
# beside this one only add to them), so samples + counters <= datagrams <=
# samples + counters + misses. Measured here (6.18, 2 CPUs, ~6,000
# datagrams, three runs): 50-82 misses, of 62-98 datagrams neither
# sampled nor counted. The rest (4-16, also without the load: issue #33
# item 2) were delivered while a thread of PID 1 was the current task,
# where this machine's kernel runs no tracing program and counts nothing
# (lib.sh, init_ctx_start()): perf counts those sk_data_ready calls, and
# they complete the sum, exactly. The misses must be in the report (it
# had no such key before), no fewer than the kernel counted.
#
# The sums are exact whatever the number of datagrams; what they need:
# - how many pass tbf is up to when the sender and tbf's watchdog (its
#   softirq) get a CPU: about 6,000 on an idle machine, 4,300-4,700
#   beside 4 busy loops, 877-2,057 beside 8 (the softirqs then wait for
#   ksoftirqd, and a late release loses the tokens beyond tbf's bucket of
#   one datagram). No floor follows from the kernel: the test needs
#   datagrams read, not a number of them (a floor of 3,000 failed a run
#   whose sums held exactly: 2,046 samples + 6 misses + 5 calls in PID
#   1's context = 2,057 read).
# - samples + counters <= datagrams read: every datagram sampled must
#   also be read, so the server outlives the client: it starts right
#   before it (after the tool and perf, whatever they take to start) and
#   reads until its queue is empty once the load is done (0.5 s after
#   the client's 5 s: what tbf held, 50 ms of data, has come by then),
#   at most 3 s after the client (end_udp_server).
# - datagrams <= samples + ...: perf counts in the threads PID 1 has when
#   perf starts (its filter names them). PID 1's threads here were all
#   started at boot, but one it started later would run sk_data_ready
#   uncounted: where PID 1 has a thread at the end that it did not have
#   before perf started and the sum falls short, the run cannot be
#   judged, and is tried again, saying so. A shortfall without one fails.
#
# recursion_attempt: one provocation, its tool run and the sums that hold
# whether or not the kernel nested anything; MISS the report's misses.
# Returns 1 on a failure, 2 where PID 1's new threads leave the count open.
recursion_attempt() {
	local out=$TMP/recursion.json reads n c x init cpu pids=() kernel tids0 new
	MISS=0
	AT_EXIT+=("tc -n $NS_A qdisc del dev $IF_A root")
	# 10 Mbit/s: 1,250 datagrams of 1000 bytes a second, sent a little
	# faster, so that the queue is never empty and the watchdog releases them
	tc -n "$NS_A" qdisc add dev "$IF_A" root tbf rate 10mbit burst 1600 latency 50ms ||
		{ fail "cannot add tbf"; return 1; }
	start_tool "$out" -n "/run/netns/$NS_B" -e udp-socket-enqueued || return 1
	for ((cpu = 0; cpu < $(nproc); cpu++)); do
		"$PYTHON" -c "$UNIX_LOAD" "$cpu" 5.5 &
		BG_PIDS+=($!)
		pids+=($!)
	done
	tids0=" $(ls /proc/1/task | tr '\n' ' ')"
	init_ctx_start sock:sk_data_ready "protocol == 17"
	serve udp 5204 --duration-s 8 || return 1
	client udp 5204 --count 1000000 --msg-size 1000 --interval-us 700 --duration-s 5
	wait "${pids[@]}"
	end_udp_server 5204 "$out"
	init_ctx_stop
	init=${INIT_CTX[0]:-0}
	# PID 1's threads now that were not there before perf started
	new=
	for x in /proc/1/task/*; do [[ $tids0 == *" ${x##*/} "* ]] || new+=" ${x##*/}"; done
	# what the kernel counted for the tool's program, read before the
	# tool's last report (which reads the same counter later: >=)
	kernel=$(prog_recursion_misses "$TOOL_PID" tp_data_ready)
	stop_tool
	tc -n "$NS_A" qdisc del dev "$IF_A" root
	reads=$(json_field "$TMP/server.json" reads)
	n=$($JQ "$out" count udp-socket-enqueued)
	c=0
	for x in unchanged_tail queue_empty no_rx_tstamp not_rx_tstamp negative_latency \
		 map_full clock_step; do
		c=$((c + $($JQ "$out" counter udp-socket-enqueued $x)))
	done
	MISS=$($JQ "$out" recursion tp_data_ready)
	echo "  $reads datagrams read: $n samples, $c in counters" \
	     "($($JQ "$out" counters udp-socket-enqueued)), tp_data_ready recursion_misses $MISS" \
	     "(the kernel's count before the last report: $kernel)," \
	     "UDP sk_data_ready calls in PID 1's context ${INIT_CTX_WHY:-$init}${new:+ (new threads of PID 1:$new)}"
	expect "recursion_misses in the report (a number)" "$MISS" -ge 0 || return 1
	expect "recursion_misses in the report, at least the kernel's count read before it" \
		"$MISS" -ge "$kernel" || return 1
	expect "datagrams read (as many as tbf released: see above)" "$reads" -gt 0 || return 1
	expect "samples + counters, at most one per datagram" "$((n + c))" -le "$reads" || return 1
	if [ "$((n + c + MISS + init))" -lt "$reads" ] && [ -n "$new" ] && [ -z "$INIT_CTX_WHY" ]; then
		echo "  $((reads - n - c - MISS - init)) datagrams short, and PID 1 started threads perf did not count (tids$new): again"
		return 2
	fi
	expect "samples + counters + recursion_misses + calls in PID 1's context${INIT_CTX_WHY:+ ($INIT_CTX_WHY)}, at least one per datagram" \
		"$((n + c + MISS + init))" -ge "$reads" || return 1
}

# Whether the interrupt lands while tp_data_ready runs for the load is a
# matter of timing: 50-82 misses a run here when written, 0-14 a run at
# cb7f292, and a CI run saw none (every datagram then a sample or a
# counter). Up to five provocations, the next only where the last nested
# nothing (or could not be judged: above); the sums must hold in each,
# and where none nested, the test says so (tests/expected-skips). A
# heavier load (perf bench's messaging) provoked fewer, not more: the
# softirqs then wait for ksoftirqd.
test_recursion_misses_counted() {
	local rc
	"$NSL" -l -e udp-socket-enqueued | grep -Eq "^  udp-socket-enqueued +tracepoint " ||
		{ skip "udp-socket-enqueued does not attach by tracepoint here"; return; }
	for _ in 1 2 3 4 5; do
		recursion_attempt; rc=$?
		[ $rc = 1 ] && return
		[ $rc = 0 ] && [ "$MISS" -gt 0 ] && return
	done
	[ $rc = 2 ] && { fail "PID 1's new threads left the count open in the last try"; return; }
	skip "no recursion provoked in 5 tries (the kernel nested no run of tp_data_ready)"
}


need "" prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
