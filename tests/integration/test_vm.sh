#!/usr/bin/env bash
# The primary attach path (fentry/fexit) cannot load on our CI machines,
# so it is tested here: Debian's 6.1 cloud kernel boots under qemu (TCG; no
# KVM here) with an initramfs holding the tool (scripts/vm/build), the
# guest (tests/vm/guest.sh) runs it against namespace traffic in each
# attach mode and prints the results on the serial console; this side
# judges them. See docs/vm-test.md.
source "$(dirname "$0")/lib.sh"

TESTS=(vm_boot vm_fentry_attach vm_fentry_samples vm_fentry_one_sample_per_read
       vm_fentry_known_answer vm_fentry_hol_forced_rto vm_fentry_hol_random_loss
       vm_fallback)
VM=$ROOT/.output/vm
# guest limit: with the build, the whole test stays under 5 minutes
VM_TIMEOUT=${VM_TIMEOUT:-240}
OUT=$TMP/vm

vm_prereqs() {
	SKIP_WHY=
	command -v qemu-system-x86_64 > /dev/null || SKIP_WHY="qemu-system-x86_64 missing"
	[ -x /bin/busybox ] || SKIP_WHY="busybox missing"
	command -v depmod > /dev/null || SKIP_WHY="depmod (kmod) missing"
	[ -z "$SKIP_WHY" ]
}

# Boots the guest once; every test below reads its console output.
boot() {
	local rc
	"$ROOT/scripts/vm/build" "$VM" 6.1 > "$TMP/vm-build.log" 2>&1 ||
		{ SKIP_WHY="cannot build the VM: $(tail -1 "$TMP/vm-build.log")"; return 1; }
	BOOT_START=$SECONDS
	timeout -k 5 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 \
		-nographic -no-reboot -kernel "$VM/6.1/vmlinuz" -initrd "$VM/6.1/initramfs.gz" \
		-append "console=ttyS0 panic=-1 quiet" < /dev/null > "$TMP/console.log" 2>&1
	rc=$?
	BOOT_SECONDS=$((SECONDS - BOOT_START))
	[ $rc -eq 124 ] && echo "  the guest was killed after ${VM_TIMEOUT}s"
	# === BEGIN name ... === END name: one file per name
	mkdir -p "$OUT"
	# (the console may glue terminal escapes before a marker: drop them)
	tr -d '\r' < "$TMP/console.log" | awk -v dir="$OUT" '
		/=== (BEGIN|END) / { sub(/^.*=== /, "=== ") }
		/^=== BEGIN / { f = dir "/" $3; printf "" > f; next }
		/^=== END / { close(f); f = ""; next }
		f { print >> f }'
	return 0
}

show_console() {
	echo "  last console lines:"
	tail -15 "$TMP/console.log" | tr -d '\r' | sed 's/^/    /'
}

vm_boot() {
	grep -aq "=== GUEST UP" "$TMP/console.log" || { fail "the guest did not come up"; show_console; return; }
	grep -aq "=== GUEST DONE" "$TMP/console.log" || { fail "the guest did not finish"; show_console; return; }
	grep -a "GUEST ERROR" "$TMP/console.log" && fail "the guest reported errors"
	echo "  guest kernel $(grep -ao '=== GUEST UP .*' "$TMP/console.log" | tr -d '\r' | cut -d' ' -f4), ${BOOT_SECONDS}s"
}

HOOKS="ip-start tcp-start udp-start tcp-socket-enqueued udp-socket-enqueued tcp-socket-read udp-socket-read"

vm_fentry_attach() {
	local h
	for h in $HOOKS; do
		grep -Eq "^  $h +fentry " "$OUT/list-auto" 2>/dev/null ||
			fail "-l: $h does not get fentry: $(grep " $h " "$OUT/list-auto" 2>/dev/null)"
		grep -Eq "^  $h +fentry " "$OUT/fentry-all.err" 2>/dev/null ||
			fail "--attach=fentry: $h not attached with fentry"
	done
	grep -q "attached (with HOL filter)" "$OUT/fentry-all.err" 2>/dev/null ||
		fail "the HOL filter is not active"
	expect "exit status of the tool after SIGINT" "$(cat "$OUT/fentry-all.rc" 2>/dev/null)" -eq 0 ||
		tail -20 "$OUT/fentry-all.err" 2>/dev/null | sed 's/^/  tool: /'
}

vm_fentry_samples() {
	local f=$OUT/fentry-all.json h
	[ -s "$f" ] || { fail "no JSON from the fentry run"; return; }
	for h in $HOOKS; do
		expect "$h samples (fentry)" "$($JQ "$f" count $h)" -gt 0
	done
	expect "UDP datagrams at udp-start" "$($JQ "$f" count udp-start)" -eq 200
	expect "UDP datagrams read" "$($JQ "$f" count udp-socket-read)" -eq 200
	expect "TCP reads" "$($JQ "$f" count tcp-socket-read)" -eq \
		"$(json_field "$OUT/fentry-all-tcp.server" reads)"
	# every TCP segment B received: skipped at ip-start (veth keeps the
	# departure time), sampled at tcp-start (after local delivery); the
	# counter, like the samples, only for the namespace -n selects
	expect "ip-start not_rx_tstamp = tcp-start samples" \
		"$($JQ "$f" counter ip-start not_rx_tstamp)" -eq "$($JQ "$f" count tcp-start)"
	# counted by the HOL filter's counter, even if zero: the filter ran
	$JQ "$f" counter tcp-socket-read hol_excluded > /dev/null || fail "no hol_excluded counter"
	# --bpf-stats on the fentry programs: each listed once, under its
	# hook; each hook's programs ran (IPv6 ones may not: IPv4 traffic)
	python3 - "$f" > "$TMP/vmstats.out" 2>&1 <<-'PY' || fail "--bpf-stats (fentry): $(cat "$TMP/vmstats.out")"
	import json, sys
	runs, progs = {}, set()
	for line in open(sys.argv[1]):
	    for c in json.loads(line)["bpf_stats"]:
	        assert c["program"].startswith(("fentry_", "fexit_")), c
	        assert len(c["hooks"]) == 1, c
	        progs.add(c["program"])
	        runs[c["hooks"][0]] = runs.get(c["hooks"][0], 0) + c["runs"]
	assert len(progs) == 10, sorted(progs)  # 6 SKB_FENTRY, 2 fexit, 2 read
	idle = [h for h in runs if runs[h] == 0]
	assert len(runs) == 7 and not idle, runs
	PY
}

vm_fentry_one_sample_per_read() {
	local reads
	reads=$(json_field "$OUT/fentry-reads-tcp.server" reads) || { fail "no TCP server report"; return; }
	expect "server TCP reads" "$reads" -gt 10
	expect "tcp-socket-read samples = TCP reads" "$($JQ "$OUT/fentry-reads.json" count tcp-socket-read)" -eq "$reads"
	reads=$(json_field "$OUT/fentry-udpreads.server" reads) || { fail "no UDP server report"; return; }
	expect "udp-socket-read samples = UDP reads" "$($JQ "$OUT/fentry-udpreads.json" count udp-socket-read)" -eq "$reads"
}

vm_fentry_known_answer() {
	expect_known_answer "$OUT/fentry-known.json"
}

# hol_pair NAME: a -y (NAME-y) and a filtered (NAME-f) instance watched the
# same reads on the testbed: both count every read. Sets HOL_NY, HOL_NF,
# HOL_EX and HOL_DROPPED for the checks of each scenario.
hol_pair() {
	local name=$1 reads er
	[ -s "$OUT/$name.stats" ] || { fail "no testbed in the guest"; return 1; }
	reads=$(json_field "$OUT/$name.server" reads) || { fail "no server report"; return 1; }
	HOL_NY=$($JQ "$OUT/$name-y.json" count tcp-socket-read)
	HOL_NF=$($JQ "$OUT/$name-f.json" count tcp-socket-read)
	HOL_EX=$($JQ "$OUT/$name-f.json" counter tcp-socket-read hol_excluded)
	er=$($JQ "$OUT/$name-f.json" counter tcp-socket-read hol_read_errors)
	HOL_DROPPED=$(tr ' ' '\n' < "$OUT/$name.stats" | awk -F= '$1 == "dropped" { print $2 }')
	expect "-y samples = server reads" "$HOL_NY" -eq "$reads"
	expect "filtered + hol_excluded + hol_read_errors = -y samples" \
		"$((HOL_NF + HOL_EX + er))" -eq "$HOL_NY"
	echo "  reads $reads, -y $HOL_NY, filtered $HOL_NF, hol_excluded $HOL_EX, testbed: $(cat "$OUT/$name.stats")"
}

# The HOL filter in fentry mode, as test_hol.sh's forced RTO does it on the
# host: the testbed drops segment 5 and its first retransmission (and every
# 4th segment after).
vm_fentry_hol_forced_rto() {
	local ms=1000000
	hol_pair fentry-hol || return
	expect "segments dropped" "$HOL_DROPPED" -ge 2
	expect "-y samples >= 100 ms" \
		"$($JQ "$OUT/fentry-hol-y.json" count_lower_ge tcp-socket-read $((100 * ms)))" -ge 1
	expect "filtered samples that may be >= 100 ms" \
		"$($JQ "$OUT/fentry-hol-f.json" count_upper_gt tcp-socket-read $((100 * ms)))" -eq 0
	expect "hol_excluded" "$HOL_EX" -gt 0
}

# 1 % random loss: the filter must not throw away the world (>= 80 % kept).
vm_fentry_hol_random_loss() {
	hol_pair fentry-loss || return
	expect "segments dropped" "$HOL_DROPPED" -gt 0
	expect "filtered samples x 100 / -y samples (%)" "$((HOL_NF * 100 / (HOL_NY ? HOL_NY : 1)))" -ge 80
}

# Fallback on a second kernel: per hook either a non-fentry method that
# then records samples, or "unavailable" with a reason (6.1 predates the
# tracepoints and netfilter links of the fallbacks); never fentry.
vm_fallback() {
	local h line method attached=0
	[ -s "$OUT/list-fallback" ] || { fail "no -l --attach=fallback output"; return; }
	for h in $HOOKS; do
		line=$(grep -E "^  $h " "$OUT/list-fallback")
		method=$(awk '{ print $2 }' <<< "$line")
		case $method in
		fentry) fail "--attach=fallback gave $h fentry" ;;
		unavailable) [ "$(wc -w <<< "$line")" -gt 3 ] || fail "$h unavailable without a reason" ;;
		"") fail "-l does not list $h" ;;
		*) attached=$((attached + 1))
		   expect "$h samples ($method)" "$($JQ "$OUT/fallback-all.json" count $h)" -gt 0 ;;
		esac
	done
	if [ $attached -eq 0 ]; then
		expect "exit status with no hook attachable" "$(cat "$OUT/fallback-all.rc")" -eq 1
		grep -q "no enabled hook can attach" "$OUT/fallback-all.err" ||
			fail "no clear error: $(cat "$OUT/fallback-all.err")"
	fi
}

need "needs root" test "$(id -u)" -eq 0
need "tool not built" eval '[ -x "$NSL" ] && [ -x "$TG" ]'
need "" vm_prereqs
need "" boot
run_tests
