#!/usr/bin/env bash
# The /metrics server under attack (issue #18): each attack of
# tests/integration/httpattack.py runs while a scraper at 127.0.0.1 scrapes
# once a second as Prometheus does (its Accept header, 10 s timeout), and
# every scrape must succeed; afterwards the tool's file descriptors must be
# back where they were and its resident memory within 2 MiB of it (both
# measured in its jailed server process, src/4-sink/jailchild.c, which must
# not be replaced: an attack that kills it fails the test).
#
# The attackers use other loopback addresses (127.0.0.2-5: all of 127/8 is
# loopback), as clients on other hosts would, so that the per-address
# limit (NSL_HTTP_CONNS_PER_IP) keeps them apart from the scraper; one
# attack, same_address, comes from the scraper's own address, to show what
# happens then (its scrapes are refused while the attackers hold the
# address's connections). Loopback only; every attack ends by itself
# within 30 s.
#
# One tool for the suite, its exposition padded to 16 MB with the test
# seam NETSTACKLAT_TEST_PAD_BYTES (src/4-sink/metrics.c): answers of megabytes, as
# with thousands of groups, and more than a 1 MB/s reader can take within
# the 10 s deadline.
source "$(dirname "$0")/lib.sh"

ATTACKS=(non_reading slow_readers idle_1000 idle_flood slowloris oversized_heads
	 pipelined malformed same_address)
TESTS=("${ATTACKS[@]/#/test_http_}")
PORT=$((21000 + ID % 9000))
PAD_BYTES=16000000
RSS_SLACK_KIB=2048
SERVER_PID=

# the jailed server process (src/4-sink/jailchild.c): where connections and answers live
http_pid() { jail_server "$SERVER_PID"; }
fd_count() { ls "/proc/$(http_pid)/fd" 2>/dev/null | wc -l; }
status_kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$(http_pid)/status"; }

# The tool, once: attached, serving, warmed up by one scrape, and at rest
# (its answer given up after NSL_HTTP_STALE_MS).
ensure_server() {
	[ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null && return 0
	[ -n "$SERVER_PID" ] && fail "the tool died during the previous test"
	NETSTACKLAT_TEST_PAD_BYTES=$PAD_BYTES "$NSL" -F json -r 60 -o "$TMP/abuse.json" \
		--listen "127.0.0.1:$PORT" 2> "$TMP/tool.err" &
	SERVER_PID=$!
	BG_PIDS+=("$SERVER_PID")
	wait_for 20 grep -q "metrics on" "$TMP/tool.err" ||
		{ fail "no HTTP server: $(tail -2 "$TMP/tool.err")"; return 1; }
	curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$PORT/metrics"
	sleep 6
}

# at_rest FDS RSS_KIB: the tool holds those fds, and no more than that
# memory plus the slack
at_rest() {
	[ "$(fd_count)" -eq "$1" ] && [ "$(status_kib VmRSS)" -le $(($2 + RSS_SLACK_KIB)) ]
}

# attack NAME: httpattack.py NAME against the tool, then the way back
attack() {
	local name=$1 fds rss hwm line child
	ensure_server || return
	child=$(http_pid)
	fds=$(fd_count) rss=$(status_kib VmRSS)
	python3 "$ROOT/tests/integration/httpattack.py" 127.0.0.1 "$PORT" "$name" \
		> "$TMP/$name.out" 2>&1
	while IFS= read -r line; do
		case "$line" in
		"FAIL: "*) fail "${line#FAIL: }" ;;
		"MEASURED "*) echo "  $name: ${line#MEASURED }" ;;
		*) fail "httpattack.py: $line" ;;
		esac
	done < "$TMP/$name.out"
	hwm=$(status_kib VmHWM)
	kill -0 "$SERVER_PID" 2>/dev/null || { fail "the tool died"; return; }
	[ "$(http_pid)" = "$child" ] || fail "the server process was replaced (it died)"

	# connections end within the 10 s deadline, answers 5 s after rendering
	wait_for 30 at_rest "$fds" "$rss" ||
		fail "not back at rest within 30 s: $(fd_count) fds (before $fds), VmRSS $(status_kib VmRSS) kB (before $rss)"
	echo "  $name: fds $fds -> $(fd_count), VmRSS $rss -> $(status_kib VmRSS) kB, VmHWM $hwm kB"
}

abuse_prereqs() {
	SKIP_WHY=
	[ "$(id -u)" -eq 0 ] || SKIP_WHY="needs root"
	[ -x "$NSL" ] || SKIP_WHY="./netstacklat not built"
	command -v python3 > /dev/null || SKIP_WHY="python3 missing"
	command -v curl > /dev/null || SKIP_WHY="curl missing"
	[ -z "$SKIP_WHY" ]
}

need "" abuse_prereqs
declare_tests "${TESTS[@]}"
for a in "${ATTACKS[@]}"; do
	run_test "test_http_$a" attack "$a"
done
[ -n "$SERVER_PID" ] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID"
[ "$FAILED_TESTS" -eq 0 ]
