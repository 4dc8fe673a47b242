#!/usr/bin/env bash
# The libFuzzer harnesses (built with ASan+UBSan, make fuzz; issue #8):
#  - fuzz_options_corpus: the committed corpus of the option parser
#    replayed (make fuzz grows it).
#  - fuzz_httproute: the corpus of the /metrics request router replayed,
#    then FUZZ_SECONDS of fuzzing from it.
# Userspace only, no BPF, nothing of the machine's: tests/run lets it run
# beside the other scripts.
# tests/run: beside
source "$(dirname "$0")/lib.sh"

FUZZ_DIR=$ROOT/.output/fuzz
# fuzzing in make test: long enough for a change that breaks the router
# in a common way to be found (a few million inputs), short against the
# rest of the suites
FUZZ_SECONDS=20
TESTS=(test_fuzz_options_corpus test_fuzz_httproute)

# fuzz_failed LOG WHAT: libFuzzer's LOG ends in a finding: the test fails
# with the first line of its report and the first of our frames; the
# report's start and the input (a corpus file, or base64, as $TMP goes)
# are shown.
fuzz_failed() {
	local where
	sed -n '/ERROR\|runtime error/,$p' "$1" | sed 's/ (BuildId: [0-9a-f]*)//' |
		head -20 | sed 's/^/  /'
	grep '^Running: ' "$1" | tail -1 | sed 's/^Running: /  input: /'
	grep -m1 '^Base64: ' "$1" | sed 's/^/  input, /'
	where=$(grep -m1 -oE '(src|tests/fuzz)/[^ :]+\.c:[0-9]+' "$1")
	fail "$2: $(grep -m1 -oE '(ERROR|runtime error).*' "$1")${where:+ at $where}"
}

# replay_corpus NAME MIN: every input of tests/fuzz/corpus/NAME (MIN at
# least) once through .output/fuzz/fuzz_NAME, the harness built with
# libFuzzer+ASan+UBSan: no crash, no leak, no broken promise it checks.
replay_corpus() {
	local name=$1 min=$2 log=$TMP/replay-$1.log files
	files=("$ROOT/tests/fuzz/corpus/$name"/*)
	expect "corpus inputs" "${#files[@]}" -ge "$min" || return 1
	# the fuzzer's own flags, not the suites' log files
	ASAN_OPTIONS='' UBSAN_OPTIONS='' "$FUZZ_DIR/fuzz_$name" -artifact_prefix="$TMP/" \
		"${files[@]}" > "$log" 2>&1 || { fuzz_failed "$log" "replay failed"; return 1; }
	expect "inputs replayed" "$(grep -c '^Executed ' "$log")" -eq "${#files[@]}"
}

test_fuzz_options_corpus() {
	local bin=$FUZZ_DIR/fuzz_options
	[ -x "$bin" ] || { fail "no $bin: make $bin"; return; }
	replay_corpus options 50
}

# The request router (issue #44): the corpus, then FUZZ_SECONDS of
# fuzzing from it, new inputs and any finding in $TMP.
test_fuzz_httproute() {
	local bin=$FUZZ_DIR/fuzz_httproute log=$TMP/fuzz-httproute.log
	[ -x "$bin" ] || { fail "no $bin: make $bin"; return; }
	replay_corpus httproute 15 || return
	mkdir "$TMP/httproute-new"
	ASAN_OPTIONS='' UBSAN_OPTIONS='' "$bin" -dict="$ROOT/tests/fuzz/httproute.dict" \
		-max_len=8192 -max_total_time=$FUZZ_SECONDS -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$TMP/" \
		"$TMP/httproute-new" "$ROOT/tests/fuzz/corpus/httproute" > "$log" 2>&1 ||
		{ fuzz_failed "$log" "fuzzing found"; return; }
	echo "  fuzz_httproute: $(awk '/^stat::number_of_executed_units/ { print $2 }' "$log") inputs in $FUZZ_SECONDS s"
}

run_tests
