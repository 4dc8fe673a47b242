#!/usr/bin/env bash
# The TCP HOL filter on the running kernel. The testbed dropper
# (scripts/testbed.sh) drops TCP data segments on the receiver's ingress;
# two instances of the tool watch the same reads at once, one with -y (no
# filter) and one with the filter, so their numbers compare read for read.
# HOL_MODES picks the attach modes (default "fallback fentry"; a mode in
# which tcp-socket-read does not attach here is a SKIP).
source "$(dirname "$0")/lib.sh"
source "$ROOT/scripts/testbed.sh"

HOL_MODES=${HOL_MODES:-fallback fentry}
MS=1000000		# ns in a millisecond
TESTS=()
for m in $HOL_MODES; do
	TESTS+=("test_hol_forced_rto_$m" "test_hol_no_loss_$m" "test_hol_random_loss_$m"
		"test_hol_wan_$m" "test_hol_sampled_$m" "test_hol_sampled_unselected_$m"
		"test_hol_cgroup_$m")
done

# start_hol_tool NAME OUT ARGS...: as lib.sh's start_tool, with stderr in
# $TMP/NAME.err so that two instances can run side by side; PID in PID_NAME.
start_hol_tool() {
	local name=$1 out=$2; shift 2
	"$NSL" -F json -r 1 -o "$out" "$@" 2> "$TMP/$name.err" &
	BG_PIDS+=($!)
	printf -v "PID_$name" %s $!
}

tool_attached() {
	grep -q attached "$TMP/$1.err"
}

# hol_traffic MODE PORT SERVER_ARGS -- CLIENT_ARGS: a TCP server in NS_B,
# the tool with -y (Y.json) and with the filter (F.json) on its reads, the
# client in NS_A to completion, both tools stopped with SIGINT. With
# HOL_SAMPLE=N a third instance (S.json) filters too, with --sample N.
hol_traffic() {
	local mode=$1 port=$2 sargs=() name rc names=(Y F) pids; shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	rm -f "$TMP/Y.json" "$TMP/F.json" "$TMP/S.json"
	# the reader real-time: a read that is late because a loaded machine
	# woke the reader late is no HOL block, and the checks below would
	# count it as a filtered read above their bounds (it mostly sleeps
	# in read(): no starving the rest)
	SERVE_PREFIX="chrt -f 10" serve tcp "$port" "${sargs[@]}" || return 1
	[ -z "${BEFORE_TOOL:-}" ] || $BEFORE_TOOL || return 1
	# shellcheck disable=SC2086
	start_hol_tool Y "$TMP/Y.json" -n "/run/netns/$NS_B" -e tcp-socket-read \
		-p "$SERVER_PID" --attach="$mode" -y ${HOL_TOOL_ARGS:-}
	# shellcheck disable=SC2086
	start_hol_tool F "$TMP/F.json" -n "/run/netns/$NS_B" -e tcp-socket-read \
		-p "$SERVER_PID" --attach="$mode" ${HOL_TOOL_ARGS:-}
	pids=("$PID_Y" "$PID_F")
	if [ -n "${HOL_SAMPLE:-}" ]; then
		start_hol_tool S "$TMP/S.json" -n "/run/netns/$NS_B" -e tcp-socket-read \
			-p "$SERVER_PID" --attach="$mode" --sample "$HOL_SAMPLE"
		names+=(S) pids+=("$PID_S")
	fi
	for name in "${names[@]}"; do
		wait_for 20 tool_attached $name && continue
		fail "tool ($name) did not attach: $(tail -3 "$TMP/$name.err")"
		kill "${pids[@]}" 2>/dev/null
		return 1
	done
	client tcp "$port" "$@"
	wait_server
	SERVER_READS=$(json_field "$TMP/server.json" reads)
	kill -INT "${pids[@]}"
	for name in "${names[@]}"; do
		local pid_var=PID_$name
		wait "${!pid_var}"; rc=$?
		expect "exit status of the tool ($name) after SIGINT" "$rc" -eq 0
	done
}

q() {	# q Y|F QUERY ARGS...: a jsonq query on tcp-socket-read
	local f=$TMP/$1.json query=$2; shift 2
	$JQ "$f" "$query" tcp-socket-read "$@"
}

# The filter decides per read: what the filtered instance did not record
# as tcp-socket-read it counted and recorded as tcp-socket-read-hol, so
# both instances add up to the same reads.
expect_reads_add_up() {
	local y f ex er hol
	y=$(q Y count) f=$(q F count)
	ex=$(q F counter hol_excluded) er=$(q F counter hol_read_errors)
	hol=$($JQ "$TMP/F.json" count tcp-socket-read-hol)
	expect "samples with -y = server reads" "$y" -eq "$SERVER_READS"
	expect "filtered samples + hol_excluded + hol_read_errors = samples with -y" \
		"$((f + ex + er))" -eq "$y"
	expect "tcp-socket-read-hol samples = hol_excluded + hol_read_errors" "$hol" -eq "$((ex + er))"
	expect "tcp-socket-read + tcp-socket-read-hol samples = samples with -y" "$((f + hol))" -eq "$y"
	expect "tcp-socket-read-hol with -y (nothing is left out)" \
		"$($JQ "$TMP/Y.json" count tcp-socket-read-hol)" -eq 0
	HOL_SUMMARY="reads $SERVER_READS, -y $y, filtered $f, left out $hol (hol_excluded $ex, hol_read_errors $er)"
}

mode_ok() {	# mode_ok MODE: skip the test if tcp-socket-read cannot attach so
	[[ " $(attached_hooks --attach="$1") " == *" tcp-socket-read "* ]] && return 0
	skip "tcp-socket-read does not attach with --attach=$1 on this kernel"
	return 1
}

# Each 2000-byte message leaves as two segments (MSS 1448). Dropping the
# first and its fast retransmission leaves the second waiting out of order
# until the retransmission timeout (>= 200 ms); the next message comes
# 400 ms later, when the reader has already taken the HOL-blocked data.
# (Data that arrives in order right after the hole is filled is merged into
# the waiting skb before the reader runs, and the merged skb carries the
# newer timestamp: hence the pauses.) Four such events in 10 messages.
hol_forced_rto() {
	local mode=$1 dropped retrans
	mode_ok "$mode" || return
	tb_rule_nth 5 1 4 || { fail "cannot set the dropper's rule"; return; }
	hol_traffic "$mode" 5101 -- --count 10 --msg-size 2000 --interval-us 400000 || return
	dropped=$(tb_stat dropped) retrans=$(tb_stat dropped_retrans)
	expect "segments dropped (4 and their first retransmissions)" "$dropped" -eq 8
	expect "retransmissions dropped" "$retrans" -eq 4
	expect "skbs with more than one segment" "$(tb_stat gso_skbs)" -eq 0
	expect "-y samples >= 100 ms (in buckets above 134 ms)" \
		"$(q Y count_lower_ge $((100 * MS)))" -ge 2
	expect "filtered samples that may be >= 100 ms (buckets above 67 ms)" \
		"$(q F count_upper_gt $((100 * MS)))" -eq 0
	expect "hol_excluded" "$(q F counter hol_excluded)" -gt 0
	# the slow reads are kept apart, all of them: those >= 134 ms in the
	# -y run are there (the two instances' clocks differ by microseconds)
	expect "tcp-socket-read-hol samples >= 100 ms (buckets above 134 ms) = -y's" \
		"$($JQ "$TMP/F.json" count_lower_ge tcp-socket-read-hol $((100 * MS)))" \
		-eq "$(q Y count_lower_ge $((100 * MS)))"
	expect_reads_add_up
	echo "  forced RTO ($mode): $HOL_SUMMARY; -y samples >= 134 ms" \
	     "$(q Y count_lower_ge $((134 * MS))), -y max bucket $(q Y max_le) ns," \
	     "filtered max bucket $(q F max_le) ns; dropped $dropped (retrans $retrans)"
}

hol_no_loss() {
	local mode=$1
	mode_ok "$mode" || return
	tb_rule_loss 0 || { fail "cannot set the dropper's rule"; return; }
	hol_traffic "$mode" 5102 -- --count 500 --msg-size 2000 --interval-us 1000 || return
	expect "segments seen by the dropper" "$(tb_stat data_segs)" -ge 1000
	expect "segments dropped" "$(tb_stat dropped)" -eq 0
	expect "hol_excluded" "$(q F counter hol_excluded)" -eq 0
	expect "hol_read_errors" "$(q F counter hol_read_errors)" -eq 0
	expect "filtered samples = samples with -y" "$(q F count)" -eq "$(q Y count)"
	expect_reads_add_up
	echo "  no loss ($mode): $HOL_SUMMARY"
}

# 1 % random loss, fixed seed: the filter leaves out the reads behind a
# hole, not the world.
hol_random_loss() {
	local mode=$1 y f
	mode_ok "$mode" || return
	tb_rule_loss 1 1 || { fail "cannot set the dropper's rule"; return; }
	hol_traffic "$mode" 5103 -- --count 3000 --msg-size 1000 --interval-us 300 || return
	y=$(q Y count) f=$(q F count)
	expect "segments dropped" "$(tb_stat dropped)" -gt 0
	expect "hol_excluded" "$(q F counter hol_excluded)" -gt 0
	expect "filtered samples x 100 (>= 80 % of -y's $y)" "$((f * 100))" -ge "$((y * 80))"
	expect_reads_add_up
	echo "  1 % loss ($mode): $HOL_SUMMARY; dropped $(tb_stat dropped) of" \
	     "$(tb_stat data_segs) segments; filtered keeps $((f * 1000 / (y > 0 ? y : 1))) per mille"
}

# The upstream experiment's path, shortened: the TUN wire holds each packet
# 17 ms each way (a 34 ms round trip), the dropper on its receiving end
# drops 2 % of the data segments (seed 3), and 20 fetches of 100 kB go
# over it, 150 ms apart. A read behind a hole waits at least a round trip
# for the retransmission: -y has reads surely above 16.8 ms; the filter
# keeps none of them (they are all in tcp-socket-read-hol). The full sweep
# is `make hol-wan` (docs/hol-filter.md).
WAN_DELAY_US=17000
hol_wan() {
	local mode=$1 slow_y slow_hol
	mode_ok "$mode" || return
	# a machine without TUN is a SKIP; our wire or dropper broken a FAIL
	[ -n "$WAN_UP" ] || { [ -c /dev/net/tun ] && fail "no delayed TUN wire: $WAN_WHY" ||
		skip "no delayed TUN wire here: $WAN_WHY"; return; }
	tb_find "$NS_B" "$TUN_B" && tb_reset_state && tb_rule_loss 2 3 ||
		{ fail "cannot set the wire's dropper"; return; }
	SRV_ADDR=$TADDR_B hol_traffic "$mode" 5104 -- --count 20 --msg-size 100000 \
		--interval-us 150000
	expect "segments dropped on the wire" "$(tb_stat dropped)" -gt 0
	slow_y=$(q Y count_lower_ge $((1 << 24)))
	slow_hol=$($JQ "$TMP/F.json" count_lower_ge tcp-socket-read-hol $((1 << 24)))
	expect "-y reads surely above 16.8 ms (a round trip behind a hole)" "$slow_y" -gt 0
	expect "filtered reads surely above 16.8 ms" "$(q F count_lower_ge $((1 << 24)))" -eq 0
	expect "tcp-socket-read-hol reads surely above 16.8 ms" "$slow_hol" -gt 0
	expect_reads_add_up
	echo "  34 ms round trip, 2 % loss ($mode): $HOL_SUMMARY; dropped $(tb_stat dropped)" \
	     "of $(tb_stat data_segs) segments; above 16.8 ms: -y $slow_y, tcp-socket-read-hol $slow_hol"
	tb_rule_off
	tb_find "$NS_B" "$IF_B" || fail "cannot find the veth's dropper again"
}

# -C: the reads the filter leaves out keep the reader's cgroup (issue
# #23), so that per cgroup tcp-socket-read + tcp-socket-read-hol = -y's
# tcp-socket-read. The server reads in a cgroup of its own; 1 % loss.
hol_server_to_cgroup() {
	echo "$SERVER_PID" > "$CG_HOL/cgroup.procs"
}

hol_cgroup() {
	local mode=$1 cg f hol y
	mode_ok "$mode" || return
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ] ||
		{ skip "no writable cgroup v2"; return; }
	CG_HOL=$CG_ROOT/nsl$ID-hol cg=/nsl$ID-hol
	mkdir -p "$CG_HOL" || { fail "cannot create $CG_HOL"; return; }
	CGROUPS+=("$CG_HOL")
	tb_rule_loss 1 1 || { fail "cannot set the dropper's rule"; return; }
	HOL_TOOL_ARGS=-C BEFORE_TOOL=hol_server_to_cgroup \
		hol_traffic "$mode" 5105 -- --count 3000 --msg-size 1000 --interval-us 300 || return
	f=$(q F count cgroup_path="$cg")
	hol=$($JQ "$TMP/F.json" count tcp-socket-read-hol cgroup_path="$cg")
	y=$(q Y count cgroup_path="$cg")
	expect "-y samples in the server's cgroup = server reads" "$y" -eq "$SERVER_READS"
	expect "tcp-socket-read-hol samples in the server's cgroup" "$hol" -gt 0
	expect "tcp-socket-read-hol samples in the server's cgroup = all of them" \
		"$hol" -eq "$($JQ "$TMP/F.json" count tcp-socket-read-hol)"
	expect "per cgroup: tcp-socket-read + tcp-socket-read-hol = -y" "$((f + hol))" -eq "$y"
	echo "  -C, 1 % loss ($mode): cgroup $cg: -y $y, filtered $f, left out $hol"
}

test_hol_forced_rto_fallback() { hol_forced_rto fallback; }
test_hol_no_loss_fallback() { hol_no_loss fallback; }
test_hol_random_loss_fallback() { hol_random_loss fallback; }
test_hol_forced_rto_fentry() { hol_forced_rto fentry; }
test_hol_no_loss_fentry() { hol_no_loss fentry; }
test_hol_random_loss_fentry() { hol_random_loss fentry; }
# --sample 2 beside the unsampled pair, on the forced RTOs: a read the
# sampling leaves out still moves the socket's HOL state, so the sampled
# instance records none of the reads that may have waited (none above
# 67 ms), and it took one read in two per CPU on average: after each
# recorded read 0 to 2 pass at random, so of R reads between R/4 and
# 3R/4 (and the first on each CPU), but for 1 run in 10,000 or fewer
# (simulated, R = 10 to 30).
hol_sampled() {
	local mode=$1 n hol
	mode_ok "$mode" || return
	tb_rule_nth 5 1 4 || { fail "cannot set the dropper's rule"; return; }
	HOL_SAMPLE=2 hol_traffic "$mode" 5105 -- --count 10 --msg-size 2000 --interval-us 400000 ||
		return
	expect_reads_add_up
	n=$(q S count) hol=$($JQ "$TMP/S.json" count tcp-socket-read-hol)
	expect "sampled: samples that may be >= 100 ms (buckets above 67 ms)" \
		"$(q S count_upper_gt $((100 * MS)))" -eq 0
	expect "sampled: tcp-socket-read + tcp-socket-read-hol, >= a quarter of the reads" \
		"$((n + hol))" -ge "$((SERVER_READS / 4))"
	expect "sampled: tcp-socket-read + tcp-socket-read-hol, <= 3/4 of the reads + 1 per CPU" \
		"$((n + hol))" -le "$(((3 * SERVER_READS + 3) / 4 + $(nproc)))"
	expect "sampled: sample_every in the report" \
		"$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["sample_every"])' "$TMP/S.json")" -eq 2
	echo "  forced RTO, --sample 2 ($mode): $HOL_SUMMARY; sampled $n, left out $hol"
}

# hol_entries PID: how many sockets have HOL state in the tool PID's hol_lru
hol_entries() {
	local id
	for id in $(bpf_ids_of map "$1"); do
		[[ $(bpftool map show id "$id" 2> /dev/null) == *"name hol_lru "* ]] || continue
		bpftool map dump id "$id" -j | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'
		return
	done
	echo "no hol_lru map"
}

# A read --sample leaves out moves the HOL state where a recorded read
# does: after the filters. So a socket whose reads no filter selects
# gets none, with --sample as without (before, the reads left out moved
# it before the filters: an entry for every socket with out-of-order
# history on the machine, and ranges that began at reads an unsampled
# run ignores). The forced RTOs, two --sample 2 instances: one selects
# the server's namespace, the other a namespace without sockets.
hol_sampled_unselected() {
	local mode=$1 sel oth name
	mode_ok "$mode" || return
	tb_rule_nth 5 1 4 || { fail "cannot set the dropper's rule"; return; }
	serve tcp 5106 || return
	start_hol_tool S "$TMP/S.json" -n "/run/netns/$NS_B" -e tcp-socket-read \
		--attach="$mode" --sample 2
	start_hol_tool O "$TMP/O.json" -n "/run/netns/$NS_C" -e tcp-socket-read \
		--attach="$mode" --sample 2
	for name in S O; do
		wait_for 20 tool_attached "$name" ||
			{ fail "tool ($name) did not attach: $(tail -3 "$TMP/$name.err")"; return; }
	done
	client tcp 5106 --count 10 --msg-size 2000 --interval-us 400000
	wait_server
	sel=$(hol_entries "$PID_S") oth=$(hol_entries "$PID_O")
	kill -INT "$PID_S" "$PID_O"
	wait "$PID_S" "$PID_O"
	echo "  forced RTO, --sample 2 ($mode): sockets with HOL state: $sel selected, $oth not"
	expect "HOL state of the selected namespace's sockets (out-of-order data seen)" "$sel" -ge 1
	expect "HOL state of sockets no filter selects" "$oth" -eq 0
}

test_hol_sampled_unselected_fallback() { hol_sampled_unselected fallback; }
test_hol_sampled_unselected_fentry() { hol_sampled_unselected fentry; }
test_hol_wan_fallback() { hol_wan fallback; }
test_hol_sampled_fallback() { hol_sampled fallback; }
test_hol_sampled_fentry() { hol_sampled fentry; }
test_hol_wan_fentry() { hol_wan fentry; }
test_hol_cgroup_fallback() { hol_cgroup fallback; }
test_hol_cgroup_fentry() { hol_cgroup fentry; }

need "" prereqs
for c in tc bpftool; do
	need "$c missing" command -v $c > /dev/null
done
must "testbed dropper not built (make testbed)" test -r "$TB_OBJ"
need "cannot create namespaces/veth" setup_netns
# what the machine must have for the dropper: a clsact qdisc
need "no clsact qdisc (sch_ingress)" eval 'tc -n "$NS_B" qdisc add dev "$IF_B" clsact &&
	tc -n "$NS_B" qdisc del dev "$IF_B" clsact'
# one segment per skb from the sender, so that the dropper drops segments
must "cannot attach the testbed dropper (scripts/testbed.sh, bpf/testbed)" \
	eval 'tb_one_seg "$NS_A" "$IF_A" && tb_attach "$NS_B" "$IF_B"'
# the delayed wire, with a dropper of its own (tb_find picks one, the
# veth's stays the current one): without it only the WAN tests skip
WAN_UP= WAN_WHY=
if [ ! -c /dev/net/tun ]; then
	WAN_WHY="no /dev/net/tun"
elif ! WIRE_OPTS="--delay-us $WAN_DELAY_US" setup_tunwire; then
	WAN_WHY="the TUN wire did not come up"
elif ! tb_attach "$NS_B" "$TUN_B" || ! tb_find "$NS_B" "$IF_B"; then
	WAN_WHY="cannot attach the dropper to the wire"
else
	WAN_UP=1
fi
run_tests
