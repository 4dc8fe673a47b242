#!/nsl/bash
# /init of the VM test (Debian's 5.10, 6.1, 6.12 and sid cloud kernels,
# where fentry works; the same script on each, 5.10 with fewer scenarios). Runs the tool against real
# namespace traffic in each attach mode (fallback mode in full where the
# kernel has the fallbacks: 6.12, sid) and prints everything the host needs between
# markers on the console:
#   === BEGIN <name>        the lines of file <name>
#   === END <name>
# The host (tests/integration/test_vm.sh) parses and judges; this side only
# collects, so it needs no python. bash, not busybox sh: the latter runs
# its own ip and tc applets whatever PATH says, and the HOL testbed
# library (scripts/testbed.sh) is bash.
/bin/busybox --install -s /bin
export PATH=/nsl:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null

say() { echo "=== $*"; }

# scenario_on NAME: whether this guest runs scenario NAME: all but those
# the host named in nsl.off= on the kernel's command line (test_vm.sh's
# VM_SCENARIOS table says which kernel runs what)
scenario_on() {
	local w
	for w in $(cat /proc/cmdline); do
		case $w in nsl.off=*) [[ ",${w#nsl.off=}," != *",$1,"* ]]; return ;; esac
	done
	return 0
}

# stamp WHAT: the guest's uptime, into the times file (where a guest's
# time goes: tool starts, scenarios; test_vm.sh's vmK_boot sums them)
stamp() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> /tmp/times; }

emit() {	# emit NAME FILE
	say "BEGIN $1"
	cat "$2" 2>/dev/null
	say "END $1"
}

# the kernel's log too: clocksource changes, warnings, for a failure's
# post-mortem on the host
finish() {
	dmesg > /tmp/dmesg 2>&1
	emit times /tmp/times
	emit dmesg /tmp/dmesg
	say "GUEST DONE"
	sync
	poweroff -f
}

# the modules scripts/vm/build chose for this kernel, dependencies first
while read -r m; do
	insmod /modules/$m || say "GUEST ERROR insmod $m"
done < /modules/load
/nsl/ip link set lo up
/nsl/ip netns add A && /nsl/ip netns add B || { say "GUEST ERROR netns"; finish; }
/nsl/ip link add a0 netns A type veth peer name b0 netns B
/nsl/ip -n A addr add 198.18.0.1/24 dev a0
VETH_ADDR=198.18.0.2
/nsl/ip -n B addr add $VETH_ADDR/24 dev b0
for ns in A B; do /nsl/ip -n $ns link set lo up; done
/nsl/ip -n A link set a0 up
/nsl/ip -n B link set b0 up

# wait_file SECONDS FILE: until FILE is non-empty
wait_file() {
	local i=0
	while [ ! -s "$2" ] && [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$2" ]
}

# A TUN wire (tests/tunwire.c) from A's ta to B's tb: TCP through it
# arrives in B as from a NIC, with an RX timestamp, which the netfilter
# fallbacks of ip-start and tcp-start need (over veth TCP keeps its
# departure time until local delivery).
WIRE_ADDR=198.19.0.2
tunwire /run/netns/A ta /run/netns/B tb /tmp/wire.ready &
wait_file 10 /tmp/wire.ready &&
	/nsl/ip -n A addr add 198.19.0.1/24 dev ta && /nsl/ip -n B addr add $WIRE_ADDR/24 dev tb &&
	/nsl/ip -n A link set ta up && /nsl/ip -n B link set tb up || say "GUEST ERROR tunwire"
say "GUEST UP $(uname -r)"
say "GUEST UPTIME $(cut -d' ' -f1 /proc/uptime)"

# serve NAME PROTO PORT ARGS...: trafficgen server in B, SERVER_PID when up;
# on B's veth address, or on SRV_ADDR
serve() {
	local name=$1 proto=$2 port=$3
	shift 3
	rm -f /tmp/ready
	/nsl/ip netns exec B trafficgen server --proto $proto --bind ${SRV_ADDR:-$VETH_ADDR} \
		--port $port --ready-file /tmp/ready "$@" > /tmp/$name.server &
	SERVER_JOB=$!
	wait_file 60 /tmp/ready || say "GUEST ERROR server $name"
	SERVER_PID=$(cat /tmp/ready)
}

client() {	# client NAME PROTO PORT ARGS...
	local name=$1 proto=$2 port=$3
	shift 3
	/nsl/ip netns exec A trafficgen client --proto $proto --connect ${SRV_ADDR:-$VETH_ADDR} \
		--port $port "$@" > /tmp/$name.client
}

# tool_start NAME ARGS...: the tool with JSON lines, until it has attached
tool_start() {
	local name=$1 i=0
	shift
	stamp "start $name"
	netstacklat -F json -r 1 -o /tmp/$name.json "$@" 2> /tmp/$name.err &
	TOOL_PID=$!
	while ! grep -q attached /tmp/$name.err && [ $i -lt 1200 ]; do
		kill -0 $TOOL_PID 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	stamp "attached $name"
}

tool_stop() {	# tool_stop NAME: SIGINT (final report), keep the exit status
	kill -INT $TOOL_PID
	wait $TOOL_PID
	echo $? > /tmp/$1.rc
	stamp "stopped $1"
	for f in json err rc server client; do emit "$1.$f" /tmp/$1.$f; done
}

# all hooks, TCP (to TCP_ADDR) and UDP traffic (UDP is sampled at ip-start
# over veth, TCP keeps its departure timestamp there)
run_all() {	# run_all NAME MODE TCP_ADDR TOOL_ARGS...
	SRV_ADDR=$3 serve $1-tcp tcp 5001
	tool_start $1 --attach=$2 -n /run/netns/B "${@:4}"
	SRV_ADDR=$3 client $1-tcp tcp 5001 --count 200 --interval-us 1000
	wait $SERVER_JOB
	serve $1 udp 5002 --count 200 --duration-s 60
	client $1 udp 5002 --count 200 --interval-us 1000
	wait $SERVER_JOB
	tool_stop $1
	emit "$1-tcp.server" /tmp/$1-tcp.server
}

# SERVER_PID into a cgroup of its own, /sys/fs/cgroup/srv (before its
# client starts): -c then selects it, through the current task's cgroup
# (the helper on 5.10, the task's fields on the others: filters.bpf.h)
server_to_cgroup() {
	mkdir -p /sys/fs/cgroup/srv &&
		echo $SERVER_PID > /sys/fs/cgroup/srv/cgroup.procs ||
		say "GUEST ERROR server to cgroup"
}

# one read, one sample: TCP reads and UDP reads of one server process,
# which -p and -c both select
run_reads() {	# run_reads NAME MODE
	serve $1-tcp tcp 5003
	server_to_cgroup
	tool_start $1 --attach=$2 -n /run/netns/B -p $SERVER_PID \
		-c /sys/fs/cgroup/srv -e tcp-socket-read
	client $1-tcp tcp 5003 --count 200 --interval-us 2000
	wait $SERVER_JOB
	tool_stop $1
	emit "$1-tcp.server" /tmp/$1-tcp.server
}

run_udp_reads() {	# run_udp_reads NAME MODE
	serve $1 udp 5004 --count 200 --duration-s 60
	server_to_cgroup
	tool_start $1 --attach=$2 -n /run/netns/B -p $SERVER_PID \
		-c /sys/fs/cgroup/srv -e udp-socket-read
	client $1 udp 5004 --count 200 --interval-us 2000
	wait $SERVER_JOB
	tool_stop $1
}

# known answer: data waits 50 ms in the queue before each read
run_known() {	# run_known NAME MODE [TOOL_ARGS...]
	serve $1 tcp 5005 --read-delay-ms 50 --count 10 --rx-stamps
	tool_start $1 --attach=$2 -n /run/netns/B \
		-e tcp-socket-enqueued,tcp-socket-read "${@:3}"
	client $1 tcp 5005 --count 10 --interval-us 100000
	wait $SERVER_JOB
	tool_stop $1
}

# standing queues (opt-in, 5.11+): a UDP reader of a datagram every 2 ms
# behind a sender of 1,000 a second for 1.5 s, then a TCP reader of 1,000
# bytes every 5 ms behind 200 KB sent in 0.2 s: an episode each. The
# tool first: under TCG its load takes seconds, the servers' durations
# count from their start.
run_standing() {	# run_standing NAME MODE
	tool_start $1 --attach=$2 -n /run/netns/B -e udp-standing-queue,tcp-standing-queue
	serve $1 udp 5006 --read-delay-ms 2 --rcvbuf 16384 --duration-s 4
	client $1 udp 5006 --count 1500 --interval-us 1000
	wait $SERVER_JOB
	serve $1-tcp tcp 5007 --read-delay-ms 5 --read-size 1000
	client $1-tcp tcp 5007 --count 200 --interval-us 1000 --msg-size 1000
	wait $SERVER_JOB
	tool_stop $1
	emit "$1-tcp.server" /tmp/$1-tcp.server
}

# A UDP reader killed while its queue stands (issue #57 item 3): 100
# datagrams to a stopped reader, killed 1.5 s later; its socket's close
# (fentry sk_common_release) ends the episode
run_standing_closed() {	# run_standing_closed NAME MODE
	serve $1 udp 5008 --duration-s 60
	tool_start $1 --attach=$2 -n /run/netns/B -e udp-standing-queue
	kill -STOP $SERVER_PID
	client $1 udp 5008 --count 100 --interval-us 1000
	stamp "queued $1"
	sleep 1.5
	stamp "kill $1"
	kill -KILL $SERVER_PID
	wait $SERVER_JOB
	sleep 1.2
	tool_stop $1
}

# the wall clock to the microsecond (busybox's date has no %N; the
# tool's JSON reports carry the wall clock's time)
now_real() {
	busybox adjtimex | awk '$1 == "time.tv_sec:" { s = $2 }
		$1 == "time.tv_usec:" { u = $2 } END { printf "%d.%06d\n", s, u }'
}

# Queues that fill faster than the target, then go quiet (issue #57
# item 1): a UDP reader and a TCP server stopped (SIGSTOP), 50 datagrams
# back to back to the first, 256 kB written at once to the second, 2 s of
# silence, both resumed. The target 50 ms (interval 100 ms), so that the
# bursts fit inside it even under TCG. Wall-clock stamps (now_real) in
# NAME.times: before the bursts, "sent" when the datagrams were,
# "quiet" when all was queued, "cont" at the resume.
run_standing_quiet() {	# run_standing_quiet NAME MODE
	local udp_pid udp_job tcp_job cj
	serve $1-udp udp 5009 --count 50 --duration-s 60
	udp_pid=$SERVER_PID udp_job=$SERVER_JOB
	serve $1-tcp tcp 5010
	tcp_job=$SERVER_JOB
	tool_start $1 --attach=$2 -n /run/netns/B -e udp-standing-queue,tcp-standing-queue \
		--standing-target 0.05 --standing-interval 0.1
	kill -STOP $udp_pid $SERVER_PID
	echo "before $(now_real)" > /tmp/$1.times
	client $1-udp udp 5009 --interval-us 0 --count 50 --msg-size 100
	echo "sent $(now_real)" >> /tmp/$1.times
	client $1-tcp tcp 5010 --interval-us 0 --count 1 --msg-size 262144 &
	cj=$!
	sleep 0.5
	echo "quiet $(now_real)" >> /tmp/$1.times
	sleep 2
	echo "cont $(now_real)" >> /tmp/$1.times
	kill -CONT $udp_pid $SERVER_PID
	wait $udp_job
	wait $tcp_job
	wait $cj
	sleep 1.2
	tool_stop $1
	emit $1.times /tmp/$1.times
}

# A TCP reader by splice() (tcp_read_sock(): no look sees its reads,
# issue #57 item 4) of 1 kB a millisecond for 3 s, which stalls 200 ms
# once a second, against a 50 ms target (100 ms interval: TCG's own
# stalls stay below it).
run_standing_splice() {	# run_standing_splice NAME MODE
	serve $1 tcp 5011 --splice --stall-ms 200
	tool_start $1 --attach=$2 -n /run/netns/B -e tcp-standing-queue \
		--standing-target 0.05 --standing-interval 0.1
	echo "before $(now_real)" > /tmp/$1.times
	client $1 tcp 5011 --interval-us 1000 --count 3000 --msg-size 1000
	wait $SERVER_JOB
	echo "done $(now_real)" >> /tmp/$1.times
	sleep 1.2
	tool_stop $1
	emit $1.times /tmp/$1.times
}

# The standing hooks by fentry beside an enqueue and a read hook that fell
# back (issue #57 item 10): the test seam refuses udp-socket-enqueued's
# and tcp-socket-read's fentry programs, so tp_data_ready and
# tp_recv_length load for them next to the standing hooks' fentry/fexit
# programs, which look at the same arrivals and reads. Written to
# $1.refs, for tp_data_ready, tp_recv_length and fentry_sock_def_readable:
# the name and how many instructions left after the verifier (bpftool
# prog dump xlated: dead code is gone) load the standing hooks' socket
# storage map, standing_sk: a look in the program. Two bpftool processes
# in all (batch files: under TCG each start costs about a second), the
# dumps told apart by a "prog show" line before each.
run_standing_gated() {	# run_standing_gated NAME
	local sk_map
	export NSL_TEST_REJECT=fentry_udp_enqueue_schedule_skb,fentry_tcp_recv_timestamp
	tool_start $1 -n /run/netns/B \
		-e udp-socket-enqueued,tcp-socket-read,udp-standing-queue,tcp-standing-queue
	unset NSL_TEST_REJECT
	printf 'map show\nprog show\n' > /tmp/$1.batch
	bpftool batch file /tmp/$1.batch > /tmp/$1.show 2>/dev/null
	sk_map=$(awk '$3 == "name" && $4 == "standing_sk" { sub(":", "", $1); print $1; exit }' /tmp/$1.show)
	awk '/^[0-9]+: / { for (i = 2; i < NF; i++)
		if ($i == "name" && $(i + 1) ~ /^(tp_data_ready|tp_recv_length|fentry_sock_def)/) {
			sub(":", "", $1); print "prog show id " $1; print "prog dump xlated id " $1 } }' \
		/tmp/$1.show > /tmp/$1.batch
	echo "standing_sk ${sk_map:-none}" > /tmp/$1.refs
	bpftool batch file /tmp/$1.batch 2>/dev/null |
		awk -v m="map[id:${sk_map:-none}]" '/^[0-9]+: [a-z_]+ +name / { n = $4; if (!(n in c)) c[n] = 0; next }
			n != "" && index($0, m) { c[n]++ } END { for (n in c) print n, c[n] }' >> /tmp/$1.refs
	stamp "dumped $1"
	tool_stop $1
	emit $1.refs /tmp/$1.refs
}

# HOL filter: the testbed (scripts/testbed.sh) drops TCP
# segments on B's ingress; a -y instance and a filtered one watch the same
# reads. run_hol NAME MODE "RULE" CLIENT_ARGS... With HOL_ARGS, more
# options for every instance; HOL_BEFORE, a command once the server is up;
# HOL_SAMPLE=N, a third instance NAME-s, filtered, with --sample N.
run_hol() {
	local name=$1 mode=$2 rule=$3 spid=
	shift 3
	tb_rule_off && $rule || { say "GUEST ERROR testbed rule $rule"; return; }
	serve $name tcp 5006
	[ -z "${HOL_BEFORE:-}" ] || $HOL_BEFORE
	tool_start $name-y --attach=$mode -n /run/netns/B -e tcp-socket-read -p $SERVER_PID -y ${HOL_ARGS:-}
	Y_PID=$TOOL_PID
	if [ -n "${HOL_SAMPLE:-}" ]; then
		tool_start $name-s --attach=$mode -n /run/netns/B -e tcp-socket-read -p $SERVER_PID \
			--sample $HOL_SAMPLE ${HOL_ARGS:-}
		spid=$TOOL_PID
	fi
	tool_start $name-f --attach=$mode -n /run/netns/B -e tcp-socket-read -p $SERVER_PID ${HOL_ARGS:-}
	client $name tcp 5006 "$@"
	wait $SERVER_JOB
	tb_stats > /tmp/$name.stats
	tool_stop $name-f
	[ -z "$spid" ] || { TOOL_PID=$spid; tool_stop $name-s; }
	TOOL_PID=$Y_PID
	tool_stop $name-y
	emit $name.server /tmp/$name.server
	emit $name.stats /tmp/$name.stats
}

# hol_entries PID: sockets with HOL state in the hol_lru map of the tool
# PID (no python here: bpftool's JSON has one raw "key":[bytes] per
# entry; a key of the formatted part, with BTF, is no array)
hol_entries() {
	local id
	for id in $(awk '$1 == "map_id:" { print $2 }' /proc/$1/fdinfo/* 2>/dev/null | sort -un); do
		bpftool map show id $id 2>/dev/null | grep -q " name hol_lru " || continue
		bpftool -j map dump id $id 2>/dev/null | grep -o '"key":\[' | wc -l
		return
	done
	echo "none"
}

# the server's cgroup for the -C scenario
hol_cgroup_in() {
	mkdir -p /sys/fs/cgroup/hol && echo $SERVER_PID > /sys/fs/cgroup/hol/cgroup.procs ||
		say "GUEST ERROR hol cgroup"
}

# The host's other HOL scenarios (test_hol.sh), here where fentry works:
# no loss; --sample 2 beside the pair on the forced RTOs; two --sample 2
# instances, one selecting B, one a namespace without sockets (HOL state
# only for the selected one's); -C with 1 % loss; and the WAN, a second
# TUN wire holding each packet 17 ms, its own dropper losing 2 %.
run_hol_more() {	# run_hol_more MODE
	local m=$1 s o
	testbed_up || return
	run_hol $m-noloss $m "tb_rule_loss 0" --count 300 --msg-size 2000 --interval-us 1000
	HOL_SAMPLE=2 run_hol $m-sampled $m "tb_rule_nth 5 1 4" \
		--count 10 --msg-size 2000 --interval-us 400000
	HOL_ARGS=-C HOL_BEFORE=hol_cgroup_in run_hol $m-cgroup $m "tb_rule_loss 1 1" \
		--count 1500 --msg-size 1000 --interval-us 300
	# unselected: the forced RTOs under two sampled instances
	/nsl/ip netns add U
	tb_rule_off && tb_rule_nth 5 1 4 || say "GUEST ERROR testbed rule unsel"
	serve $m-unsel tcp 5019
	tool_start $m-unsel-s --attach=$m -n /run/netns/B -e tcp-socket-read --sample 2
	s=$TOOL_PID
	tool_start $m-unsel-o --attach=$m -n /run/netns/U -e tcp-socket-read --sample 2
	o=$TOOL_PID
	client $m-unsel tcp 5019 --count 10 --msg-size 2000 --interval-us 400000
	wait $SERVER_JOB
	echo "selected=$(hol_entries $s) other=$(hol_entries $o)" > /tmp/$m-unsel.entries
	tool_stop $m-unsel-o
	TOOL_PID=$s
	tool_stop $m-unsel-s
	emit $m-unsel.entries /tmp/$m-unsel.entries
	emit $m-unsel.server /tmp/$m-unsel.server
	testbed_down
	# the WAN: wire 2 (wa in A, wb in B), 17 ms each way, its dropper
	rm -f /tmp/wan.ready
	tunwire --delay-us 17000 /run/netns/A wa /run/netns/B wb /tmp/wan.ready &
	wait_file 10 /tmp/wan.ready &&
		/nsl/ip -n A addr add 198.20.0.1/24 dev wa && /nsl/ip -n B addr add 198.20.0.2/24 dev wb &&
		/nsl/ip -n A link set dev wa up && /nsl/ip -n B link set dev wb up &&
		tb_attach B wb || { say "GUEST ERROR wan wire"; return; }
	SRV_ADDR=198.20.0.2 run_hol $m-wan $m "tb_rule_loss 2 3" \
		--count 20 --msg-size 100000 --interval-us 150000
	tc -n B qdisc del dev wb clsact
}

# packets without an RX stamp, as if timestamping had been off when they
# arrived (the testbed's unstamp program clears it at B's ingress): the
# hooks count them (no_rx_tstamp) and sample none (-i b0: B's other
# traffic, on tb and lo, is stamped: seen once, an ip-start sample)
run_unstamped() {	# run_unstamped NAME MODE
	tc -n B qdisc add dev b0 clsact &&
	tc -n B filter add dev b0 ingress bpf direct-action obj /nsl/unstamp.bpf.o sec tc ||
		{ say "GUEST ERROR unstamp"; return; }
	serve $1 udp 5018 --count 100 --duration-s 60
	tool_start $1 --attach=$2 -n /run/netns/B -i b0 \
		-e ip-start,udp-start,udp-socket-enqueued,udp-socket-read
	client $1 udp 5018 --count 100 --interval-us 2000
	wait $SERVER_JOB
	tool_stop $1
	tc -n B qdisc del dev b0 clsact
}

testbed_up() {
	TB_OBJ=/nsl/dropper.bpf.o
	source /nsl/testbed.sh
	tb_one_seg A a0 && tb_attach B b0 || { say "GUEST ERROR testbed"; return 1; }
}

testbed_down() {
	tc -n B qdisc del dev b0 clsact
}

# fentry and fallback side by side on the same reads of HOOK (udp or tcp
# reads of one server): run_pair NAME HOOK PROTO SERVER_ARGS CLIENT_ARGS
run_pair() {
	local name=$1 hook=$2 proto=$3 fpid
	serve $name $proto 5007 $4
	tool_start $name-fentry --attach=fentry -n /run/netns/B -e $hook -p $SERVER_PID
	fpid=$TOOL_PID
	tool_start $name-fallback --attach=fallback -n /run/netns/B -e $hook -p $SERVER_PID
	client $name $proto 5007 $5
	wait $SERVER_JOB
	tool_stop $name-fallback
	TOOL_PID=$fpid
	tool_stop $name-fentry
	emit $name.server /tmp/$name.server
}

# Every hook in both attach modes side by side on the same traffic: TCP
# and UDP over the TUN wire (RX timestamps as from a NIC), 1,000 messages
# each (AGREE_N in test_vm.sh: enough that the few samples a descheduled
# vCPU moves are a small share), one instance per mode, at --resolution 8
# (buckets 9 % wide: the host compares them sample for sample, nearly).
# IPv6 is off in both namespaces meanwhile, so that no neighbour
# discovery lands in one instance's window and not the other's (they
# start and stop one after the other). run_agree NAME
run_agree() {
	local fpid tjob ns
	for ns in A B; do
		/nsl/ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done
	SRV_ADDR=$WIRE_ADDR serve $1-tcp tcp 5011
	tjob=$SERVER_JOB
	SRV_ADDR=$WIRE_ADDR serve $1-udp udp 5012 --count 1000 --duration-s 60
	tool_start $1-fentry --attach=fentry -n /run/netns/B --resolution 8
	fpid=$TOOL_PID
	tool_start $1-fallback --attach=fallback -n /run/netns/B --resolution 8
	SRV_ADDR=$WIRE_ADDR client $1-tcp tcp 5011 --count 1000 --interval-us 1000
	SRV_ADDR=$WIRE_ADDR client $1-udp udp 5012 --count 1000 --interval-us 1000
	wait $tjob $SERVER_JOB
	sleep 0.2
	tool_stop $1-fallback
	TOOL_PID=$fpid
	tool_stop $1-fentry
	emit $1-tcp.server /tmp/$1-tcp.server
	emit $1-udp.server /tmp/$1-udp.server
	for ns in A B; do
		/nsl/ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	done
}

# a client that reads back the TX timestamps of its sends from its error
# queue reads no data: no tcp-socket-read sample in its namespace
run_errqueue() {	# run_errqueue NAME MODE
	serve $1 tcp 5008
	tool_start $1 --attach=$2 -n /run/netns/A -e tcp-socket-read
	client $1 tcp 5008 --count 32 --interval-us 10000 --errqueue
	wait $SERVER_JOB
	tool_stop $1
}

# MPTCP reads: samples with -y, mptcp_excluded without (run_mptcp NAME MODE)
run_mptcp() {
	local ypid
	serve $1 tcp 5009 --mptcp
	tool_start $1-y --attach=$2 -n /run/netns/B -e tcp-socket-read -p $SERVER_PID -y
	ypid=$TOOL_PID
	tool_start $1-f --attach=$2 -n /run/netns/B -e tcp-socket-read -p $SERVER_PID
	client $1 tcp 5009 --count 100 --interval-us 2000 --mptcp
	wait $SERVER_JOB
	tool_stop $1-f
	TOOL_PID=$ypid
	tool_stop $1-y
	emit $1.server /tmp/$1.server
}

# -q counts what is still queued after the read, UDP's reader_queue
# included: 50 datagrams queue up before the first of 50 reads, so read i
# leaves 50 - i: 49 reads leave >= 1, 40 leave >= 10 (run_qlen NAME MODE)
run_qlen() {
	local q1
	serve $1 udp 5010 --count 50 --duration-s 60 --start-delay-ms 500
	tool_start $1-q1 --attach=$2 -n /run/netns/B -e udp-socket-read -p $SERVER_PID -q 1
	q1=$TOOL_PID
	tool_start $1-q10 --attach=$2 -n /run/netns/B -e udp-socket-read -p $SERVER_PID -q 10
	client $1 udp 5010 --count 50 --interval-us 200
	wait $SERVER_JOB
	tool_stop $1-q10
	TOOL_PID=$q1
	tool_stop $1-q1
	emit $1.server /tmp/$1.server
}

# UDP reads each preceded by a 0-byte MSG_PEEK of the same datagram: the
# peek must not be a sample (run_peek NAME MODE)
run_peek() {
	serve $1 udp 5013 --count 100 --duration-s 60 --peek
	tool_start $1 --attach=$2 -n /run/netns/B -e udp-socket-read -p $SERVER_PID
	client $1 udp 5013 --count 100 --interval-us 2000 --msg-size 200
	wait $SERVER_JOB
	tool_stop $1
	emit $1.server /tmp/$1.server
}

# A receive queue under pressure, collapsed by TCP (no RX timestamps on
# the rebuilt skbs): every read is a sample or a no_rx_tstamp, in each
# MODE given, all watching the same reads (run_collapse NAME MODE...)
run_collapse() {
	local name=$1 mode pids=()
	shift
	serve $name tcp 5014 --rcvbuf 32768 --read-size 200 --read-delay-ms 10 --duration-s 8
	for mode in "$@"; do
		tool_start $name-$mode --attach=$mode -n /run/netns/B -e tcp-socket-read -p $SERVER_PID
		pids+=($TOOL_PID)
	done
	/nsl/ip netns exec B cat /proc/net/netstat > /tmp/$name.netstat0
	client $name tcp 5014 --count 20000 --msg-size 100 --interval-us 100 --duration-s 4
	wait $SERVER_JOB
	/nsl/ip netns exec B cat /proc/net/netstat > /tmp/$name.netstat1
	for mode in "$@"; do
		TOOL_PID=${pids[0]}
		pids=("${pids[@]:1}")
		tool_stop $name-$mode
	done
	emit $name.server /tmp/$name.server
	emit $name.netstat0 /tmp/$name.netstat0
	emit $name.netstat1 /tmp/$name.netstat1
}

# UDP datagrams queued from CPU 0 (the sender's softirq, over veth) for
# a reader pinned to CPU 1, which takes each one at once: the enqueue
# samples must be read while the skb is still the sender's; a second
# instance samples one in 4 (NAME-s4) (run_pinned NAME MODE)
run_pinned() {
	local pid
	rm -f /tmp/ready
	/nsl/ip netns exec B taskset -c 1 trafficgen server --proto udp --bind $VETH_ADDR \
		--port 5015 --ready-file /tmp/ready --count 2000 --duration-s 60 > /tmp/$1.server &
	SERVER_JOB=$!
	wait_file 60 /tmp/ready || say "GUEST ERROR server $1"
	tool_start $1 --attach=$2 -n /run/netns/B -e udp-socket-enqueued,udp-socket-read
	pid=$TOOL_PID
	tool_start $1-s4 --attach=$2 -n /run/netns/B -e udp-socket-enqueued,udp-socket-read --sample 4
	/nsl/ip netns exec A taskset -c 0 trafficgen client --proto udp --connect $VETH_ADDR \
		--port 5015 --count 2000 --interval-us 200 > /tmp/$1.client
	wait $SERVER_JOB
	tool_stop $1-s4
	TOOL_PID=$pid
	tool_stop $1
	emit $1.server /tmp/$1.server
}

# the HOL scenarios in one attach mode: MODE-hol and MODE-loss
# -I -n -1, a namespace that takes a dead one's inode number (v5.10 to
# v6.17: proc_alloc_inum() hands out the lowest free one) is a group of
# its own, though the walk of dead namespaces missed the death (refused
# here, as where /proc/kallsyms hides addresses): R1 gets 10 datagrams,
# dies, R2 gets 20; the inode numbers go to the host with the report
run_netns_reuse() {
	local k
	: > /tmp/netns-reuse.inos
	NSL_TEST_REJECT=nsl_netns_gone tool_start netns-reuse -I -n -1 -e udp-socket-enqueued \
		--cumulative --group-idle 3600
	for k in 1 2; do
		/nsl/ip netns add R$k && /nsl/ip -n R$k link set lo up || say "GUEST ERROR netns R$k"
		rm -f /tmp/ready
		/nsl/ip netns exec R$k trafficgen server --proto udp --bind 127.0.0.1 --port 5009 \
			--count $((k * 10)) --duration-s 30 --ready-file /tmp/ready > /dev/null &
		wait_file 30 /tmp/ready || say "GUEST ERROR server R$k"
		/nsl/ip netns exec R$k trafficgen client --proto udp --connect 127.0.0.1 --port 5009 \
			--count $((k * 10)) --interval-us 1000 > /dev/null
		wait $!
		stat -L -c %i /run/netns/R$k >> /tmp/netns-reuse.inos
		/nsl/ip netns del R$k
		# cleanup_net() runs from a work queue: its inode number is free after
		sleep 2
	done
	sleep 1.2	# a report after R2's datagrams
	tool_stop netns-reuse
	emit netns-reuse.inos /tmp/netns-reuse.inos
}

run_hol_all() {	# run_hol_all MODE
	testbed_up || return
	# segment 5 and its first retransmission, again every 4: forced RTOs
	run_hol $1-hol $1 "tb_rule_nth 5 1 4" \
		--count 10 --msg-size 2000 --interval-us 400000
	run_hol $1-loss $1 "tb_rule_loss 1 7" \
		--count 1000 --msg-size 2000 --interval-us 1000
	testbed_down
}

# The wall clock stepped back 5 s while the tool is stopped (so that its
# loader cannot follow before the packets come): 20 UDP datagrams
# stamped after the step, read with the old offset, come out 5 s long;
# the BPF side must see the step and count them as clock_step, not
# record them. Then the loader follows (SIGCONT: its timerfd fired) and
# 20 more are recorded. With -v: the tool says where its offset comes
# from. (run_clock_step NAME MODE)
run_clock_step() {
	local t
	serve $1 udp 5016 --count 40 --duration-s 60
	tool_start $1 --attach=$2 -v -n /run/netns/B -e udp-socket-read -p $SERVER_PID
	kill -STOP $TOOL_PID
	t=$(date +%s)
	date -s "@$((t - 5))" > /dev/null || say "GUEST ERROR date -s"
	client $1-a udp 5016 --count 20 --interval-us 2000
	sleep 0.5
	kill -CONT $TOOL_PID
	sleep 1.5
	client $1-b udp 5016 --count 20 --interval-us 2000
	wait $SERVER_JOB
	sleep 0.2
	tool_stop $1
	date -s "@$(($(date +%s) + 5))" > /dev/null
	emit $1.server /tmp/$1.server
}

# Before 5.18 nothing marks a departure time in skb->tstamp, and where a
# packet stays in its namespace nothing clears it either: a veth pair
# inside namespace C, c1 in a VRF, so that C's own TCP goes out c0 and
# comes in on c1 (skb_scrub_packet() clears tstamp only across
# namespaces). Every segment the server gets carries TCP's departure
# time into ip-start and into the read: counted in not_rx_tstamp, never
# a sample. (accept_local: c1 sees a source address that is local to
# C's main tables, the client's; the local table's rule comes before
# the VRF's.) (run_departure NAME MODE)
run_departure() {
	local ns=/run/netns/C
	/nsl/ip netns add C &&
		/nsl/ip -n C link set lo up &&
		/nsl/ip -n C link add v1 type vrf table 10 &&
		/nsl/ip -n C link add c0 type veth peer name c1 &&
		/nsl/ip -n C link set c1 master v1 &&
		/nsl/ip -n C addr add 198.18.2.1/24 dev c0 &&
		/nsl/ip -n C addr add 198.18.2.2/24 dev c1 &&
		/nsl/ip -n C link set v1 up && /nsl/ip -n C link set c0 up &&
		/nsl/ip -n C link set c1 up &&
		/nsl/ip netns exec C sysctl -qw net.ipv4.tcp_l3mdev_accept=1 &&
		/nsl/ip netns exec C sysctl -qw net.ipv4.conf.c1.accept_local=1 &&
		/nsl/ip netns exec C sysctl -qw net.ipv4.ip_nonlocal_bind=1 ||
		{ say "GUEST ERROR vrf setup"; return; }
	rm -f /tmp/ready
	/nsl/ip netns exec C trafficgen server --proto tcp --bind 198.18.2.2 --port 5017 \
		--duration-s 20 --ready-file /tmp/ready > /tmp/$1.server &
	SERVER_JOB=$!
	wait_file 60 /tmp/ready || say "GUEST ERROR server $1"
	SERVER_PID=$(cat /tmp/ready)
	tool_start $1 --attach=$2 -n $ns -e ip-start,tcp-socket-read -p $SERVER_PID
	/nsl/ip netns exec C trafficgen client --proto tcp --connect 198.18.2.2 --port 5017 \
		--count 50 --interval-us 2000 > /tmp/$1.client
	wait $SERVER_JOB
	tool_stop $1
	emit $1.server /tmp/$1.server
	/nsl/ip -n C route show table 10 > /tmp/$1.routes 2>&1
	emit $1.routes /tmp/$1.routes
}

# (list-verbose: what the loader found the kernel's BPF to lack
# (vmK_kernel_probe), and libbpf's and the verifier's account, for a
# failure's post-mortem)
# -l in both modes, and with a program the kernel refuses (it costs its
# hook its method, not every hook), for the host to judge. Two at a time
# on the guest's two CPUs: each is the verifier's work, seconds under TCG,
# and they share nothing (a probe's programs and maps are its own).
lists() {
	local a b
	stamp "lists"
	netstacklat -l > /tmp/list-fentry.out 2>&1 & a=$!
	netstacklat -l --attach=fallback > /tmp/list-fallback.out 2>&1 & b=$!
	wait $a $b
	NSL_TEST_REJECT=fexit_tcp_queue_rcv netstacklat -l > /tmp/list-reject.out 2>&1 & a=$!
	netstacklat -v -l -e udp-socket-read > /tmp/list-verbose.out 2>&1 & b=$!
	wait $a $b
	emit list-auto /tmp/list-fentry.out
	emit list-fallback /tmp/list-fallback.out
	emit list-reject /tmp/list-reject.out
	emit list-verbose /tmp/list-verbose.out
	stamp "lists done"
}

# Two pods behind the node B: P over a routed veth (b1), Q behind a
# bridge br0 whose port is Q's veth (q1), as docker0 or cni0 make them.
handover_up() {
	/nsl/ip netns add P &&
	/nsl/ip link add b1 netns B type veth peer name p0 netns P &&
	/nsl/ip -n B addr add 198.18.5.1/24 dev b1 && /nsl/ip -n P addr add 198.18.5.2/24 dev p0 &&
	/nsl/ip -n P link set lo up && /nsl/ip -n B link set b1 up && /nsl/ip -n P link set p0 up &&
	/nsl/ip netns exec B sysctl -w net.ipv4.ip_forward=1 > /dev/null &&
	/nsl/ip -n A route add 198.18.5.0/24 via $WIRE_ADDR &&
	/nsl/ip -n P route add default via 198.18.5.1 &&
	/nsl/ip netns add Q &&
	/nsl/ip -n B link add br0 type bridge &&
	/nsl/ip link add q1 netns B type veth peer name q0 netns Q &&
	/nsl/ip -n B link set q1 master br0 &&
	/nsl/ip -n B addr add 198.18.6.1/24 dev br0 && /nsl/ip -n Q addr add 198.18.6.2/24 dev q0 &&
	/nsl/ip -n Q link set lo up && /nsl/ip -n B link set br0 up &&
	/nsl/ip -n B link set q1 up && /nsl/ip -n Q link set q0 up &&
	/nsl/ip -n A route add 198.18.6.0/24 via $WIRE_ADDR &&
	/nsl/ip -n Q route add default via 198.18.6.1 || return 1
	# a pod K behind netkit (6.7+), where the kernel has it: made by
	# tests/netkitmk.c (the build host's iproute2 cannot), L3 mode
	NETKIT=
	if /nsl/ip netns add K &&
	   /nsl/ip netns exec B netkitmk k1 k0 /run/netns/K > /tmp/handover.netkit 2>&1; then
		/nsl/ip -n B addr add 198.18.7.1/24 dev k1 && /nsl/ip -n K addr add 198.18.7.2/24 dev k0 &&
		/nsl/ip -n K link set lo up && /nsl/ip -n B link set k1 up &&
		/nsl/ip -n K link set k0 up && /nsl/ip -n K route add default dev k0 &&
		/nsl/ip -n A route add 198.18.7.0/24 via $WIRE_ADDR &&
		NETKIT=1 && echo yes > /tmp/handover.netkit
	fi
	emit handover.netkit /tmp/handover.netkit
	return 0
}

run_handover() {	# run_handover MODE...
	local m pids=() i group=(-I)
	# -I needs BPF atomic fetch-and-add (5.12): 5.10's counts are not grouped
	[[ $(uname -r) == 5.10.* ]] && group=()
	handover_up || { say "GUEST ERROR handover setup"; return; }
	rm -f /tmp/ready /tmp/ready-q
	/nsl/ip netns exec P trafficgen server --proto udp --bind 198.18.5.2 --port 5401 \
		--count 300 --duration-s 60 --ready-file /tmp/ready > /tmp/handover.server &
	SERVER_JOB=$!
	/nsl/ip netns exec Q trafficgen server --proto udp --bind 198.18.6.2 --port 5402 \
		--count 300 --duration-s 60 --ready-file /tmp/ready-q > /tmp/handover.server-q &
	local bridged=$! kit=
	wait_file 60 /tmp/ready && wait_file 60 /tmp/ready-q || say "GUEST ERROR server handover"
	if [ -n "$NETKIT" ]; then
		rm -f /tmp/ready-k
		/nsl/ip netns exec K trafficgen server --proto udp --bind 198.18.7.2 --port 5403 \
			--count 300 --duration-s 60 --ready-file /tmp/ready-k > /tmp/handover.server-k &
		kit=$!
		wait_file 60 /tmp/ready-k || say "GUEST ERROR server handover netkit"
	fi
	for m in "$@"; do
		/nsl/ip netns exec B netstacklat -F json -r 1 -o /tmp/handover-$m.json --attach=$m \
			-n -1 "${group[@]}" -e udp-socket-enqueued,netns-handover --bpf-stats \
			2> /tmp/handover-$m.err &
		pids+=($!)
		i=0
		while ! grep -q attached /tmp/handover-$m.err && [ $i -lt 1200 ]; do
			kill -0 ${pids[-1]} 2>/dev/null || break
			sleep 0.1
			i=$((i + 1))
		done
	done
	/nsl/ip netns exec A trafficgen client --proto udp --connect 198.18.5.2 --port 5401 \
		--count 300 --interval-us 2000 > /tmp/handover.client
	/nsl/ip netns exec A trafficgen client --proto udp --connect 198.18.6.2 --port 5402 \
		--count 300 --interval-us 2000 > /tmp/handover.client-q
	[ -n "$kit" ] && /nsl/ip netns exec A trafficgen client --proto udp --connect 198.18.7.2 \
		--port 5403 --count 300 --interval-us 2000 > /tmp/handover.client-k
	wait $SERVER_JOB $bridged $kit
	for i in "${!pids[@]}"; do
		m=${@:$((i + 1)):1}
		kill -INT ${pids[$i]}
		wait ${pids[$i]}
		echo $? > /tmp/handover-$m.rc
		for f in json err rc; do emit "handover-$m.$f" /tmp/handover-$m.$f; done
	done
	emit handover.server /tmp/handover.server
	emit handover.server-q /tmp/handover.server-q
	[ -n "$kit" ] && emit handover.server-k /tmp/handover.server-k
	# a refused program: libbpf's account of the verifier's, for the host
	if grep -q "refused at load" /tmp/handover-*.err; then
		netstacklat -v -l -e netns-handover 2>&1 | tail -60 > /tmp/handover-verbose
		emit handover-verbose /tmp/handover-verbose
	fi
}
# Linux 5.10: the fentry hooks, one sample per read, the known answer,
# the HOL filter's forced RTO (the same LRU hash as everywhere), the
# clock without bpf_ktime_get_tai_ns(): what 5.10 can serve, cheaply
# (under TCG every scenario costs seconds; docs/vm-test.md)
if [[ $(uname -r) == 5.10.* ]]; then
	lists
	netstacklat -C -l > /tmp/group.out 2>&1
	echo $? > /tmp/group.rc
	emit group.err /tmp/group.out
	emit group.rc /tmp/group.rc
	run_all fentry-all fentry $VETH_ADDR --bpf-stats
	run_reads fentry-reads fentry
	run_udp_reads fentry-udpreads fentry
	run_known fentry-known fentry
	testbed_up && {
		run_hol fentry-hol fentry "tb_rule_nth 5 1 4" \
			--count 10 --msg-size 2000 --interval-us 400000
		testbed_down
	}
	run_clock_step fentry-clock fentry
	run_departure fentry-mono fentry
	run_all fallback-all fallback $WIRE_ADDR
	run_handover fentry
	finish
fi

lists

run_all fentry-all fentry $VETH_ADDR --bpf-stats
run_reads fentry-reads fentry
run_udp_reads fentry-udpreads fentry
run_known fentry-known fentry
run_standing fentry-standing fentry
scenario_on standing_closed && run_standing_closed fentry-standing-closed fentry
scenario_on standing_quiet && run_standing_quiet fentry-standing-quiet fentry
scenario_on standing_splice && run_standing_splice fentry-standing-splice fentry
run_unstamped fentry-unstamped fentry
# 8 buckets per power of two, grouped (shared histograms, atomic adds)
run_known fentry-res8 fentry --resolution 8 -C
run_errqueue fentry-errq fentry
run_mptcp fentry-mptcp fentry
run_qlen fentry-qlen fentry
run_hol_all fentry
scenario_on hol_more && run_hol_more fentry
scenario_on hol_more && run_netns_reuse
run_peek fentry-peek fentry
run_pinned fentry-pinned fentry
# the collapsed reads in both modes at once where tcp-socket-read has both
if ! scenario_on collapse; then
	:
elif [ "$(awk '$1 == "tcp-socket-read" { print $2 }' /tmp/list-fallback.out)" != unavailable ]; then
	run_collapse collapse fentry fallback
else
	run_collapse collapse fentry
fi
# TCP over the wire: the netfilter hooks see it with an RX timestamp
run_all fallback-all fallback $WIRE_ADDR
# the read tests again where tcp-socket-read has a fallback (6.12 and sid, not 6.1)
if [ "$(awk '$1 == "tcp-socket-read" { print $2 }' /tmp/list-fallback.out)" != unavailable ]; then
	run_reads fallback-reads fallback
	run_known fallback-known fallback
	run_errqueue fallback-errq fallback
	run_mptcp fallback-mptcp fallback
	scenario_on fallback_hol && run_hol_all fallback
	run_agree agree
fi
# the standing hooks by fentry beside tracepoint programs of packet hooks,
# where the default mode mixes the methods by itself (sid: test_vm.sh's
# VM_MIXED_TESTS)
[ "$(awk '$1 == "udp-socket-enqueued" { print $2 }' /tmp/list-fentry.out)" = tracepoint ] &&
	run_standing_gated standing-gated
# UDP reads where they have a fallback (6.3 to 6.17: 6.12, not sid): one sample per read,
# and the same latencies as fentry's of the same reads (2 ms in the queue)
if [ "$(awk '$1 == "udp-socket-read" { print $2 }' /tmp/list-fallback.out)" != unavailable ]; then
	run_udp_reads fallback-udpreads fallback
	run_unstamped fallback-unstamped fallback
	run_qlen fallback-qlen fallback
	run_peek fallback-peek fallback
	run_pair pair-udpread udp-socket-read udp "--count 200 --duration-s 60 --read-delay-ms 2" \
		"--count 200 --interval-us 5000"
fi

# netns-handover (opt-in): A sends over the TUN wire to B, which routes
# to a "pod" P over veth (b1 -> p0); the tool runs in B (the node's own
# namespace, where the netfilter fallback's link goes), one instance per
# attach mode at once, on the same 300 datagrams to a reader in P.
if [ "$(awk '/^  / && $1 == "netns-handover" { print $2 }' /tmp/list-fallback.out)" = netfilter ]; then
	run_handover fentry fallback
else
	run_handover fentry
fi
finish
