#!/usr/bin/env python3
"""The Kubernetes scrape configurations of docs/prometheus.md, without
Kubernetes (test_prometheus.sh: test_prom_k8s_scrapes).

  k8s_scrapes.py config DOCS DEPLOY PORT > prometheus.yml
  k8s_scrapes.py check URL POD_CGROUP DOCKER_CGROUP HOST_CGROUP

config: the jobs of the docs, each with a static target 127.0.0.1:PORT
carrying the labels Kubernetes pod discovery gives the DaemonSet's pod of
DEPLOY (its namespace, a pod name, its container, labels, annotations and
named port, the node) before relabelling, where the docs say
kubernetes_sd_configs: "pods-honor" (the docs' block marked
`<!-- k8s-scrape: pods-honor -->`), "pods" (the same without
honor_labels) and the job the prometheus-operator makes of the docs'
PodMonitor (`<!-- k8s-scrape: podmonitor -->`: its selector, port,
honorLabels and relabelings, as the operator's generator writes them,
pkg/prometheus/promcfg.go; its test data, e.g.
EnforcedNamespaceLabelOnExcludedPodMonitor_Expected.golden).

check: the series the Prometheus at URL stored of each job, for the
tcp-socket-read groups of the three cgroups (a pod's container, a docker
container named "cache", the host's) and netstacklat_build_info, carry
the labels docs/prometheus.md's tables say. Exit 0: all as said; 2: some
series not (yet) stored; 1: wrong labels.
"""
import json
import re
import sys
import urllib.parse
import urllib.request

import yaml

NODE = "node1"
POD_SUFFIX = "-x7k2p"          # a DaemonSet's pod: its name and 5 characters
NAMES = ("namespace", "pod", "container", "name")


def sanitize(name):
    """A Kubernetes label or annotation name as a Prometheus label name."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def docs_block(docs, mark):
    """The YAML of the fenced block after <!-- k8s-scrape: MARK -->."""
    m = re.search(r"<!-- k8s-scrape: %s -->\s*```yaml\n(.*?)```" % re.escape(mark),
                  docs, re.S)
    if not m:
        sys.exit(f"docs: no yaml block marked k8s-scrape: {mark}")
    return yaml.safe_load(m[1])


def discovered(deploy, port):
    """What pod discovery (role: pod) gives the DaemonSet's pod before
    relabelling, its container's named port standing at 127.0.0.1:PORT."""
    ds = next(d for d in yaml.safe_load_all(deploy) if d and d.get("kind") == "DaemonSet")
    tmpl = ds["spec"]["template"]
    ctr = tmpl["spec"]["containers"][0]
    cport = ctr["ports"][0]
    meta = {
        "__meta_kubernetes_namespace": ds["metadata"]["namespace"],
        "__meta_kubernetes_pod_name": ds["metadata"]["name"] + POD_SUFFIX,
        "__meta_kubernetes_pod_ip": "127.0.0.1",
        "__meta_kubernetes_pod_node_name": NODE,
        "__meta_kubernetes_pod_phase": "Running",
        "__meta_kubernetes_pod_ready": "true",
        "__meta_kubernetes_pod_container_name": ctr["name"],
        "__meta_kubernetes_pod_container_init": "false",
        "__meta_kubernetes_pod_container_port_name": cport.get("name", ""),
        "__meta_kubernetes_pod_container_port_number": str(port),
        "__meta_kubernetes_pod_container_port_protocol": cport.get("protocol", "TCP"),
    }
    for k, v in (tmpl["metadata"].get("labels") or {}).items():
        meta["__meta_kubernetes_pod_label_" + sanitize(k)] = v
        meta["__meta_kubernetes_pod_labelpresent_" + sanitize(k)] = "true"
    for k, v in (tmpl["metadata"].get("annotations") or {}).items():
        # the test's port for the container's, where an annotation names it
        if v == str(cport["containerPort"]):
            v = str(port)
        meta["__meta_kubernetes_pod_annotation_" + sanitize(k)] = v
        meta["__meta_kubernetes_pod_annotationpresent_" + sanitize(k)] = "true"
    return meta


def static(job, port, meta):
    """job with its kubernetes_sd_configs replaced by the static target."""
    job = dict(job)
    if "kubernetes_sd_configs" not in job:
        sys.exit(f"job {job.get('job_name')}: no kubernetes_sd_configs")
    del job["kubernetes_sd_configs"]
    job["static_configs"] = [{"targets": [f"127.0.0.1:{port}"], "labels": meta}]
    return job


def snake(name):
    return re.sub(r"([A-Z])", lambda m: "_" + m[1].lower(), name)


def operator_job(pm):
    """The scrape job the prometheus-operator makes of PodMonitor pm's
    first endpoint (without sharding)."""
    ns, name = pm["metadata"]["namespace"], pm["metadata"]["name"]
    ep = pm["spec"]["podMetricsEndpoints"][0]
    relabel = [{"source_labels": ["job"], "target_label": "__tmp_prometheus_job_name"}]
    for k, v in sorted((pm["spec"]["selector"].get("matchLabels") or {}).items()):
        relabel.append({"action": "keep",
                        "source_labels": ["__meta_kubernetes_pod_label_" + sanitize(k),
                                          "__meta_kubernetes_pod_labelpresent_" + sanitize(k)],
                        "regex": f"({v});true"})
    relabel += [
        {"action": "drop", "source_labels": ["__meta_kubernetes_pod_phase"],
         "regex": "(Failed|Succeeded)"},
        {"action": "keep", "source_labels": ["__meta_kubernetes_pod_container_port_name"],
         "regex": ep["port"]},
        {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
        {"source_labels": ["__meta_kubernetes_pod_container_name"], "target_label": "container"},
        {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "pod"},
        {"target_label": "job", "replacement": f"{ns}/{name}"},
        {"target_label": "endpoint", "replacement": ep["port"]},
    ]
    for r in ep.get("relabelings") or []:
        relabel.append({snake(k): v for k, v in r.items()})
    return {
        "job_name": f"podMonitor/{ns}/{name}/0",
        "honor_labels": bool(ep.get("honorLabels", False)),
        "kubernetes_sd_configs": [{"role": "pod", "namespaces": {"names": [ns]}}],
        "relabel_configs": relabel,
    }


def config(docs_path, deploy_path, port):
    docs = open(docs_path).read()
    meta = discovered(open(deploy_path).read(), port)
    honor = docs_block(docs, "pods-honor")["scrape_configs"][0]
    if honor.get("honor_labels") is not True:
        sys.exit("docs: the pods-honor job has no honor_labels: true")
    plain = {k: v for k, v in honor.items() if k != "honor_labels"}
    jobs = [dict(honor, job_name="pods-honor"), dict(plain, job_name="pods"),
            operator_job(docs_block(docs, "podmonitor"))]
    print(yaml.dump({"global": {"scrape_interval": "1s"},
                     "scrape_configs": [static(j, port, meta) for j in jobs]},
                    Dumper=Plain, sort_keys=False))


class Plain(yaml.SafeDumper):
    """Every mapping written out where it is (no &anchors), to be read."""
    def ignore_aliases(self, data):
        return True


def series(url, job):
    q = urllib.parse.urlencode({"match[]": '{job="%s",__name__=~"netstacklat_latency_seconds'
                                '(_count)?|netstacklat_build_info"}' % job})
    with urllib.request.urlopen(f"{url}/api/v1/series?{q}", timeout=5) as r:
        return json.load(r)["data"]


def check(url, pod_cg, docker_cg, host_cg):
    tool = {"namespace": "netstacklat", "pod": "netstacklat" + POD_SUFFIX,
            "container": "netstacklat"}
    pod = {"namespace": "shop", "pod": "web-0", "container": "nginx"}
    absent = dict.fromkeys(NAMES)
    exported_absent = {"exported_" + k: None for k in NAMES}
    honor = {   # kind: the labels it must have (None: must not have)
        "pod": dict(absent, **pod, **exported_absent),
        "docker": dict(absent, name="cache", **exported_absent),
        "host": dict(absent, **exported_absent),
        "build_info": dict(absent, **tool, **exported_absent),
    }
    plain = {
        "pod": dict(tool, name=None, **{"exported_" + k: v for k, v in pod.items()},
                    exported_name=None),
        "docker": dict(tool, name="cache", **exported_absent),
        "host": dict(tool, name=None, **exported_absent),
        "build_info": dict(tool, name=None, **exported_absent),
    }
    jobs = {"pods-honor": (honor, {}), "pods": (plain, {}),
            "netstacklat/netstacklat": (honor, {"endpoint": "metrics"})}
    cgroups = {pod_cg: "pod", docker_cg: "docker", host_cg: "host"}
    wrong, missing = [], []
    for job, (want, extra) in jobs.items():
        seen = {}
        for s in series(url, job):
            if s["__name__"] == "netstacklat_build_info":
                kind = "build_info"
            elif s.get("hook") == "tcp-socket-read" and s.get("cgroup") in cgroups:
                kind = cgroups[s["cgroup"]]
            else:
                continue
            seen.setdefault(kind, []).append(s)
        for kind, labels in want.items():
            labels = dict(labels, node=NODE, **extra)
            if kind not in seen:
                missing.append(f"{job}: no series of {kind}")
                continue
            for s in seen[kind]:
                bad = [f"{k}={s.get(k)!r} (wants {v!r})" for k, v in labels.items()
                       if s.get(k) != v]
                if bad:
                    wrong.append(f"{job}: {kind}'s {s['__name__']}: {', '.join(bad)}")
            names = {k: v for k, v in seen[kind][0].items()
                     if k in NAMES or k.startswith("exported_")}
            print(f"{job}: {kind}: {names}")
    for line in missing + wrong:
        print(line)
    sys.exit(2 if missing else 1 if wrong else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["config"] and len(sys.argv) == 5:
        config(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 6:
        check(*sys.argv[2:6])
    else:
        sys.exit(__doc__)
