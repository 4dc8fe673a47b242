#!/usr/bin/env bash
# Containers by name (issue #42; docs/containers.md): groups of -C whose
# cgroup is a container's carry its names, from the runtime's own state,
# in JSON, both Prometheus formats and the table. Laid out as the runtimes
# lay them out, under a cgroup of this test and a state root the tool is
# pointed at (NSL_TEST_STATE_ROOT, src/2-collect/containers.c): a
# Kubernetes pod's container under containerd (kubelet's systemd driver:
# kubepods-besteffort-podUID.slice/cri-containerd-ID.scope, the bundle's
# CRI annotations), a docker container (docker-ID.scope,
# config.v2.json's Name), and one whose state a tenant could have written,
# which must stay unnamed.
source "$(dirname "$0")/lib.sh"

TESTS=(test_container_pod_names test_container_docker_name test_container_state_untrusted
       test_container_tenant_cgroup)

UID_=1e2d3c4b_5a69_4788_9a0b_c1d2e3f40516
POD_UID=${UID_//_/-}
CID=$(printf '%064x' $((ID * 7919 + 1)))

# container_cgroup REL: the cgroup CG_ROOT/nsl$ID/REL, made with its
# parents (removed at exit, deepest first); its path in CG
container_cgroup() {
	local rel= d
	local -a made=()
	for d in "nsl$ID" ${1//\// }; do
		rel+=${rel:+/}$d
		[ -d "$CG_ROOT/$rel" ] && continue
		mkdir "$CG_ROOT/$rel" || return 1
		made+=("$CG_ROOT/$rel")
	done
	# the last made, the first removed
	for d in "${made[@]}"; do AT_EXIT=("rmdir $d" "${AT_EXIT[@]}"); done
	CG=$CG_ROOT/$rel
}

# state REL TEXT [MODE]: a runtime's state file under the tool's state root
state() {
	mkdir -p "$(dirname "$STATE/$1")"
	printf '%s' "$2" > "$STATE/$1"
	chmod "${3:-0600}" "$STATE/$1"
}

# served_in_cgroup OUT FORMAT: a TCP reader in $CG (its reads in READS),
# 50 messages, the tool with -C (FORMAT: json or prometheus) around them
served_in_cgroup() {
	local out=$1 fmt=$2
	serve tcp 5701 || return 1
	echo "$SERVER_PID" > "$CG/cgroup.procs" || { fail "cannot move the reader into $CG"; return 1; }
	: > "$TMP/tool.err"
	NSL_TEST_STATE_ROOT=$STATE "$NSL" -F "$fmt" -r 1 -o "$out" -C -n "/run/netns/$NS_B" \
		-e tcp-socket-read 2> "$TMP/tool.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	wait_for 20 grep -q attached "$TMP/tool.err" || { fail "tool did not attach: $(tail -2 "$TMP/tool.err")"; return 1; }
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	READS=$(json_field "$TMP/server.json" reads)
	sleep 1.2	# a report after the reads
	stop_tool
}

# container_of OUT: the container object of the reader's group in OUT's
# last report, as JSON (python's repr would not do for a test's words)
container_of() {
	"$PYTHON" - "$1" "$2" <<-'PY'
	import json, sys
	last = None
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == "tcp-socket-read" and h["cgroup_path"] == sys.argv[2]:
	            last = h.get("container", "absent")
	print(json.dumps(last, sort_keys=True))
	PY
}

test_container_pod_names() {
	local rel out=$TMP/pod.json prom=$TMP/pod.prom
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	rel=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice/cri-containerd-$CID.scope
	container_cgroup "$rel" || { fail "cannot make the pod's cgroups"; return; }
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$CID/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"container",
		"io.kubernetes.cri.container-name":"nginx","io.kubernetes.cri.sandbox-name":"web-0",
		"io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' 0644
	served_in_cgroup "$out" json || return
	expect "JSON container" "$(container_of "$out" "/nsl$ID/$rel")" = \
		'{"container": "nginx", "id": "'"$CID"'", "name": null, "namespace": "shop", "pod": "web-0", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	served_in_cgroup "$prom" prometheus || return
	grep -q "^netstacklat_latency_seconds_count{hook=\"tcp-socket-read\",cgroup=\"/nsl$ID/$rel\",namespace=\"shop\",pod=\"web-0\",container=\"nginx\"} $READS$" "$prom" ||
		fail "no pod labels on the reader's series ($READS reads): $(grep 'tcp-socket-read' "$prom" | grep _count | head -2)"
	check_metrics "$prom"
}

test_container_docker_name() {
	local rel=system.slice/docker-$CID.scope out=$TMP/docker.json
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	container_cgroup "$rel" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"ID":"'"$CID"'","Name":"/cache"}'
	served_in_cgroup "$out" json || return
	expect "JSON container" "$(container_of "$out" "/nsl$ID/$rel")" = \
		'{"container": null, "id": "'"$CID"'", "name": "cache", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	served_in_cgroup "$TMP/docker.prom" prometheus || return
	grep -q "^netstacklat_latency_seconds_count{hook=\"tcp-socket-read\",cgroup=\"/nsl$ID/$rel\",name=\"cache\"} $READS$" "$TMP/docker.prom" ||
		fail "no name label ($READS reads): $(grep 'tcp-socket-read' "$TMP/docker.prom" | grep _count | head -2)"
}

# The same docker layout, its config.v2.json writable by others (a file a
# tenant could have written): the container is known by its id only.
test_container_state_untrusted() {
	local rel=system.slice/docker-$CID.scope out=$TMP/untrusted.json
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	container_cgroup "$rel" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"Name":"/evil"}' 0666
	served_in_cgroup "$out" json || return
	expect "JSON container" "$(container_of "$out" "/nsl$ID/$rel")" = \
		'{"container": null, "id": "'"$CID"'", "name": null, "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
}

# A tenant's cgroup (delegated: owned by its user) named after a real
# container, whose state is good: no container, not that one's name.
test_container_tenant_cgroup() {
	local rel=tenant/docker-$CID.scope out=$TMP/tenant.json
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	container_cgroup "$rel" || { fail "cannot make the tenant's cgroups"; return; }
	chown 65534:65534 "$CG_ROOT/nsl$ID/tenant" "$CG" || { fail "cannot give the cgroups to nobody"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"Name":"/cache"}'
	served_in_cgroup "$out" json || return
	expect "JSON container of a tenant's cgroup" "$(container_of "$out" "/nsl$ID/$rel")" = null
}

# check_metrics FILE: promtool finds nothing to say, where it is installed
check_metrics() {
	command -v promtool > /dev/null || return 0
	promtool check metrics < "$1" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool: $(head -3 "$TMP/promtool.out")"
}

STATE=$TMP/state
need "" prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
