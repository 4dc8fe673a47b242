#!/usr/bin/env bash
# Memory and undefined-behaviour checks of the userspace (issue #8):
#  - asan_*: the core, error, netfilter, Prometheus and group suites
#    again, with the tool built with ASan+UBSan (make asan): the fewest
#    of their tests that reach every line and branch of src/ that all of
#    them reach (tests/integration/asan-suites.sh; make asan-select
#    chooses them from a coverage run). Any sanitizer report fails
#    the test during which it was written: the tool aborts (exit status
#    134, where the tests want 0 or 2), and the report files are checked
#    after each test, so a report from a run whose status a test does not
#    look at fails as well.
#  - valgrind_count2, valgrind_listen: memcheck on the normal build, no
#    leak, no error.
#  (The fuzzers' corpora: test_fuzz.sh.)
# NSL_TESTS picks among the tests of TESTS; the ASan suites then do not
# run (they are whole suites, and their namespaces other tests' business).
source "$(dirname "$0")/lib.sh"

ASAN_NSL=${ASAN_NSL:-$ROOT/.output/asan/netstacklat}
# The suites, their variables under ASan, and the tests not rerun (chosen
# by scripts/asan-select: each reaches nothing in src/ that the others do
# not; issue #46 item 7)
# shellcheck source=tests/integration/asan-suites.sh
source "$ROOT/tests/integration/asan-suites.sh"
asan_read_leave_out "$ROOT/tests/integration/asan-leave-out"
TESTS=(test_asan_early_exits test_valgrind_count2 test_valgrind_listen)

# Reports go to files (one per process) that the tool can write also after
# it switched to --user: $TMP is private, so open a way through it.
chmod 711 "$TMP"
SANLOG=$TMP/san
mkdir -m 1777 "$SANLOG"
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:print_stacktrace=1:log_path=$SANLOG/asan"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$SANLOG/ubsan"

# asan_suite NAME: tests/integration/NAME.sh with the ASan build, its
# RESULT lines renamed test_x -> asan_x.
asan_suite() {
	local suite=$1 line verdict name rest reports r names
	while IFS= read -r line; do
		# what the suite will run, renamed: tests/run waits for each
		if [[ "$line" == "TESTS "* ]]; then
			read -ra names <<< "${line#TESTS }"
			echo "TESTS ${names[*]/#test_/asan_}"
			continue
		fi
		if [[ "$line" != "RESULT "* ]]; then
			printf '%s\n' "$line"
			continue
		fi
		read -r _ verdict name rest <<< "$line"
		reports=$(find "$SANLOG" -type f)
		if [ -n "$reports" ]; then
			for r in $reports; do
				sed 's/^/  sanitizer: /' "$r" | head -40
				rm -f "$r"
			done
			verdict=FAIL
			rest="${rest:+$rest }(sanitizer report)"
		fi
		echo "RESULT $verdict asan_${name#test_}${rest:+ $rest}"
	# shellcheck disable=SC2086
	done < <(env ${ASAN_ENV[$suite]:-} NSL_LEAVE_OUT="${ASAN_LEAVE_OUT[$suite]:-}" \
		NSL=$ASAN_NSL bash "$ROOT/tests/integration/$suite.sh" 2>&1)
}

if [ -z "${NSL_TESTS:-}" ]; then
	if [ -x "$ASAN_NSL" ]; then
		for s in "${ASAN_SUITES[@]}"; do
			asan_suite "$s"
		done
	else
		echo "RESULT SKIP asan_suites (no $ASAN_NSL: make asan)"
	fi
fi

# The exits before anything is loaded, with list options filled first:
# --version and --help return from the parser's info path, a bad value
# from its error path; each must free what the parser allocated.
test_asan_early_exits() {
	local args rc want reports
	[ -x "$ASAN_NSL" ] || { fail "no $ASAN_NSL: make asan"; return; }
	for args in "-c /sys/fs/cgroup --version" "-i lo,eth0 --help" \
		    "-c /sys/fs/cgroup -p 1,2 --usage" "-i lo -p 1,x"; do
		# shellcheck disable=SC2086
		"$ASAN_NSL" $args > /dev/null 2> "$TMP/early.err"
		rc=$?
		case "$args" in *x) want=2 ;; *) want=0 ;; esac
		expect "status of netstacklat $args" "$rc" -eq "$want" || sed 's/^/  /' "$TMP/early.err" | head -20
	done
	reports=$(find "$SANLOG" -type f)
	[ -z "$reports" ] || { cat $reports | head -40 | sed 's/^/  /'; rm -f $reports; fail "sanitizer report"; }
}

# memcheck: all reachable memory is fine (libc, libelf caches), definitely
# or indirectly lost is not, nor is any other error (exit status 99).
# tests/valgrind.supp says what it suppresses and why. An array, not a
# function: started with &, a function runs in a subshell, and $! would be
# that shell rather than valgrind.
MEMCHECK=(valgrind --quiet --suppressions="$ROOT/tests/valgrind.supp"
	  --leak-check=full --errors-for-leak-kinds=definite,indirect
	  --error-exitcode=99)

# expect_memcheck_clean STATUS LOG: the verdict, with the report if not
expect_memcheck_clean() {
	expect "exit status under valgrind (99: memcheck errors)" "$1" -eq 0 ||
		grep -v 'unhandled eBPF command' "$2" | head -60 | sed 's/^/  /'
}

# can_memcheck: root and valgrind, or the test is a SKIP; the tool built,
# or it is a FAIL
can_memcheck() {
	[ -x "$ROOT/netstacklat" ] || { fail "./netstacklat not built (make)"; return 1; }
	[ "$(id -u)" -eq 0 ] || { skip "needs root"; return 1; }
	command -v valgrind >/dev/null || { skip "valgrind missing"; return 1; }
}

# A short run under memcheck.
test_valgrind_count2() {
	local rc
	can_memcheck || return
	"${MEMCHECK[@]}" --log-file="$TMP/valgrind.log" \
		"$ROOT/netstacklat" -r 0.2 --count 2 -F json \
		> "$TMP/vg.json" 2> "$TMP/tool.err"
	rc=$?
	expect_memcheck_clean "$rc" "$TMP/valgrind.log"
	expect "JSON reports" "$(wc -l < "$TMP/vg.json")" -eq 2
}

# The /metrics server under memcheck: two scrapes (one HEAD) answered
# by its thread, then SIGINT; no leak, no error (uninitialised reads
# included, which ASan does not see).
test_valgrind_listen() {
	local port=$((30000 + ID % 2000)) pid rc
	can_memcheck || return
	command -v curl >/dev/null || { skip "curl missing"; return; }
	"${MEMCHECK[@]}" --log-file="$TMP/valgrind-listen.log" \
		"$ROOT/netstacklat" -r 60 --listen "127.0.0.1:$port" \
		> /dev/null 2> "$TMP/listen.err" &
	pid=$!
	BG_PIDS+=("$pid")
	wait_for 120 grep -q "metrics on" "$TMP/listen.err" || { fail "no HTTP server under valgrind"; return; }
	expect "GET /metrics under valgrind" "$(curl -s --max-time 30 -o "$TMP/vg.prom" -w '%{http_code}' "http://127.0.0.1:$port/metrics")" -eq 200
	expect "HEAD /metrics under valgrind" "$(curl -s --max-time 30 -I -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" -eq 200
	grep -q '^netstacklat_latency_seconds_bucket' "$TMP/vg.prom" || fail "no histogram in the scrape"
	kill -INT "$pid"
	# bounded: a tool that ignored SIGINT must fail the test, not hang it
	wait_for 60 bash -c "! kill -0 $pid 2>/dev/null" ||
		{ kill -KILL "$pid"; fail "no exit within 60 s of SIGINT under valgrind"; }
	wait "$pid"; rc=$?
	expect_memcheck_clean "$rc" "$TMP/valgrind-listen.log"
}

run_tests
