#!/usr/bin/env bash
# tests/run itself (issue #46 item 1): a script that dies half-way, exits
# non-zero with no failed test, hangs past its time limit, or gives no
# result at all fails the run, and the closing list names what happened;
# a script whose tests all pass still passes. Each case is a made-up
# script in a directory of its own, run by tests/run as make test runs
# the real ones (NSL_INTEGRATION_DIR, NSL_SCRIPT_LIMIT).
source "$(dirname "$0")/lib.sh"

TESTS=(test_runner_dies test_runner_exit_status test_runner_hangs
       test_runner_no_result test_runner_clean test_runner_unexpected_skips
       test_runner_killed_restores test_runner_own_setup_fails
       test_runner_undefined_test test_runner_beside)

# case NAME BODY: a script test_NAME.sh that sources lib.sh, then BODY
make_case() {
	mkdir -p "$TMP/$1"
	printf '#!/usr/bin/env bash\nsource "%s/tests/integration/lib.sh"\n%s\n' \
		"$ROOT" "$2" > "$TMP/$1/test_$1.sh"
}

# run_case NAME [LIMIT]: tests/run on it; its output in $TMP/NAME.out, status in RC
run_case() {
	printf 't_b\tnot here\nt_c\tnot here\n' > "$TMP/expected-skips"
	NSL_INTEGRATION_DIR=$TMP/$1 NSL_SCRIPT_LIMIT=${2:-60} NSL_TESTS= \
		NSL_EXPECTED_SKIPS=$TMP/expected-skips \
		"$ROOT/tests/run" integration > "$TMP/$1.out" 2>&1
	RC=$?
}

expect_run() {	# expect_run NAME STATUS SUMMARY [WORDS]
	run_case "$1" "${5:-}"
	expect "$1: tests/run's exit status" "$RC" -eq "$2"
	expect "$1: summary" "$(tail -1 "$TMP/$1.out")" = "$3"
	[ -z "${4:-}" ] || grep -qF -- "$4" "$TMP/$1.out" ||
		fail "$1: no '$4' in: $(tail -5 "$TMP/$1.out")"
}

test_runner_dies() {
	make_case dies 't_a() { :; }
t_b() { :; }
TESTS=(t_a t_b)
declare_tests "${TESTS[@]}"
run_test t_a
echo "$UNSET_VARIABLE"
run_test t_b'
	expect_run dies 1 "1 passed, 1 failed, 0 skipped" "t_b (no result: "
}

test_runner_exit_status() {
	make_case exits 't_a() { :; }
TESTS=(t_a)
run_tests
exit 3'
	expect_run exits 1 "1 passed, 1 failed, 0 skipped" "(exit status 3, no test failed)"
}

test_runner_hangs() {
	make_case hangs 't_a() { sleep 60; }
TESTS=(t_a)
run_tests'
	local t0=$SECONDS
	expect_run hangs 1 "0 passed, 2 failed, 0 skipped" "(killed after its 2 s)" 2
	expect "seconds tests/run took on a hung script (limit 2 s)" "$((SECONDS - t0))" -le 15
}

test_runner_no_result() {
	make_case silent 'exit 0'
	expect_run silent 1 "0 passed, 1 failed, 0 skipped" "no result at all"
}

test_runner_clean() {
	make_case clean 't_a() { :; }
t_b() { skip "not here"; }
TESTS=(t_a t_b)
run_tests'
	expect_run clean 0 "1 passed, 0 failed, 1 skipped"
}

# A SKIP the machine's list does not name, or names with another reason
# (tests/expected-skips), fails the run.
test_runner_unexpected_skips() {
	make_case skips 't_a() { skip "no such thing"; }
t_b() { skip "lacks a wire"; }
t_c() { skip "not here"; }
TESTS=(t_a t_b t_c)
run_tests'
	expect_run skips 1 "0 passed, 2 failed, 1 skipped" "t_a (no such thing) (a SKIP not expected here"
	grep -qF "t_b (lacks a wire) (a SKIP not expected" "$TMP/skips.out" ||
		fail "a SKIP for another reason let by: $(tail -4 "$TMP/skips.out")"
}

# A script SIGKILLed after changing a setting of the machine (its EXIT
# trap never runs): the next script that starts puts it back (lib.sh:
# change_global, restore_leftovers).
test_runner_killed_restores() {
	make_case killed "change_global 'echo restored > $TMP/marker'
kill -KILL \$\$"
	run_case killed
	[ -e "$TMP/marker" ] && fail "restored by a script that was killed"
	make_case next 't_a() { :; }
TESTS=(t_a)
run_tests'
	run_case next
	expect "the next script's restore" "$(cat "$TMP/marker" 2>&1)" = restored
	grep -q "restoring what a killed test script left" "$TMP/next.out" ||
		fail "no word of the restore: $(head -3 "$TMP/next.out")"
}

# Set-up of our own code that fails (must) FAILs every test of the
# script, where what the machine lacks (need) SKIPs them (#46 item 2).
test_runner_own_setup_fails() {
	make_case own 't_a() { :; }
t_b() { :; }
TESTS=(t_a t_b)
need "" true
must "the wire would not start" false
run_tests'
	expect_run own 1 "0 passed, 2 failed, 0 skipped" "t_b (the wire would not start)"
}

# A test listed in TESTS but defined after run_tests (or not at all): it
# ran as "command not found" and passed.
test_runner_undefined_test() {
	make_case undef 't_a() { :; }
TESTS=(t_a t_late)
run_tests
t_late() { :; }'
	expect_run undef 1 "1 passed, 1 failed, 0 skipped" "t_late (no test function t_late defined"
}

# A script marked "# tests/run: beside" runs at nice 10 alongside the
# others (each of the two waits for the other to have started: run one
# after the other, both would fail), and is judged as they are: the beside
# one's lost test is still a failure, named after the others' results.
test_runner_beside() {
	local meet="$TMP/beside"
	make_case beside "# tests/run: beside
t_b() { touch $meet/b; wait_for 30 test -e $meet/a || fail 'test_a not running'
	expect nice \"\$(nice)\" = 10; }
t_c() { :; }
TESTS=(t_b t_c)
declare_tests \"\${TESTS[@]}\"
run_test t_b
echo \"\$UNSET_VARIABLE\"
run_test t_c"
	printf '#!/usr/bin/env bash\nsource "%s/tests/integration/lib.sh"\n%s\n' "$ROOT" \
		"t_a() { touch $meet/a; wait_for 30 test -e $meet/b || fail 'test_beside not running'
	expect nice \"\$(nice)\" = 0; }
TESTS=(t_a)
run_tests" > "$meet/test_a.sh"
	expect_run beside 1 "2 passed, 1 failed, 0 skipped" "t_c (no result: "
	expect "the line after the foreground's summary" \
		"$(grep -A1 "^== $meet/test_a.sh: " "$TMP/beside.out" | tail -1)" = \
		"== $meet/test_beside.sh ran beside the others:"
}

run_tests
