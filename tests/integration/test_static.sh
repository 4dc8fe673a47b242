#!/usr/bin/env bash
# Static checks of the userspace C (issue #8): cppcheck and clang-tidy on
# src/, one result each, through scripts/check (what each checks and why:
# scripts/check and .clang-tidy). Needs the generated skeleton (make).
# And the generated include/schema.h: what its generator writes, and its
# thresholds right in exact integer arithmetic.
# Userspace only, nothing of the machine's: tests/run lets it run beside
# the other scripts.
# tests/run: beside
source "$(dirname "$0")/lib.sh"

# checker NAME: scripts/check NAME, its findings shown on failure
checker() {
	command -v "$1" >/dev/null || { skip "$1 missing"; return; }
	[ -f "$ROOT/.output/netstacklat.skel.h" ] || { fail "not built (make)"; return; }
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

# Issue #47 item 2: no trace type program (kprobe, tracepoint, raw_tp)
# of the built object uses a hash map allocated at run time (Linux 5.7 to
# 6.0 warn, or refuse it under PREEMPT_RT; scripts/check-bpf-maps). The
# check must be able to fail: a raw_tp program that looks up such a map,
# directly and from a subprogram, is found; the same map in a tp_btf
# program (BPF_PROG_TYPE_TRACING, which the rule leaves alone) is not.
test_bpf_maps() {
	local src=$TMP/nopre.bpf.c arch
	[ -f "$ROOT/.output/netstacklat.bpf.o" ] || { fail "not built (make)"; return; }
	"$ROOT/scripts/check-bpf-maps" "$ROOT/.output/netstacklat.bpf.o" > "$TMP/maps.out" 2>&1 ||
		fail "the built object: $(cat "$TMP/maps.out")"
	arch=$(uname -m)
	cat > "$src" <<'C'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, int);
} runtime SEC(".maps");
static __attribute__((noinline)) int look(int k) { return !!bpf_map_lookup_elem(&runtime, &k); }
#ifdef DIRECT
SEC("raw_tp/sys_enter") int direct(void *ctx) { int k = 0; return !!bpf_map_lookup_elem(&runtime, &k); }
#endif
#ifdef SUBPROG
SEC("raw_tp/sys_exit") int subprog(void *ctx) { return look(1); }
#endif
SEC("tp_btf/sys_enter") int tracing(void *ctx) { return look(2); }
char LICENSE[] SEC("license") = "GPL";
C
	for variant in DIRECT SUBPROG NONE; do
		clang -g -O2 -target bpf -D$variant -I/usr/include/"$arch"-linux-gnu \
			-c "$src" -o "$TMP/$variant.o" 2> "$TMP/cc.out" ||
			{ fail "cannot build the test object: $(head -3 "$TMP/cc.out")"; return; }
		if "$ROOT/scripts/check-bpf-maps" "$TMP/$variant.o" > "$TMP/maps.out" 2>&1; then
			[ $variant = NONE ] || fail "$variant: a raw_tp program's map not found"
		else
			[ $variant != NONE ] || fail "a tp_btf program's map found: $(cat "$TMP/maps.out")"
			grep -q 'uses runtime, a BPF_MAP_TYPE_HASH with BPF_F_NO_PREALLOC' "$TMP/maps.out" ||
				fail "$variant: $(cat "$TMP/maps.out")"
		fi
	done
}

# The JSON example in docs/output-json.md is the golden report the unit
# tests render (it had drifted from the format, issue #45).
test_doc_json_example() {
	python3 - "$ROOT/docs/output-json.md" "$ROOT/tests/golden/report.json" > "$TMP/doc.out" 2>&1 <<-'PY' ||
	import sys
	doc = open(sys.argv[1]).read()
	ex = doc[doc.index("## Example\n"):]
	ex = ex[ex.index("```json\n") + 8:]
	ex = ex[:ex.index("\n```")]
	gold = open(sys.argv[2]).read().rstrip("\n")
	sys.exit(None if ex == gold else "differ at char %d" % next(
	    (i for i, (a, b) in enumerate(zip(ex, gold)) if a != b), min(len(ex), len(gold))))
	PY
		fail "docs/output-json.md's example is not tests/golden/report.json: $(cat "$TMP/doc.out")"
}

TESTS=(test_cppcheck test_clang_tidy test_bpf_maps test_schema_thresholds test_doc_json_example)
run_tests
