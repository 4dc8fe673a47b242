# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Bench library (bash, sourced after tests/integration/lib.sh, whose ROOT,
# TMP, namespaces, BG_PIDS and wait_for it uses): what scripts/bench and
# scripts/bench-http share. It sets no traps: the caller owns cleanup.
#
#   log, die                 messages as "$BENCH_NAME: ..." (default bench)
#   need_pkg CMD PKG         install Debian's PKG where CMD is missing,
#                            never starting a service it ships
#   build OUT SRC... -- CMD  rebuild OUT when a SRC is newer
#   build_floor              the floor's object and its loader (FLOOR_OBJ,
#                            FLOORLOAD; FLOOR_SHAPE: its empty programs in
#                            netstacklat's shape)
#   machine_header           the machine, for the header of the raw data
#   wait_quiet, machine_quiet   wait for others' work to end (--patience)
#   quiet_run KEY LABEL CMD...  one measured run, repeated when disturbed
#   start_floorload [ARGS]   floorload in NS_B (FLOOR_PID); stop_pid PID
#   check_fails WHAT         abort on lib.sh's FAILS, naming WHAT
#   snapshot NAME            every BPF program's counters, RAW/NAME.progs.json
#   standing_hooks           -e's list: the default hooks that attach here,
#                            and both standing-queue hooks (opt-in)

BENCH_NAME=${BENCH_NAME:-bench}
BUILD=$ROOT/.output/bench
FLOORLOAD=$BUILD/floorload
FLOOR_OBJ=$BUILD/floor.bpf.o
ARCH=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CFLAGS="-O2 -g -std=gnu11 -Wall -Wextra -Werror"
# the empty programs of floor.bpf.c in netstacklat's shape: what running
# that many programs per packet costs, whatever they do
# shellcheck disable=SC2034  # used by the benches that source this
FLOOR_SHAPE=nf_pre_empty,nf_floor_empty,floor_empty,floor_empty_cp,floor_empty_rl

log() { printf '%s: %s\n' "$BENCH_NAME" "$*" >&2; }
die() { log "$*"; exit 1; }

# need_pkg COMMAND PACKAGE: install PACKAGE if COMMAND is missing (adds it
# to NEW_PKGS). A bench never starts a service: where the machine has no
# policy-rc.d, one that forbids every start is in place for the install
# (invoke-rc.d and deb-systemd-invoke ask it), and removed again.
NEW_PKGS=()
need_pkg() {
	local policy=/usr/sbin/policy-rc.d ours="" rc
	command -v "$1" >/dev/null && return 0
	log "installing $2"
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && ours=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$2"; } >&2
	rc=$?
	[ -n "$ours" ] && rm -f "$policy"
	[ $rc -eq 0 ] || die "cannot install $2"
	NEW_PKGS+=("$2")
}

# build OUTPUT SOURCE... -- COMMAND...: the bench's own helpers, rebuilt
# when their source is newer.
build() {
	local out=$1 stale=; shift
	while [ "$1" != -- ]; do
		[ "$1" -nt "$out" ] && stale=1
		shift
	done
	shift
	[ -z "$stale" ] && [ -e "$out" ] && return 0
	printf '  %-8s %s\n' BENCH "${out#"$ROOT"/}" >&2
	"$@" || die "cannot build $out"
}

build_floor() {
	mkdir -p "$BUILD" || die "cannot create $BUILD"
	build "$FLOOR_OBJ" tests/bench/floor.bpf.c -- \
		clang -g -O2 -target bpf -D__TARGET_ARCH_$ARCH -Wall -Werror -Ivmlinux/$ARCH \
		-c tests/bench/floor.bpf.c -o "$FLOOR_OBJ"
	# shellcheck disable=SC2046,SC2086
	build "$FLOORLOAD" tests/bench/floorload.c src/1-setup/nflink.c src/1-setup/nflink.h -- \
		gcc $CFLAGS -Isrc/1-setup tests/bench/floorload.c src/1-setup/nflink.c \
		$(pkg-config --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz -o "$FLOORLOAD"
}

# Other processes' BPF programs run on the same events and share the CPUs:
# name them in the header (their owners are other users of this machine).
others_with_bpf() {
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = $$ ] && continue
		grep -qs '^prog_id:' "$d"/fdinfo/* 2>/dev/null &&
			printf '%s(%s) ' "$(cat "$d/comm" 2>/dev/null)" "$pid"
	done
}

machine_header() {	# key=value lines
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "cpus=$(nproc)"
	echo "mem_gib=$(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
	echo "virt=$(grep -qw hypervisor /proc/cpuinfo && echo "virtual machine" || echo "bare metal")"
	echo "kernel=$(uname -r)"
	echo "tool_commit=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "others=$(others_with_bpf)"
	echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
}

# The machine may be shared. Others' work shows as busy CPUs and, for test
# runs, as hundreds of new processes a second: wait (up to PATIENCE
# seconds) until neither is seen before each measured block.
machine_quiet() {	# over half a second: < 10 % busy, < 10 processes started
	local a b p0 p1
	read -r p0 < /proc/sys/kernel/ns_last_pid
	read -ra a < /proc/stat
	sleep 0.5
	read -ra b < /proc/stat
	read -r p1 < /proc/sys/kernel/ns_last_pid
	local idle=$((b[4] + b[5] - a[4] - a[5]))
	# user nice system, irq softirq steal
	local busy=$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] -
		      a[1] - a[2] - a[3] - a[6] - a[7] - a[8]))
	local pct=$((100 * busy / (busy + idle + 1)))
	QUIET_WHY="$pct % busy, $((p1 - p0)) processes started in 0.5 s"
	[ "$pct" -lt 10 ] && [ $((p1 - p0)) -lt 10 ]
}
NOISY=0
WAITED=0
wait_quiet() {
	local i start=$SECONDS
	for ((i = 0; i < 2 * PATIENCE; i++)); do
		if machine_quiet; then
			WAITED=$((WAITED + SECONDS - start))
			return 0
		fi
		[ "$i" -eq 0 ] && log "waiting for the machine to be quiet ($QUIET_WHY)"
	done
	WAITED=$((WAITED + SECONDS - start))
	log "still not quiet after $PATIENCE s ($QUIET_WHY): measuring anyway"
	NOISY=$((NOISY + 1))
}

# quiet_run KEY LABEL COMMAND...: one measured run. A run after which the
# machine is not quiet, or during which others started more processes than
# the run itself does (OWN_PROCESSES), is repeated (twice at most); each
# try is a line "KEY TRY PROCESSES" in RUNS_LOG. COMMAND aborts the bench
# on its own failures.
OWN_PROCESSES=${OWN_PROCESSES:-30}
RUN_QUIET=
quiet_run() {
	local key=$1 label=$2 try p0 p1; shift 2
	for try in 1 2 3; do
		# the previous run's check after it counts as the one before this
		[ -n "$RUN_QUIET" ] || wait_quiet
		RUN_QUIET=
		read -r p0 < /proc/sys/kernel/ns_last_pid
		"$@"
		read -r p1 < /proc/sys/kernel/ns_last_pid
		echo "$key $try $((p1 - p0))" >> "$RUNS_LOG"
		if [ $((p1 - p0)) -le "$OWN_PROCESSES" ] && machine_quiet; then
			RUN_QUIET=1
			return 0
		fi
		log "$label: others were busy ($((p1 - p0)) processes started; then $QUIET_WHY), repeating"
	done
	NOISY=$((NOISY + 1))
}

# start_floorload [ARGS...]: tests/bench/floorload in NS_B (its netfilter
# programs are linked there), FLOOR_PID once attached. Without --no-stats
# it holds the kernel's BPF statistics on.
start_floorload() {
	rm -f "$TMP/floor.ready"
	ip netns exec "$NS_B" "$FLOORLOAD" "$@" "$TMP/floor.ready" 2> "$TMP/floor.err" &
	FLOOR_PID=$!
	BG_PIDS+=("$FLOOR_PID")
	wait_for 20 test -s "$TMP/floor.ready" ||
		die "floorload did not start: $(cat "$TMP/floor.err")"
}

stop_pid() {	# stop_pid PID: SIGINT and wait
	kill -INT "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

standing_hooks() {
	"$NSL" -l | awk '/^  / && $2 != "unavailable" && $1 != "netns-handover" &&
		$1 !~ /standing/ { printf "%s,", $1 }'
	echo tcp-standing-queue,udp-standing-queue
}

check_fails() {	# abort on the first failed step, naming it
	[ ${#FAILS[@]} -eq 0 ] && return 0
	printf '  %s\n' "${FAILS[@]}" >&2
	[ -s "$TMP/tool.err" ] && sed 's/^/  tool: /' "$TMP/tool.err" | tail -5 >&2
	die "$1 failed"
}

snapshot() {	# snapshot NAME: every program's counters now
	bpftool -j prog show > "$RAW/$1.progs.json" 2>/dev/null ||
		die "bpftool prog show failed"
}
