#!/usr/bin/env python3
# Compares one hook's histograms in two netstacklat JSON files that watched
# the same packets with two programs, one of which reads its clock after
# the other on every packet (test_vm.sh, vm_fallback_hooks_agree):
#
#   agreecheck.py EARLIER.json LATER.json HOOK D_NS M [MISSING]
#
# Each packet i is measured twice on the same RX timestamp: e_i by the
# program that runs first, l_i = e_i + d_i by the other, d_i >= 0 (the
# same CPU runs them one after the other, on a monotonic clock). LATER may
# lack MISSING of EARLIER's packets (never the other way round). Then:
#
# order (exact): for every bucket bound b, LATER has at most as many
#   samples <= b as EARLIER: each of them is a packet whose EARLIER
#   sample is <= b too.
# moved (a bound on the few): d_i <= D_NS but for at most M packets
#   (those a descheduled vCPU or an interrupt separated: test_vm.sh says
#   why M) means that for every x, #{l <= x + D_NS} >= #{e <= x} - M -
#   MISSING. Read on the buckets: for each of EARLIER's bucket bounds b,
#   EARLIER's count <= b against LATER's samples in every bucket that may
#   hold a value <= b + D_NS (its lower bound below b + D_NS). The largest
#   shortfall is the number of samples that moved by more than D_NS (and
#   the bucket's width); it must be <= M + MISSING.
#
# Prints one line: "order ok|BROKEN (...); N moved by more than D_NS ..."
# and exits 0 if both hold, 1 if not, 2 on a file it cannot read (a
# missing hook is an error, never a pass).
import json
import sys


def fail(why):
    print("agreecheck-error")
    print(f"agreecheck: {why}", file=sys.stderr)
    sys.exit(2)


def bounds(b, res, schema):
    """(lower, upper) of bucket b: it holds (lower, upper] ns."""
    if schema:
        # (2^((i-1)/2^s), 2^(i/2^s)] seconds (docs/output-json.md)
        i, w = b["index"], 2 ** schema
        return 1e9 * 2 ** ((i - 1) / w), 1e9 * 2 ** (i / w)
    if res != 1:
        fail(f"resolution {res} without a schema")
    up = b["le_ns"]
    if up is None:		# the last: beyond 2^33 ns
        return 2**33, float("inf")
    return (-1 if up == 1 else up // 2), up	# bucket 0 is [0, 1]


def buckets(path, hook):
    """[(lower, upper, count)] of HOOK, summed over the reports, ascending."""
    merged = {}
    try:
        reports = [json.loads(line) for line in open(path)]
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    hists = [(r, h) for r in reports for h in r["histograms"] if h["hook"] == hook]
    if not hists:
        fail(f"{path}: no histogram of {hook}")
    for r, h in hists:
        if h.get("zero_count"):
            merged[(-1, 0)] = merged.get((-1, 0), 0) + h["zero_count"]
        for b in h["buckets"]:
            key = bounds(b, r.get("resolution", 1), r.get("schema"))
            merged[key] = merged.get(key, 0) + b["count"]
    return sorted((lo, up, c) for (lo, up), c in merged.items())


def main():
    if len(sys.argv) not in (6, 7):
        fail("usage: agreecheck.py EARLIER LATER HOOK D_NS M [MISSING]")
    e = buckets(sys.argv[1], sys.argv[3])
    l = buckets(sys.argv[2], sys.argv[3])
    d, m = int(sys.argv[4]), int(sys.argv[5])
    missing = int(sys.argv[6]) if len(sys.argv) == 7 else 0
    ok = True
    # order: cumulative counts at every bound of either histogram (the
    # same bucket scheme in both)
    bad = []
    for u in sorted({up for _, up, _ in e + l}):
        ce = sum(c for _, up, c in e if up <= u)
        cl = sum(c for _, up, c in l if up <= u)
        if cl > ce:
            bad.append(f"<= {u:.0f} ns: later {cl} > earlier {ce}")
    if bad:
        ok = False
        order = "order BROKEN (" + "; ".join(bad[:3]) + ")"
    else:
        order = "order ok"
    moved, where = 0, ""
    for _, u, _ in e:
        ce = sum(c for _, up, c in e if up <= u)
        cl = sum(c for lo, _, c in l if lo < u + d)
        if ce - cl > moved:
            moved, where = ce - cl, f" (earlier {ce} <= {u:.0f} ns, later {cl} possibly <= {u + d:.0f} ns)"
    if moved > m + missing:
        ok = False
    print(f"{order}; {moved} moved by more than {d} ns and a bucket{where}, of {m} allowed"
          + (f" + {missing} not sampled" if missing else ""))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
