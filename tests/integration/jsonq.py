#!/usr/bin/env python3
# Reads netstacklat JSON lines and answers one question about them, so the
# shell tests stay readable. Fails (exit 1) if any line does not parse.
#
#   jsonq.py FILE lines                          number of reports
#   jsonq.py FILE count HOOK [KEY=VALUE..]       samples summed over reports
#   jsonq.py FILE sum HOOK [KEY=VALUE..]         sum_ns summed over reports
#   jsonq.py FILE min_le HOOK                    smallest non-empty bucket bound
#   jsonq.py FILE max_le HOOK                    largest non-empty bucket bound
#   jsonq.py FILE counter HOOK NAME              counter summed over reports
#   jsonq.py FILE counter_if HOOK NAME           the same, 0 where the reports
#                                                do not give it: a counter of
#                                                some kernels only (the read
#                                                hooks' not_rx_tstamp, < 5.18)
#   jsonq.py FILE value HOOK NAME [KEY=VALUE..]  a standing hook's value NAME
#                                                (beside each histogram of it)
#                                                summed over histograms, reports
#   jsonq.py FILE values HOOK NAME [KEY=VALUE..] the same per report, a line
#                                                each: the report's time (Unix
#                                                s) and its sum
#   jsonq.py FILE counters HOOK                  every counter of HOOK that is
#                                                not 0, as NAME=SUM (a log line)
#   jsonq.py FILE hooks                          hooks present, space-separated
#   jsonq.py FILE runs HOOK                      "yes" if HOOK runs in a report
#                                                (attached), else "no"
#   jsonq.py FILE groups HOOK FIELD              distinct values of FIELD
#   jsonq.py FILE last_count HOOK                count in the last report
#   jsonq.py FILE top KEY                        top-level KEY of each report,
#                                                space-separated
#   jsonq.py FILE sums HOOK                      sum_ns of HOOK in each report
#                                                (exact), space-separated
#   jsonq.py FILE count_upper_gt HOOK NS         samples in buckets whose upper
#                                                bound is > NS (may be > NS)
#   jsonq.py FILE count_lower_ge HOOK NS         samples in buckets whose lower
#                                                bound is >= NS (surely > NS)
#   jsonq.py FILE pct HOOK P [+K] [KEY=VALUE..]  upper bucket bound holding
#                                                rank ceil(P*count), all reports;
#                                                with +K, K ranks higher (at
#                                                most count)
#   jsonq.py FILE recursion PROG                 recursion_misses of program
#                                                PROG summed over reports;
#                                                "null" if a report has none
#                                                (kernel), "absent" if no key
#   jsonq.py FILE misses HOOK                    recursion_misses of every
#                                                program serving HOOK, as
#                                                PROG=SUM where not 0 (a log
#                                                line), "none", or as above
#
# A question about something the reports do not have is an error, never a
# 0 that an "-eq 0" check would take for an answer (issue #46 item 3): no
# report at all (but for "lines"), a HOOK that runs in none of them
# (docs/output-json.md: every hook that runs is in "hooks" and has its
# counters; tcp-socket-read-hol runs with tcp-socket-read, whose counters
# it shares), a counter NAME a report does not give for HOOK where it runs
# (every counter of a hook that runs is always there), a top-level KEY a
# report lacks. jsonq.py then says what is missing on stderr, prints
# "jsonq-error" (a test's expect fails on it; in shell arithmetic under
# lib.sh's set -u it ends the script, which tests/run fails) and exits 1.
from datetime import datetime
import json
import sys


def load(path):
    reports = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                reports.append(json.loads(line))
            except ValueError as e:
                sys.exit(f"{path}:{n}: not JSON ({e}): {line[:200]!r}")
    return reports


# HOOK's histograms of the reports, those whose fields match each of the
# KEY=VALUE filters in where (the queries' last arguments) only
def hists(reports, hook, where=()):
    pairs = [w.split("=", 1) for w in where]
    for r in reports:
        for h in r["histograms"]:
            if h["hook"] == hook and all(str(h.get(k)) == v for k, v in pairs):
                yield h


# Bucket (upper/2, upper]; the last one (le_ns null) is (2^33, infinity).
def bucket_beyond(q, b, ns):
    upper = b["le_ns"]
    if q == "count_upper_gt":
        return upper is None or upper > ns
    lower = 2**33 if upper is None else upper // 2
    return lower >= ns


HOOK_QUERIES = {"count", "sum", "min_le", "max_le", "counter", "counter_if", "counters", "value", "values",
                "groups", "last_count", "sums", "count_upper_gt", "count_lower_ge", "pct"}


def owner(hook):
    """The hook whose method and counters HOOK has."""
    return "tcp-socket-read" if hook == "tcp-socket-read-hol" else hook


def runs(r, hook):
    """Whether HOOK runs in report r."""
    h = r.get("hooks", {}).get(owner(hook))
    return bool(h and h.get("method")) or any(x["hook"] == hook for x in r["histograms"])


def missing(path, what):
    print("jsonq-error")
    sys.exit(f"jsonq: {path}: {what}")


def check(path, q, args, reports):
    if not reports and q != "lines":
        missing(path, f"no report (asked {q} {' '.join(args)})")
    if q in HOOK_QUERIES and not any(runs(r, args[0]) for r in reports):
        missing(path, f"hook {args[0]} runs in no report "
                      f"(hooks: {' '.join(sorted(reports[0].get('hooks', {})))})")
    if q in ("value", "values"):
        for n, h in enumerate(hists(reports, args[0]), 1):
            if args[1] not in h:
                missing(path, f"histogram {n} of {args[0]} has no {args[1]}")
    if q in ("counter", "counters"):
        for n, r in enumerate(reports, 1):
            c = r["counters"].get(owner(args[0])) if runs(r, args[0]) else {}
            named = q != "counters"
            if c is None or (named and runs(r, args[0]) and args[1] not in c):
                missing(path, f"report {n} has no counter "
                              f"{args[1] if named else ''} of {owner(args[0])} "
                              f"(it has: {' '.join(sorted(c or {}))})")
    if q == "top":
        for n, r in enumerate(reports, 1):
            if args[0] not in r:
                missing(path, f"report {n} has no {args[0]}")


def main():
    path, q = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    reports = load(path)
    check(path, q, args, reports)
    if q == "lines":
        print(len(reports))
    elif q == "count":
        print(sum(h["count"] for h in hists(reports, args[0], args[1:])))
    elif q == "sum":
        print(sum(h["sum_ns"] for h in hists(reports, args[0], args[1:])))
    elif q in ("min_le", "max_le"):
        les = [b["le_ns"] if b["le_ns"] is not None else 2**62
               for h in hists(reports, args[0]) for b in h["buckets"] if b["count"]]
        print((min if q == "min_le" else max)(les) if les else 0)
    elif q in ("counter", "counter_if"):
        print(sum(r["counters"].get(owner(args[0]), {}).get(args[1], 0)
                  for r in reports if runs(r, args[0])))
    elif q == "value":
        print(sum(h[args[1]] for h in hists(reports, args[0], args[2:])))
    elif q == "values":
        for r in reports:
            t = datetime.fromisoformat(r["time"].replace("Z", "+00:00"))
            print(f"{t.timestamp():.3f}",
                  sum(h[args[1]] for h in hists([r], args[0], args[2:])))
    elif q == "counters":
        sums = {}
        for r in reports:
            for name, v in r["counters"].get(owner(args[0]), {}).items():
                sums[name] = sums.get(name, 0) + v
        print(" ".join(f"{k}={v}" for k, v in sorted(sums.items()) if v) or "none")
    elif q == "runs":
        print("yes" if any(runs(r, args[0]) for r in reports) else "no")
    elif q == "hooks":
        print(" ".join(sorted({h["hook"] for r in reports for h in r["histograms"]})))
    elif q == "groups":
        print(" ".join(sorted({str(h.get(args[1])) for h in hists(reports, args[0])})))
    elif q == "pct":
        merged = {}
        above = int(args.pop(2)[1:]) if len(args) > 2 and args[2].startswith("+") else 0
        for h in hists(reports, args[0], args[2:]):
            for b in h["buckets"]:
                le = b["le_ns"] if b["le_ns"] is not None else 2**62
                merged[le] = merged.get(le, 0) + b["count"]
        total = sum(merged.values())
        rank, seen = min(total, -(-total * int(float(args[1]) * 1000) // 1000) + above), 0
        for le in sorted(merged):
            seen += merged[le]
            if seen >= rank:
                print(le)
                break
        else:
            print(0)
    elif q == "sums":
        print(" ".join(str(h["sum_ns"]) for h in hists(reports, args[0])))
    elif q == "top":
        print(" ".join(str(r[args[0]]) for r in reports))
    elif q == "last_count":
        print(sum(h["count"] for h in hists(reports[-1:], args[0])))
    elif q in ("count_upper_gt", "count_lower_ge"):
        print(sum(b["count"] for h in hists(reports, args[0])
                  for b in h["buckets"] if bucket_beyond(q, b, int(args[1]))))
    elif q in ("recursion", "misses"):
        if any("recursion_misses" not in r for r in reports) or not reports:
            print("absent")
        elif any(r["recursion_misses"] is None for r in reports):
            print("null")
        elif q == "recursion":
            print(sum(p["count"] for r in reports for p in r["recursion_misses"]
                      if p["program"] == args[0]))
        else:
            sums = {}
            for p in (p for r in reports for p in r["recursion_misses"]
                      if owner(args[0]) in p["hooks"]):
                sums[p["program"]] = sums.get(p["program"], 0) + p["count"]
            print(" ".join(f"{k}={v}" for k, v in sorted(sums.items()) if v) or "none")
    else:
        missing(path, f"unknown query {q}")


main()
