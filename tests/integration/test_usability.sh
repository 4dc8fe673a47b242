#!/usr/bin/env bash
# What a new user trips over (issue #17), one test per behaviour: groups
# that must not merge, paths the tool prints and must accept, options that
# would silently do nothing, what the outputs say about each hook, and how
# the tool behaves at the end of a pipe, in a file and as an exporter.
source "$(dirname "$0")/lib.sh"

TESTS=(test_netns_all_groups_interfaces test_cgroup_path_as_printed
       test_options_that_do_nothing test_hook_status_in_outputs
       test_closed_pipe_at_once test_missing_textfile_dir
       test_listen_quiet_stdout test_prom_stream_delimited test_append
       test_idle_hint_once)
PORT=$((23000 + ID % 9000))

# -n -1 -I: the veth ends in A and in B are both ifindex 2 (the first link
# of a new namespace after lo); UDP both ways gives udp-socket-enqueued
# samples on both, which must stay two groups, each with its netns.
test_netns_all_groups_interfaces() {
	local out=$TMP/nsall.json ia ib groups
	ia=$(ip -n "$NS_A" -o link show "$IF_A" | cut -d: -f1)
	ib=$(ip -n "$NS_B" -o link show "$IF_B" | cut -d: -f1)
	[ "$ia" = "$ib" ] || { skip "the veth ends have different indices ($ia, $ib)"; return; }
	serve udp 5601 --count 100 --duration-s 10 || return
	start_tool "$out" -n -1 -I -e udp-socket-enqueued || return
	client udp 5601 --count 100 --interval-us 500
	wait_server
	# the other way: a server in A, the client in B
	ip netns exec "$NS_A" "$TG" server --proto udp --bind $ADDR_A --port 5602 --count 100 \
		--duration-s 10 --ready-file "$TMP/ready-a" > /dev/null &
	BG_PIDS+=($!)
	wait_for 10 test -s "$TMP/ready-a" || { fail "server in A did not start"; return; }
	ip netns exec "$NS_B" "$TG" client --proto udp --connect $ADDR_A --port 5602 \
		--count 100 --interval-us 500 > /dev/null
	wait $!
	stop_tool
	groups=$(python3 - "$out" "$ia" <<-'PY'
	import json, sys
	counts = {}
	for line in open(sys.argv[1]):
	    for h in json.loads(line)["histograms"]:
	        if h["ifindex"] == int(sys.argv[2]):
	            counts[h["netns"]] = counts.get(h["netns"], 0) + h["count"]
	print(" ".join(str(counts[k]) for k in sorted(counts)))
	PY
	)
	expect "udp-socket-enqueued samples per netns on ifindex $ia" "$groups" = "100 100"
}

# -C prints cgroup paths relative to the cgroup2 mount; -c takes them as
# printed (with or without the leading /), and the id.
test_cgroup_path_as_printed() {
	local out=$TMP/cgpath.json cg printed form
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ] ||
		{ skip "no writable cgroup v2 at $CG_ROOT"; return; }
	cg=$CG_ROOT/nsl$ID-usab
	mkdir "$cg" && CGROUPS+=("$cg") || { fail "cannot create $cg"; return; }
	serve tcp 5603 || return
	echo "$SERVER_PID" > "$cg/cgroup.procs"
	start_tool "$out" -n "/run/netns/$NS_B" -e tcp-socket-read -C || return
	client tcp 5603 --count 50 --interval-us 1000
	wait_server
	stop_tool
	printed=$($JQ "$out" groups tcp-socket-read cgroup_path)
	expect "-C's path" "$printed" = "/nsl$ID-usab"
	for form in "$printed" "${printed#/}"; do
		serve tcp 5604 || return
		echo "$SERVER_PID" > "$cg/cgroup.procs"
		start_tool "$out" -n "/run/netns/$NS_B" -e tcp-socket-read -c "$form" || return
		client tcp 5604 --count 50 --interval-us 1000
		wait_server
		stop_tool
		expect "reads with -c $form" "$($JQ "$out" count tcp-socket-read)" -eq \
			"$(json_field "$TMP/server.json" reads)"
	done
}

# A warning on stderr for an option that would do nothing; an error
# (exit 2, one line, before loading) for one given twice.
test_options_that_do_nothing() {
	local args
	for args in "-e ip-start -p 1" "-e udp-start -y" "-T -F json" "-e ip-start -C"; do
		# shellcheck disable=SC2086
		"$NSL" $args -r 0.1 --count 1 > /dev/null 2> "$TMP/warn.err"
		grep -q "^netstacklat: warning: .*does nothing" "$TMP/warn.err" ||
			fail "no warning for $args: $(head -2 "$TMP/warn.err")"
	done
	"$NSL" -r 0.1 --count 1 -e tcp-socket-read -p 1 > /dev/null 2> "$TMP/warn.err"
	grep -q "warning" "$TMP/warn.err" && fail "a warning where -p applies: $(cat "$TMP/warn.err")"
	for args in "--listen 9100 --listen 9101" "-i lo,lo"; do
		# shellcheck disable=SC2086
		"$NSL" $args > /dev/null 2> "$TMP/twice.err"
		expect "exit status of $args" "$?" -eq 2
		expect "stderr lines of $args" "$(wc -l < "$TMP/twice.err")" -eq 1
		grep -q "twice" "$TMP/twice.err" || fail "$args: $(cat "$TMP/twice.err")"
	done
	# an index no interface has: under -n -1 maybe another namespace's,
	# so said and gone on with (one namespace: an error, test_errors.sh)
	"$NSL" -n -1 -i 123456789 -r 0.1 --count 1 > "$TMP/idx.out" 2> "$TMP/idx.err"
	expect "exit status of -n -1 -i 123456789" "$?" -eq 0
	grep -q "no interface with index 123456789 in netstacklat's own" "$TMP/idx.err" ||
		fail "-n -1 -i 123456789: $(cat "$TMP/idx.err")"
}

# Each report says how each hook it runs attaches and what it sees, or why
# it is unavailable: JSON "hooks", Prometheus netstacklat_hook_info. What
# this machine has is probed, never assumed: each run is compared, hook by
# hook, with what `-l -e LIST` says of exactly the hooks that run enabled
# (plain -l also lists the opt-in hooks, which run only when -e names
# them): the default hooks, then every hook.
HOOK_STATUS_PY='
import json, re, sys
json_file, prom_file, netns, probe, enabled = sys.argv[1:6]
enabled = enabled.split(",")
# -l: "  NAME METHOD" or "  NAME unavailable REASON" per hook
listed = {}
for l in probe.splitlines():
    if l.startswith("  "):
        f = l.split(None, 2)
        listed[f[0]] = (f[1], f[2] if len(f) > 2 else "")
missing = [h for h in enabled if h not in listed]
assert not missing, ("-l does not list", missing)
want = {h: listed[h] for h in enabled}
hooks = json.loads(open(json_file).readline())["hooks"]
assert sorted(hooks) == sorted(enabled), ("JSON hooks", list(hooks), "enabled", enabled)
for name, st in hooks.items():
    method, reason = want[name]
    if method == "unavailable":
        assert st["method"] is None and st["unavailable"] == reason, (name, st, reason)
    else:
        assert st["method"] == method, (name, st, method)
        assert st["netns"] == int(netns), (name, st)
unesc = lambda v: re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], v)
info = {}
for l in open(prom_file):
    if l.startswith("netstacklat_hook_info{"):
        labels = dict((k, unesc(v)) for k, v in
                      re.findall(r"(\w+)=\"((?:[^\"\\]|\\.)*)\"", l[:l.rindex("}")]))
        assert l.rstrip().endswith("} 1"), l
        assert labels["hook"] not in info, ("twice", l)
        info[labels["hook"]] = labels
assert sorted(info) == sorted(enabled), ("hook_info series", list(info), "enabled", enabled)
for name, labels in info.items():
    method, reason = want[name]
    if method == "unavailable":	# "" as JSON null, with the reason
        assert labels == {"hook": name, "method": "", "netns": "", "reason": reason}, (labels, reason)
    else:
        assert labels == {"hook": name, "method": method, "netns": netns}, (labels, method)
print("%d hooks, %d unavailable here (-l): %s" % (len(enabled),
      sum(m == "unavailable" for m, _ in want.values()),
      " ".join("%s=%s" % (h, want[h][0]) for h in enabled)))
'

# hook_status_run LIST [ARGS...]: a run of the tool with -e LIST (or none
# if LIST is "default"), JSON and Prometheus, checked against `-l -e`
# the hooks it enabled
hook_status_run() {
	local list=$1 json=$TMP/status.json prom=$TMP/status.prom e=()
	shift
	[ "$list" = default ] || e=(-e "$list")
	"$NSL" -F json -r 0.2 --count 1 -o "$json" "${e[@]}" 2> "$TMP/tool.err" ||
		{ fail "tool failed with ${e[*]:--e default}"; return; }
	"$NSL" -F prometheus -r 0.2 --count 1 -o "$prom" "${e[@]}" 2> "$TMP/tool.err" ||
		{ fail "tool failed with ${e[*]:--e default}, -F prometheus"; return; }
	[ "$list" = default ] && list=$(default_hooks)
	"$PYTHON" -c "$HOOK_STATUS_PY" "$json" "$prom" "$(stat -L -c %i /proc/self/ns/net)" \
		"$("$NSL" -l -e "$list" 2> /dev/null)" "$list" > "$TMP/status.out" 2>&1 ||
		{ fail "hooks of ${e[*]:--e default} against -l: $(tail -1 "$TMP/status.out")"; return; }
	echo "  ${e[*]:-default hooks}: $(cat "$TMP/status.out")"
	grep -q 'method="unavailable"' "$prom" && fail "method=\"unavailable\" still"
	# the version as --version says it, and the libbpf it runs with
	grep -Eq "^netstacklat_build_info\{version=\"$("$NSL" --version | cut -d' ' -f2)\",libbpf=\"[0-9]+\.[0-9]+\"\} 1$" "$prom" ||
		fail "build_info: $(grep build_info "$prom" | tail -1)"
}

test_hook_status_in_outputs() {
	local all
	# plain -l: every hook, the opt-in ones too
	all=$("$NSL" -l 2> /dev/null | awk '/^  / { print $1 }' | paste -sd,)
	[ -n "$all" ] || { fail "-l lists no hooks"; return; }
	hook_status_run default
	hook_status_run "$all"
}

# The reader of a pipe goes away after the first line: the tool notices at
# once (poll) and exits 0, not at its next report, 4 s later.
# Timed from "attached" (set-up done), not from the start: loading takes
# what it takes on a loaded machine.
test_closed_pipe_at_once() {
	local t0 job
	: > "$TMP/pipe.err"
	{ "$NSL" -r 4 -F json 2> "$TMP/pipe.err" | head -1 > /dev/null
	  echo "${PIPESTATUS[0]}" > "$TMP/pipe.rc"; } &
	job=$!
	wait_for 30 grep -q attached "$TMP/pipe.err" || { fail "tool did not attach"; return; }
	t0=$(date +%s%N)
	wait "$job"
	expect "exit status after the pipe closed" "$(cat "$TMP/pipe.rc")" -eq 0
	expect "ms from attached to the exit (first report at 4000, second at 8000)" \
		"$((($(date +%s%N) - t0) / 1000000))" -lt 6500
}

test_missing_textfile_dir() {
	"$NSL" -F prometheus -o "$TMP/nonexistent/x.prom" > /dev/null 2> "$TMP/dir.err"
	expect "exit status" "$?" -eq 1
	grep -q "the directory of $TMP/nonexistent/x.prom does not exist" "$TMP/dir.err" ||
		fail "message: $(cat "$TMP/dir.err")"
}

# --listen alone is an exporter: nothing on stdout. With -F, as asked.
test_listen_quiet_stdout() {
	"$NSL" --listen "127.0.0.1:$PORT" -r 0.2 --count 3 > "$TMP/quiet.out" 2> /dev/null
	expect "stdout bytes with --listen" "$(wc -c < "$TMP/quiet.out")" -eq 0
	"$NSL" --listen "127.0.0.1:$PORT" -F json -r 0.2 --count 3 > "$TMP/quiet.out" 2> /dev/null
	expect "JSON lines with --listen -F json" "$(wc -l < "$TMP/quiet.out")" -eq 3
}

# -F prometheus on a stream: each exposition ends with "# EOF"; split
# there, each part passes promtool.
test_prom_stream_delimited() {
	local n=0 f
	command -v promtool > /dev/null || { skip "promtool missing"; return; }
	"$NSL" -F prometheus -r 0.2 --count 3 > "$TMP/stream.prom" 2> /dev/null
	awk -v d="$TMP/part" '{ print > (d "." n) } /^# EOF$/ { n++ }' "$TMP/stream.prom"
	for f in "$TMP"/part.*; do
		promtool check metrics < "$f" > /dev/null 2>&1 || fail "$f: $(promtool check metrics < "$f" 2>&1 | head -2)"
		n=$((n + 1))
	done
	expect "expositions" "$n" -eq 3
}

test_append() {
	local f=$TMP/append.jsonl
	"$NSL" -F json -r 0.2 --count 1 -o "$f" 2> /dev/null
	"$NSL" -F json -r 0.2 --count 1 -o "$f" --append 2> /dev/null
	expect "lines after a second run with --append" "$(wc -l < "$f")" -eq 2
	"$NSL" -F json -r 0.2 --count 1 -o "$f" 2> /dev/null
	expect "lines after a run without" "$(wc -l < "$f")" -eq 1
}

# Issue #45: an idle host printed "no samples" for every hook every
# interval and nothing more. The first report with nothing anywhere now
# says once on stderr what usually explains it; a run that has samples
# says nothing.
test_idle_hint_once() {
	"$NSL" -n "/run/netns/$NS_B" -r 0.2 --count 4 > "$TMP/idle.out" 2> "$TMP/idle.err"
	expect "exit status, idle namespace" "$?" -eq 0
	expect "hints in 4 empty reports" "$(grep -c 'no samples at any hook yet' "$TMP/idle.err")" -eq 1
	grep -q "filters (-p, -i, -c, -q) may leave all of it out.*-n -1 for all" "$TMP/idle.err" ||
		fail "hint: $(grep 'no samples' "$TMP/idle.err")"
	serve udp 5310 --count 50 --duration-s 10 || return
	start_tool "$TMP/busy.json" -n "/run/netns/$NS_B" -e udp-start
	client udp 5310 --count 50 --interval-us 1000
	wait_server
	stop_tool
	grep -q "no samples at any hook" "$TMP/tool.err" && fail "a hint with samples in the first report"
	expect "udp-start samples" "$($JQ "$TMP/busy.json" count udp-start)" -eq 50
}

need "" prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
