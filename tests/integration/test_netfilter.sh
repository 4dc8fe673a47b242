#!/usr/bin/env bash
# Netfilter fallback of ip-start, tcp-start and udp-start on the running
# kernel. TCP is sent over a TUN wire (fresh skbs with RX timestamps, as
# from a NIC), UDP over veth; both over IPv4 and IPv6.
source "$(dirname "$0")/lib.sh"

TESTS=(test_nf_list test_nf_tcp_tun_v4 test_nf_tcp_tun_v6 test_nf_udp_veth_v4
       test_nf_udp_veth_v6 test_nf_veth_tcp_departure test_nf_netns_by_inode
       test_nf_all_namespaces_note test_nf_nothing_left)

NF_HOOKS="ip-start tcp-start udp-start"

nf_available() {
	local attached=" $(attached_hooks --attach=fallback) "
	for h in $NF_HOOKS; do
		[[ "$attached" == *" $h "* ]] || return 1
	done
}

test_nf_list() {
	local out
	out=$("$NSL" -l --attach=fallback) || fail "-l failed"
	for h in $NF_HOOKS; do
		grep -Eq "^  $h +netfilter " <<< "$out" || fail "$h does not attach with netfilter: $(grep " $h " <<< "$out")"
	done
}

# p50 of each hook, in the order a packet passes them, must not decrease.
expect_ordered() {
	local out=$1 prev=0 prev_hook= p h; shift
	for h in "$@"; do
		p=$($JQ "$out" pct "$h" 0.5)
		expect "median of $h (ns) >= median of ${prev_hook:-nothing}" "$p" -ge "$prev"
		prev=$p prev_hook=$h
	done
}

# tcp_over_tun ADDR: 300 TCP messages over the wire, tool in fallback mode.
tcp_over_tun() {
	local out=$TMP/nf-tcp.json sent got
	SRV_ADDR=$1 serve tcp 5101 || return 1
	start_tool "$out" --attach=fallback -n "/run/netns/$NS_B" || return 1
	SRV_ADDR=$1 client tcp 5101 --count 300 --interval-us 500
	wait_server
	stop_tool
	sent=$(json_field "$TMP/client.json" bytes)
	got=$(json_field "$TMP/server.json" bytes)
	expect "bytes received with the tool attached" "$got" -eq "$sent"
	expect "bytes sent" "$sent" -eq 300000
	for h in ip-start tcp-start tcp-socket-enqueued tcp-socket-read; do
		expect "$h samples" "$($JQ "$out" count $h)" -gt 0
	done
	# the TCP data segments, at least, all pass ip-start and tcp-start
	expect "tcp-start samples >= tcp-socket-enqueued" \
		"$($JQ "$out" count tcp-start)" -ge "$($JQ "$out" count tcp-socket-enqueued)"
	expect "udp-start samples (TCP-only traffic)" "$($JQ "$out" count udp-start)" -eq 0
	expect_ordered "$out" ip-start tcp-start tcp-socket-enqueued tcp-socket-read
}

test_nf_tcp_tun_v4() {
	nf_available || { skip "netfilter links unavailable here"; return; }
	tcp_over_tun $TADDR_B
}

test_nf_tcp_tun_v6() {
	nf_available || { skip "netfilter links unavailable here"; return; }
	tcp_over_tun $TADDR6_B
}

# udp_over_veth V6: 200 datagrams; UDP keeps RX timestamps over veth.
udp_over_veth() {
	local out=$TMP/nf-udp.json
	V6=$1 serve udp 5102 --count 200 --duration-s 10 || return 1
	start_tool "$out" --attach=fallback -n "/run/netns/$NS_B" || return 1
	V6=$1 client udp 5102 --count 200 --interval-us 500
	wait_server
	stop_tool
	expect "server datagrams" "$(json_field "$TMP/server.json" reads)" -eq 200
	expect "udp-start samples" "$($JQ "$out" count udp-start)" -eq 200
	expect "ip-start samples" "$($JQ "$out" count ip-start)" -ge 200
	expect "tcp-start samples (UDP-only traffic)" "$($JQ "$out" count tcp-start)" -eq 0
	expect_ordered "$out" ip-start udp-start udp-socket-enqueued
}

test_nf_udp_veth_v4() {
	nf_available || { skip "netfilter links unavailable here"; return; }
	udp_over_veth 0
}

test_nf_udp_veth_v6() {
	nf_available || { skip "netfilter links unavailable here"; return; }
	udp_over_veth 1
}

# Over veth TCP keeps the sender's departure time up to local delivery:
# ip-start and tcp-start skip those packets and say so in not_rx_tstamp.
test_nf_veth_tcp_departure() {
	local out=$TMP/nf-veth-tcp.json
	nf_available || { skip "netfilter links unavailable here"; return; }
	serve tcp 5103 || return
	start_tool "$out" --attach=fallback -n "/run/netns/$NS_B" || return
	client tcp 5103 --count 100 --interval-us 500
	wait_server
	stop_tool
	expect "tcp-start samples over veth" "$($JQ "$out" count tcp-start)" -eq 0
	expect "tcp-start not_rx_tstamp over veth" "$($JQ "$out" counter tcp-start not_rx_tstamp)" -ge 100
	expect "ip-start not_rx_tstamp over veth" "$($JQ "$out" counter ip-start not_rx_tstamp)" -ge 100
	expect "tcp-socket-read samples over veth" "$($JQ "$out" count tcp-socket-read)" -gt 0
}

# -n INODE: the tool finds the namespace (here under /run/netns) and attaches there.
test_nf_netns_by_inode() {
	local out=$TMP/nf-ino.json
	nf_available || { skip "netfilter links unavailable here"; return; }
	serve udp 5104 --count 50 --duration-s 10 || return
	start_tool "$out" --attach=fallback -n "$(stat -L -c %i "/run/netns/$NS_B")" || return
	client udp 5104 --count 50 --interval-us 500
	wait_server
	stop_tool
	expect "udp-start samples with -n INODE" "$($JQ "$out" count udp-start)" -eq 50
}

test_nf_all_namespaces_note() {
	local out=$TMP/nf-all.json
	nf_available || { skip "netfilter links unavailable here"; return; }
	start_tool "$out" --attach=fallback -n -1 || return
	stop_tool
	grep -q "see only our own network namespace" "$TMP/tool.err" ||
		fail "-n -1 does not say which namespace the netfilter hooks cover"
}

# No program or link of ours after exit, SIGKILL included.
# check_nothing_left HOW: start the tool, note its programs and links, stop it HOW.
check_nothing_left() {
	local how=$1 progs links maps attached nf
	start_tool "$TMP/nf-left.json" --attach=fallback -n "/run/netns/$NS_B" || return
	progs=$(bpf_ids_of prog "$TOOL_PID")
	links=$(bpf_ids_of link "$TOOL_PID")
	maps=$(bpf_ids_of map "$TOOL_PID")
	# The programs the tool says it attached (its first report's
	# recursion_misses: one per program, here e.g. nf_ip_start,
	# nf_l4_start for tcp-start and udp-start, tp_data_ready for both
	# enqueue hooks, tp_tcp_copy_datagram and tp_recv_length; which
	# attach is this kernel's, test_hook_status_in_outputs holds them
	# to -l), and nsl_clock_probe (the loader's clock, never attached);
	# a link for each netfilter program on IPv4 and IPv6, one for each
	# other
	wait_for 10 more_reports "$TMP/nf-left.json" 0 || { fail "no report"; stop_tool; return; }
	attached=$("$PYTHON" -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
print(" ".join(p["program"] for p in r["recursion_misses"] or r.get("bpf_stats") or []))' \
		"$TMP/nf-left.json")
	nf=$(tr ' ' '\n' <<< "$attached" | grep -c '^nf_')
	echo "  attached: $attached"
	expect "programs held by the tool (those it attached and its clock's)" \
		"$(wc -w <<< "$progs")" -eq $(($(wc -w <<< "$attached") + 1))
	expect "links held by the tool ($nf netfilter x 2, $(($(wc -w <<< "$attached") - nf)) others)" \
		"$(wc -w <<< "$links")" -eq $(($(wc -w <<< "$attached") + nf))
	expect "maps held by the tool" "$(wc -w <<< "$maps")" -ge 9
	if [ "$how" = KILL ]; then
		kill -KILL "$TOOL_PID"; wait "$TOOL_PID" 2>/dev/null
	else
		stop_tool
	fi
	# programs are freed after an RCU grace period: allow a moment
	wait_for 5 none_alive prog $progs
	wait_for 5 none_alive map $maps
	expect "programs left after SIG$how" "$(bpf_ids_alive prog $progs)" -eq 0
	expect "links left after SIG$how" "$(bpf_ids_alive link $links)" -eq 0
	expect "maps left after SIG$how" "$(bpf_ids_alive map $maps)" -eq 0
}

none_alive() {
	[ "$(bpf_ids_alive "$@")" -eq 0 ]
}

test_nf_nothing_left() {
	nf_available || { skip "netfilter links unavailable here"; return; }
	command -v bpftool >/dev/null || { skip "bpftool missing"; return; }
	check_nothing_left INT
	check_nothing_left KILL
}

need "" prereqs
need "cannot create namespaces/veth" setup_netns
need "no /dev/net/tun (tun module)" test -c /dev/net/tun
must "cannot set up the TUN wire (tests/tunwire.c)" setup_tunwire
run_tests
