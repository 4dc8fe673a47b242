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
# which must stay unnamed. With -I -n -1, a network namespace is named by
# the container (or pod) whose processes live in it, and only then.
source "$(dirname "$0")/lib.sh"

TESTS=(test_container_pod_names test_container_docker_name test_container_state_untrusted
       test_container_tenant_cgroup test_container_netns_pod test_container_netns_shared
       test_container_names_as_user test_container_pod_veth test_namer_shut_in
       test_container_netns_cni test_container_netns_hooks test_container_private_cgroupns
       test_container_runtime_layouts test_container_nested_pose test_namer_stopped
       test_namer_landlocked test_namer_landlocked_netns)

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

# The tool's report interval in these tests (EVERY), and the wait for a
# report after their traffic (AFTER): a group is named at the first tick
# that sees it, by the namer, while that report waits (docs/containers.md),
# so a tick after the last read is the state the checks read; an interval
# and 0.2 s for a late tick, as the 1.2 s were at -r 1.
EVERY=0.25 AFTER=0.45

# served_in_cgroup OUT FORMAT [ARGS...]: a TCP reader in $CG (its reads
# in READS), 50 messages, the tool with ARGS (-C in B's namespace if none;
# FORMAT: json or prometheus) around them
served_in_cgroup() {
	local out=$1 fmt=$2; shift 2
	[ $# -gt 0 ] || set -- -C -n "/run/netns/$NS_B"
	serve tcp 5701 || return 1
	echo "$SERVER_PID" > "$CG/cgroup.procs" || { fail "cannot move the reader into $CG"; return 1; }
	: > "$TMP/tool.err"
	NSL_TEST_STATE_ROOT=$STATE "$NSL" -F "$fmt" -r "$EVERY" -o "$out" "$@" \
		-e tcp-socket-read 2> "$TMP/tool.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	wait_for 20 grep -q attached "$TMP/tool.err" || { fail "tool did not attach: $(tail -2 "$TMP/tool.err")"; return 1; }
	${WHILE_RUNNING:-}
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	READS=$(json_field "$TMP/server.json" reads)
	sleep "$AFTER"	# a report after the reads
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
	pod_state || return
	served_in_cgroup "$out" json || return
	expect "JSON container" "$(container_of "$out" "/nsl$ID/$rel")" = \
		'{"container": "nginx", "id": "'"$CID"'", "name": null, "namespace": "shop", "pod": "web-0", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	served_in_cgroup "$prom" prometheus || return
	grep -q "^netstacklat_latency_seconds_count{hook=\"tcp-socket-read\",cgroup=\"/nsl$ID/$rel\",namespace=\"shop\",pod=\"web-0\",container=\"nginx\",name=\"\"} $READS$" "$prom" ||
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
	grep -q "^netstacklat_latency_seconds_count{hook=\"tcp-socket-read\",cgroup=\"/nsl$ID/$rel\",namespace=\"\",pod=\"\",container=\"\",name=\"cache\"} $READS$" "$TMP/docker.prom" ||
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

# netns_container_of OUT: the container object of the groups of B's
# namespace in OUT's last report (-I -n -1), as JSON; "several" if they differ
netns_container_of() {
	"$PYTHON" - "$1" "$(stat -L -c %i "/run/netns/$NS_B")" <<-'PY'
	import json, sys
	seen = set()
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == "tcp-socket-read" and h["netns"] == int(sys.argv[2]):
	            seen.add(json.dumps(h.get("container", "absent"), sort_keys=True))
	print(seen.pop() if len(seen) == 1 else "several" if seen else "no group")
	PY
}

# pod_state: the pod's container under containerd, as kubelet lays it out
# (its cgroup in CG, its bundle's annotations in the state root)
pod_state() {
	local rel=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice/cri-containerd-$CID.scope
	container_cgroup "$rel" || { fail "cannot make the pod's cgroups"; return 1; }
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$CID/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"container",
		"io.kubernetes.cri.container-name":"nginx","io.kubernetes.cri.sandbox-name":"web-0",
		"io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' 0644
}

# dweller CGROUP [NS]: a process of that cgroup living in B's namespace (or NS's; moved
# into the cgroup first: ip netns exec remounts /sys) until the test ends,
# as a pod's pause process lives in the pod's namespace; each tool run
# learns B's groups while it lives (the reader may exit before)
dweller() {
	local pid ns=${2:-$NS_B}
	sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" sleep 120' sh "$1" "$ns" &
	pid=$!
	BG_PIDS+=("$pid")
	DWELLERS+=("$pid")
	wait_for 5 eval '[ "$(stat -L -c %i /proc/$pid/ns/net 2> /dev/null)" = "$(stat -L -c %i "/run/netns/$ns")" ]' ||
		{ fail "no process of $1 in $ns"; return 1; }
}

dwellers_gone() {
	[ ${#DWELLERS[@]} -gt 0 ] || return 0
	kill "${DWELLERS[@]}" 2> /dev/null
	wait "${DWELLERS[@]}" 2> /dev/null
	DWELLERS=()
}

# -I -n -1: B's namespace, where only the pod's processes live (its
# sandbox's pause and the reader, two containers of the pod), is the pod's:
# its names on B's groups (no container's: the pod's containers share it),
# in JSON and Prometheus
test_container_netns_pod() {
	local out=$TMP/netns.json prom=$TMP/netns.prom ino sid=$(printf '%064x' $((ID * 7919 + 3)))
	local slice=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	container_cgroup "$slice/cri-containerd-$sid.scope" || { fail "cannot make the sandbox's cgroup"; return; }
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$sid/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"web-0","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' 0644
	dweller "$CG" || return
	pod_state || return
	ino=$(stat -L -c %i "/run/netns/$NS_B")
	served_in_cgroup "$out" json -I -n -1 &&
		served_in_cgroup "$prom" prometheus -I -n -1
	dwellers_gone
	[ -s "$prom" ] || return
	expect "JSON container of B's namespace" "$(netns_container_of "$out")" = \
		'{"container": null, "id": null, "name": null, "namespace": "shop", "pod": "web-0", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	grep -Eq "^netstacklat_latency_seconds_count\{hook=\"tcp-socket-read\",interface=\"[^\"]*\",ifindex=\"[0-9]+\",netns=\"$ino\",namespace=\"shop\",pod=\"web-0\",container=\"\",name=\"\"\} $READS$" "$prom" ||
		fail "no pod labels on B's series ($READS reads): $(grep 'tcp-socket-read' "$prom" | grep _count | head -2)"
	check_metrics "$prom"
}

# A namespace the tool sees no process in: the tool in a PID namespace of
# its own (unshare --pid --mount-proc), as in a DaemonSet without hostPID,
# B's reader out of its sight. The CNI result cache (libcni's cniCacheV1
# file, here as libcni before 1.2 writes it: the namespace as its
# interfaces' "sandbox") says which pod sandbox B was set up for, and
# that sandbox's containerd bundle names the pod. A cached result whose
# path is no namespace mount under /run/netns (here: "..") names nothing:
# else two sandboxes would claim B, and neither would name it.
test_container_netns_cni() {
	local out=$TMP/cni.json unshare tool
	local sid=$(printf '%064x' $((ID * 7919 + 4))) other=$(printf '%064x' $((ID * 7919 + 5)))
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$sid/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"web-1","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' 0644
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$other/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"forged","io.kubernetes.cri.sandbox-namespace":"shop"}}' 0644
	state "/var/lib/cni/results/mynet-$other-eth0" '{"kind":"cniCacheV1","containerId":"'"$other"'",
		"ifName":"eth0","networkName":"mynet","netns":"/run/netns/../netns/'"$NS_B"'"}'
	state "/var/lib/cni/results/mynet-$sid-eth0" '{"kind":"cniCacheV1","containerId":"'"$sid"'",
		"ifName":"eth0","networkName":"mynet","result":{"cniVersion":"1.0.0","interfaces":[
		{"name":"veth'"$ID"'"},{"name":"eth0","sandbox":"/var/run/netns/'"$NS_B"'"}]}}'
	serve tcp 5701 || return
	: > "$TMP/tool.err"
	NSL_TEST_STATE_ROOT=$STATE unshare --pid --fork --mount-proc "$NSL" -F json -r "$EVERY" -o "$out" \
		-I -n -1 -e tcp-socket-read 2> "$TMP/tool.err" &
	unshare=$!
	BG_PIDS+=("$unshare")
	wait_for 20 grep -q attached "$TMP/tool.err" || { fail "tool did not attach: $(tail -2 "$TMP/tool.err")"; return; }
	tool=$(pgrep -P "$unshare" | head -1)
	expect "B's reader among the processes the tool's namer can see" \
		"$(nsenter -t "$tool" -p -m sh -c 'cat /proc/[0-9]*/comm' | grep -c trafficgen)" -eq 0
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	sleep "$AFTER"
	kill -INT "$tool"
	wait "$unshare" || fail "the tool (in its PID namespace) exited with $?"
	expect "JSON container of B's namespace, from the CNI cache" "$(netns_container_of "$out")" = \
		'{"container": null, "id": null, "name": null, "namespace": "shop", "pod": "web-1", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
}

# B's namespace shared by two docker containers' processes (one joined
# the other's, as --network container: does): named by neither
test_container_netns_shared() {
	local out=$TMP/shared.json other=$(printf '%064x' $((ID * 7919 + 2)))
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	container_cgroup "system.slice/docker-$other.scope" || { fail "cannot make the second container's cgroup"; return; }
	state "/var/lib/docker/containers/$other/config.v2.json" '{"ID":"'"$other"'","Name":"/sidecar"}'
	dweller "$CG" || return
	container_cgroup "system.slice/docker-$CID.scope" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"ID":"'"$CID"'","Name":"/cache"}'
	dweller "$CG" || return
	served_in_cgroup "$out" json -I -n -1
	dwellers_gone
	[ -s "$out" ] || return
	expect "JSON container of B's namespace, shared" "$(netns_container_of "$out")" = null
}

# --user nobody: the tool reads as nobody after set-up, and docker's state
# (mode 0600, root's) and B's namespace (its processes root's) are not
# for nobody to read; the namer, which kept root's uid, names both
# (src/2-collect/namer.c), with CAP_SYS_PTRACE alone, and ends with the tool
test_container_names_as_user() {
	local rel=system.slice/docker-$CID.scope out=$TMP/as-user.json
	local want='{"container": null, "id": "'"$CID"'", "name": "cache", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	id nobody > /dev/null 2>&1 || { skip "no user nobody"; return; }
	container_cgroup "$rel" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"ID":"'"$CID"'","Name":"/cache"}' 0600
	dweller "$CG" || return
	WHILE_RUNNING=namer_privileges served_in_cgroup "$out" json -I -n -1 --user nobody
	dwellers_gone
	expect "JSON container of B's namespace" "$(netns_container_of "$out")" = "$want"
	served_in_cgroup "$out" json -C -n "/run/netns/$NS_B" --user nobody
	expect "JSON container of the reader's cgroup" "$(container_of "$out" "/nsl$ID/$rel")" = "$want"
	# (this tool's namer: other tools may run on the machine)
	if [ -n "${NAMER_SEEN:-}" ] && kill -0 "$NAMER_SEEN" 2> /dev/null &&
		[[ "$(tr '\0' ' ' < /proc/"$NAMER_SEEN"/cmdline)" == *--namer-process--* ]]; then
		fail "the namer ($NAMER_SEEN) outlived its tool"
	fi
}

namer_privileges() {
	local namer k reader
	namer=$(namer_of "$TOOL_PID")
	[ -n "$namer" ] || { fail "the tool has no namer"; return; }
	NAMER_SEEN=$namer
	expect "the namer's uid" "$(awk '$1 == "Uid:" { print $3 }' /proc/"$namer"/status)" = 0
	expect "the namer's CapEff (CAP_SYS_PTRACE)" "$(awk '$1 == "CapEff:" { print $2 }' /proc/"$namer"/status)" = 0000000000080000
	for k in CapBnd CapInh CapAmb; do
		expect "the namer's $k" "$(awk -v k="$k:" '$1 == k { print $2 }' /proc/"$namer"/status)" = 0000000000000000
	done
	expect "the namer's NoNewPrivs" "$(awk '$1 == "NoNewPrivs:" { print $2 }' /proc/"$namer"/status)" = 1
	expect "the namer's Seccomp (a filter)" "$(awk '$1 == "Seccomp:" { print $2 }' /proc/"$namer"/status)" = 2
	# -I: and the loader's route netlink socket, where the interfaces lead
	expect "the namer's open files (0-2 /dev/null, its socket, -I's netlink, its reader's socket)" \
		"$(ls /proc/"$namer"/fd | wc -l)" -eq 6
	expect "the namer's fd 4 (a socket)" "$(readlink /proc/"$namer"/fd/4)" = \
		"socket:[$(stat -L -c %i /proc/"$namer"/fd/4)]"
	# its reader (-C's questions, namerproc.c): root's uid, no capability
	reader=$(cat /proc/"$namer"/task/*/children 2> /dev/null | awk '{ print $1 }')
	[ -n "$reader" ] || { fail "the namer has no reader"; return; }
	expect "the reader's uid" "$(awk '$1 == "Uid:" { print $3 }' /proc/"$reader"/status)" = 0
	expect "the reader's CapEff" "$(awk '$1 == "CapEff:" { print $2 }' /proc/"$reader"/status)" = 0000000000000000
	expect "the reader's Seccomp (a filter)" "$(awk '$1 == "Seccomp:" { print $2 }' /proc/"$reader"/status)" = 2
	expect "the reader's open files (0-2 /dev/null, its socket)" "$(ls /proc/"$reader"/fd | wc -l)" -eq 4
}

# The namer reads tenants' files as root, shut in by a seccomp allow-list
# (namer.c, lock_in()): a read-only open goes through, and each call it
# never makes kills it (SIGSYS): a file opened to write, a socket of
# another family than route netlink, a signal, a program run. The tool
# lives on, names nothing more (namer.h) and says so, at its next
# question (a namespace new to it). x86-64 only: syscall_in.py makes the
# calls.
test_namer_shut_in() {
	local call out namer ino first=1 HELPERS_END=1	# each call kills the namer
	[ "$(uname -m)" = x86_64 ] || { skip "syscall_in.py makes the namer's calls on x86-64 only"; return; }
	for call in "openat -100 0 0x241 0x1a4" "socket 2 1 0" "kill 1 0" "execve 0 0 0"; do
		start_tool "$TMP/namer.json" -I -n -1 -e udp-socket-enqueued || return
		wait_for 5 eval '[ -n "$(namer_of "$TOOL_PID")" ]' || { fail "the tool has no namer"; return; }
		namer=$(namer_of "$TOOL_PID")
		# a read-only open, of a NULL path: EFAULT
		expect "openat(O_RDONLY) in the namer" "$(call_in "$namer" openat -100 0 0 0)" = "= -14"
		# shellcheck disable=SC2086 # the call's name and arguments: words
		out=$(call_in "$namer" $call)
		expect "${call%% *}(${call#* }) in the namer" "$out" = SIGSYS
		if [ $first = 1 ]; then
			serve udp 5702 --count 20 --duration-s 10 || return
			client udp 5702 --count 20 --interval-us 1000
			wait_server
			wait_for 5 grep -q "the container namer is gone" "$TMP/tool.err" ||
				fail "the tool did not say its namer is gone: $(tail -2 "$TMP/tool.err")"
			ino=$(stat -Lc %i "/run/netns/$NS_B")
			wait_for 5 eval '[ "$($JQ "$TMP/namer.json" count udp-socket-enqueued "netns=$ino")" -ge 20 ] 2> /dev/null'
			expect "datagrams in B's namespace, grouped with no namer" \
				"$($JQ "$TMP/namer.json" count udp-socket-enqueued "netns=$ino")" -eq 20
			first=0
		fi
		kill -0 "$TOOL_PID" || fail "the tool died with its namer"
		stop_tool
	done
}

# -I, the tool measuring the node (B): the node's end of the pod's veth,
# where the hand-over's samples go, leads to the pod's namespace (P),
# where only the pod's processes live: its group carries the pod's names
# (peers.c). Twice: the tool in B (entered with nsenter, not ip netns
# exec, which would remount /sys, and cgroup2 with it), and the tool in
# the host's namespace with -n B, which asks a route netlink socket the
# loader made in B where B's interfaces lead.
test_container_pod_veth() {
	local out=$TMP/veth.json want how
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	[ -c /dev/net/tun ] || { skip "no /dev/net/tun: no pod behind a node"; return; }
	command -v nsenter > /dev/null || { skip "no nsenter (util-linux)"; return; }
	setup_tunwire || { fail "cannot set up the TUN wire (tests/tunwire.c)"; return; }
	setup_pod || { fail "cannot set up the pod behind the node"; return; }
	pod_state || return
	dweller "$CG" "$NS_P" || return
	printf '#!/bin/sh\nexec nsenter --net=/run/netns/%s %s "$@"\n' "$NS_B" "$NSL" > "$TMP/nsl-node"
	chmod +x "$TMP/nsl-node"
	want='{"container": null, "id": null, "name": null, "namespace": "shop", "pod": "web-0", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	for how in in-node -n; do
		if [ $how = in-node ]; then
			REPORT_EVERY=$EVERY NSL_TEST_STATE_ROOT=$STATE NSL=$TMP/nsl-node start_tool "$out" -I -e netns-handover || return
		else
			REPORT_EVERY=$EVERY NSL_TEST_STATE_ROOT=$STATE start_tool "$out" -n "/run/netns/$NS_B" -I -e netns-handover || return
		fi
		# the pod's reader, in the pod's cgroup as every process of the pod;
		# it ends once it has read the 100 datagrams (or at its 4 s)
		sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" "$3" server --proto udp \
			--bind "$4" --port 5702 --count 100 --duration-s 4' sh "$CG" "$NS_P" "$TG" "$PADDR_P" > /dev/null &
		BG_PIDS+=($!)
		sleep 0.3
		ip netns exec "$NS_A" "$TG" client --proto udp --connect "$PADDR_P" --port 5702 \
			--count 100 --interval-us 2000 > /dev/null || fail "client to the pod failed"
		sleep "$AFTER"	# a report after the datagrams
		stop_tool
		wait "${BG_PIDS[-1]}"
		expect "JSON container of the hand-over through $IF_HN ($how)" \
			"$(iface_container_of "$out" "$IF_HN")" = "$want"
		expect "hand-over samples through $IF_HN ($how)" \
			"$($JQ "$out" count netns-handover ifname="$IF_HN")" -gt 0
	done
	dwellers_gone
}

# iface_container_of OUT IFNAME: the container object of the hand-over's
# group of interface IFNAME in OUT's last report, as JSON
iface_container_of() {
	"$PYTHON" - "$1" "$2" <<-'PY'
	import json, sys
	last = "no group"
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == "netns-handover" and h["ifname"] == sys.argv[2]:
	            last = json.dumps(h.get("container", "absent"), sort_keys=True)
	print(last)
	PY
}

# netns_groups_of OUT: each hook's group of B's namespace in OUT's last
# report with its container object, one "HOOK JSON" line each, sorted
netns_groups_of() {
	"$PYTHON" - "$1" "$(stat -L -c %i "/run/netns/$NS_B")" <<-'PY'
	import json, sys
	last = {}
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h.get("netns") == int(sys.argv[2]):
	            last[h["hook"]] = json.dumps(h.get("container", "absent"), sort_keys=True)
	for hook in sorted(last):
	    print(hook, last[hook])
	PY
}

# pod_sandbox NAME: B's namespace a pod's, as test_container_netns_pod
# lays it out: the sandbox's cgroup and bundle, a process of it in B
pod_sandbox() {
	local sid=$(printf '%064x' $((ID * 7919 + 3)))
	local slice=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice
	container_cgroup "$slice/cri-containerd-$sid.scope" || { fail "cannot make the sandbox's cgroup"; return 1; }
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$sid/config.json" \
		'{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"'"$1"'","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' 0644
	dweller "$CG" || return 1
	pod_state
}

# Issue #58 item 1: every hook's group of a pod's namespace carries the
# pod's names, not one of them (the namer was asked once per group, and
# answered the first of a namespace only). The default hooks: a TCP
# reader in B makes at least its enqueue's and its read's groups there.
test_container_netns_hooks() {
	local out=$TMP/hooks.json groups want
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	want='{"container": null, "id": null, "name": null, "namespace": "shop", "pod": "web-2", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	pod_sandbox web-2 || return
	serve tcp 5701 || return
	REPORT_EVERY=$EVERY NSL_TEST_STATE_ROOT=$STATE start_tool "$out" -I -n -1 || return
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	sleep "$AFTER"	# a report after the reads
	stop_tool
	dwellers_gone
	groups=$(netns_groups_of "$out")
	expect "groups of B's namespace (several hooks)" "$(grep -c . <<< "$groups")" -ge 2
	expect "groups of B's namespace not named $want" \
		"$(grep -vcF " $want" <<< "$groups")" -eq 0 || sed 's/^/  /' <<< "$groups"
}

# Issue #58 item 2, and the node's layout: cgroup v2 alone at
# /sys/fs/cgroup (a mount namespace of the tool's, the hierarchy mounted
# there before it leaves the host's cgroup namespace, as a DaemonSet's
# hostPath of the node's /sys/fs/cgroup), and the tool in a cgroup
# namespace of its own rooted at a cgroup of this test's, as containerd's
# CRI and CRI-O give every container on a cgroup v2 node: the pod's
# processes read "0::/../kubepods.slice/..." there. The tool names B's
# namespace by them all the same, as nobody with its namer.
test_container_private_cgroupns() {
	local out=$TMP/cgns.json want tool_cg seen
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	id nobody > /dev/null 2>&1 || { skip "no user nobody"; return; }
	unshare --help 2>&1 | grep -q -- --cgroup || { skip "no unshare --cgroup (util-linux)"; return; }
	want='{"container": null, "id": null, "name": null, "namespace": "shop", "pod": "web-3", "pod_uid": "'"$POD_UID"'", "runtime": "containerd"}'
	pod_sandbox web-3 || return
	container_cgroup tool || { fail "cannot make the tool's cgroup"; return; }
	tool_cg=${CG#"$CG_ROOT"}
	# in-node CMD...: CMD there (each exec'd: the tool keeps its pid)
	cat > "$TMP/in-node" <<-EOF
	#!/bin/sh
	[ "\$1" = --inner ] || exec unshare --mount --propagation private "\$0" --inner "\$@"
	shift
	umount -R /sys/fs/cgroup 2> /dev/null || umount -l /sys/fs/cgroup || exit 1
	mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 1
	echo \$\$ > "/sys/fs/cgroup$tool_cg/cgroup.procs" || exit 1
	exec unshare --cgroup "\$@"
	EOF
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$TMP/in-node" "$NSL" > "$TMP/nsl-node"
	chmod +x "$TMP/in-node" "$TMP/nsl-node"
	seen=$("$TMP/in-node" cat "/proc/${DWELLERS[0]}/cgroup" | sed -n 's/^0:://p')
	expect "a pod's process's cgroup, seen from the tool's cgroup namespace ($seen)" "${seen:0:4}" = "/../"
	expect "cgroup2 mounts in the tool's mount namespace" \
		"$("$TMP/in-node" awk '$3 == "cgroup2" { print $2 }' /proc/self/mounts)" = /sys/fs/cgroup
	serve tcp 5701 || return
	REPORT_EVERY=$EVERY NSL_TEST_STATE_ROOT=$STATE NSL=$TMP/nsl-node start_tool "$out" -I -n -1 \
		-e tcp-socket-read --user nobody || return
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	sleep "$AFTER"
	stop_tool
	dwellers_gone
	expect "JSON container of B's namespace, the tool in its own cgroup namespace" \
		"$(netns_container_of "$out")" = "$want"
}

# Issue #58 item 6: the layouts of the runtimes a node may have, each a
# cgroup of a real hierarchy with a reader in it and its runtime's state
# where that runtime keeps it (-C): k3s' and RKE2's containerd
# (/run/k3s/containerd), MicroK8s' (/var/snap/microk8s/...), CRI-O under
# cgroupfs (.../podUID/crio-ID, no scope), cri-dockerd (docker-ID.scope
# under kubepods, the pod's names in config.v2.json's labels). Each
# layout's reader's group carries the pod's names.
test_container_runtime_layouts() {
	local rel out=$TMP/layouts.json k3s mk8s crio dockerd got
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	k3s=$(printf '%064x' $((ID * 7919 + 11))) mk8s=$(printf '%064x' $((ID * 7919 + 12)))
	crio=$(printf '%064x' $((ID * 7919 + 13))) dockerd=$(printf '%064x' $((ID * 7919 + 14)))
	local ann='"io.kubernetes.cri.sandbox-name":"web-0","io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'","io.kubernetes.cri.container-name":"nginx"'
	state "/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/$k3s/config.json" \
		'{"annotations":{'"$ann"'},"linux":{"cgroupsPath":"/kubepods/besteffort/pod'"$POD_UID/$k3s"'"}}' 0644
	state "/var/snap/microk8s/common/run/containerd/io.containerd.runtime.v2.task/k8s.io/$mk8s/config.json" \
		'{"annotations":{'"$ann"'}}' 0644
	state "/run/containers/storage/overlay-containers/$crio/userdata/config.json" \
		'{"annotations":{"io.kubernetes.pod.name":"web-0","io.kubernetes.pod.namespace":"shop",
		"io.kubernetes.pod.uid":"'"$POD_UID"'","io.kubernetes.container.name":"nginx"},
		"linux":{"cgroupsPath":"/kubepods/burstable/pod'"$POD_UID/crio-$crio"'"}}' 0600
	state "/var/lib/docker/containers/$dockerd/config.v2.json" '{"Name":"/k8s_nginx_web-0_shop_'"$POD_UID"'_0",
		"Config":{"Labels":{"io.kubernetes.pod.name":"web-0","io.kubernetes.pod.namespace":"shop",
		"io.kubernetes.pod.uid":"'"$POD_UID"'","io.kubernetes.container.name":"nginx"}}}' 0600
	for rel in "kubepods/besteffort/pod$POD_UID/$k3s" "kubepods/burstable/pod$POD_UID/$mk8s" \
		"kubepods/burstable/pod$POD_UID/crio-$crio" \
		"kubepods.slice/kubepods-pod$UID_.slice/docker-$dockerd.scope"; do
		container_cgroup "$rel" || { fail "cannot make the cgroup $rel"; return; }
		served_in_cgroup "$out" json || return
		got=$(container_of "$out" "/nsl$ID/$rel")
		for want in '"namespace": "shop"' '"pod": "web-0"' '"container": "nginx"' \
			"\"pod_uid\": \"$POD_UID\""; do
			[[ "$got" == *"$want"* ]] || fail "$rel: $want not in $got"
		done
	done
}

# Issue #58 item 8: a container's processes (a privileged container's:
# cgroupfs writable, root) name a cgroup of their own after another
# container, below their own: the group is theirs (the outermost match),
# not the other's. And a cgroup where the runtime's own spec says it did
# not put that container (linux.cgroupsPath) is no container at all.
test_container_nested_pose() {
	local out=$TMP/pose.json outer=system.slice/docker-$CID.scope victim
	local sid=$(printf '%064x' $((ID * 7919 + 15)))
	victim=$(printf '%064x' $((ID * 7919 + 16)))
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"Name":"/privileged"}'
	state "/var/lib/docker/containers/$victim/config.v2.json" '{"Name":"/victim"}'
	container_cgroup "$outer/docker-$victim.scope" || { fail "cannot make the nested cgroup"; return; }
	served_in_cgroup "$out" json || return
	expect "JSON container of a cgroup named after another, below a container's" \
		"$(container_of "$out" "/nsl$ID/$outer/docker-$victim.scope")" = \
		'{"container": null, "id": "'"$CID"'", "name": "privileged", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	state "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$sid/config.json" \
		'{"annotations":{"io.kubernetes.cri.sandbox-name":"web-0","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.container-name":"nginx"},
		"linux":{"cgroupsPath":"kubepods-besteffort-pod'"$UID_"'.slice:cri-containerd:'"$sid"'"}}' 0644
	container_cgroup "system.slice/cri-containerd-$sid.scope" || { fail "cannot make the posing cgroup"; return; }
	served_in_cgroup "$out" json || return
	expect "JSON container of a cgroup its runtime did not put it in" \
		"$(container_of "$out" "/nsl$ID/system.slice/cri-containerd-$sid.scope")" = null
}

# check_metrics FILE: promtool finds nothing to say, where it is installed
check_metrics() {
	command -v promtool > /dev/null || return 0
	promtool check metrics < "$1" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool: $(head -3 "$TMP/promtool.out")"
}

# hook_netns_container OUT HOOK NS: the container object of HOOK's groups
# of namespace NS in OUT's last report, as JSON; "several" if they differ
hook_netns_container() {
	"$PYTHON" - "$1" "$2" "$(stat -L -c %i "/run/netns/$3")" <<-'PY'
	import json, sys
	seen = set()
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == sys.argv[2] and h["netns"] == int(sys.argv[3]):
	            seen.add(json.dumps(h.get("container", "absent"), sort_keys=True))
	print(seen.pop() if len(seen) == 1 else "several" if seen else "no group")
	PY
}

# tcp_in_c PORT: 50 messages over lo in C, the namespace that had none
tcp_in_c() {
	ip netns exec "$NS_C" "$TG" server --proto tcp --bind 127.0.0.1 --port "$1" \
		--ready-file "$TMP/ready-c" --duration-s 10 > /dev/null &
	BG_PIDS+=($!)
	wait_for 10 test -s "$TMP/ready-c" || { fail "no server in C"; return 1; }
	ip netns exec "$NS_C" "$TG" client --proto tcp --connect 127.0.0.1 --port "$1" \
		--count 50 --interval-us 1000 > /dev/null || fail "client in C failed"
}

# The namer stopped (SIGSTOP; one wedged in the kernel is the same to the
# tool), the tool run as nobody, which may not kill its namer (root's):
# the tool never waits on it for long (src/2-collect/namer.c). B's
# namespace, new to the tool, has a docker container's process in it, and
# traffic: the report tick after it asks the namer, waits its 5 s
# (NSL_NAMER_WAIT_MS) and goes on. From then on /metrics answers and
# reports are written, the namer still stopped; B's groups stay unnamed
# (labels never change). Continued, it answers the question it owes,
# dropped as late, and is asked again: C's namespace, new then, where the
# same container lives, is named.
test_namer_stopped() {
	local out=$TMP/stopped.json port=$((33000 - ID % 9000)) namer reports code
	local want='{"container": null, "id": "'"$CID"'", "name": "cache", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	id nobody > /dev/null 2>&1 || { skip "no user nobody"; return; }
	container_cgroup "system.slice/docker-$CID.scope" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"ID":"'"$CID"'","Name":"/cache"}' 0600
	dweller "$CG" || return
	dweller "$CG" "$NS_C" || return
	NSL_TEST_STATE_ROOT=$STATE start_tool "$out" -I -n -1 --user nobody \
		--listen "127.0.0.1:$port" -e tcp-socket-read || return
	wait_for 5 eval '[ -n "$(namer_of "$TOOL_PID")" ]' || { fail "the tool has no namer"; return; }
	namer=$(namer_of "$TOOL_PID")
	kill -STOP "$namer"
	AT_EXIT+=("kill -CONT $namer")
	serve tcp 5701 || return
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	# the next tick (1 s), then the namer's 5 s, and room for a slow machine
	wait_for 10 grep -q "the container namer does not answer" "$TMP/tool.err" ||
		{ fail "the tool did not say its namer does not answer: $(tail -2 "$TMP/tool.err")"; return; }
	# a tick a second, each with a report: three within 3 s on a quiet
	# machine; 5 s for a busy one, the namer stopped all along
	reports=$(reports_in "$out")
	wait_for 5 more_reports "$out" $((reports + 2)) ||
		fail "reports stopped with the namer: $(reports_in "$out") after $reports"
	code=$(curl -s --max-time 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
	expect "/metrics within 3 s, the namer stopped" "$code" = 200
	expect "the namer, still stopped" "$(awk '{ print $3 }' /proc/"$namer"/stat)" = T
	kill -CONT "$namer"
	# it answers what it owes (a walk of /proc: milliseconds) and waits
	sleep 1
	tcp_in_c 5703 || return
	wait_for 5 grep -q "the container namer answers again" "$TMP/tool.err" ||
		fail "naming did not resume: $(tail -2 "$TMP/tool.err")"
	sleep 1.2	# a report after C's reads
	HELPERS_END=1 stop_tool
	dwellers_gone
	expect "JSON container of B's namespace, asked while the namer was stopped" \
		"$(hook_netns_container "$out" tcp-socket-read "$NS_B")" = null
	expect "JSON container of C's namespace, asked once it answered again" \
		"$(hook_netns_container "$out" tcp-socket-read "$NS_C")" = "$want"
}

# landlock_abi: the Landlock ABI of this kernel, 0 if it has none
landlock_abi() {
	"$PYTHON" -c 'import ctypes, sys
r = ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1)
print(max(r, 0))'
}

# -C's questions are answered by the namer's reader (namerproc.c), which
# reads beneath the runtimes' state directories, /proc, the cgroup2 mount
# and /run/netns alone (Landlock). The same root-owned file of mode 0600,
# a docker container's config.v2.json: beneath the state directory it
# names its container; outside, where a link among the state path's
# directories leads (O_NOFOLLOW guards the last alone), or the magic link
# /proc/self/root, it does not: the container is known by its id alone.
test_namer_landlocked() {
	local out=$TMP/landlocked.json outside=$TMP/outside via cid n=6
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	[ "$(landlock_abi)" -gt 0 ] || { skip "no Landlock in this kernel"; return; }
	container_cgroup "system.slice/docker-$CID.scope" || { fail "cannot make the container's cgroup"; return; }
	state "/var/lib/docker/containers/$CID/config.v2.json" '{"ID":"'"$CID"'","Name":"/cache"}' 0600
	served_in_cgroup "$out" json || return
	expect "JSON container, its state beneath the state directory" \
		"$(container_of "$out" "/nsl$ID/system.slice/docker-$CID.scope")" = \
		'{"container": null, "id": "'"$CID"'", "name": "cache", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	for via in "$outside" "/proc/self/root$outside"; do
		cid=$(printf '%064x' $((ID * 7919 + n)))
		n=$((n + 1))
		container_cgroup "system.slice/docker-$cid.scope" || { fail "cannot make the container's cgroup"; return; }
		mkdir -p "$outside/$cid"
		printf '%s' '{"ID":"'"$cid"'","Name":"/outside"}' > "$outside/$cid/config.v2.json"
		chmod 0600 "$outside/$cid/config.v2.json"
		ln -s "$via/$cid" "$STATE/var/lib/docker/containers/$cid"
		served_in_cgroup "$out" json || return
		expect "JSON container, its state through $via" \
			"$(container_of "$out" "/nsl$ID/system.slice/docker-$cid.scope")" = \
			'{"container": null, "id": "'"$cid"'", "name": null, "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	done
}

# The namespace questions of -I (-n -1) as test_namer_landlocked asks
# -C's: the namer walks /proc itself (it needs ptrace, which a Landlocked
# process fails) and has its reader name what the walk found, so the
# runtimes' state is read beneath the state directories alone there too.
# A docker container's config.v2.json, where a link among the state
# path's directories leads outside: B's namespace, where its processes
# live, is the container's by id alone. A pod sandbox's bundle, the same
# way outside, that the CNI cache says B was set up for (the tool in a PID
# namespace of its own, B's processes out of its sight): B unnamed.
test_namer_landlocked_netns() {
	local out=$TMP/landlocked-netns.json outside=$TMP/outside-netns unshare tool
	local cid=$(printf '%064x' $((ID * 7919 + 9))) sid=$(printf '%064x' $((ID * 7919 + 10)))
	local tasks=$STATE/run/containerd/io.containerd.runtime.v2.task/k8s.io
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	[ "$(landlock_abi)" -gt 0 ] || { skip "no Landlock in this kernel"; return; }
	container_cgroup "system.slice/docker-$cid.scope" || { fail "cannot make the container's cgroup"; return; }
	mkdir -p "$outside/$cid" "$outside/$sid" "$STATE/var/lib/docker/containers" "$tasks"
	printf '%s' '{"ID":"'"$cid"'","Name":"/outside"}' > "$outside/$cid/config.v2.json"
	chmod 0600 "$outside/$cid/config.v2.json"
	ln -s "$outside/$cid" "$STATE/var/lib/docker/containers/$cid"
	dweller "$CG" || return
	served_in_cgroup "$out" json -I -n -1
	dwellers_gone
	[ -s "$out" ] || return
	expect "JSON container of B's namespace, its processes' state through a link outside" \
		"$(netns_container_of "$out")" = \
		'{"container": null, "id": "'"$cid"'", "name": null, "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'

	printf '%s' '{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"outside","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.sandbox-uid":"'"$POD_UID"'"}}' > "$outside/$sid/config.json"
	ln -s "$outside/$sid" "$tasks/$sid"
	# the cache of test_container_netns_cni's sandboxes gone: one claim on B, this one
	rm -f "$STATE"/var/lib/cni/results/*
	state "/var/lib/cni/results/mynet-$sid-eth0" '{"kind":"cniCacheV1","containerId":"'"$sid"'",
		"ifName":"eth0","networkName":"mynet","netns":"/var/run/netns/'"$NS_B"'"}'
	serve tcp 5701 || return
	: > "$TMP/tool.err"
	NSL_TEST_STATE_ROOT=$STATE unshare --pid --fork --mount-proc "$NSL" -F json -r "$EVERY" -o "$out" \
		-I -n -1 -e tcp-socket-read 2> "$TMP/tool.err" &
	unshare=$!
	BG_PIDS+=("$unshare")
	wait_for 20 grep -q attached "$TMP/tool.err" || { fail "tool did not attach: $(tail -2 "$TMP/tool.err")"; return; }
	tool=$(pgrep -P "$unshare" | head -1)
	client tcp 5701 --count 50 --interval-us 1000
	wait_server
	sleep "$AFTER"
	kill -INT "$tool"
	wait "$unshare" || fail "the tool (in its PID namespace) exited with $?"
	expect "JSON container of B's namespace, by the CNI cache, its sandbox's bundle through a link outside" \
		"$(netns_container_of "$out")" = null
	# unnamed by the refused read, not by a namer that died
	expect "the tool's words on its namer" "$(grep -c 'container namer' "$TMP/tool.err")" -eq 0
}

STATE=$TMP/state
DWELLERS=()
need "" prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
