#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turns the raw measurements of scripts/bench-http into a table and a JSON file.

    httpreport.py RAW_DIR OUT_JSON      (the table goes to stdout)

RAW_DIR holds wrk's reports of every run (tp-MODE-ROUND-WORKLOAD.wrk), and
for the statistics round bpftool program lists before and after each
workload (read by report.py's cost_round, as scripts/bench's cost phase)
with wrk's reports of those runs (cost-MODE-WORKLOAD.wrk). Nothing here
measures; it only parses, divides and takes medians.
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (scripts/bench's reader of the same raw files)

MODES = ("off", "tstamp", "floor", "on", "on_C", "on_s8", "on_q")
NAMES = {"off": "nothing attached", "tstamp": "RX timestamps only",
         "floor": "empty programs", "on": "netstacklat",
         "on_C": "netstacklat -C", "on_s8": "netstacklat --sample 8",
         "on_q": "netstacklat + standing"}
COST_MODES = ("floor", "on", "on_C", "on_s8", "on_q")
UNIT_US = {"us": 1.0, "ms": 1e3, "s": 1e6, "m": 60e6}


def wrk(path):
    """wrk --latency's report: requests/s, p50/p99 in us, requests, seconds,
    errors (socket errors and non-2xx answers)."""
    text = open(path).read()

    def lat(pct):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
        return float(m.group(1)) * UNIT_US[m.group(2)] if m else None
    m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", text)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if not (m and rps):
        raise SystemExit(f"{path}: not a wrk report:\n{text[-400:]}")
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    errors += int(non2xx.group(1)) if non2xx else 0
    return {"rps": float(rps.group(1)), "p50_us": lat(50), "p99_us": lat(99),
            "requests": int(m.group(1)),
            "seconds": float(m.group(2)) * UNIT_US[m.group(3)] / 1e6, "errors": errors}


def describe(w):
    size, conns = w.split(":")
    unit = {"k": "KiB", "m": "MiB"}.get(size[-1])
    size = f"{size[:-1]} {unit}" if unit else f"{size} B"
    return f"{size} file, {conns} connections"


def throughput(raw, workloads, rounds):
    """Per workload and mode: every round's wrk figures; each mode's
    requests/s against nothing attached in the same round."""
    out = {}
    for w in workloads:
        key = w.replace(":", "-c")
        runs = {m: [wrk(os.path.join(raw, f"tp-{m}-{i}-{key}.wrk")) for i in range(1, rounds + 1)]
                for m in MODES}
        modes = {}
        for m in MODES:
            rr = [r["rps"] / o["rps"] for r, o in zip(runs[m], runs["off"])]
            p99 = [r["p99_us"] / o["p99_us"] for r, o in zip(runs[m], runs["off"])
                   if r["p99_us"] and o["p99_us"]]
            modes[m] = {
                "name": NAMES[m], "runs": runs[m],
                "median_rps": statistics.median(r["rps"] for r in runs[m]),
                "median_p50_us": report.median_or_none([r["p50_us"] for r in runs[m]]),
                "median_p99_us": report.median_or_none([r["p99_us"] for r in runs[m]]),
                "errors": sum(r["errors"] for r in runs[m]),
                "round_ratios": rr, "ratio_median": statistics.median(rr), "ratio_best": max(rr),
                "round_p99_ratios": p99, "p99_ratio_median": report.median_or_none(p99),
            }
        out[w] = {"description": describe(w), "modes": modes}
    return out


def cost(raw, workloads, cpus):
    """The statistics round: per mode and workload, every program's runs and
    run time, per request and as a share of the machine's CPU time."""
    keys = [w.replace(":", "-c") for w in workloads]
    out = {}
    for m in COST_MODES:
        progs = report.cost_round(raw, m, 1, keys)
        per_w = {}
        for w, key in zip(workloads, keys):
            run = wrk(os.path.join(raw, f"cost-{m}-{key}.wrk"))
            ns = sum(p[key]["run_time_ns"] for p in progs.values())
            per_w[w] = {
                "rps": run["rps"], "requests": run["requests"], "seconds": run["seconds"],
                "bpf_ns": ns, "bpf_ns_per_request": ns / run["requests"],
                "cpu_share_of_machine": ns / (run["seconds"] * 1e9 * cpus),
                "programs": {name: {"runs": p[key]["runs"], "run_time_ns": p[key]["run_time_ns"],
                                    "runs_per_request": p[key]["runs"] / run["requests"],
                                    "avg_ns": (p[key]["run_time_ns"] / p[key]["runs"]
                                               if p[key]["runs"] else None)}
                             for name, p in sorted(progs.items())},
            }
        out[m] = per_w
        if m.startswith("on"):
            out[m]["tool"] = tool_report(raw, m, sum(per_w[w]["requests"] for w in workloads))
    return out


def tool_report(raw, m, requests):
    """netstacklat's own last report of the statistics round (cumulative over
    its workloads): per hook, samples and packets without an RX stamp
    (not_rx_tstamp: TCP's departure time, kept across veth), per request."""
    lines = [l for l in open(os.path.join(raw, f"cost-{m}.tool.jsonl")) if l.strip()]
    last = json.loads(lines[-1])
    hooks = {}
    for h in last["histograms"]:
        hooks.setdefault(h["hook"], {"samples": 0})["samples"] += h["count"]
    for hook, c in last.get("counters", {}).items():
        hooks.setdefault(hook, {"samples": 0})["not_rx_tstamp"] = c.get("not_rx_tstamp", 0)
    for c in hooks.values():
        c["samples_per_request"] = c["samples"] / requests
        c["not_rx_tstamp_per_request"] = c.get("not_rx_tstamp", 0) / requests
    return {"sample_every": last.get("sample_every"), "requests": requests, "hooks": hooks}


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def print_table(header, tput, cst, workloads):
    p = print
    p(f"kernel: {header['kernel']}, {header['cpus']} CPUs ({header['virt']}), "
      f"commit {header['tool_commit']}")
    p(f"nginx {header['nginx']}, wrk {header['wrk']}; {header['cpus_pinned']}")
    att = ", ".join(f"{h} {m}" for h, m in header["attach"].items())
    p(f"attach: {att}")
    others = header.get("others", "").strip()
    if others:
        p(f"other BPF users: {others}")
    p(f"runtime: {header.get('runtime_s', '?')} s ({header.get('waited_s', '?')} s of it "
      f"waiting for others); runs repeated because others were busy: "
      f"{header.get('repeated_runs', '?')}, kept anyway: {header.get('noisy_blocks', '?')}")
    p("")
    p(f"requests/s and wrk's latency: median of {header['rounds']} rounds of "
      f"{header['seconds']} s per mode; ratio: requests/s")
    p("to nothing attached in the same round (median, best, range); p99 ratio: median")
    for w in workloads:
        t = tput[w]
        p("")
        p(t["description"])
        p(f"{'mode':<24}{'req/s':>9}{'ratio':>7}{'best':>7}{'range':>13}"
          f"{'p50 us':>8}{'p99 us':>8}{'p99 ratio':>10}")
        for m in MODES:
            d = t["modes"][m]
            rng = f"{min(d['round_ratios']):.3f}-{max(d['round_ratios']):.3f}"
            ratio = (f"{d['ratio_median']:>7.3f}{d['ratio_best']:>7.3f}{rng:>13}"
                     if m != "off" else f"{'':>27}")
            p99r = fmt(d["p99_ratio_median"], ".3f") if m != "off" else ""
            err = f"  ({d['errors']} errors)" if d["errors"] else ""
            p(f"{d['name']:<24}{d['median_rps']:>9,.0f}{ratio}"
              f"{fmt(d['median_p50_us']):>8}{fmt(d['median_p99_us']):>8}{p99r:>10}{err}")
    p("")
    p("BPF statistics round (one more run per mode and workload, statistics on: the")
    p("program bodies only, not the tracepoint's or netfilter's dispatch to them):")
    p("ns of BPF per request, and % of the machine's CPU time (all CPUs)")
    p(f"{'mode':<24}" + "".join(f"{w:>17}" for w in workloads))
    for m in COST_MODES:
        cells = "".join(f"{c['bpf_ns_per_request']:>9,.0f} {100 * c['cpu_share_of_machine']:>5.2f} %"
                        for c in (cst[m][w] for w in workloads))
        p(f"{NAMES[m]:<24}{cells}")
    p("")
    p("per program: runs per request, ns per run")
    p(f"{'mode':<10}{'program':<22}" + "".join(f"{w:>15}" for w in workloads))
    for m in COST_MODES:
        names = cst[m][workloads[0]]["programs"]
        for name in names:
            if not any(cst[m][w]["programs"][name]["runs"] for w in workloads):
                continue    # attached, never ran here (e.g. a probe's)
            cells = ""
            for w in workloads:
                c = cst[m][w]["programs"][name]
                cells += f"{c['runs_per_request']:>8.2f} {fmt(c['avg_ns']):>6}"
            p(f"{m:<10}{name[:21]:<22}{cells}")
    p("")
    p("netstacklat's own report of that round, all workloads: per request, samples")
    p("recorded (and packets skipped as not_rx_tstamp) per hook")
    for m in COST_MODES[1:]:
        t = cst[m]["tool"]
        cells = ", ".join(f"{h} {c['samples_per_request']:.2f}"
                          + (f" ({c['not_rx_tstamp_per_request']:.2f})"
                             if c["not_rx_tstamp_per_request"] else "")
                          for h, c in t["hooks"].items()
                          if c["samples"] or c["not_rx_tstamp_per_request"])
        p(f"{NAMES[m]}: {cells}")


def main():
    raw, out_json = sys.argv[1], sys.argv[2]
    header = dict(l.rstrip("\n").split("=", 1)
                  for l in open(os.path.join(raw, "header.txt")) if "=" in l)
    header["attach"] = report.attach_of(os.path.join(raw, "attach.txt"))
    runs_log = os.path.join(raw, "processes.txt")
    if os.path.exists(runs_log):
        header["repeated_runs"] = sum(1 for l in open(runs_log) if l.split()[3] != "1")
    workloads = header["workloads"].split()
    tput = throughput(raw, workloads, int(header["rounds"]))
    cst = cost(raw, workloads, int(header["cpus"]))
    print_table(header, tput, cst, workloads)
    with open(out_json, "w") as f:
        json.dump({"header": header, "throughput": tput, "bpf_stats": cst}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
