#!/usr/bin/env python3
# The tool's read samples against what the reader itself saw, read by read
# (issue #46 item 4).
#
#   readcheck.py TOOL_JSON SERVER_JSON HOOK DELAY_NS
#
# SERVER_JSON is trafficgen's report with --rx-stamps: for each read
# [ready, start, stamp, done, bytes], CLOCK_REALTIME ns: poll() found data,
# the read was called, the RX stamp the read returned (the one the tool's
# read hook measures from: tcp_recv_timestamp() hands the same
# scm_timestamping_internal to the socket's cmsg), the read returned. The
# tool reads its clock inside the read, so each of its samples lies in
# [start - stamp, done - stamp] of one read; then the k-th smallest sample
# lies between the k-th smallest of the lower and of the upper ends, and
# its bucket between theirs: an exact check, whatever the vCPU did between
# the clocks, with no pairing of samples to reads needed.
#
# DELAY_NS is the reader's --read-delay-ms: a read called DELAY_NS after
# poll() found data has waited at least that long, unless the stamp it
# returned is later than the poll (the last skb the read took came in
# after the first: two messages in one read, or one message in two skbs):
# such reads are named with their stamps, and any other read below
# DELAY_NS fails the check.
#
# Prints one line per note and a last line "ok ..." or "FAIL ..."; exit 1
# on FAIL.
import json
import math
import sys


def buckets_of(path, hook):
    """The resolution and the sorted bucket keys of HOOK's samples, all
    reports and groups merged: index at resolution 2-8, le_ns at 1."""
    res, keys = None, []
    for line in open(path):
        r = json.loads(line)
        res = r["resolution"]
        for h in r["histograms"]:
            if h["hook"] != hook:
                continue
            for b in h["buckets"]:
                k = b["index"] if res > 1 else (b["le_ns"] if b["le_ns"] is not None else 2**62)
                keys += [k] * b["count"]
    return res, sorted(keys)


def bucket(res, ns):
    """The key of the bucket holding ns (docs/output-json.md)."""
    if res == 1:
        return 1 if ns <= 1 else (2**62 if ns > 2**33 else 1 << (ns - 1).bit_length())
    i = math.ceil(res * math.log2(ns / 1e9))
    le = lambda j: math.floor(1e9 * 2 ** (j / res))
    while ns > le(i):
        i += 1
    while ns <= le(i - 1):
        i -= 1
    return i


def main():
    tool, server, hook, delay = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rx = json.load(open(server))["rx"]
    res, samples = buckets_of(tool, hook)
    fails = []
    if len(samples) != len(rx):
        fails.append(f"{len(samples)} samples, {len(rx)} reads")
    unstamped = [i for i, r in enumerate(rx) if not r[2]]
    if unstamped:
        fails.append(f"reads {unstamped} returned no RX stamp")
    rx = [r for r in rx if r[2]]
    for i, (ready, start, stamp, done, n) in enumerate(rx):
        if start - stamp >= delay:
            continue
        if stamp > ready:
            print(f"  read {i}: {n} bytes, waited {(start - stamp) / 1e6:.2f}-{(done - stamp) / 1e6:.2f} ms:"
                  f" its last skb's stamp is {(stamp - ready) / 1e6:.2f} ms after poll() found data")
        else:
            fails.append(f"read {i} waited {(start - stamp) / 1e6:.2f} ms from a stamp"
                         f" {(ready - stamp) / 1e6:.2f} ms before poll() found data")
    lo = sorted(bucket(res, r[1] - r[2]) for r in rx)
    hi = sorted(bucket(res, r[3] - r[2]) for r in rx)
    if len(samples) == len(rx):
        for k, (s, a, b) in enumerate(zip(samples, lo, hi)):
            if not a <= s <= b:
                fails.append(f"sample {k + 1} of {len(rx)} (sorted) in bucket {s},"
                             f" the reads' ends in buckets {a}..{b}")
                break
    if fails:
        print("FAIL " + "; ".join(fails))
        sys.exit(1)
    print(f"ok {len(rx)} reads, each sample within its read (resolution {res})")


main()
