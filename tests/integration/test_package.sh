#!/usr/bin/env bash
# The Debian package and what it brings (issue #14): make deb builds it and
# lintian has no error and no warning; dpkg -i installs it, the installed
# binary runs, the unit passes systemd-analyze verify (and its exposure
# score is printed), the unit's exact ExecStart, under setpriv with the
# unit's capability bounding set, reports and serves /metrics; dpkg --purge
# leaves none of its files. Also: a -o file rotated by logrotate with the
# package's snippet mid-run keeps every report whole, in exactly one of the
# two files; the bash completion completes options, hooks, interfaces,
# formats and attach modes. And -I under the unit's restrictions (its
# bounding set, address families, system call filter and namespaces, as
# systemd builds them: no systemd runs here) follows a node's veth to its
# pod and names it.
source "$(dirname "$0")/lib.sh"

TESTS=(test_deb_lintian test_deb_install_run_purge test_logrotate_mid_run
       test_bash_completion test_unit_names_pod_veth)
UNIT=$ROOT/debian/netstacklat.service
UNITFILTER=$ROOT/.output/tests/unitfilter
RESTRICTNS=$ROOT/.output/tests/restrictns
DEB=
PORT=$((19000 + ID % 1000))

build_deb() {
	[ -n "$DEB" ] && return 0
	make -C "$ROOT" --no-print-directory deb > "$TMP/deb.log" 2>&1 ||
		{ fail "make deb: $(tail -5 "$TMP/deb.log")"; return 1; }
	DEB=$(compgen -G "$ROOT/.output/deb/netstacklat_*_amd64.deb" | head -1)
	[ -n "$DEB" ] || { fail "make deb made no .deb"; return 1; }
}

test_deb_lintian() {
	build_deb || return
	lintian --pedantic -I "$DEB" > "$TMP/lintian.out" 2>&1
	grep -E '^[EW]: ' "$TMP/lintian.out" && fail "lintian: $(grep -E '^[EW]: ' "$TMP/lintian.out" | head -3)"
	# the info tags we keep, and why: docs/security.md
	echo "  lintian info tags: $(grep -cE '^I: ' "$TMP/lintian.out") ($(grep -E '^I: ' "$TMP/lintian.out" | awk '{ print $3 }' | tr '\n' ' '))"
}

# the unit's ExecStart with /etc/default/netstacklat's variables as systemd
# expands them (${VAR}: one word, $VAR: split at spaces), into CMD
unit_command() {
	local line listen=$1 args=$2
	line=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/netstacklat.service)
	line=${line//'${NETSTACKLAT_LISTEN}'/$listen}
	line=${line//'$NETSTACKLAT_ARGS'/$args}
	read -ra CMD <<< "$line"
}

# CapabilityBoundingSet=CAP_BPF CAP_PERFMON ... as setpriv's -all,+bpf,...
unit_bounding_set() {
	sed -n 's/^CapabilityBoundingSet=//p' /lib/systemd/system/netstacklat.service |
		tr ' ' '\n' | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' |
		paste -sd, | sed 's/^/-all,/'
}

test_deb_install_run_purge() {
	local files f left=0 score caps out=/var/log/netstacklat/unit-test.json
	build_deb || return
	dpkg -s netstacklat > /dev/null 2>&1 && { skip "netstacklat is installed on this machine: not touching it"; return; }
	AT_EXIT+=("dpkg --purge netstacklat")
	dpkg -i "$DEB" > "$TMP/dpkg.log" 2>&1 || { fail "dpkg -i: $(tail -3 "$TMP/dpkg.log")"; return; }
	mapfile -t files < <(dpkg -L netstacklat | while read -r f; do [ -f "$f" ] && echo "$f"; done)
	expect "files installed" "${#files[@]}" -ge 7
	# the version the package has, as --version says it (it said 0.1 for 0.1.0)
	expect "installed netstacklat --version" "$(/usr/sbin/netstacklat --version 2>&1)" = \
		"netstacklat $(dpkg-query -W -f '${Version}' netstacklat)"
	/usr/sbin/netstacklat -l > "$TMP/list.out" 2>&1 || fail "installed netstacklat -l: $(tail -2 "$TMP/list.out")"
	getent passwd netstacklat > /dev/null || fail "no system user netstacklat"
	# what the man page and the unit point to, the dashboard and the rules (#45)
	for f in /usr/share/doc/netstacklat/README.md /usr/share/doc/netstacklat/security.md \
		/usr/share/doc/netstacklat/prometheus.md /usr/share/netstacklat/grafana-dashboard.json \
		/usr/share/netstacklat/netstacklat-rules.yml; do
		[ -f "$f" ] || fail "not installed: $f"
	done
	grep -q "^Type=notify$" /lib/systemd/system/netstacklat.service || fail "the unit is not Type=notify"
	# the /metrics server's, a uid other than the tool's (src/4-sink/jailproc.c)
	getent passwd netstacklat-http > /dev/null || fail "no system user netstacklat-http"
	# the service user's log directory: it makes its -o file again there
	expect "/var/log/netstacklat: owner, group, mode" \
		"$(stat -c %U:%G:%a /var/log/netstacklat 2>&1)" = "netstacklat:adm:2750"
	systemd-analyze verify /lib/systemd/system/netstacklat.service > "$TMP/verify.out" 2>&1 ||
		fail "systemd-analyze verify failed"
	[ -s "$TMP/verify.out" ] && fail "systemd-analyze verify: $(head -3 "$TMP/verify.out")"
	score=$(systemd-analyze security --offline=true /lib/systemd/system/netstacklat.service 2>&1 |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	echo "  systemd-analyze security exposure: ${score:-unknown}"
	[ -n "$score" ] || fail "no exposure score"
	# the unit's command as it would run, with the unit's bounding set only
	# (and no new privileges), on a test port and with a report file too
	caps=$(unit_bounding_set)
	# within the unit's bounding set every hook attaches as it does for
	# root: /proc/kallsyms gives its addresses (netns-handover's devices,
	# cleanup_net) only with CAP_SYSLOG where perf_event_paranoid > 1
	setpriv --bounding-set "$caps" --inh-caps -all --no-new-privs -- /usr/sbin/netstacklat -l \
		> "$TMP/list-unit.out" 2>&1 || fail "netstacklat -l in the unit's bounding set failed"
	diff "$TMP/list.out" "$TMP/list-unit.out" > "$TMP/list.diff" ||
		fail "-l in the unit's bounding set differs from root's: $(grep '^>' "$TMP/list.diff" | head -2)"
	unit_command "127.0.0.1:$PORT" "-F json -o $out -r 0.5"
	# the unit runs it as root; the file is opened before the drop
	setpriv --bounding-set "$caps" --inh-caps -all --no-new-privs -- "${CMD[@]}" \
		> "$TMP/unit.stdout" 2> "$TMP/unit.err" &
	BG_PIDS+=($!)
	local pid=$!
	wait_for 30 grep -q attached "$TMP/unit.err" ||
		{ fail "the unit's command did not attach: $(tail -3 "$TMP/unit.err")"; kill "$pid"; return; }
	wait_for 10 test -s "$out" || fail "no report in $out"
	# made as root before the drop, the file is the service user's, and
	# once removed the tool (as that user) makes it again
	expect "owner of the -o file made at start" "$(stat -c %U "$out")" = netstacklat
	rm -f "$out"
	wait_for 10 test -s "$out" || fail "$out not made again after it was removed"
	expect "owner of the -o file made again" "$(stat -c %U:%G "$out" 2>&1)" = netstacklat:adm
	curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/metrics" || fail "no /metrics"
	grep -q '^netstacklat_latency_seconds_count' "$TMP/metrics" || fail "/metrics without histograms"
	grep -q '^CapBnd:	0000000000000000' /proc/"$pid"/status || fail "bounding set not emptied"
	[ "$(stat -c %U /proc/"$pid")" = netstacklat ] || fail "not running as netstacklat"
	expect "the /metrics server's user" "$(stat -c %U /proc/"$(jail_server "$pid")" 2>&1)" = netstacklat-http
	kill -INT "$pid"
	wait "$pid"; expect "exit status after SIGINT" "$?" -eq 0
	echo "  setpriv --bounding-set $caps: reports and /metrics served"
	dpkg --purge netstacklat > "$TMP/purge.log" 2>&1 || fail "dpkg --purge: $(tail -3 "$TMP/purge.log")"
	for f in "${files[@]}"; do
		[ -e "$f" ] && { fail "left after purge: $f"; left=$((left + 1)); }
	done
	expect "files left after purge" "$left" -eq 0
	[ -e /var/log/netstacklat ] && fail "/var/log/netstacklat left after purge"
}

# Rotated by logrotate (the package's snippet, its paths and user put to
# this test's) while the tool writes a report every 0.1 s: every report
# in exactly one of the two files, each line whole, in order.
test_logrotate_mid_run() {
	local dir=$TMP/rot f=$TMP/rot/lat.json n
	command -v logrotate > /dev/null || { skip "logrotate missing"; return; }
	mkdir -p "$dir"
	sed -e "s|^/var/log/netstacklat/.*{|$dir/*.json {|" -e 's/create 0640 netstacklat adm/create 0640 root root/' \
		"$ROOT/debian/netstacklat.logrotate" > "$TMP/logrotate.conf"
	"$NSL" -e tcp-socket-read -F json -o "$f" -r 0.1 --count 40 2> "$TMP/rot.err" &
	BG_PIDS+=($!)
	local pid=$!
	wait_for 20 eval '[ -f "$f" ] && [ "$(wc -l < "$f")" -ge 10 ]' ||
		{ fail "no reports: $(tail -2 "$TMP/rot.err")"; return; }
	logrotate -f -s "$TMP/logrotate.state" "$TMP/logrotate.conf" || { fail "logrotate failed"; return; }
	[ -f "$f.1" ] || { fail "logrotate did not rotate $f"; return; }
	wait "$pid"; expect "exit status" "$?" -eq 0
	n=$(cat "$f.1" "$f" | wc -l)
	expect "reports in the two files" "$n" -eq 40
	expect "reports in the new file" "$(wc -l < "$f")" -gt 0
	cat "$f.1" "$f" | python3 -c '
import json, sys
times = [json.loads(l)["time"] for l in sys.stdin]
assert times == sorted(times) and len(set(times)) == len(times), "reports out of order or twice"
' || fail "a line is not a whole report, or reports are out of order"
	echo "  $(wc -l < "$f.1") reports before the rotation, $(wc -l < "$f") after"
}

# complete WORDS...: what the completion offers for the last word
complete_words() {
	bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/completion/netstacklat"
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		PATH=$ROOTDIR:$PATH
		_netstacklat netstacklat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$ROOT" "$@"
}

test_bash_completion() {
	[ -r /usr/share/bash-completion/bash_completion ] || { skip "bash-completion missing"; return; }
	export ROOTDIR=$ROOT
	[ "$(complete_words netstacklat --reso | tr '\n' ' ')" = "--resolution= " ] ||
		fail "--reso: $(complete_words netstacklat --reso | tr '\n' ' ')"
	[ "$(complete_words netstacklat -e tcp-socket-r | tr '\n' ' ')" = "tcp-socket-read " ] ||
		fail "-e tcp-socket-r: $(complete_words netstacklat -e tcp-socket-r | tr '\n' ' ')"
	[ "$(complete_words netstacklat -d ip-start,udp-s | tr '\n' ' ')" = "ip-start,udp-start ip-start,udp-socket-enqueued ip-start,udp-socket-read ip-start,udp-standing-queue " ] ||
		fail "-d ip-start,udp-s: $(complete_words netstacklat -d ip-start,udp-s | tr '\n' ' ')"
	complete_words netstacklat -i l | grep -qx lo || fail "-i l: no lo"
	[ "$(complete_words netstacklat -F p | tr '\n' ' ')" = "prometheus " ] || fail "-F p"
	[ "$(complete_words netstacklat --attach f | tr '\n' ' ')" = "fentry fallback " ] || fail "--attach f"
	[ "$(complete_words netstacklat --resolution "" | tr '\n' ' ')" = "1 2 4 8 " ] || fail "--resolution"
}

need "needs root" test "$(id -u)" -eq 0
must "tool not built" test -x "$NSL"
need "not a Debian system (no dpkg-buildpackage)" eval 'command -v dpkg-buildpackage > /dev/null'

# unit_line KEY: the value of the unit's KEY= line (the source's, debian/)
unit_line() {
	sed -n "s/^$1=//p" "$UNIT" | tail -1
}

# unit_syscalls FILE: the calls the unit's SystemCallFilter= allows, its
# sets expanded as this systemd expands them (systemd-analyze
# syscall-filter), with @default, which an allow-list always has, and
# without @clock where ProtectClock=yes denies it (a filter of its own)
unit_syscalls() {
	systemd-analyze syscall-filter > "$TMP/syscall-sets" 2> /dev/null
	"$PYTHON" - "$TMP/syscall-sets" "$(unit_line SystemCallFilter)" "$(unit_line ProtectClock)" \
		> "$1" <<-'PY'
	import sys
	groups, cur = {}, None
	for l in open(sys.argv.pop(1)):
	    if l.startswith("@"):
	        cur = groups.setdefault(l.strip(), [])
	    elif cur is not None and l.startswith(" ") and l.strip() and not l.strip().startswith("#"):
	        cur.append(l.strip())
	    elif not l.strip():
	        cur = None
	def expand(x, seen):
	    if not x.startswith("@"):
	        return {x}
	    if x in seen:
	        return set()
	    seen.add(x)
	    return set().union(*[expand(y, seen) for y in groups.get(x, [])] or [set()])
	line = sys.argv[1].split()
	if not line or line[0].startswith("~"):
	    sys.exit("not an allow-list: " + sys.argv[1])
	calls = set().union(*[expand(x, set()) for x in ["@default"] + line])
	if sys.argv[2] == "yes":
	    calls -= expand("@clock", set())
	print("\n".join(sorted(calls)))
	PY
}

# unit_run OUT ARGS...: the tool in namespace $node under the unit's lines
# (calls, caps, user of the caller), with ARGS and the hook
# PROTO-socket-enqueued (udp) or -read (tcp); 50 messages from the pod to a
# reader of the node's (in cgroup RCG where set), a report after them
unit_run() {
	local out=$1; shift
	: > "$TMP/tool.err"
	NSL_TEST_STATE_ROOT=$STATE_ROOT nsenter --net="/run/netns/$node" \
		setpriv --bounding-set "$caps" --inh-caps -all --no-new-privs -- \
		"$RESTRICTNS" "$(unit_line RestrictNamespaces)" \
		"$UNITFILTER" "$(unit_line RestrictAddressFamilies)" "$calls" \
		"$NSL" --listen "127.0.0.1:$PORT" --user "$user" "$@" -e "$(unit_hook)" \
		-F json -r 0.5 -o "$out" 2> "$TMP/tool.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	wait_for 20 grep -q attached "$TMP/tool.err" ||
		{ fail "the tool ($*) did not attach under the unit's lines: $(tail -2 "$TMP/tool.err")"; return 1; }
	sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs" || exit 1
		exec ip netns exec "$2" "$3" server --proto "$5" --bind "$4" --port 5702 --duration-s 2' \
		sh "${RCG:-}" "$node" "$TG" "$PADDR_N" "${PROTO:-udp}" > /dev/null &
	local server=$!
	BG_PIDS+=("$server")
	sleep 0.3
	ip netns exec "$NS_P" "$TG" client --proto "${PROTO:-udp}" --connect "$PADDR_N" --port 5702 \
		--count 50 --interval-us 2000 > /dev/null || fail "client to the node failed ($*)"
	wait "$server"
	sleep 0.7	# a report after the datagrams
	stop_tool
}

unit_hook() {
	[ "${PROTO:-udp}" = udp ] && echo udp-socket-enqueued || echo tcp-socket-read
}

# group_container OUT KEY VALUE: the container object of the last group
# of unit_hook whose KEY (ifname, cgroup_path) ends in VALUE
group_container() {
	"$PYTHON" - "$(unit_hook)" "$@" <<-'PY'
	import json, sys
	hook, out, key, value = sys.argv[1:5]
	last = "no group"
	for line in open(out):
	    for h in json.loads(line)["histograms"]:
	        if h["hook"] == hook and (h.get(key) or "").endswith(value):
	            last = json.dumps(h.get("container", "absent"), sort_keys=True)
	print(last)
	PY
}

# -I, the tool measuring a node (its namespace) as the package's service
# runs it: the node's end of a pod's veth leads to the pod's namespace
# (P), where only the pod's process lives (the sandbox of a pod laid out
# as kubelet and containerd lay it out, under a state root of this
# test's): the group of that end carries the pod's names. The tool asks
# the kernel where the veth leads over route netlink
# (src/2-collect/peers.c, in the namer): a unit without AF_NETLINK left
# every such group unnamed, silently. And -C: a reader in a container's
# cgroup carries the container's names (the namer's reader, confined by
# Landlock: a unit that refuses its calls leaves every cgroup unnamed).
# The unit's lines as systemd applies them: its CapabilityBoundingSet=
# and NoNewPrivileges= (setpriv), its RestrictNamespaces=
# (tests/restrictns.c), RestrictAddressFamilies= and SystemCallFilter=
# (tests/unitfilter.c), its ExecStart= (--user, --listen).
test_unit_names_pod_veth() {
	local calls=$TMP/unit-calls caps user=netstacklat pid task
	local sid=$(printf '%064x' $((ID * 7919 + 9))) cid=$(printf '%064x' $((ID * 7919 + 10)))
	local uid=0e1d2c3b-4a59-4687-9a0b-c1d2e3f40516 node=nsl$ID-node
	local pod=$CG_ROOT/nsl$ID-unit/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0e1d2c3b_4a59_4687_9a0b_c1d2e3f40516.slice
	local want='"namespace": "shop", "pod": "web-0", "pod_uid": "'"$uid"'", "runtime": "containerd"}'
	STATE_ROOT=$TMP/state
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	command -v systemd-analyze > /dev/null || { skip "no systemd-analyze: no system call sets to expand"; return; }
	[ -x "$UNITFILTER" ] && [ -x "$RESTRICTNS" ] || { fail "$UNITFILTER or $RESTRICTNS not built (make test-progs)"; return; }
	unit_syscalls "$calls" && [ "$(wc -l < "$calls")" -gt 100 ] ||
		{ fail "cannot expand the unit's SystemCallFilter=: $(head -2 "$calls")"; return; }
	getent passwd netstacklat > /dev/null || user=nobody
	# -o's directory the service user's, as /var/log/netstacklat is (the
	# unit's bounding set has no CAP_CHOWN to give it a file of root's)
	mkdir -p "$TMP/log" && chown "$user" "$TMP/log" && chmod 0755 "$TMP" ||
		{ fail "cannot make the -o directory"; return; }
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr ' ' '\n' | sed 's/^CAP_//' |
		tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd, | sed 's/^/-all,/')
	# the pod: its namespace behind a veth of the node's
	AT_EXIT+=("ip netns del $NS_P" "ip netns del $node")
	ip netns add "$node" && ip -n "$node" link set lo up &&
		ip netns add "$NS_P" && ip -n "$NS_P" link set lo up &&
		ip link add "$IF_HN" netns "$node" type veth peer name "$IF_HP" netns "$NS_P" &&
		ip -n "$node" addr add $PADDR_N/24 dev "$IF_HN" && ip -n "$NS_P" addr add $PADDR_P/24 dev "$IF_HP" &&
		ip -n "$node" link set "$IF_HN" up && ip -n "$NS_P" link set "$IF_HP" up ||
		{ fail "cannot set up the pod's veth"; return; }
	# its sandbox and a container, as containerd's CRI lays them out
	task=$STATE_ROOT/run/containerd/io.containerd.runtime.v2.task/k8s.io
	mkdir -p "$task/$sid" "$task/$cid" || { fail "cannot make the bundles' directories"; return; }
	printf '%s' '{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"web-0","io.kubernetes.cri.sandbox-namespace":"shop",
		"io.kubernetes.cri.sandbox-uid":"'"$uid"'"}}' > "$task/$sid/config.json"
	printf '%s' '{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"container",
		"io.kubernetes.cri.container-name":"nginx","io.kubernetes.cri.sandbox-name":"web-0",
		"io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"'"$uid"'"}}' \
		> "$task/$cid/config.json"
	chmod 0644 "$task/$sid/config.json" "$task/$cid/config.json"
	mkdir -p "$pod/cri-containerd-$sid.scope" "$pod/cri-containerd-$cid.scope" ||
		{ fail "cannot make the pod's cgroups"; return; }
	AT_EXIT=("find $CG_ROOT/nsl$ID-unit -depth -type d -exec rmdir {} +" "${AT_EXIT[@]}")
	# the sandbox's pause process, in the pod's namespace
	sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" sleep 60' sh \
		"$pod/cri-containerd-$sid.scope" "$NS_P" &
	pid=$!
	BG_PIDS+=("$pid")
	wait_for 5 eval '[ "$(stat -L -c %i /proc/$pid/ns/net 2> /dev/null)" = "$(stat -L -c %i "/run/netns/$NS_P")" ]' ||
		{ fail "no pause process in the pod's namespace"; return; }
	unit_run "$TMP/log/unit-veth.json" -I || return
	expect "the pod's names on the group of the node's end ($IF_HN), under the unit" \
		"$(group_container "$TMP/log/unit-veth.json" ifname "$IF_HN")" = \
		'{"container": null, "id": null, "name": null, '"$want"
	# a TCP reader in the container's cgroup (a hostNetwork pod's, say)
	PROTO=tcp RCG=$pod/cri-containerd-$cid.scope unit_run "$TMP/log/unit-cgroup.json" -C || return
	expect "the container's names on its cgroup's group, under the unit" \
		"$(PROTO=tcp group_container "$TMP/log/unit-cgroup.json" cgroup_path "cri-containerd-$cid.scope")" = \
		'{"container": "nginx", "id": "'"$cid"'", "name": null, '"$want"
}

run_tests
