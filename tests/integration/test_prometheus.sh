#!/usr/bin/env bash
# Prometheus output: the exposition text passes promtool, the textfile is
# replaced atomically, the /metrics endpoint serves concurrent scrapes, and
# a real Prometheus server scrapes it during traffic and answers a
# histogram_quantile() query for tcp-socket-read.
source "$(dirname "$0")/lib.sh"

TESTS=(test_prom_promtool test_prom_textfile_atomic test_prom_concurrent_scrapes
       test_prom_listen_in_use test_prom_signal_while_serving test_prom_real_server
       test_prom_bpf_stats_counters test_prom_textfile_unwritable test_prom_planted_links
       test_prom_http test_prom_jail test_prom_hostile_names test_prom_listen_every_address
       test_prom_rules test_prom_dashboard test_prom_dashboard_sid
       test_prom_k8s_scrapes test_prom_k8s_scrapes_sid)
# below the ephemeral range (32768-60999), where a client socket might sit
PORT=$((20000 + ID % 10000))
PROM_PORT=$((PORT + 1))

prom_prereqs() {
	SKIP_WHY=
	command -v promtool > /dev/null || SKIP_WHY="promtool missing (Debian package prometheus)"
	command -v curl > /dev/null || SKIP_WHY="curl missing"
	[ -z "$SKIP_WHY" ]
}

tcp_traffic() {	# tcp_traffic PORT COUNT: TCP messages NS_A -> NS_B, to completion
	serve tcp "$1" || return 1
	client tcp "$1" --count "$2" --interval-us 1000
	wait_server
}

test_prom_promtool() {
	local f=$TMP/out.prom
	start_tool "$TMP/ignored" -F prometheus -o "$f" -r 0.3 -n "/run/netns/$NS_B" || return
	tcp_traffic 5301 200
	stop_tool
	promtool check metrics < "$f" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool: $(head -3 "$TMP/promtool.out")"
	grep -q '^netstacklat_latency_seconds_count{hook="tcp-socket-read"} [1-9]' "$f" ||
		fail "no tcp-socket-read samples in the exposition"
	# grouped by interface and cgroup: labels and all
	# grouped, with every per-program family: not a lint remark either
	start_tool "$TMP/ignored" -F prometheus -o "$f" -r 0.3 -n "/run/netns/$NS_B" -I -C --bpf-stats || return
	tcp_traffic 5303 100
	stop_tool
	promtool check metrics < "$f" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool (grouped): $(head -3 "$TMP/promtool.out")"
	[ -s "$TMP/promtool.out" ] && fail "promtool (grouped) remarks: $(head -3 "$TMP/promtool.out")"
	grep -q "interface=\"$IF_B\",ifindex=\"$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/ifindex")\"" "$f" ||
		fail "no interface=\"$IF_B\",ifindex=... labels: $(grep -m1 interface= "$f")"
	# 8 buckets per power of two: the le of native schema 3, in seconds
	start_tool "$TMP/ignored" -F prometheus -o "$f" -r 0.3 -n "/run/netns/$NS_B" --resolution 8 || return
	tcp_traffic 5304 100
	stop_tool
	promtool check metrics < "$f" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool (--resolution 8): $(head -3 "$TMP/promtool.out")"
	# every finite le of tcp-socket-read's buckets on the schema-3 grid
	# (2^(i/8) s), next to each other, and some between powers of two
	# (a resolution-1 exposition fails here: all its les are 2^i ns)
	"$PYTHON" -c "$PROM_SCHEMA3_LES" "$f" tcp-socket-read > "$TMP/les.out" 2>&1 ||
		fail "buckets of --resolution 8: $(cat "$TMP/les.out")"
}

# FILE HOOK: the finite le values of HOOK's classic buckets are 2^(i/8) s
# for consecutive i (the listed range), some not a power of two, and the
# +Inf bucket holds _count.
PROM_SCHEMA3_LES='
import math, re, sys
les, inf, count = [], None, None
for line in open(sys.argv[1]):
    m = re.match(r"netstacklat_latency_seconds_(bucket|count)\{hook=\"([^\"]*)\"(?:,le=\"([^\"]*)\")?\} (\S+)", line)
    if not m or m[2] != sys.argv[2]:
        continue
    if m[1] == "count":
        count = int(m[4])
    elif m[3] == "+Inf":
        inf = int(m[4])
    elif float(m[3]) > 0:
        les.append(float(m[3]))
idx = [math.log2(le) * 8 for le in les]
off = [i for i in idx if abs(i - round(i)) > 1e-6]
if not les or off:
    sys.exit(f"les not on the 2^(i/8) grid: {off[:3]} of {len(les)}")
steps = {round(b) - round(a) for a, b in zip(idx, idx[1:])}
if steps - {1}:
    sys.exit(f"les not consecutive: steps {sorted(steps)}")
if all(round(i) % 8 == 0 for i in idx):
    sys.exit(f"only powers of two: {les}")
if inf is None or inf != count:
    sys.exit(f"+Inf bucket {inf}, _count {count}")
print(f"{len(les)} les from {les[0]:.3g} s to {les[-1]:.3g} s")
'


# The textfile collector may read at any moment: every read sees a whole
# file (the same number of lines, ending in the last metric family).
test_prom_textfile_atomic() {
	local f=$TMP/atomic.prom lines= n i bad=0 last metric=
	start_tool "$TMP/ignored" -F prometheus -o "$f" -r 0.05 || return
	wait_for 5 test -s "$f" || { fail "no textfile"; return; }
	for i in $(seq 200); do
		n=$(wc -l < "$f")
		last=$(tail -1 "$f")
		# a whole file always ends with a sample of the same metric
		[ -z "$lines" ] && lines=$n metric=${last%%\{*}
		if [ "$n" -ne "$lines" ] || [[ "$last" != netstacklat_*\{*\}\ [0-9]* ]] ||
		   [ "${last%%\{*}" != "$metric" ]; then
			bad=$((bad + 1))
		fi
	done
	stop_tool
	expect "partial files seen in 200 reads" "$bad" -eq 0
	compgen -G "$f.*.tmp" > /dev/null && fail "temporary file left behind: $(compgen -G "$f.*.tmp")"
	return 0
}

test_prom_concurrent_scrapes() {
	local i ok=0 pids=()
	start_tool "$TMP/out.json" --listen "127.0.0.1:$PORT" -n "/run/netns/$NS_B" || return
	serve tcp 5303 || return
	client tcp 5303 --count 300 --interval-us 500 &
	pids+=($!)
	for i in $(seq 16); do
		curl -s --max-time 10 -o "$TMP/scrape.$i" -w '%{http_code}\n' \
			"http://127.0.0.1:$PORT/metrics" > "$TMP/code.$i" &
		pids+=($!)
	done
	wait_server
	wait "${pids[@]}"	# not a bare wait: the tool runs in the background too
	for i in $(seq 16); do
		[ "$(cat "$TMP/code.$i")" = 200 ] && promtool check metrics < "$TMP/scrape.$i" > /dev/null 2>&1 &&
			ok=$((ok + 1))
	done
	expect "valid answers to 16 concurrent scrapes" "$ok" -eq 16
	expect "HTTP status of /nothing" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nothing")" -eq 404
	stop_tool
}

test_prom_listen_in_use() {
	local rc
	start_tool "$TMP/out.json" --listen "127.0.0.1:$PORT" || return
	"$NSL" --listen "127.0.0.1:$PORT" > /dev/null 2> "$TMP/busy.err"; rc=$?
	stop_tool
	expect "exit status with the port in use" "$rc" -eq 1
	expect "stderr lines" "$(wc -l < "$TMP/busy.err")" -eq 1
	grep -q -- "--listen: cannot listen on 127.0.0.1 port $PORT" "$TMP/busy.err" ||
		fail "message: $(cat "$TMP/busy.err")"
}

# Issue #45: ":PORT" is every address, as node_exporter and Go read it
# (before, the tool bound 127.0.0.1 alone): served on 127.0.0.1 and on
# ::1 alike, where IPv6 is on. PORT alone stays loopback, IPv4.
test_prom_listen_every_address() {
	local v6=1 code
	grep -qs '^0*1 ' /proc/net/if_inet6 || v6=0
	start_tool "$TMP/out.json" --listen ":$PORT" -r 60 || return
	grep -q "metrics on http://\*:$PORT/metrics (every address)" "$TMP/tool.err" ||
		fail "no line naming every address: $(grep metrics "$TMP/tool.err")"
	expect "GET http://127.0.0.1:$PORT/metrics" \
		"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" -eq 200
	if [ $v6 = 1 ]; then
		expect "GET http://[::1]:$PORT/metrics" \
			"$(curl -s -o /dev/null -w '%{http_code}' "http://[::1]:$PORT/metrics")" -eq 200
	else
		echo "  no ::1 here: IPv4 checked alone"
	fi
	stop_tool
	[ $v6 = 1 ] || return 0
	start_tool "$TMP/out.json" --listen "$PORT" -r 60 || return
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://[::1]:$PORT/metrics")
	expect "GET http://[::1]:$PORT/metrics with --listen PORT (loopback, IPv4)" "$code" -eq 0
	stop_tool
}

# Issue #32: links planted by a tenant in a textfile directory it may write
# to (root:nogroup 0775, shared with another collector): nobody's symbolic
# link at the old fixed temporary n.prom.tmp, a hard link at h.prom.tmp,
# both to a root-owned file holding "precious". The tool, as root, writes
# its textfiles there: the victim is unchanged (the temporaries have new
# names, made with O_EXCL|O_NOFOLLOW). A link in place of the file itself
# is refused at start, for -F prometheus and for a followed -o alike, and
# so is /dev/null for the textfile (a rename would replace the device).
test_prom_planted_links() {
	local d=$TMP/shared victim=$TMP/victim rc
	mkdir "$d" && chgrp nogroup "$d" && chmod 0775 "$d" && chmod 0711 "$TMP" ||
		{ fail "cannot set up $d"; return; }
	printf 'precious\n' > "$victim" && chmod 0644 "$victim"
	setpriv --reuid nobody --regid nogroup --clear-groups ln -s "$victim" "$d/n.prom.tmp" ||
		{ fail "nobody cannot plant a link in $d"; return; }
	ln "$victim" "$d/h.prom.tmp"	# root's: protected_hardlinks stops nobody
	for f in n h; do
		"$NSL" -F prometheus -o "$d/$f.prom" -r 0.3 --count 6 > /dev/null 2> "$TMP/planted.err"
		expect "exit status writing $f.prom" "$?" -eq 0
		grep -q '^netstacklat_latency_seconds_count' "$d/$f.prom" || fail "no textfile $f.prom"
	done
	expect "the victim after 12 textfiles" "$(cat "$victim")" = precious
	setpriv --reuid nobody --regid nogroup --clear-groups ln -s "$victim" "$d/l.prom"
	"$NSL" -F prometheus -o "$d/l.prom" -r 0.3 --count 1 > /dev/null 2> "$TMP/planted.err"; rc=$?
	expect "exit status, textfile a symbolic link" "$rc" -eq 1
	grep -q -- "-o: $d/l.prom is a symbolic link: refused" "$TMP/planted.err" ||
		fail "message: $(cat "$TMP/planted.err")"
	"$NSL" -F json -o "$d/l.prom" -r 0.3 --count 1 > /dev/null 2> "$TMP/planted.err"; rc=$?
	expect "exit status, -o a symbolic link" "$rc" -eq 1
	grep -q -- "-o: $d/l.prom is a symbolic link: refused" "$TMP/planted.err" ||
		fail "message: $(cat "$TMP/planted.err")"
	"$NSL" -F json -o "$d/h.prom.tmp" -r 0.3 --count 1 > /dev/null 2> "$TMP/planted.err"; rc=$?
	expect "exit status, -o with another hard link" "$rc" -eq 1
	grep -q -- "has other hard links: refused" "$TMP/planted.err" ||
		fail "message: $(cat "$TMP/planted.err")"
	"$NSL" -F prometheus -o /dev/null -r 0.3 --count 1 > /dev/null 2> "$TMP/planted.err"; rc=$?
	expect "exit status, textfile /dev/null" "$rc" -eq 1
	if [ ! -c /dev/null ]; then	# the machine needs it back, whatever the verdict
		fail "/dev/null was replaced by a regular file"
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
	expect "the victim at the end" "$(cat "$victim")" = precious
}

# The /metrics server (src/4-sink/http.c) against raw requests: HEAD, query
# strings, 405/404/400/431, a request in single bytes, 40 connections that
# never ask (more than its 32 slots) and a client that stops reading.
test_prom_http() {
	start_tool "$TMP/http.json" --listen "127.0.0.1:$PORT" -r 60 || return
	python3 "$ROOT/tests/integration/httpcheck.py" 127.0.0.1 "$PORT" > "$TMP/httpcheck.out" 2>&1 ||
		while read -r line; do fail "$line"; done < "$TMP/httpcheck.out"
	stop_tool
}

# Issue #32: /metrics is served by a child process that holds its socket
# and a channel to the tool, and nothing else (src/4-sink/jail.c starts it,
# src/4-sink/jailchild.c shuts it in): no
# capability, no_new_privs, a seccomp filter, no BPF fd or mapping. A
# kill -9 of it is followed by answers again within 2 s (a new child,
# counted on /metrics), and the reports go on throughout. Run by root
# without --user, the tool and its server run as users of their own.
test_prom_jail() {
	local out=$TMP/jail.json child fds maps t0 t1 gaps want jail HELPERS_END=1	# killed below
	start_tool "$out" --listen "127.0.0.1:$PORT" -r 0.2 || return
	wait_for 10 eval 'curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/jail.prom"' ||
		{ fail "no /metrics"; stop_tool; return; }
	child=$(jail_server "$TOOL_PID")
	[ -n "$child" ] || { fail "the tool has no server process"; stop_tool; return; }
	expect "the server's CapEff" "$(awk '$1 == "CapEff:" { print $2 }' /proc/"$child"/status)" = 0000000000000000
	expect "the server's CapBnd" "$(awk '$1 == "CapBnd:" { print $2 }' /proc/"$child"/status)" = 0000000000000000
	expect "the server's NoNewPrivs" "$(awk '$1 == "NoNewPrivs:" { print $2 }' /proc/"$child"/status)" = 1
	expect "the server's Seccomp (2: filter)" "$(awk '$1 == "Seccomp:" { print $2 }' /proc/"$child"/status)" = 2
	# no signal blocked: it was forked while set-up held SIGINT/TERM/HUP
	expect "the server's blocked signals" "$(awk '$1 == "SigBlk:" { print $2 }' /proc/"$child"/status)" = 0000000000000000
	# root without --user: the tool takes a user of its own (issue #32 item
	# 2), its server another (#44: netstacklat-http, else nobody where
	# that is not the tool's; src/4-sink/jailproc.c)
	want=$(id -u netstacklat 2>/dev/null || id -u nobody)
	jail=$(id -u netstacklat-http 2>/dev/null ||
	       { [ "$want" != "$(id -u nobody)" ] && id -u nobody; } || echo "$want")
	expect "the server's uids (real, effective, saved, fs)" \
		"$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' /proc/"$child"/status)" = "$jail $jail $jail $jail"
	expect "the tool's uids once attached" \
		"$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' /proc/"$TOOL_PID"/status)" = "$want $want $want $want"
	grep -q "running as user '$(id -un "$want")' after set-up" "$TMP/tool.err" ||
		fail "no word of the user taken: $(cat "$TMP/tool.err")"
	fds=$(for f in /proc/"$child"/fd/*; do readlink "$f"; done)
	printf '%s\n' "$fds" | grep -q 'anon_inode:bpf' && fail "the server holds a BPF fd: $(echo $fds)"
	expect "the server's fds (stdin, stdout, stderr, socket, channel, epoll)" \
		"$(printf '%s\n' "$fds" | wc -l)" -le 6
	maps=$(grep -c 'anon_inode:bpf' /proc/"$child"/maps)
	expect "the server's BPF mappings" "$maps" -eq 0
	expect "the tool's own BPF mappings (the check sees them)" "$(grep -c 'anon_inode:bpf' /proc/"$TOOL_PID"/maps)" -gt 0
	grep -q '^netstacklat_latency_seconds_count' "$TMP/jail.prom" || fail "/metrics without histograms"
	curl -sf -H "Accept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited" \
		-o /dev/null -w '%{content_type}' "http://127.0.0.1:$PORT/metrics" > "$TMP/jail.type"
	grep -q 'application/vnd.google.protobuf' "$TMP/jail.type" ||
		fail "protobuf scrape: $(cat "$TMP/jail.type")"
	t0=$(date +%s.%N)
	kill -9 "$child"
	wait_for 5 eval 'curl -sf --max-time 1 "http://127.0.0.1:$PORT/metrics" > "$TMP/jail2.prom"' ||
		fail "no answer within 5 s of the kill"
	t1=$(date +%s.%N)
	# a new server at once (the first restart has no back-off): well
	# under a second here, 5 s for a loaded machine and the ASan build
	expect "ms from the kill to an answer" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')" -le 5000
	expect "netstacklat_metrics_server_restarts_total" \
		"$(awk '$1 == "netstacklat_metrics_server_restarts_total" { print $2 }' "$TMP/jail2.prom")" = 1
	# the new one was forked by the keeper thread, which blocks every signal
	child=$(jail_server "$TOOL_PID")
	expect "the new server's blocked signals" \
		"$(awk '$1 == "SigBlk:" { print $2 }' /proc/"$child"/status 2>/dev/null)" = 0000000000000000
	kill -0 "$TOOL_PID" || fail "the tool died with its server"
	sleep 1
	wait_for 10 more_reports "$out" 9
	stop_tool
	# a report every 0.2 s throughout: no gap of a second
	gaps=$(python3 -c '
import json, sys
t = [json.loads(l)["interval_s"] for l in open(sys.argv[1])]
print(sum(1 for x in t if x > 1.0))' "$out")
	expect "reports more than 1 s apart" "$gaps" -eq 0
	expect "reports" "$(wc -l < "$out")" -ge 10
}

# While serving scrapes, SIGINT still ends the tool at once, not at the
# next report 60 s later (the server's thread blocks signals, so they
# always interrupt the main thread's sleep).
test_prom_signal_while_serving() {
	local start
	start_tool "$TMP/sig.json" --listen "127.0.0.1:$PORT" -r 60 || return
	for i in 1 2 3 4 5; do curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$PORT/metrics"; done
	start=$SECONDS
	stop_tool
	expect "seconds from SIGINT to exit (interval 60 s)" "$((SECONDS - start))" -lt 30
	expect "final report" "$($JQ "$TMP/sig.json" lines)" -eq 1
}

# prom_server NAME WEB_PORT [ARGS...]: a real Prometheus (Debian's) on
# WEB_PORT scraping the tool's 127.0.0.1:$PORT every second, with ARGS;
# its configuration, TSDB and log are $TMP/NAME.*; PROM_PID. The binary:
# $PROM_BIN, else the prometheus on PATH (bookworm's 2.42); in the network
# namespace $PROM_NS where set (prom_query asks it there)
prom_server() {
	local name=$1 web=$2; shift 2
	cat > "$TMP/$name.yml" <<-YML
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: netstacklat
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	YML
	# shellcheck disable=SC2086 # PROM_NS: a namespace to run it in
	${PROM_NS:+ip netns exec $PROM_NS} "${PROM_BIN:-prometheus}" \
		--config.file="$TMP/$name.yml" --storage.tsdb.path="$TMP/$name.tsdb" "$@" \
		--web.listen-address="127.0.0.1:$web" > "$TMP/$name.log" 2>&1 &
	PROM_PID=$!
	BG_PIDS+=("$PROM_PID")
}

# A real Prometheus server (Debian's) scrapes us every second during traffic.
test_prom_real_server() {
	local q result
	command -v prometheus > /dev/null || { skip "prometheus server missing"; return; }
	start_tool "$TMP/out.json" --listen "127.0.0.1:$PORT" -n "/run/netns/$NS_B" || return
	prom_server prometheus "$PROM_PORT"
	# traffic once it scrapes: rates of a server that came late are 0
	prom_scrapes "$PROM_PORT" ||
		{ fail "Prometheus does not scrape the tool: $(tail -2 "$TMP/prometheus.log")"; stop_tool; return; }
	# 3 s of reads: a rate needs two scrapes (1 s apart) of a series
	# that grows, the first after its birth, and a loaded machine may
	# delay a scrape by a second (it was 6 s)
	serve tcp 5304 || return
	client tcp 5304 --count 1500 --interval-us 2000
	wait_server
	q='histogram_quantile(0.5, sum by (le) (rate(netstacklat_latency_seconds_bucket{hook="tcp-socket-read"}[20s])))'
	wait_for 20 prom_has_value "$q" || true
	result=$(prom_query "$q")
	kill "$PROM_PID" 2>/dev/null
	stop_tool
	[[ "$result" =~ ^[0-9.e+-]+$ ]] || { fail "histogram_quantile: '$result' ($(tail -2 "$TMP/prometheus.log"))"; return; }
	echo "  Prometheus: median tcp-socket-read latency ${result}s"
	python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(not (0 < v < 1))' "$result" ||
		fail "median read latency $result s is not in (0, 1)"
}

# --bpf-stats under -F prometheus: *_total are counters, so they never
# decrease from one exposition to the next (they were per-interval deltas).
test_prom_bpf_stats_counters() {
	local f=$TMP/costs.prom
	"$NSL" -F prometheus --bpf-stats -r 0.4 --count 5 -n "/run/netns/$NS_B" \
		> "$f" 2> "$TMP/tool.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	wait_for 20 grep -q "attached" "$TMP/tool.err" || { fail "tool did not attach"; return; }
	# about 1 s of traffic: it spans several reports
	serve tcp 5305 || return
	client tcp 5305 --count 300 --interval-us 3000
	wait_server
	wait "$TOOL_PID" || fail "tool exit status $?"
	python3 - "$f" > "$TMP/costs.out" 2>&1 <<-'PY' || fail "$(cat "$TMP/costs.out")"
	import sys
	last, reports, grew = {}, 0, False
	for line in open(sys.argv[1]):
	    if line.startswith("# HELP netstacklat_latency_seconds "):
	        reports += 1
	    if not line.startswith("netstacklat_bpf_run"):
	        continue
	    series, value = line.rsplit(" ", 1)
	    value = float(value)
	    if value < last.get(series, 0):
	        sys.exit(f"{series} went down: {last[series]} -> {value}")
	    grew |= value > last.get(series, 0) and series in last
	    last[series] = value
	if reports != 5 or not last:
	    sys.exit(f"{reports} expositions, {len(last)} BPF cost series")
	if not grew:
	    sys.exit("no BPF cost counter grew during traffic")
	PY
}

# The textfile is created anew every interval, after every capability is
# dropped: a directory only its owner may write to must fail at start-up,
# before anything is attached, not at the first report. As that owner
# (--user) it works.
test_prom_textfile_unwritable() {
	local d=$TMP/textfile rc
	mkdir "$d" && chown nobody "$d" && chmod 0755 "$d" && chmod 0711 "$TMP" ||
		{ fail "cannot set up $d"; return; }
	"$NSL" -F prometheus -o "$d/nsl.prom" -r 0.2 --count 1 > /dev/null 2> "$TMP/unwritable.err"; rc=$?
	expect "exit status, directory not writable without capabilities" "$rc" -eq 1
	expect "stderr lines" "$(wc -l < "$TMP/unwritable.err")" -eq 1
	grep -q -- "-o: cannot create a temporary beside $d/nsl.prom as root" "$TMP/unwritable.err" ||
		fail "message: $(cat "$TMP/unwritable.err")"
	"$NSL" -F prometheus -o "$d/nsl.prom" -r 0.2 --count 2 --user nobody \
		> /dev/null 2> "$TMP/tool.err"; rc=$?
	expect "exit status as --user nobody" "$rc" -eq 0
	[ -s "$d/nsl.prom" ] && promtool check metrics < "$d/nsl.prom" > /dev/null 2>&1 ||
		fail "no valid textfile written as nobody"
	# the directory turns read-only while running: the tool goes on,
	# says so once with the file, the last complete file stays, and the
	# reports come back with the directory writable again
	"$NSL" -F prometheus -o "$d/nsl.prom" -r 0.2 --user nobody \
		> /dev/null 2> "$TMP/late.err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	wait_for 20 grep -q "attached" "$TMP/late.err" || { fail "tool did not attach"; return; }
	sleep 0.5
	chmod 0555 "$d"
	sleep 1
	kill -0 "$TOOL_PID" 2>/dev/null || fail "tool ended with its textfile directory read-only"
	promtool check metrics < "$d/nsl.prom" > /dev/null 2>&1 || fail "last textfile damaged"
	expect "EACCES warnings (once a minute at most)" \
		"$(grep -c "cannot write the report to $d/nsl.prom: Permission denied" "$TMP/late.err")" -eq 1
	chmod 0755 "$d"
	wait_for 5 grep -q "writing the reports to $d/nsl.prom again" "$TMP/late.err" ||
		fail "no reports with the directory writable again: $(tail -1 "$TMP/late.err")"
	grep -q '^netstacklat_reports_lost_total [1-9]' "$d/nsl.prom" ||
		fail "the textfile does not count the lost reports"
	kill -INT "$TOOL_PID"
	wait "$TOOL_PID"; rc=$?
	expect "exit status after SIGINT" "$rc" -eq 0
	promtool check metrics < "$d/nsl.prom" > /dev/null 2>&1 || fail "last textfile damaged"
	# a read-only mount, as the unit's ProtectSystem=strict makes of a
	# directory not in its ReadWritePaths= (issue #45: no hint before)
	mkdir "$TMP/ro" && mount -t tmpfs -o ro tmpfs "$TMP/ro" || { fail "cannot mount a read-only tmpfs"; return; }
	AT_EXIT+=("umount $TMP/ro")
	INVOCATION_ID=test "$NSL" -F prometheus -o "$TMP/ro/nsl.prom" --count 1 > /dev/null 2> "$TMP/ro.err"
	grep -q "Read-only file system (a systemd unit's ProtectSystem=strict: add the directory to its ReadWritePaths=" \
		"$TMP/ro.err" || fail "no ReadWritePaths= hint: $(cat "$TMP/ro.err")"
	umount "$TMP/ro"
}

# Names a tenant chooses reach every output (#46 item 5): a cgroup and an
# interface named with a quote, a backslash and a byte that is not UTF-8
# (cgroup_mkdir() refuses a newline, dev_valid_name() '/', ':' and white
# space; the escape of a newline is in tests/unit/test_format.c). A
# reader in that cgroup gets TCP over that interface; the tool groups by
# both (-I -C). The JSON
# parses and carries both names (each bad byte as U+FFFD) with one sample
# per read; /metrics passes promtool; and two real Prometheus servers,
# one scraping the text exposition and one the protobuf (native
# histograms, --resolution 8), store the series under those very label
# values, with the reads as their count.
HOSTILE_PY='
import json, os, sys
cg, ifn = (os.fsencode(a).decode("utf-8", "replace") for a in sys.argv[2:4])
def ours(labels):
    return labels.get("ifname", labels.get("interface")) == ifn and \
        labels.get("cgroup_path", labels.get("cgroup", "")).endswith("/" + cg)
if sys.argv[1] == "json":
    n = 0
    for line in open(sys.argv[4], encoding="utf-8"):
        for h in json.loads(line)["histograms"]:
            if h["hook"] == "tcp-socket-read" and ours(h):
                n += h["count"]
    print(n)
else:	# a Prometheus query answer on stdin: the value of our series
    r = json.load(sys.stdin)["data"]["result"]
    print(" ".join(x["value"][1] for x in r if ours(x["metric"])) or "none")
'

# hostile_scrape PORT QUERY: what the Prometheus at PORT answers QUERY for
# the hostile series (its value, "none")
hostile_scrape() {
	curl -s --max-time 5 "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		"$PYTHON" -c "$HOSTILE_PY" prom "$HCG" "$HIF"
}

test_prom_hostile_names() {
	local cg reads port2=$((PROM_PORT + 1)) q_text q_pb v_text v_pb pids=()
	command -v prometheus > /dev/null || { skip "prometheus server missing"; return; }
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ] || { skip "no writable cgroup v2"; return; }
	HCG=$'nsl'$ID$'-q"b\\s\xffz' HIF=$'q"\\\xff'$((ID % 10000))
	cg=$CG_ROOT/$HCG
	mkdir "$cg" || { fail "cannot make a cgroup named $(printf %q "$HCG")"; return; }
	AT_EXIT+=("rmdir $(printf %q "$cg")")
	ip link add "nsl$ID-h" netns "$NS_A" type veth peer name "$HIF" netns "$NS_B" ||
		{ fail "cannot name an interface $(printf %q "$HIF")"; return; }
	ip -n "$NS_A" addr add 198.18.60.1/24 dev "nsl$ID-h"
	ip -n "$NS_B" addr add 198.18.60.2/24 dev "$HIF"
	ip -n "$NS_A" link set "nsl$ID-h" up && ip -n "$NS_B" link set "$HIF" up ||
		{ fail "cannot bring the hostile veth up"; return; }
	start_tool "$TMP/hostile.json" -n "/run/netns/$NS_B" -I -C -e tcp-socket-read -y \
		--resolution 8 --listen "127.0.0.1:$PORT" || return
	# one server scraping the text exposition, one the protobuf
	prom_server hostile-text "$PROM_PORT"
	pids+=("$PROM_PID")
	prom_server hostile-pb "$port2" --enable-feature=native-histograms
	pids+=("$PROM_PID")
	# the reader joins the cgroup, then becomes the server in NS_B
	rm -f "$TMP/ready"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" "$3" server --proto tcp \
		--bind 198.18.60.2 --port 5305 --ready-file "$4" --report "$5"' sh "$cg" "$NS_B" "$TG" \
		"$TMP/ready" "$TMP/server.json" > /dev/null &
	SERVER_JOB=$!
	BG_PIDS+=($!)
	wait_for 10 test -s "$TMP/ready" || { fail "server did not start"; return; }
	ip netns exec "$NS_A" "$TG" client --proto tcp --connect 198.18.60.2 --port 5305 \
		--count 200 --interval-us 2000 > "$TMP/client.json" || fail "client failed"
	wait_server
	reads=$(json_field "$TMP/server.json" reads)
	curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" > "$TMP/hostile.prom"
	promtool check metrics < "$TMP/hostile.prom" > "$TMP/promtool.out" 2>&1 ||
		fail "promtool on the hostile names: $(head -3 "$TMP/promtool.out")"
	q_text='netstacklat_latency_seconds_count{hook="tcp-socket-read"}'
	q_pb='histogram_count(netstacklat_latency_seconds{hook="tcp-socket-read"})'
	wait_for 20 eval '[ "$(hostile_scrape $PROM_PORT "$q_text")" = "$reads" ] &&
		[ "$(hostile_scrape $port2 "$q_pb")" = "$reads" ]' || true
	v_text=$(hostile_scrape "$PROM_PORT" "$q_text") v_pb=$(hostile_scrape "$port2" "$q_pb")
	stop_tool
	kill "${pids[@]}" 2> /dev/null
	wait "${pids[@]}" 2> /dev/null
	echo "  $reads reads in cgroup $(printf %q "$HCG") over $(printf %q "$HIF"):" \
	     "Prometheus (text) $v_text, (protobuf, native) $v_pb"
	expect "JSON: samples under both names (reads)" \
		"$("$PYTHON" -c "$HOSTILE_PY" json "$HCG" "$HIF" "$TMP/hostile.json")" -eq "$reads"
	expect "Prometheus, text: the series' count under both names" "$v_text" = "$reads"
	expect "Prometheus, protobuf: the native histogram's count under both names" "$v_pb" = "$reads"
}

# prom_scrapes PORT: the Prometheus on PORT has scraped the tool (up is 1),
# within 30 s
prom_scrapes() {
	PROM_PORT=$1 wait_for 30 eval '[ "$(prom_query up)" = 1 ]'
}

prom_query() {	# prom_query PROMQL: the value of a one-element vector, or ""
	# shellcheck disable=SC2086
	${PROM_NS:+ip netns exec $PROM_NS} curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(r[0]["value"][1] if r else "")
except Exception:
    print("")'
}

prom_has_value() {
	[[ "$(prom_query "$1")" =~ ^[0-9.e+-]+$ ]]
}

# Issue #45: the dashboard queried classic _bucket series only, blank with
# native histograms (--resolution 8 scraped as protobuf). Every query and
# variable of docs/grafana-dashboard.json must return series from a real
# Prometheus scraping the tool during traffic, one server scraping the
# text exposition (classic buckets) and one the protobuf (native), with
# every hook and the groups the panels use (-n -1 -I -C, netns-handover):
# bookworm's 2.42 here, sid's 3.x LTS in test_prom_dashboard_sid.
test_prom_dashboard() {
	command -v prometheus > /dev/null || { skip "prometheus server missing"; return; }
	dashboard_check "$(command -v prometheus)"
}

test_prom_dashboard_sid() {
	local bin rc
	bin=$("$ROOT/scripts/prometheus-sid" 2> "$TMP/sid.err"); rc=$?
	[ $rc = 3 ] && { fail "$(cat "$TMP/sid.err")"; return; }
	[ $rc = 0 ] || { skip "no Prometheus of sid: $(tail -1 "$TMP/sid.err")"; return; }
	echo "  $("$bin" --version 2>&1 | head -1)"
	dashboard_check "$bin"
}

# dashboard_check PROMETHEUS: the dashboard's queries against a text and a
# protobuf scrape of the tool by that Prometheus binary. The tool runs in
# the node (NS_B), as test_handover's does: the hand-over's netfilter
# part sees the namespace the tool is in; Prometheus scrapes it there.
# Which of its hooks attach on this machine is probed (-l -e, in NS_B):
# dashcheck.py leaves out the panels fed only by hooks unavailable here,
# saying so, and checks that they are empty and that the hook_info table
# shows those hooks as unavailable, with -l's reasons.
dashboard_check() {
	local port2=$((PROM_PORT + 1)) pids=() p PROM_NS=$NS_B
	local hooks=ip-start,tcp-start,udp-start,tcp-socket-enqueued,udp-socket-enqueued,tcp-socket-read,udp-socket-read,netns-handover,tcp-standing-queue,udp-standing-queue
	# the hand-over panel needs a pod behind a node with real RX stamps
	# (lib.sh): made once, for both dashboard tests
	if [ -z "${DASH_POD:-}" ]; then
		[ -c /dev/net/tun ] || { skip "no /dev/net/tun: no pod for the hand-over panel"; return; }
		setup_tunwire || { fail "cannot set up the TUN wire (tests/tunwire.c)"; return; }
		setup_pod || { fail "cannot set up the pod behind the node"; return; }
		DASH_POD=1
	fi
	ip netns exec "$NS_B" "$NSL" -l -e "$hooks" > "$TMP/dash.probe" 2> /dev/null ||
		{ fail "-l -e $hooks failed"; return; }
	echo "  unavailable here (-l):" \
		"$(awk '/^  / && $2 == "unavailable" { print $1 }' "$TMP/dash.probe" |
		   grep -xF -f <(tr , '\n' <<< "$hooks") | paste -sd' ')"
	node_tool "$TMP/dash.json" -n -1 -I -C --resolution 8 --listen "127.0.0.1:$PORT" -e "$hooks" ||
		return
	# each test's servers start with nothing stored: the other test's
	# series (the same target) would still answer for 5 min (no
	# staleness marks at a server's end), and not from this run
	rm -rf "$TMP/dash-text.tsdb" "$TMP/dash-pb.tsdb"
	PROM_BIN=$1 prom_server dash-text "$PROM_PORT"
	pids+=("$PROM_PID")
	PROM_BIN=$1 prom_server dash-pb "$port2" --enable-feature=native-histograms
	pids+=("$PROM_PID")
	for p in "$PROM_PORT" "$port2"; do
		prom_scrapes "$p" ||
			{ fail "Prometheus on $p does not scrape the tool: $(tail -2 "$TMP/dash-text.log")"
			  stop_tool; kill "${pids[@]}"; return; }
	done
	tcp_traffic 5306 300
	serve udp 5307 --count 300 --duration-s 10 || return
	client udp 5307 --count 300 --interval-us 2000
	wait_server
	# a reader behind for 0.3 s: a standing queue, for its panel; it
	# ends once it has read what its buffer held (end_udp_server), at
	# its 1.5 s at the latest
	serve udp 5309 --read-delay-ms 2 --rcvbuf 16384 --duration-s 1.5 || return
	client udp 5309 --count 300 --interval-us 1000
	end_udp_server 5309 "$TMP/dash.json"
	# and a TCP reader that falls behind (test_standing_tcp_slow_reader's,
	# shorter): the panel shows each standing hook that attaches
	serve tcp 5310 --read-delay-ms 5 --read-size 1000 || return
	client tcp 5310 --interval-us 1000 --count 150 --msg-size 1000
	wait_server
	# over the wire, through the node into the pod: the hand-over
	ip netns exec "$NS_P" "$TG" server --proto udp --bind "$PADDR_P" --port 5308 \
		--duration-s 4 > /dev/null &
	BG_PIDS+=($!)
	sleep 0.3
	ip netns exec "$NS_A" "$TG" client --proto udp --connect "$PADDR_P" --port 5308 \
		--count 200 --interval-us 2000 > /dev/null || fail "client to the pod failed"
	# A rate needs two scrapes of a series after the traffic: the
	# hand-over's series is born with the pod's datagrams, and a loaded
	# machine delays a server's scrapes (seen in CI: the protobuf
	# server's hand-over panel empty 3 s after). So each server is asked
	# until every query has series, for up to 8 s: within the 10 s rate
	# window of the traffic before, still well inside it for the earlier
	# hooks, whose series stay (a rate of 0 is still a series).
	for p in "$PROM_PORT" "$port2"; do
		wait_for 8 ip netns exec "$NS_B" "$PYTHON" "$ROOT/tests/integration/dashcheck.py" \
			"http://127.0.0.1:$p" "$ROOT/docs/grafana-dashboard.json" tcp-socket-read \
			-o "$TMP/dash.$p" --hooks "$hooks" --probe "$TMP/dash.probe" ||
			fail "dashboard on the $([ "$p" = "$PROM_PORT" ] && echo text || echo protobuf) scrape: $(grep -B1 '^  \(empty\|wrong\)\|: error' "$TMP/dash.$p" | head -6 | tr '\n' ' ')"
	done
	stop_tool
	kill "${pids[@]}" 2> /dev/null
	wait "${pids[@]}" 2> /dev/null
	echo "  queries with series: text (classic) $(grep -c '^[vp].*: [1-9]' "$TMP/dash.$PROM_PORT"), protobuf (native) $(grep -c '^[vp].*: [1-9]' "$TMP/dash.$port2"), of $(grep -c '^[vp]' "$TMP/dash.$PROM_PORT")"
	grep -h ', excluded: \|^hook_info' "$TMP/dash.$PROM_PORT" | sed 's/^/  /'
}

# Issue #58 item 3: docs/prometheus.md's Kubernetes scrape jobs, (a) pod
# discovery with honor_labels: true, (b) without, (c) a PodMonitor, against
# a real Prometheus: bookworm's 2.42 here, sid's 3.5 in
# test_prom_k8s_scrapes_sid. No Kubernetes here: each job scrapes a static
# target carrying the labels pod discovery gives the DaemonSet's pod
# before relabelling (tests/integration/k8s_scrapes.py). The tool groups
# by cgroup (-C), three readers in cgroups of this test: a pod's container
# (containerd's layout, its bundle under a state root of the test's:
# NSL_TEST_STATE_ROOT), a docker container named cache, and a cgroup of
# the host's. Each series must end with its own names (the host's with
# none) under (a) and (c), and with the tool's pod's labels and its names
# as exported_* under (b); before, the host's and the docker container's
# series took the tool's pod's labels under honor_labels as well.
test_prom_k8s_scrapes() {
	command -v prometheus > /dev/null || { skip "prometheus server missing"; return; }
	k8s_scrapes_check "$(command -v prometheus)"
}

test_prom_k8s_scrapes_sid() {
	local bin rc
	bin=$("$ROOT/scripts/prometheus-sid" 2> "$TMP/sid.err"); rc=$?
	[ $rc = 3 ] && { fail "$(cat "$TMP/sid.err")"; return; }
	[ $rc = 0 ] || { skip "no Prometheus of sid: $(tail -1 "$TMP/sid.err")"; return; }
	echo "  $("$bin" --version 2>&1 | head -1)"
	k8s_scrapes_check "$bin"
}

# k8s_cgroup REL: the cgroup CG_ROOT/nsl$ID/REL with its parents (removed
# at exit, deepest first); its path relative to CG_ROOT in K8S_CG
k8s_cgroup() {
	local rel= d
	for d in "nsl$ID" ${1//\// }; do
		rel+=${rel:+/}$d
		[ -d "$CG_ROOT/$rel" ] && continue
		mkdir "$CG_ROOT/$rel" || return 1
		AT_EXIT=("rmdir $CG_ROOT/$rel" "${AT_EXIT[@]}")
	done
	K8S_CG=/$rel
}

# k8s_reader PORT CGROUP: 20 TCP messages read by a reader in CGROUP
k8s_reader() {
	serve tcp "$1" || return 1
	echo "$SERVER_PID" > "$CG_ROOT$2/cgroup.procs" || { fail "cannot move the reader into $2"; return 1; }
	client tcp "$1" --count 20 --interval-us 1000
	wait_server
}

# k8s_scrapes_check PROMETHEUS: the jobs of docs/prometheus.md scraped
# by that Prometheus binary, one server taking the text format and one
# the protobuf (native histograms, --resolution 8)
k8s_scrapes_check() {
	local port2=$((PROM_PORT + 1)) pids=() p cid did state=$TMP/k8s-state pod_cg docker_cg host_cg
	local uid_=1e2d3c4b_5a69_4788_9a0b_c1d2e3f40516
	have_cgroup2 || { skip "no writable cgroup v2 at $CG_ROOT"; return; }
	cid=$(printf '%064x' $((ID * 7919 + 1))) did=$(printf '%064x' $((ID * 7919 + 2)))
	k8s_cgroup "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$uid_.slice/cri-containerd-$cid.scope" ||
		{ fail "cannot make the pod's cgroups"; return; }
	pod_cg=$K8S_CG
	k8s_cgroup "system.slice/docker-$did.scope" || { fail "cannot make the docker container's cgroup"; return; }
	docker_cg=$K8S_CG
	k8s_cgroup "host.slice" || { fail "cannot make the host's cgroup"; return; }
	host_cg=$K8S_CG
	mkdir -p "$state/run/containerd/io.containerd.runtime.v2.task/k8s.io/$cid" \
		"$state/var/lib/docker/containers/$did"
	printf '%s' '{"ociVersion":"1.0.2","annotations":{"io.kubernetes.cri.container-type":"container",
		"io.kubernetes.cri.container-name":"nginx","io.kubernetes.cri.sandbox-name":"web-0",
		"io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"'"${uid_//_/-}"'"}}' \
		> "$state/run/containerd/io.containerd.runtime.v2.task/k8s.io/$cid/config.json"
	printf '%s' '{"ID":"'"$did"'","Name":"/cache"}' > "$state/var/lib/docker/containers/$did/config.v2.json"
	chmod 0600 "$state/var/lib/docker/containers/$did/config.v2.json"
	"$PYTHON" "$ROOT/tests/integration/k8s_scrapes.py" config "$ROOT/docs/prometheus.md" \
		"$ROOT/deploy/netstacklat.yaml" "$PORT" > "$TMP/k8s.yml" 2> "$TMP/k8s.err" ||
		{ fail "the docs' scrape jobs: $(tail -2 "$TMP/k8s.err")"; return; }
	NSL_TEST_STATE_ROOT=$state start_tool "$TMP/k8s.json" -C -n "/run/netns/$NS_B" -e tcp-socket-read \
		--resolution 8 --listen "127.0.0.1:$PORT" || return
	rm -rf "$TMP/k8s-text.tsdb" "$TMP/k8s-pb.tsdb"
	for p in text pb; do
		# shellcheck disable=SC2046 # the protobuf server's flag, or none
		"$1" --config.file="$TMP/k8s.yml" --storage.tsdb.path="$TMP/k8s-$p.tsdb" \
			$([ $p = pb ] && echo --enable-feature=native-histograms) \
			--web.listen-address="127.0.0.1:$([ $p = pb ] && echo "$port2" || echo "$PROM_PORT")" \
			> "$TMP/k8s-$p.log" 2>&1 &
		pids+=($!)
		BG_PIDS+=($!)
	done
	k8s_reader 5311 "$pod_cg" && k8s_reader 5312 "$docker_cg" && k8s_reader 5313 "$host_cg"
	# until every series is stored (exit 2: some not yet), then judged
	for p in "$PROM_PORT" "$port2"; do
		wait_for 20 eval '"$PYTHON" "$ROOT/tests/integration/k8s_scrapes.py" check "http://127.0.0.1:$p" \
			"$pod_cg" "$docker_cg" "$host_cg" > "$TMP/k8s.$p" 2>&1; [ $? != 2 ]'
		"$PYTHON" "$ROOT/tests/integration/k8s_scrapes.py" check "http://127.0.0.1:$p" \
			"$pod_cg" "$docker_cg" "$host_cg" > "$TMP/k8s.$p" 2>&1 ||
			fail "the $([ "$p" = "$PROM_PORT" ] && echo text || echo protobuf) scrape: $(grep -v ': {' "$TMP/k8s.$p" | head -4 | tr '\n' ' ')"
	done
	stop_tool
	kill "${pids[@]}" 2> /dev/null
	wait "${pids[@]}" 2> /dev/null
	sed 's/^/  /' "$TMP/k8s.$PROM_PORT"
}

# The example alert rules the package ships (docs/netstacklat-rules.yml):
# valid for promtool, and each firing as its unit tests say on series as
# the tool exposes them (tests/prom/rules-test.yml).
test_prom_rules() {
	promtool check rules "$ROOT/docs/netstacklat-rules.yml" > "$TMP/rules.out" 2>&1 ||
		fail "promtool check rules: $(tail -3 "$TMP/rules.out")"
	(cd "$ROOT/tests/prom" && promtool test rules rules-test.yml) > "$TMP/rules-test.out" 2>&1 ||
		fail "promtool test rules: $(grep -v '^ *$' "$TMP/rules-test.out" | head -8 | tr '\n' ' ')"
}

need "" prereqs
need "" prom_prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
