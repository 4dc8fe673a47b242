# Shared helpers for the integration tests (sourced, bash). Each test is a
# function; run_test prints "RESULT PASS|FAIL|SKIP name [why]" for tests/run.
# Everything made here (namespaces, cgroups, processes, files) is removed by
# the EXIT trap, also when a test fails or the script is interrupted.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NSL=${NSL:-$ROOT/netstacklat}
TG=$ROOT/.output/tests/trafficgen
SETTAI=$ROOT/.output/tests/settai
# Debian's python3 (scripts/install-deps), called by its path: a python3
# earlier in PATH may be a version manager's shim (pyenv's here: 0.34 s
# a start instead of 0.04 s), and the tests ask python thousands of
# questions (the VM test about 400: 50 on 6.1, 190 on 6.12, 155 on sid).
# Debian's directories come first in PATH too, for the python3 of a
# "python3 -c", of a script's "#!/usr/bin/env python3", of a child shell
# (ip netns exec ... bash -c), and for every other tool the tests run:
# those install-deps installed.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
JQ="$PYTHON $ROOT/tests/integration/jsonq.py"
TMP=$(mktemp -d /tmp/nsl-test.XXXXXX)
ID=$$
NS_A=nsl$ID-a		# sender
NS_B=nsl$ID-b		# receiver, where the tool looks by default
NS_C=nsl$ID-c		# idle: no traffic at all
IF_A=nsl$ID-a0
IF_B=nsl$ID-b0
ADDR_A=198.18.0.1 ADDR_B=198.18.0.2
ADDR6_A=fd00:198:18::1 ADDR6_B=fd00:198:18::2
# cgroup v2: /sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid systems
CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
BG_PIDS=()
CGROUPS=()
AT_EXIT=()		# commands that undo a test's changes to the machine
FAILS=()
FAILED_TESTS=0

cleanup() {
	local p cg c
	for c in "${AT_EXIT[@]}"; do eval "$c" > /dev/null 2>&1; done
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	for cg in "${CGROUPS[@]}"; do
		# move stragglers out, then the directory can go
		if [ -f "$cg/cgroup.procs" ]; then
			while read -r p; do echo "$p" > "$CG_ROOT/cgroup.procs" 2>/dev/null; done < "$cg/cgroup.procs"
		fi
		rmdir "$cg" 2>/dev/null
	done
	for ns in "$NS_A" "$NS_B" "$NS_C"; do ip netns del "$ns" 2>/dev/null; done
	# NSL_KEEP_TMP=1: leave the tool's outputs for a post-mortem
	if [ -n "${NSL_KEEP_TMP:-}" ]; then echo "kept: $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Settings of the whole machine that a test changes (the TAI offset,
# net.core.rmem_max) are put back by the EXIT trap; a script killed before
# it could (SIGKILL, a power cut of the VM) leaves its restore command in
# /run/netstacklat-tests (this boot's: both settings reset at boot), run
# by the next script that starts (issue #46 item 6). ns_last_pid, which
# test_core writes, is not restored: pids only count on from there.
STATE_DIR=/run/netstacklat-tests
GLOBAL_N=0

# change_global RESTORE: journaled before the test changes the setting
change_global() {
	local f
	mkdir -p "$STATE_DIR" || return 1
	GLOBAL_N=$((GLOBAL_N + 1))
	f=$STATE_DIR/$$-$GLOBAL_N.restore
	printf '%s\n' "$1" > "$f" || return 1
	AT_EXIT+=("$1 && rm -f $f")
}

# what scripts that are gone (no process of their pid) left to restore
restore_leftovers() {
	local f pid
	for f in "$STATE_DIR"/*.restore; do
		[ -f "$f" ] || continue
		pid=${f##*/} pid=${pid%%-*}
		kill -0 "$pid" 2> /dev/null && continue	# it still runs
		echo "  restoring what a killed test script left: $(cat "$f")" >&2
		bash -c "$(cat "$f")" && rm -f "$f"
	done
}
[ "$(id -u)" -eq 0 ] && restore_leftovers

# declare_tests NAME...: the tests this script will give a RESULT for,
# told to tests/run before any runs: one that never gets its RESULT (the
# script died, hung, or lost it) counts as failed there.
declare_tests() {
	echo "TESTS $*"
}

# skip_tests NAME...: these tests are SKIPs, because of SKIP_WHY.
skip_tests() {
	local t
	for t in "$@"; do echo "RESULT SKIP $t ($SKIP_WHY)"; done
}

# Missing prerequisites make every test of the script a SKIP, with the reason.
skip_all() {
	skip_tests "$@"
	exit 0
}

# need WHY COMMAND...: runs COMMAND; if it fails, every test of the suite
# (TESTS) is a SKIP because of WHY (or the SKIP_WHY COMMAND set, if WHY is
# empty) and the suite ends.
need() {
	local why=$1; shift
	"$@" && return 0
	SKIP_WHY=${why:-$SKIP_WHY}
	skip_all "${TESTS[@]}"
}

# must WHY COMMAND...: set-up by the project's own code (a program
# `make test` builds, a wire or testbed of ours): if it fails, every test
# of the suite FAILs because of WHY and the suite ends. A SKIP is for
# what the machine lacks (need), never for our own code broken (#46).
must() {
	local why=$1 t; shift
	"$@" && return 0
	declare_tests "${TESTS[@]}"
	for t in "${TESTS[@]}"; do echo "RESULT FAIL $t ($why)"; done
	exit 1
}

# run_tests: every test of the suite, in order; the suite's exit status
# says whether one failed (tests/run counts RESULT lines, make test-vm
# goes by the status). NSL_TESTS="name ..." runs only those (for work on
# one test, e.g. running a flaky one many times); NSL_LEAVE_OUT="name
# ..." all but those (test_sanitizers.sh); a name the suite does not have
# is an error.
run_tests() {
	local t kept=()
	local -A out=()
	for t in ${NSL_TESTS:-} ${NSL_LEAVE_OUT:-}; do
		[[ " ${TESTS[*]} " == *" $t "* ]] || { echo "RESULT FAIL $t (no such test here)"; return 1; }
	done
	[ -n "${NSL_TESTS:-}" ] && TESTS=($NSL_TESTS)
	for t in ${NSL_LEAVE_OUT:-}; do out[$t]=1; done
	for t in "${TESTS[@]}"; do
		[ -n "${out[$t]:-}" ] || kept+=("$t")
	done
	TESTS=("${kept[@]}")
	declare_tests "${TESTS[@]}"
	for t in "${TESTS[@]}"; do run_test "$t"; done
	[ "$FAILED_TESTS" -eq 0 ]
}

# what every suite needs: our programs built (else FAIL), root, BTF, ip
prereqs() {
	must "./netstacklat not built (make)" test -x "$NSL"
	must "traffic generator not built (make test-progs)" test -x "$TG"
	SKIP_WHY=
	[ "$(id -u)" -eq 0 ] || SKIP_WHY="needs root"
	[ -r /sys/kernel/btf/vmlinux ] || SKIP_WHY="kernel without BTF"
	command -v ip >/dev/null || SKIP_WHY="iproute2 missing"
	[ -z "$SKIP_WHY" ]
}

setup_netns() {
	ip netns add "$NS_A" && ip netns add "$NS_B" && ip netns add "$NS_C" || return 1
	ip link add "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B" || return 1
	ip -n "$NS_A" addr add $ADDR_A/24 dev "$IF_A"
	ip -n "$NS_B" addr add $ADDR_B/24 dev "$IF_B"
	ip -n "$NS_A" addr add $ADDR6_A/64 dev "$IF_A" nodad
	ip -n "$NS_B" addr add $ADDR6_B/64 dev "$IF_B" nodad
	for ns in "$NS_A" "$NS_B" "$NS_C"; do ip -n "$ns" link set lo up; done
	ip -n "$NS_A" link set "$IF_A" up && ip -n "$NS_B" link set "$IF_B" up
}

fail() {
	FAILS+=("$*")
}

# expect DESCRIPTION ACTUAL OP EXPECTED  (OP: -eq -ne -gt -ge -lt -le, or = !=)
expect() {
	local what=$1 a=$2 op=$3 b=$4
	if [ "$op" = "=" ] || [ "$op" = "!=" ]; then
		[ "$a" "$op" "$b" ] && return 0
	elif [[ "$a" =~ ^[0-9]+$ ]] && [ "$a" "$op" "$b" ]; then
		return 0
	fi
	fail "$what: got '$a', expected $op '$b'"
	return 1
}

# have_cgroup2: a cgroup v2 hierarchy this script may make cgroups in
have_cgroup2() {
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ]
}

# skip WHY: the running test needs something this machine lacks.
skip() {
	SKIP_REASON=$*
}

# run_test NAME [COMMAND...]: runs COMMAND (default: the function NAME) as
# the test NAME.
run_test() {
	local name=$1
	shift
	FAILS=() SKIP_REASON=
	# scripts/asan-select: what each test's netstacklat runs, in a
	# directory of its own (gcov's data of a --coverage build)
	if [ -n "${NSL_COVERAGE_DIR:-}" ]; then
		export GCOV_PREFIX=$NSL_COVERAGE_DIR/$name
	fi
	# a test that is not defined (yet: a file that calls run_tests before
	# defining it) must not pass
	if [ $# -eq 0 ] && ! declare -F "$name" > /dev/null; then
		fail "no test function $name defined (before run_tests)"
	else
		"${@:-$name}"
	fi
	if [ -n "$SKIP_REASON" ] && [ ${#FAILS[@]} -eq 0 ]; then
		echo "RESULT SKIP $name ($SKIP_REASON)"
	elif [ ${#FAILS[@]} -eq 0 ]; then
		echo "RESULT PASS $name"
	else
		printf '  %s\n' "${FAILS[@]}"
		[ -s "$TMP/tool.err" ] && sed 's/^/  tool: /' "$TMP/tool.err" | tail -5
		# the first reason rides along into tests/run's closing list,
		# so that a log's tail says why, not only what
		echo "RESULT FAIL $name (${FAILS[0]:0:160})"
		FAILED_TESTS=$((FAILED_TESTS + 1))
	fi
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds. COMMAND's
# words are expanded once, before the first try: a condition on a value
# that changes ("$($JQ ...)", "$(namer_of ...)") goes in single quotes
# after eval, or the poll asks the same question of the same answer and
# waits out its SECONDS (test_standing's waits for an episode did so:
# 5 to 10 s each).
wait_for() {
	local deadline=$((SECONDS + $1)); shift
	until "$@"; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.05
	done
}

# start_tool OUT ARGS...: runs netstacklat with JSON to OUT (a report every
# REPORT_EVERY seconds, default 1), returns once attached.
start_tool() {
	local out=$1; shift
	: > "$TMP/tool.err"
	# TOOL_IN_NETNS: the tool runs in that namespace (ip netns exec execs it)
	${TOOL_IN_NETNS:+ip netns exec "$TOOL_IN_NETNS"} "$NSL" -F json -r "${REPORT_EVERY:-1}" \
		-o "$out" "$@" 2> "$TMP/tool.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	if ! wait_for 20 grep -q "attached" "$TMP/tool.err"; then
		fail "tool did not attach: $(tail -3 "$TMP/tool.err")"
		return 1
	fi
}

# stop_tool: SIGINT, which must give a final report and exit 0; and the
# tool's helpers (its container namer, its /metrics server) must not have
# ended on the way, unless the test ends them (HELPERS_END=1): the tool
# goes on without them, so only its warning in $TMP/tool.err tells (a
# server that cannot have namespaces or limits of its own did not end)
stop_tool() {
	local rc ended
	kill -INT "$TOOL_PID" 2>/dev/null
	wait "$TOOL_PID"; rc=$?
	expect "tool exit status after SIGINT" "$rc" -eq 0
	ended=$(grep -e "the container namer " -e "--listen: the server process" \
		"$TMP/tool.err" 2>/dev/null | grep -v -m1 "the server process cannot ")
	[ -n "$ended" ] && [ -z "${HELPERS_END:-}" ] && fail "a helper of the tool ended: $ended"
	return 0
}

# serve PROTO PORT ARGS...: trafficgen server in NS_B; SERVER_PID once ready.
# SERVE_PREFIX runs it under a command (test_hol: chrt).
serve() {
	local proto=$1 port=$2 addr=${SRV_ADDR:-$ADDR_B}; shift 2
	[ "${V6:-0}" = 1 ] && addr=$ADDR6_B
	rm -f "$TMP/ready"
	# shellcheck disable=SC2086 # SERVE_PREFIX: words, e.g. "chrt -f 10"
	ip netns exec "$NS_B" ${SERVE_PREFIX:-} "$TG" server --proto "$proto" --bind "$addr" --port "$port" \
		--ready-file "$TMP/ready" --report "$TMP/server.json" "$@" > /dev/null &
	BG_PIDS+=($!)
	SERVER_JOB=$!
	wait_for 10 test -s "$TMP/ready" || { fail "server did not start"; return 1; }
	SERVER_PID=$(cat "$TMP/ready")
}

# client PROTO PORT ARGS...: trafficgen client in NS_A, to completion.
client() {
	local proto=$1 port=$2 addr=${SRV_ADDR:-$ADDR_B}; shift 2
	[ "${V6:-0}" = 1 ] && addr=$ADDR6_B
	ip netns exec "$NS_A" "$TG" client --proto "$proto" --connect "$addr" --port "$port" "$@" \
		> "$TMP/client.json" || fail "client failed: $(cat "$TMP/client.json")"
}

wait_server() {
	wait "$SERVER_JOB" || fail "server exited with $?"
}

# udp_queued NS PORT: bytes the UDP socket bound to PORT in NS has charged
# to its receive memory (ss's Recv-Q, sk_rmem_alloc); "" if none is bound
udp_queued() {
	ip netns exec "$1" ss -Huan "sport = :$2" | awk '{ print $2; exit }'
}

# udp_drained NS PORT: every datagram that came to the socket was read,
# or the socket is gone (its server ended). A datagram stays charged to
# sk_rmem_alloc until read, and what reads from the reader_queue free is
# given back at the latest when that queue runs empty
# (udp_rmem_release()): 0 only once nothing is queued.
udp_drained() {
	local q
	q=$(udp_queued "$1" "$2")
	[ -z "$q" ] || [ "$q" = 0 ]
}

# end_udp_server PORT [OUT]: serve's UDP server, whose sender is done,
# ended as soon as it has read all that came and one of the tool's
# reports (to OUT, default $TMP/out.json) is written after that:
# datagrams still on their way are read by then, and the report's walk
# sees the drained queue, as in the idle rest of a longer --duration-s;
# then SIGTERM (trafficgen writes its report and exits 0) and
# wait_server. What it saves is that idle rest; --duration-s stays the
# server's bound (a queue that never drains ends there, as before). The
# tool's report at its SIGINT (stop_tool) is then a whole tick after the
# server's close, its walks included: no need to wait for another.
end_udp_server() {
	local out=${2:-$TMP/out.json} n
	if wait_for 30 udp_drained "$NS_B" "$1"; then
		# (nothing while the tool writes one: asked again)
		wait_for 5 eval 'n=$(reports_in "$out" 2> /dev/null); [[ "$n" =~ ^[0-9]+$ ]]' &&
			wait_for 10 more_reports "$out" "$n"
		kill -TERM "$SERVER_PID" 2> /dev/null
	fi
	wait_server
}

# expect_sampled WHAT S N TOTAL [CPUS [part]]: S samples under --sample N
# of TOTAL packets (or, with "part", of TOTAL among more packets, the
# same hook's) are TOTAL/N give or take 5 standard deviations, about one
# run in 1.7 million outside by chance. Each CPU lets a uniform 0..2N-2
# packets pass after each it records (include/sample.h): a renewal count
# of variance TOTAL (N-1) / (3 N^2), and each CPU's first packet is
# recorded, up to CPUS (default: this machine's) more. A part of the
# stream is judged by the binomial variance TOTAL (1/N) (1 - 1/N), wider.
expect_sampled() {
	local what=$1 s=$2 n=$3 total=$4 cpus=${5:-$(nproc)} part=${6:-} lo hi
	read -r lo hi < <(awk -v t="$total" -v n="$n" -v c="$cpus" -v part="$part" 'BEGIN {
		v = part ? t / n * (1 - 1 / n) : t * (n - 1) / (3 * n * n)
		d = 5 * sqrt(v); m = t / n
		lo = m - d; if (lo < 0) lo = 0
		hi = m + d + c; if (hi > int(hi)) hi = int(hi) + 1
		printf "%d %d\n", int(lo), hi }')
	expect "$what: samples of $total under --sample $n, mean - 5 sigma ($lo)" "$s" -ge "$lo" || return
	expect "$what: samples of $total under --sample $n, mean + 5 sigma + $cpus CPUs' first ($hi)" "$s" -le "$hi"
}

# json_field FILE FIELD: a number from a trafficgen report; where FILE or
# FIELD is missing, "jsonq-error" and status 1, as jsonq.py answers
json_field() {
	"$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" ||
		{ echo jsonq-error; return 1; }
}

# Hooks that attach on this kernel (from -l), space-separated.
attached_hooks() {
	"$NSL" -l "$@" | awk '$2 != "unavailable" && /^  / { print $1 }' | tr '\n' ' ' | sed 's/ $//'
}

# default_hooks: the hooks a run without -e or -d enables, as a list for
# -e: every hook -l lists but the opt-in ones (its "(opt-in: ...)" line).
# A run's hooks compared with -l are compared with `-l -e` exactly these.
default_hooks() {
	"$NSL" -l 2> /dev/null | default_hooks_in
}

# default_hooks_in: the same of the -l output on stdin (another binary's)
default_hooks_in() {
	awk '
		/^  / { hooks[++n] = $1 }
		/^\(opt-in: / {
			sub(/^\(opt-in: /, ""); sub(/ run only when .*/, "")
			for (i = split($0, o, ", "); i > 0; i--) opt[o[i]] = 1
		}
		END {
			for (i = 1; i <= n; i++)
				if (!(hooks[i] in opt)) list = list (list == "" ? "" : ",") hooks[i]
			print list
		}'
}

# A TUN-based wire between NS_A and NS_B (tests/tunwire.c): packets arrive
# in NS_B as fresh skbs with real RX timestamps, as from a NIC, unlike veth.
WIRE=$ROOT/.output/tests/tunwire
TUN_A=nsl$ID-ta TUN_B=nsl$ID-tb
TADDR_A=198.19.0.1 TADDR_B=198.19.0.2
TADDR6_A=fd00:198:19::1 TADDR6_B=fd00:198:19::2

# WIRE_OPTS: the wire's options (e.g. "--delay-us 17000 --stats FILE").
setup_tunwire() {
	rm -f "$TMP/wire.ready"
	# shellcheck disable=SC2086
	"$WIRE" ${WIRE_OPTS:-} "/run/netns/$NS_A" "$TUN_A" "/run/netns/$NS_B" "$TUN_B" "$TMP/wire.ready" &
	BG_PIDS+=($!)
	wait_for 10 test -s "$TMP/wire.ready" || return 1
	ip -n "$NS_A" addr add $TADDR_A/24 dev "$TUN_A" &&
	ip -n "$NS_B" addr add $TADDR_B/24 dev "$TUN_B" &&
	ip -n "$NS_A" addr add $TADDR6_A/64 dev "$TUN_A" nodad &&
	ip -n "$NS_B" addr add $TADDR6_B/64 dev "$TUN_B" nodad &&
	ip -n "$NS_A" link set "$TUN_A" up && ip -n "$NS_B" link set "$TUN_B" up
}

# A "pod" behind NS_B (the "node", ip_forward=1) over veth, reached from
# NS_A over the TUN wire: packets the node hands over to the pod's
# namespace (netns-handover) with real RX stamps (test_handover.sh,
# test_prometheus.sh's dashboard).
NS_P=nsl$ID-p		# the pod
IF_HN=nsl$ID-hn		# the node's end of the pod's veth
IF_HP=nsl$ID-hp		# the pod's end
PADDR_N=198.18.5.1 PADDR_P=198.18.5.2
PADDR6_N=fd00:198:18:5::1 PADDR6_P=fd00:198:18:5::2

setup_pod() {
	AT_EXIT+=("ip netns del $NS_P")
	ip netns add "$NS_P" || return 1
	ip -n "$NS_P" link set lo up
	ip link add "$IF_HN" netns "$NS_B" type veth peer name "$IF_HP" netns "$NS_P" || return 1
	ip -n "$NS_B" addr add $PADDR_N/24 dev "$IF_HN"
	ip -n "$NS_P" addr add $PADDR_P/24 dev "$IF_HP"
	ip -n "$NS_B" addr add $PADDR6_N/64 dev "$IF_HN" nodad
	ip -n "$NS_P" addr add $PADDR6_P/64 dev "$IF_HP" nodad
	ip -n "$NS_B" link set "$IF_HN" up && ip -n "$NS_P" link set "$IF_HP" up || return 1
	ip netns exec "$NS_B" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	ip -n "$NS_A" route add 198.18.5.0/24 via $TADDR_B &&
	ip -n "$NS_P" route add default via $PADDR_N &&
	ip -n "$NS_A" -6 route add fd00:198:18:5::/64 via $TADDR6_B &&
	ip -n "$NS_P" -6 route add default via $PADDR6_N
}

# The tool inside the node (its "own" namespace is the node's, where the
# netfilter link goes), under its own PID (ip netns exec execs it).
node_tool() {
	printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$NS_B" "$NSL" > "$TMP/nsl-node"
	chmod +x "$TMP/nsl-node"
	NSL=$TMP/nsl-node start_tool "$@"
}

# reports_in FILE: the whole reports FILE holds so far (nothing while the
# tool is writing one)
reports_in() {
	$JQ "$1" lines
}

# more_reports FILE N: FILE holds more than N reports (re-read each call)
more_reports() {
	[ "$(reports_in "$1")" -gt "$2" ] 2> /dev/null
}

# child_of PID: PID's first child process but its container namer (the
# tool's jailed /metrics server, src/4-sink/jailchild.c), or nothing.
child_of() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		namer_is "$c" || { echo "$c"; return; }
	done
}

# call_in PID NAME ARGS...: system call NAME with ARGS made by PID (which
# waits in one), as code of an attacker's in it would (syscall_in.py,
# x86-64 only); "= RET" once it went on, or "SIGSYS" if the call killed
# it. Not gdb's `call`: Debian's gdb 13 cannot restore the registers of a
# CPU with AMX ("Couldn't write extended state status", Sapphire Rapids).
call_in() {
	local pid=$1 name=$2; shift 2
	timeout 30 "$PYTHON" "$ROOT/tests/integration/syscall_in.py" "$pid" "$(syscall_nr "$name")" "$@" 2>&1
}

syscall_nr() {	# syscall_nr NAME: the system call's number here (x86-64 or arm64)
	"$PYTHON" -c 'import sys
tables = {"x86_64": {"tgkill": 234, "tkill": 200, "sendmsg": 46, "fcntl": 72,
		      "setsockopt": 54, "mremap": 25, "socket": 41, "openat": 257,
		      "kill": 62, "execve": 59},
	  "aarch64": {"tgkill": 131, "tkill": 130, "sendmsg": 211, "fcntl": 25,
		      "setsockopt": 208, "mremap": 216, "socket": 198, "openat": 56,
		      "kill": 129, "execve": 221}}
print(tables[__import__("os").uname().machine][sys.argv[1]])' "$1"
}

# namer_is PID: PID is a tool's container namer (src/2-collect/namer.c)
namer_is() {
	tr '\0' ' ' < /proc/"$1"/cmdline 2>/dev/null | grep -q -- '--namer-process--'
}

# namer_of PID: the tool PID's container namer, if it has one
namer_of() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		namer_is "$c" && { echo "$c"; return; }
	done
}

# jail_server PID: the tool PID's jailed /metrics server, the child of its
# child the starter (src/4-sink/jailproc.c)
jail_server() {
	local starter
	starter=$(child_of "$1") && [ -n "$starter" ] && child_of "$starter"
}

# bpf_ids_of prog|link|map PID: ids of the BPF programs, links or maps PID holds open
# (from /proc/PID/fdinfo: bpftool here cannot show owners).
bpf_ids_of() {
	cat /proc/"$2"/fdinfo/* 2>/dev/null | awk -v k="$1_id:" '$1 == k { print $2 }' |
		sort -un | tr '\n' ' '
}

# prog_recursion_misses PID NAME: the kernel's recursion_misses summed over
# the programs named NAME that PID holds (bpftool prints none while 0).
prog_recursion_misses() {
	local id sum=0 m
	for id in $(bpf_ids_of prog "$1"); do
		m=$(bpftool -j prog show id "$id" 2>/dev/null | "$PYTHON" -c '
import json, sys
p = json.load(sys.stdin)
print(p.get("recursion_misses", 0) if p.get("name") == sys.argv[1] else 0)' "$2")
		sum=$((sum + ${m:-0}))
	done
	echo "$sum"
}

# bpf_ids_alive prog|link|map IDS...: how many of these ids still exist.
bpf_ids_alive() {
	local kind=$1; shift
	bpftool -j "$kind" show 2>/dev/null | python3 -c '
import json, sys
want = set(int(i) for i in sys.argv[1:])
print(sum(1 for o in json.load(sys.stdin) or [] if o["id"] in want))' "$@"
}

# expect_unstamped FILE READS: the tool's JSON from READS datagrams whose
# RX stamp the testbed's unstamp program cleared: every hook of the four
# UDP ones that attached sampled none and counted each in no_rx_tstamp
# (the enqueue fallback may find one read already, queue_empty, or count
# a repeat of its tail, unchanged_tail; both 0 in fentry mode).
expect_unstamped() {
	local f=$1 reads=$2 attached h n c
	attached=" $($JQ "$f" hooks) "
	for h in ip-start udp-start udp-socket-enqueued udp-socket-read; do
		if [[ $attached != *" $h "* ]]; then
			echo "  $h: not attached on this kernel"
			continue
		fi
		n=$($JQ "$f" count $h)
		c=$($JQ "$f" counter $h no_rx_tstamp)
		echo "  $h: $n samples, $c no_rx_tstamp"
		expect "$h samples of unstamped packets" "$n" -eq 0
		[ $h = udp-socket-enqueued ] &&
			c=$((c + $($JQ "$f" counter $h queue_empty) +
			       $($JQ "$f" counter $h unchanged_tail)))
		expect "$h no_rx_tstamp (enqueue: + queue_empty + unchanged_tail), one per datagram" \
			"$c" -ge "$reads"
	done
}

# expect_reads_within TOOL_JSON SERVER_JSON: the tool's tcp-socket-read
# samples against the reads of a reader with --read-delay-ms 50
# --rx-stamps (trafficgen): each sample lies between its read's call and
# return, measured from the stamp that read returned; a read below 50 ms
# is one whose stamp came after the reader's poll, named (readcheck.py)
expect_reads_within() {
	local out rc
	out=$("$PYTHON" "$ROOT/tests/integration/readcheck.py" "$1" "$2" tcp-socket-read 50000000)
	rc=$?
	printf '%s\n' "$out" | sed '$d'
	[ $rc = 0 ] || fail "reads of $(basename "$2"): $(printf '%s\n' "$out" | tail -1)"
}

# expect_known_answer FILE [READS]: the tool's JSON from a reader that let
# data wait 50 ms before each of its reads of 10 messages 100 ms apart:
# one sample per read, every read sample >= 50 ms (at bucket resolution:
# in (2^25, 2^26] ns or above; the exact average >= 50 ms). READS, the
# server's count, where a reader woken 50 ms late took two messages in one
# read (a loaded machine); 10 without it.
expect_known_answer() {
	local f=$1 reads=${2:-10} n sum
	n=$($JQ "$f" count tcp-socket-read) || { fail "no JSON from the known-answer run"; return 1; }
	sum=$($JQ "$f" sum tcp-socket-read)
	expect "server reads of the 10 messages" "$reads" -ge 8 || return 1
	expect "tcp-socket-read samples (server reads)" "$n" -eq "$reads" || return 1
	expect "smallest read bucket bound (ns)" "$($JQ "$f" min_le tcp-socket-read)" -ge $((1 << 26))
	expect "average read latency (ns)" "$((sum / n))" -ge 50000000
	n=$($JQ "$f" count tcp-socket-enqueued)
	sum=$($JQ "$f" sum tcp-socket-enqueued)
	expect "tcp-socket-enqueued samples" "$n" -ge 10 || return 1
	expect "average enqueue latency (ns), far below 50 ms" "$((sum / n))" -lt 5000000
}

# What the kernel ran in PID 1's context. The kernel of the machines this
# project is tested on (6.18.44-fc, a sandbox's build) does not run a BPF
# tracing program while a thread of PID 1 (the sandbox's init) is the
# current task: bpf_trace_run1() returns at once when current->tgid is 1
# and a flag of the program's (not settable by the tool) is clear, and
# counts nothing, not even a recursion miss (read in its machine code:
# 'cmpl $1, 0x4f4(current)', task_struct.tgid). Upstream kernels have no
# such check (kernel/trace/bpf_trace.c, __bpf_trace_run()). A softirq runs
# in whatever task it interrupts, so a datagram a timer releases (tbf's
# watchdog) while PID 1 runs passes the tracepoint hooks unseen, by every
# one of them alike; netfilter programs run. Measured (issue #33 item 2):
# perf's count of sk_data_ready in PID 1's threads equalled the datagrams
# neither sampled nor counted, run after run (4 of 6060: 6056 samples).
#
# init_ctx_start EVENT FILTER [EVENT FILTER]...: perf counts each
# tracepoint EVENT that passes FILTER (perf's --filter syntax) while one of
# PID 1's threads (those of now) runs; init_ctx_stop sets INIT_CTX[i] to
# the i-th count. Without perf (or tracefs), INIT_CTX_WHY says why and the
# counts are 0: nothing is excused, and a test that needed it fails saying
# so.
init_ctx_start() {
	local tids args=() n=0 pid
	INIT_CTX=() INIT_CTX_PID= INIT_CTX_WHY=
	command -v perf > /dev/null || { INIT_CTX_WHY="perf missing (linux-perf)"; return 1; }
	if [ ! -d /sys/kernel/tracing/events/sock ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null ||
			{ INIT_CTX_WHY="cannot mount tracefs"; return 1; }
		AT_EXIT+=("umount /sys/kernel/tracing")
	fi
	tids=$(ls /proc/1/task | sed 's/^/common_pid == /' | paste -sd '|' | sed 's/|/ || /g')
	while [ $# -ge 2 ]; do
		args+=(-e "$1" --filter "($2) && ($tids)")
		n=$((n + 1))
		shift 2
	done
	perf stat -x, -a -o "$TMP/init_ctx.csv" "${args[@]}" > /dev/null 2>&1 &
	pid=$!
	BG_PIDS+=("$pid")
	# counting once perf holds an event per CPU and tracepoint
	if ! wait_for 10 perf_fds_at_least "$pid" $((n * $(nproc))); then
		kill -KILL "$pid" 2> /dev/null
		INIT_CTX_WHY="perf stat did not start counting"
		return 1
	fi
	INIT_CTX_PID=$pid
}

# perf_fds_at_least PID N: PID holds N perf events or more
perf_fds_at_least() {
	[ "$(ls -l "/proc/$1/fd" 2> /dev/null | grep -c perf_event)" -ge "$2" ]
}

init_ctx_stop() {
	local i
	INIT_CTX=()
	[ -n "$INIT_CTX_PID" ] || return 1
	kill -INT "$INIT_CTX_PID" 2> /dev/null
	wait "$INIT_CTX_PID" 2> /dev/null
	INIT_CTX_PID=
	mapfile -t INIT_CTX < <(awk -F, '/^[0-9]+,/ { print $1 }' "$TMP/init_ctx.csv")
	for i in "${!INIT_CTX[@]}"; do [[ "${INIT_CTX[$i]}" =~ ^[0-9]+$ ]] || INIT_CTX[$i]=0; done
	[ ${#INIT_CTX[@]} -gt 0 ] || { INIT_CTX_WHY="perf stat counted nothing: $(head -c 200 "$TMP/init_ctx.csv")"; return 1; }
}
