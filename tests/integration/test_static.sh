#!/usr/bin/env bash
# Static checks of the userspace C (issue #8): cppcheck and clang-tidy on
# src/, one result each, through scripts/check (what each checks and why:
# scripts/check and .clang-tidy). Needs the generated skeleton (make).
# And the generated include/schema.h: what its generator writes, and its
# thresholds right in exact integer arithmetic.
source "$(dirname "$0")/lib.sh"

# checker NAME: scripts/check NAME, its findings shown on failure
checker() {
	command -v "$1" >/dev/null || { skip "$1 missing"; return; }
	[ -f "$ROOT/.output/netstacklat.skel.h" ] || { skip "not built (make)"; return; }
	if ! "$ROOT/scripts/check" "$1" > "$TMP/$1.out" 2>&1; then
		head -40 "$TMP/$1.out" | sed 's/^/  /'
		fail "$1 findings (above)"
	fi
}

test_cppcheck() { checker cppcheck; }

test_schema_thresholds() {
	"$ROOT/scripts/gen-schema-thresholds" --check > "$TMP/schema.out" 2>&1 ||
		fail "scripts/gen-schema-thresholds --check: $(tail -3 "$TMP/schema.out")"
}
test_clang_tidy() { checker clang-tidy; }

run_test test_cppcheck
run_test test_clang_tidy
run_test test_schema_thresholds
