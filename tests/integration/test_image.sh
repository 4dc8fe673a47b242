#!/usr/bin/env bash
# The container image and the DaemonSet (issue #42 items 4 and 5):
#  - image_built: `make image` makes localhost/netstacklat:VERSION from the
#    project's .deb on a Debian root (scripts/build-image), and its docker
#    archive; the tool in it is the package's, with its user.
#  - image_daemonset_pod_BACKEND: the DaemonSet's pod template
#    (deploy/netstacklat.yaml) run by `podman kube play` as a pod, with
#    its image, arguments, securityContext and mounts (what differs: see
#    template below). It measures another podman container, a UDP reader
#    behind a bridge of this test's: all its datagrams in its network
#    namespace, named after it though the pod sees none of the host's
#    processes (podman 4.3's kube play leaves hostPID private): the
#    container's OCI spec names the namespace podman pinned for it, and
#    containers.json its name (src/2-collect/rt_podman.c). Once with each of
#    podman's network backends, as a host's podman may use either:
#    netavark (its default where installed; it writes no CNI result
#    cache) and CNI (which also writes the cache: src/2-collect/cni.c).
#  - image_docker: the docker archive loaded by Debian's docker (docker.io,
#    a dockerd of this test's), and a container of it, a UDP and a TCP
#    reader, measured by the tool on the host: the container's namespace
#    (-I -n -1) and its cgroup (-C: /docker/ID, dockerd's cgroupfs
#    driver) carry its name, read from docker's own config.v2.json.
#  - image_containerd_pod: the archive imported by containerd's ctr into
#    its k8s.io namespace (a containerd of this test's), and a container
#    of it as kubelet and containerd lay a pod's out, without a kubelet:
#    the CRI plugin's annotations in its bundle, its cgroup
#    /kubepods/besteffort/podUID/ID (cgroupfs driver), run by runc through
#    containerd's runc shim. A TCP reader in it (the host's network):
#    its cgroup's group (-C) carries the pod's names.
#  - image_names_container_BACKEND: the same template as `podman run`
#    options (template run), host PID namespace included, which podman
#    4.3's kube play leaves private (4.4 honours hostPID): /metrics names
#    the other container's namespace after it, as the namer finds a
#    process of it in /proc. Once with each backend.
# podman runs with runc (crun refuses this host's hybrid cgroups) and no
# default ulimits (a container may not raise its own here). The image
# stays in podman's storage, as `make image` leaves it; NSL_IMAGE_MADE=1
# takes the one made before instead of making it again (work on a test).
# (`make image` makes it in about 75 s here: mmdebstrap, from Debian's
# archive.)
source "$(dirname "$0")/lib.sh"

TESTS=(test_image_built test_image_daemonset_pod_netavark test_image_names_container_netavark
       test_image_daemonset_pod_cni test_image_names_container_cni test_image_docker
       test_image_containerd_pod)

VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
IMAGE=localhost/netstacklat:$VERSION
PORT=$((20000 + ID % 2000))
TARGET=nsltarget$ID
POD=nslpod$ID
RUNNER=nslrun$ID
NET=nslnet$ID
DOCKERED=nsldocker$ID
# Debian's docker client (/usr/local/bin may hold another)
DOCKER=(/usr/bin/docker -H unix:///run/nsl-docker$ID.sock)

# an image is what the other tests need: made once; its docker archive
# in ARCHIVE
IMAGE_MADE=
ARCHIVE=
make_image() {
	[ -n "$IMAGE_MADE" ] && return 0
	[ -n "${NSL_IMAGE_MADE:-}" ] || make -C "$ROOT" --no-print-directory image > "$TMP/image.log" 2>&1 ||
		{ fail "make image: $(tail -5 "$TMP/image.log")"; return 1; }
	ARCHIVE=$(compgen -G "$ROOT/.output/image/netstacklat_${VERSION}_*.image.tar" | head -1)
	IMAGE_MADE=1
}

test_image_built() {
	local size
	make_image || return
	[ -s "$ARCHIVE" ] || fail "no docker archive in .output/image"
	expect "the image's entry point" "$(podman image inspect -f '{{json .Config.Entrypoint}}' "$IMAGE" 2>&1)" \
		= '["/usr/sbin/netstacklat"]'
	expect "netstacklat --version in the image" "$(podman run --rm "$IMAGE" --version 2>&1)" \
		= "netstacklat $VERSION"
	# the package's own, as dpkg installed it
	expect "the package in the image" "$(podman run --rm --entrypoint /usr/bin/dpkg-query "$IMAGE" \
		-W -f '${Status} ${Version}' netstacklat 2>&1)" = "install ok installed $VERSION"
	# what --user (the image's CMD) drops to: the package's postinst made it
	podman run --rm --entrypoint /usr/bin/getent "$IMAGE" passwd netstacklat > /dev/null 2>&1 ||
		fail "no user netstacklat in the image"
	size=$(podman image inspect -f '{{.Size}}' "$IMAGE" 2>/dev/null)
	echo "  $IMAGE: $((size / 1000000)) MB; $(basename "$ARCHIVE")"
}

# template pod NAME | template run: the DaemonSet's pod template
# (deploy/netstacklat.yaml), its image the one just made and /metrics on
# this test's port, on stdout
#  - pod NAME: as a pod, for `podman kube play`. Without `ports`: podman
#    refuses a port mapping beside hostNetwork, where Kubernetes takes the
#    container's port as the host's (the same here). The rest
#    (tolerations, probes, resources, dnsPolicy) is the template's; podman
#    makes of the probes a health check and ignores what it has no use for.
#  - run: its container as `podman run` options, one per line: host
#    network and PID, user, read-only root, no new privileges,
#    capabilities, the hostPath mounts, the image and arguments.
template() {
	"$PYTHON" - "$ROOT/deploy/netstacklat.yaml" "$IMAGE" "$PORT" "$@" <<-'PY'
	import sys, yaml
	path, image, port, mode = sys.argv[1:5]
	ds = next(d for d in yaml.safe_load_all(open(path)) if d and d["kind"] == "DaemonSet")
	tmpl = ds["spec"]["template"]
	spec = tmpl["spec"]
	c = spec["containers"][0]
	args = [a.replace("9469", port) for a in c["args"]]
	if mode == "pod":
	    c["image"] = image
	    c.pop("ports")
	    c["args"] = args
	    for probe in ("readinessProbe", "livenessProbe"):
	        c[probe]["httpGet"]["port"] = int(port)
	    yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
	                    "metadata": {"name": sys.argv[5], "labels": tmpl["metadata"]["labels"]},
	                    "spec": spec}, sys.stdout)
	    sys.exit(0)
	sc = c["securityContext"]
	out = ["--network=host"] * spec["hostNetwork"] + ["--pid=host"] * spec["hostPID"]
	out += ["--user=%d" % sc["runAsUser"], "--read-only=%s" % str(sc["readOnlyRootFilesystem"]).lower()]
	if not sc["allowPrivilegeEscalation"]:
	    out.append("--security-opt=no-new-privileges")
	out += ["--cap-drop=" + x for x in sc["capabilities"]["drop"]]
	out += ["--cap-add=" + x for x in sc["capabilities"]["add"]]
	vols = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"]}
	for m in c["volumeMounts"]:
	    out.append("--volume=%s:%s:%s" % (vols[m["name"]], m["mountPath"], "ro" if m.get("readOnly") else "rw"))
	print("\n".join(out + [image] + args))
	PY
}

# samples_count FILE SELECTOR: the udp-socket-enqueued samples in /metrics
# (FILE) of the series whose labels contain SELECTOR
samples_count() {
	sed -n 's/^netstacklat_latency_seconds_count{\(.*\)} \([0-9]*\)$/\1 \2/p' "$1" |
		grep 'hook="udp-socket-enqueued"' | grep -F "$2" |
		awk '{ n += $NF } END { print n + 0 }'
}

# use_backend NETAVARK|CNI: podman with that network backend from now on
# (CONTAINERS_CONF), or skip if this host's podman cannot use it (both
# come with scripts/install-deps image). The measured container of the
# other backend goes first, and its network: both backends would give
# their default bridges one subnet, so the target is on a network of this
# test's, whose subnet podman picks among those the host has free (a
# bridge the other backend left behind keeps its route).
BACKEND=
use_backend() {
	local conf=$TMP/containers-$1.conf got
	[ "$BACKEND" = "$1" ] && return 0
	printf "$BASE_CONF"'[network]\nnetwork_backend = "%s"\n' "$1" > "$conf"
	got=$(CONTAINERS_CONF=$conf podman info --format '{{.Host.NetworkBackend}}' 2>&1 | head -1)
	# (podman 5 has no CNI backend)
	[ "$got" = "$1" ] || { skip "podman has no $1 network backend ($got; scripts/install-deps image)"
		return 1; }
	[ -n "$BACKEND" ] && backend_down
	BACKEND=$1
	export CONTAINERS_CONF=$conf
}

# backend_down: the measured container and its network gone (those of
# the backend in use)
backend_down() {
	podman rm -f -t 0 "$TARGET" > /dev/null 2>&1
	podman network rm -f "$NET" > /dev/null 2>&1
	TARGET_IP=
}

# start_target: the measured container, a UDP reader in a network
# namespace of its own (behind the bridge of a network of this test's,
# with the backend in use), the test's traffic generator mounted in; its
# address in TARGET_IP, its namespace's inode in TARGET_NS
start_target() {
	[ -n "${TARGET_IP:-}" ] && return 0
	podman network create --disable-dns "$NET" > "$TMP/net.out" 2>&1 ||
		{ fail "podman network create ($BACKEND): $(tail -2 "$TMP/net.out")"; return 1; }
	AT_EXIT+=("CONTAINERS_CONF=$CONTAINERS_CONF podman network rm -f $NET")
	podman run -d --name "$TARGET" --network "$NET" -v "$ROOT/.output/tests:/t:ro" \
		--entrypoint /t/trafficgen "$IMAGE" server --proto udp --bind 0.0.0.0 --port 5801 \
		--duration-s 60 > "$TMP/target.id" 2> "$TMP/target.err" ||
		{ fail "podman run of the measured container: $(tail -2 "$TMP/target.err")"; return 1; }
	AT_EXIT=("CONTAINERS_CONF=$CONTAINERS_CONF podman rm -f -t 0 $TARGET" "${AT_EXIT[@]}")
	TARGET_IP=$(podman inspect -f "{{(index .NetworkSettings.Networks \"$NET\").IPAddress}}" \
		"$TARGET" 2> /dev/null)
	[ -n "$TARGET_IP" ] || { fail "the measured container has no address on $NET"; return 1; }
	TARGET_NS=$(stat -L -c %i "/proc/$(podman inspect -f '{{.State.Pid}}' "$TARGET")/ns/net")
}

# measured CONTAINER SELECTOR WHAT: 100 datagrams to the target once
# CONTAINER's /metrics answers (as the readiness probe asks); then
# /metrics in $TMP/metrics until the series with SELECTOR count them all
# (the tool publishes a report each interval), 20 s at most: WHAT failed
# if they do not
measured() {
	SELECTOR=$2
	wait_for 60 curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" ||
		{ fail "/metrics did not answer: $(podman logs "$1" 2>&1 | tail -3)"; return 1; }
	"$TG" client --proto udp --connect "$TARGET_IP" --port 5801 --count 100 --interval-us 1000 \
		> /dev/null || fail "client to the measured container failed"
	wait_for 20 eval 'curl -sf -o "$TMP/metrics" "http://127.0.0.1:$PORT/metrics" &&
		[ "$(samples_count "$TMP/metrics" "$SELECTOR")" -ge 100 ]'
	expect "$3" "$(samples_count "$TMP/metrics" "$SELECTOR")" -ge 100 ||
		grep 'count{hook="udp-socket-enqueued"' "$TMP/metrics" | head -3 | sed 's/^/  /'
}

# image_daemonset_pod BACKEND, image_names_container BACKEND: the tests,
# with podman's network backend BACKEND
test_image_daemonset_pod_netavark() { image_daemonset_pod netavark; }
test_image_daemonset_pod_cni() { image_daemonset_pod cni; }
test_image_names_container_netavark() { image_names_container netavark; }
test_image_names_container_cni() { image_names_container cni; }

image_daemonset_pod() {
	local uid
	make_image || return
	use_backend "$1" || return
	start_target || return
	template pod "$POD" > "$TMP/pod.yaml" || { fail "cannot make a pod of deploy/netstacklat.yaml"; return; }
	# (from $TMP: kube play builds an image whose name is a directory of
	# the working directory, and ./netstacklat is one's last component)
	(cd "$TMP" && podman kube play pod.yaml) > "$TMP/play.out" 2>&1 ||
		{ fail "podman kube play: $(tail -2 "$TMP/play.out")"; return; }
	AT_EXIT+=("CONTAINERS_CONF=$CONTAINERS_CONF podman kube down $TMP/pod.yaml")
	measured "$POD-netstacklat" "netns=\"$TARGET_NS\",namespace=\"\",pod=\"\",container=\"\",name=\"$TARGET\"" \
		"udp-socket-enqueued samples in $TARGET's namespace ($1), named from podman's state"
	# as the template says: root's uid dropped to the image's netstacklat,
	# the root file system read-only
	podman exec "$POD-netstacklat" /usr/bin/touch /probe > /dev/null 2>&1 &&
		fail "the root file system is writable"
	uid=$(podman run --rm --entrypoint /usr/bin/id "$IMAGE" -u netstacklat 2>&1)
	expect "the tool's uid in the pod (netstacklat's: $uid)" "$(stat -c %u "/proc/$(podman inspect \
		-f '{{.State.Pid}}' "$POD-netstacklat" 2>/dev/null)" 2>&1)" = "$uid"
	# its port is the next test's
	podman kube down "$TMP/pod.yaml" > /dev/null 2>&1 || fail "podman kube down failed"
}

image_names_container() {
	local args
	make_image || return
	use_backend "$1" || return
	start_target || return
	mapfile -t args < <(template run)
	[ ${#args[@]} -gt 5 ] || { fail "cannot read the pod template's options"; return; }
	podman run -d --name "$RUNNER" "${args[@]}" > /dev/null 2> "$TMP/run.err" ||
		{ fail "podman run of the template: $(tail -2 "$TMP/run.err")"; return; }
	AT_EXIT=("CONTAINERS_CONF=$CONTAINERS_CONF podman rm -f -t 0 $RUNNER" "${AT_EXIT[@]}")
	measured "$RUNNER" "netns=\"$TARGET_NS\",namespace=\"\",pod=\"\",container=\"\",name=\"$TARGET\"" \
		"udp-socket-enqueued samples named $TARGET ($1)"
	podman rm -f -t 0 "$RUNNER" > /dev/null 2>&1
}

# start_dockerd: a dockerd of this test's, on a socket of its own, with
# docker's default state (/var/lib/docker: where the tool reads names)
# and no iptables rules (it would set the FORWARD policy to DROP): the
# host reaches a container on docker0 by its route alone. Stopped at exit.
start_dockerd() {
	local had_bridge=
	[ -x /usr/sbin/dockerd ] || { skip "docker.io missing (scripts/install-deps test)"; return 1; }
	pgrep -x dockerd > /dev/null && { skip "a dockerd runs here already: not touching it"; return 1; }
	ip link show docker0 > /dev/null 2>&1 && had_bridge=1
	/usr/sbin/dockerd -H "unix:///run/nsl-docker$ID.sock" --pidfile "/run/nsl-docker$ID.pid" \
		--iptables=false --ip-masq=false > "$TMP/dockerd.log" 2>&1 &
	BG_PIDS+=($!)
	AT_EXIT+=("kill \$(cat /run/nsl-docker$ID.pid) && sleep 1; rm -f /run/nsl-docker$ID.sock")
	# the bridge it makes outlives it: gone too, unless there was one
	[ -n "$had_bridge" ] || AT_EXIT+=("ip link del docker0")
	wait_for 30 "${DOCKER[@]}" info > /dev/null 2>&1 ||
		{ fail "dockerd did not start: $(tail -3 "$TMP/dockerd.log")"; return 1; }
}

# group_of OUT HOOK KEY VALUE: the count and container object of the
# group of HOOK whose KEY (netns, cgroup_path) is VALUE, in OUT's last
# report with one, as JSON (null: no such group)
group_of() {
	"$PYTHON" - "$@" <<-'PY'
	import json, sys
	path, hook, key, value = sys.argv[1:]
	found = None
	for line in open(path):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == hook and str(h.get(key)) == value:
	            found = {"count": h["count"], "container": h.get("container", "absent")}
	print(json.dumps(found, sort_keys=True))
	PY
}

test_image_docker() {
	local id pid ip ns cg out=$TMP/docker.json want
	make_image || return
	start_dockerd || return
	"${DOCKER[@]}" load -q -i "$ARCHIVE" > "$TMP/load.out" 2>&1 ||
		{ fail "docker load: $(tail -2 "$TMP/load.out")"; return; }
	# (docker's state stays where the tool reads it; the image goes)
	AT_EXIT=("${DOCKER[*]} rmi -f $IMAGE" "${AT_EXIT[@]}")
	expect "netstacklat --version under docker" "$("${DOCKER[@]}" run --rm "$IMAGE" --version 2>&1)" \
		= "netstacklat $VERSION"
	# the measured container: a UDP reader, and a TCP one beside it; it
	# lives on after them, so that the tool finds its processes and its
	# cgroup when it names the groups, at the report after the traffic
	"${DOCKER[@]}" run -d --name "$DOCKERED" -v "$ROOT/.output/tests:/t:ro" --entrypoint /bin/sh \
		"$IMAGE" -c '/t/trafficgen server --proto udp --bind 0.0.0.0 --port 5801 --duration-s 60 &
			/t/trafficgen server --proto tcp --bind 0.0.0.0 --port 5802 --duration-s 60 &
			exec sleep 60' \
		> "$TMP/dockered.id" 2> "$TMP/dockered.err" ||
		{ fail "docker run: $(tail -2 "$TMP/dockered.err")"; return; }
	AT_EXIT=("${DOCKER[*]} rm -f $DOCKERED" "${AT_EXIT[@]}")
	id=$(cat "$TMP/dockered.id")
	pid=$("${DOCKER[@]}" inspect -f '{{.State.Pid}}' "$DOCKERED")
	ip=$("${DOCKER[@]}" inspect -f '{{.NetworkSettings.IPAddress}}' "$DOCKERED")
	ns=$(stat -L -c %i "/proc/$pid/ns/net")
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	[ -n "$ip" ] && [ -n "$cg" ] || { fail "the container has no address ($ip) or cgroup ($cg)"; return; }
	start_tool "$out" --cumulative -I -n -1 -C -e udp-socket-enqueued,tcp-socket-read || return
	"$TG" client --proto udp --connect "$ip" --port 5801 --count 100 --interval-us 1000 > /dev/null ||
		fail "UDP client to the container failed"
	"$TG" client --proto tcp --connect "$ip" --port 5802 --count 50 --interval-us 1000 > /dev/null ||
		fail "TCP client to the container failed"
	sleep 1.2	# a report after the traffic
	stop_tool
	want='{"container": null, "id": "'"$id"'", "name": "'"$DOCKERED"'", "namespace": null, "pod": null, "pod_uid": null, "runtime": "docker"}'
	expect "the container's namespace ($ns), by its name" \
		"$(group_of "$out" udp-socket-enqueued netns "$ns")" = '{"container": '"$want"', "count": 100}'
	# (reads: as many as the reader made of the 50 messages)
	expect "the container's cgroup ($cg), by its name" \
		"$(group_of "$out" tcp-socket-read cgroup_path "$cg" | sed 's/, "count": [0-9]*//')" = \
		'{"container": '"$want"'}'
}

# start_containerd: a containerd of this test's, on a socket of its own,
# with containerd's default state directory (/run/containerd: the tasks'
# bundles, where the tool reads a pod's names) and a root in $TMP.
# Stopped at exit.
CTR=(/usr/bin/ctr --address "/run/nsl-containerd$ID.sock" --namespace k8s.io)
start_containerd() {
	[ -x /usr/bin/containerd ] || { skip "containerd missing (scripts/install-deps test)"; return 1; }
	[ -e /run/containerd/containerd.sock ] &&
		{ skip "a containerd runs here already: not touching it"; return 1; }
	printf 'version = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n' > "$TMP/containerd.toml"
	/usr/bin/containerd --config "$TMP/containerd.toml" --address "/run/nsl-containerd$ID.sock" \
		--root "$TMP/containerd" --state /run/containerd > "$TMP/containerd.log" 2>&1 &
	BG_PIDS+=($!)
	AT_EXIT+=("kill $! && sleep 1; rm -f /run/nsl-containerd$ID.sock /run/nsl-containerd$ID.sock.ttrpc")
	wait_for 30 "${CTR[@]}" version > /dev/null 2>&1 ||
		{ fail "containerd did not start: $(tail -3 "$TMP/containerd.log")"; return 1; }
}

test_image_containerd_pod() {
	local uid=7c1d2e3f-4a5b-4c6d-8e9f-a0b1c2d3e4f5 cid cg out=$TMP/cri.json want
	make_image || return
	start_containerd || return
	"${CTR[@]}" images import "$ARCHIVE" > "$TMP/import.out" 2>&1 ||
		{ fail "ctr images import: $(tail -2 "$TMP/import.out")"; return; }
	cid=$(printf '%064x' $((ID * 104729 + 3)))
	cg=/kubepods/besteffort/pod$uid/$cid
	# as the CRI plugin makes a pod's container: its annotations, its
	# cgroup; alive after its reader (as test_image_docker's)
	"${CTR[@]}" run -d --runtime io.containerd.runc.v2 --net-host --cgroup "$cg" \
		--annotation io.kubernetes.cri.container-type=container \
		--annotation io.kubernetes.cri.container-name=server \
		--annotation io.kubernetes.cri.sandbox-name=shop-0 \
		--annotation io.kubernetes.cri.sandbox-namespace=shop \
		--annotation "io.kubernetes.cri.sandbox-uid=$uid" \
		--mount "type=bind,src=$ROOT/.output/tests,dst=/t,options=rbind:ro" \
		"$IMAGE" "$cid" /bin/sh -c '/t/trafficgen server --proto tcp --bind 127.0.0.1 --port 5803 \
			--duration-s 60 & exec sleep 60' \
		> "$TMP/ctr.out" 2>&1 || { fail "ctr run: $(tail -2 "$TMP/ctr.out")"; return; }
	AT_EXIT=("${CTR[*]} tasks kill -s KILL $cid; sleep 1; ${CTR[*]} tasks delete $cid; ${CTR[*]} containers delete $cid" "${AT_EXIT[@]}")
	wait_for 10 test -f "/run/containerd/io.containerd.runtime.v2.task/k8s.io/$cid/config.json" ||
		{ fail "no bundle of the task under /run/containerd"; return; }
	start_tool "$out" --cumulative -C -e tcp-socket-read || return
	"$TG" client --proto tcp --connect 127.0.0.1 --port 5803 --count 50 --interval-us 1000 > /dev/null ||
		fail "TCP client to the container failed"
	sleep 1.2	# a report after the traffic
	stop_tool
	want='{"container": "server", "id": "'"$cid"'", "name": null, "namespace": "shop", "pod": "shop-0", "pod_uid": "'"$uid"'", "runtime": "containerd"}'
	expect "the pod's container's cgroup ($cg), by its names" \
		"$(group_of "$out" tcp-socket-read cgroup_path "$cg" | sed 's/, "count": [0-9]*//')" = \
		'{"container": '"$want"'}'
}

can_run_podman() {
	SKIP_WHY=
	[ "$(id -u)" -eq 0 ] || SKIP_WHY="needs root"
	command -v podman > /dev/null || SKIP_WHY="podman missing (scripts/install-deps image)"
	command -v mmdebstrap > /dev/null || SKIP_WHY="mmdebstrap missing (scripts/install-deps image)"
	command -v runc > /dev/null || SKIP_WHY="runc missing (scripts/install-deps image)"
	[ -z "$SKIP_WHY" ]
}

must "traffic generator not built (make test-progs)" test -x "$TG"
need "" can_run_podman
BASE_CONF='[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n'
printf "$BASE_CONF" > "$TMP/containers.conf"
export CONTAINERS_CONF=$TMP/containers.conf
run_tests
