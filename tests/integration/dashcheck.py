#!/usr/bin/env python3
"""dashcheck.py URL DASHBOARD HOOK [-o FILE] [--hooks LIST --probe FILE]:
every query of the Grafana dashboard DASHBOARD against the Prometheus at
URL (test_prometheus.sh, test_prom_dashboard). Grafana's variables become
what "All" selects ($instance, $netns, ... -> .*), $hook HOOK,
$__rate_interval 10s; label_values(SELECTOR, LABEL) is asked as Grafana
asks it (the label's values for the series SELECTOR matches). Prints one
line per query with the number of series (or values) it returned (to FILE
with -o, made anew each run: a caller polling until all have series keeps
the last answer); exits 1 if any returned none.

What the machine has is probed, not assumed: --hooks LIST names the hooks
the scraped tool was run with (its -e), --probe FILE holds what
`netstacklat -l -e LIST` said of them on this machine. Then
 - the hook_info table (the panel that shows each hook's method, empty for
   one unavailable here) must say of each hook what -l said: its method,
   or method "" with -l's reason;
 - a query fed only by hooks -l calls unavailable (hook="X", or the
   standing-queue families) is left out of the check for series, with -l
   as the reason printed, and must have none: data of a hook that did not
   attach would be wrong;
 - a query fed by hooks of which some attach must have series, and where
   its series carry a hook label, exactly those hooks' (none of one that
   is unavailable, each one that attaches).
A mismatch prints "wrong:" and counts as a failure, as an empty query does."""
import json
import re
import sys
import urllib.parse
import urllib.request

args = sys.argv[1:]
opts = {}
while len(args) > 3 and args[-2] in ("-o", "--hooks", "--probe"):
    opts[args[-2]] = args[-1]
    args = args[:-2]
if len(args) != 3:
    sys.exit(__doc__)
url, dash, hook = args
if "-o" in opts:
    sys.stdout = open(opts["-o"], "w")
d = json.load(open(dash))

# the hooks each family of series comes from, where its name says so
# (the others carry a hook label or belong to no hook)
FAMILY_HOOKS = {
    "netstacklat_standing_": ("tcp-standing-queue", "udp-standing-queue"),
}

enabled, probe = None, {}
if ("--hooks" in opts) != ("--probe" in opts):
    sys.exit("--hooks and --probe go together")
if "--hooks" in opts:
    enabled = opts["--hooks"].split(",")
    # -l: "  NAME METHOD" or "  NAME unavailable REASON", per hook
    for line in open(opts["--probe"]):
        if line.startswith("  "):
            f = line.split(None, 2)
            probe[f[0]] = (f[1], f[2].rstrip("\n") if len(f) > 2 else "")
    missing = [h for h in enabled if h not in probe]
    if missing:
        sys.exit(f"-l does not list {missing}")
    probe = {h: probe[h] for h in enabled}
unavailable = {h for h, (m, _) in probe.items() if m == "unavailable"}


def fill(expr):
    expr = expr.replace("$__rate_interval", "10s").replace("$hook", hook)
    return re.sub(r"\$\{?(instance|netns|interface|cgroup)\}?", ".*", expr)


def feeds(expr):
    """The enabled hooks whose series EXPR reads, or None: any."""
    if enabled is None:
        return None
    f = set()
    for op, v in re.findall(r'\bhook(=~?)"([^"]*)"', expr):
        f |= {h for h in enabled if (h == v if op == "=" else re.fullmatch(v, h))}
    for prefix, hooks in FAMILY_HOOKS.items():
        if prefix in expr:
            f |= set(hooks) & set(enabled)
    return f or None


def get(path, params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(f"{url}{path}?{q}", timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(body)
    return body["data"]


queries = []
for v in d["templating"]["list"]:
    if v["type"] == "query":
        queries.append(("variable " + v["name"], v["query"]))
for p in d["panels"]:
    for t in p.get("targets", []):
        queries.append((f'panel "{p["title"]}" {t["refId"]}', t["expr"]))
bad = 0
for what, expr in queries:
    expr = fill(expr)
    m = re.fullmatch(r"label_values\((.*), *(\w+)\)", expr)
    try:
        if m:
            result = get(f"/api/v1/label/{m[2]}/values", {"match[]": m[1]})
            hooks = None
        else:
            result = get("/api/v1/query", {"query": expr})["result"]
            hooks = {s["metric"]["hook"] for s in result if "hook" in s["metric"]}
    except Exception as e:  # a query Prometheus refuses is as bad as none
        print(f"{what}: error {e}: {expr}")
        bad += 1
        continue
    n = len(result)
    fed = feeds(expr)
    if fed is not None and fed <= unavailable:
        print(f"{what}: {n}, excluded: fed only by {', '.join(sorted(fed))},"
              " unavailable here (-l)")
        if n:
            print(f"  wrong: series of hooks -l calls unavailable: {expr}")
            bad += 1
        continue
    print(f"{what}: {n}")
    if not n:
        print(f"  empty: {expr}")
        bad += 1
    elif fed is not None and hooks and hooks != fed - unavailable:
        print(f"  wrong: series of {', '.join(sorted(hooks))}, where -l says"
              f" {', '.join(sorted(fed - unavailable))} attach: {expr}")
        bad += 1

# the hook_info table: each hook as -l says, and no other
if enabled is not None:
    info = {}
    for s in get("/api/v1/query", {"query": "netstacklat_hook_info"})["result"]:
        info.setdefault(s["metric"].get("hook"), []).append(s["metric"])
    wrong = []
    for h in sorted(set(info) | set(enabled)):
        method, reason = probe.get(h, (None, None))
        # Prometheus keeps no empty label: method "" is no method label
        got = [(lb.get("method", ""), lb.get("reason", "")) for lb in info.get(h, [])]
        want = [("", reason) if method == "unavailable" else (method, "")]
        if got != want:
            wrong.append(f"{h}: {got} where -l says {want}")
    print(f"hook_info against -l: {len(enabled)} hooks, {len(unavailable)} unavailable here"
          + (f" ({', '.join(sorted(unavailable))})" if unavailable else ""))
    for w in wrong:
        print(f"  wrong: hook_info of {w}")
    bad += len(wrong)
sys.exit(1 if bad else 0)
