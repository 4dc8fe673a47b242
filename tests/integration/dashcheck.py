#!/usr/bin/env python3
"""dashcheck.py URL DASHBOARD HOOK [-o FILE]: every query of the Grafana dashboard
DASHBOARD against the Prometheus at URL (test_prometheus.sh,
test_prom_dashboard). Grafana's variables become what "All" selects
($instance, $netns, ... -> .*), $hook HOOK, $__rate_interval 10s;
label_values(SELECTOR, LABEL) is asked as Grafana asks it (the label's
values for the series SELECTOR matches). Prints one line per query with
the number of series (or values) it returned (to FILE with -o, made anew
each run: a caller polling until all have series keeps the last answer);
exits 1 if any returned none."""
import json
import re
import sys
import urllib.parse
import urllib.request

url, dash, hook = sys.argv[1], sys.argv[2], sys.argv[3]
if sys.argv[4:5] == ["-o"]:
    sys.stdout = open(sys.argv[5], "w")
d = json.load(open(dash))


def fill(expr):
    expr = expr.replace("$__rate_interval", "10s").replace("$hook", hook)
    return re.sub(r"\$\{?(instance|netns|interface|cgroup)\}?", ".*", expr)


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
empty = 0
for what, expr in queries:
    expr = fill(expr)
    m = re.fullmatch(r"label_values\((.*), *(\w+)\)", expr)
    try:
        if m:
            n = len(get(f"/api/v1/label/{m[2]}/values", {"match[]": m[1]}))
        else:
            n = len(get("/api/v1/query", {"query": expr})["result"])
    except Exception as e:  # a query Prometheus refuses is as bad as none
        print(f"{what}: error {e}: {expr}")
        empty += 1
        continue
    print(f"{what}: {n}")
    if not n:
        print(f"  empty: {expr}")
        empty += 1
sys.exit(1 if empty else 0)
