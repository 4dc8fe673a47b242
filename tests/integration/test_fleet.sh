#!/usr/bin/env bash
# The tool as a fleet sees it (issue #12): three hosts (network namespaces
# with traffic of their own, each traced by its own instance with
# --listen --resolution 8) scraped by one real Prometheus (Debian's 2.42,
# --enable-feature=native-histograms), which stores one native histogram
# series per hook and group and merges them across hosts. And what that
# buys: the series of -C with many cgroups, classic against native, from
# Prometheus' own TSDB status (docs/prometheus.md).
source "$(dirname "$0")/lib.sh"

TESTS=(test_fleet_native_quantile test_fleet_series)
PORT0=$((21000 + ID % 9000))	# the tools' /metrics: PORT0 .. PORT0+2
PROM_PORT=$((PORT0 + 3))
NS_D=nsl$ID-d
HOSTS=("$NS_B" "$NS_C" "$NS_D")
CGS=20				# cgroups of test_fleet_series

fleet_prereqs() {
	SKIP_WHY=
	command -v prometheus > /dev/null || SKIP_WHY="prometheus server missing (Debian package prometheus)"
	command -v curl > /dev/null || SKIP_WHY="curl missing"
	[ -z "$SKIP_WHY" ]
}

# host k (0..2) is HOSTS[k] at 198.18.(10+k).2, joined to A by its own veth
host_addr() { echo "198.18.$((10 + $1)).2"; }

setup_fleet() {
	local k ns
	ip netns add "$NS_D" || return 1
	AT_EXIT+=("ip netns del $NS_D")
	ip -n "$NS_D" link set lo up
	for k in 0 1 2; do
		ns=${HOSTS[$k]}
		ip link add "nsl$ID-f$k" netns "$NS_A" type veth peer name "nsl$ID-g$k" netns "$ns" || return 1
		ip -n "$NS_A" addr add "198.18.$((10 + k)).1/24" dev "nsl$ID-f$k"
		ip -n "$ns" addr add "$(host_addr $k)/24" dev "nsl$ID-g$k"
		ip -n "$NS_A" link set "nsl$ID-f$k" up && ip -n "$ns" link set "nsl$ID-g$k" up || return 1
	done
}

# prometheus_start CONFIG_TARGETS...: a server scraping the targets every
# second, asking for native histograms; PROM_PID
prometheus_start() {
	local t targets=
	for t in "$@"; do targets+="'$t',"; done
	cat > "$TMP/fleet.yml" <<-YML
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: netstacklat
	    static_configs:
	      - targets: [${targets%,}]
	YML
	rm -rf "$TMP/fleet-tsdb"
	prometheus --config.file="$TMP/fleet.yml" --storage.tsdb.path="$TMP/fleet-tsdb" \
		--enable-feature=native-histograms \
		--web.listen-address="127.0.0.1:$PROM_PORT" > "$TMP/fleet-prometheus.log" 2>&1 &
	PROM_PID=$!
	BG_PIDS+=("$PROM_PID")
}

# prom_api PATH [QUERY]: a Prometheus HTTP API answer's data, as JSON
prom_api() {
	if [ $# -gt 1 ]; then
		curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT$1" --data-urlencode "query=$2"
	else
		curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT$1"
	fi
}

# prom_scalar QUERY: the single value of an instant query, or nothing
prom_scalar() {
	prom_api /api/v1/query "$1" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(r[0]["value"][1] if len(r) == 1 else "")
except Exception:
    print("")'
}

# fleet_tool K ARGS...: instance K on its host, JSON to fleet-K.json
fleet_tool() {
	local k=$1; shift
	start_tool "$TMP/fleet-$k.json" -n "/run/netns/${HOSTS[$k]}" \
		--listen "127.0.0.1:$((PORT0 + k))" --cumulative "$@" || return 1
	FLEET_PIDS+=("$TOOL_PID")
}

fleet_stop() {
	local p
	for p in "${FLEET_PIDS[@]}"; do TOOL_PID=$p stop_tool; done
	FLEET_PIDS=()
	kill "$PROM_PID" 2>/dev/null
	wait "$PROM_PID" 2>/dev/null
}

# fleet_traffic PORT: on each host k a TCP server that lets data wait
# 2^k ms before each read, and 300 messages to it from A, 3 ms apart, all
# three at once; servers' reports in fleet-srv-K.json
fleet_traffic() {
	local k pids=() srv=()
	for k in 0 1 2; do
		rm -f "$TMP/ready-$k"
		ip netns exec "${HOSTS[$k]}" "$TG" server --proto tcp --bind "$(host_addr $k)" \
			--port "$1" --read-delay-ms $((1 << k)) --ready-file "$TMP/ready-$k" \
			--report "$TMP/fleet-srv-$k.json" > /dev/null &
		srv+=($!)
		BG_PIDS+=($!)
	done
	for k in 0 1 2; do
		wait_for 10 test -s "$TMP/ready-$k" || { fail "server $k did not start"; return 1; }
	done
	for k in 0 1 2; do
		ip netns exec "$NS_A" "$TG" client --proto tcp --connect "$(host_addr $k)" --port "$1" \
			--count 300 --interval-us 3000 > /dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" "${srv[@]}" || { fail "traffic failed"; return 1; }
}

# Each host's server lets data wait its own time before each read (1, 2,
# 4 ms), so the three distributions differ. Prometheus merges the three
# native histograms: histogram_quantile(0.99, sum(...)) must fall in the
# very bucket that holds the p99 of the tool's own histograms added up
# (the JSON of the three instances, counts per native index), both of the
# cumulative histograms and of their rate over the run.
test_fleet_native_quantile() {
	local k reads=0 q p_inst p_rate
	FLEET_PIDS=()
	for k in 0 1 2; do
		fleet_tool $k -e tcp-socket-read --resolution 8 || return
	done
	prometheus_start 127.0.0.1:$PORT0 127.0.0.1:$((PORT0 + 1)) 127.0.0.1:$((PORT0 + 2))
	wait_for 30 eval '[ -n "$(prom_scalar "count(up == 1) == 3")" ]' ||
		{ fail "Prometheus did not scrape the three instances: $(tail -2 "$TMP/fleet-prometheus.log")"; fleet_stop; return; }
	fleet_traffic 5400 || { fleet_stop; return; }
	for k in 0 1 2; do reads=$((reads + $(json_field "$TMP/fleet-srv-$k.json" reads))); done
	q='sum(histogram_count(netstacklat_latency_seconds{hook="tcp-socket-read"}))'
	wait_for 30 eval '[ "$(prom_scalar "$q")" = "$reads" ]' ||
		fail "Prometheus' merged count: '$(prom_scalar "$q")', the servers' reads: $reads"
	p_inst=$(prom_scalar 'histogram_quantile(0.99, sum(netstacklat_latency_seconds{hook="tcp-socket-read"}))')
	p_rate=$(prom_scalar 'histogram_quantile(0.99, sum(rate(netstacklat_latency_seconds{hook="tcp-socket-read"}[1m])))')
	fleet_stop
	echo "  merged p99: Prometheus $p_inst s (of the rates: $p_rate s), reads $reads"
	python3 - "$p_inst" "$p_rate" "$TMP"/fleet-{0,1,2}.json > "$TMP/fleet.out" 2>&1 <<-'PY' ||
	import json, sys
	# the tool's percentile: the bound of the bucket holding rank ceil(p*n)
	merged = {}
	for path in sys.argv[3:]:
	    last = json.loads(open(path).read().splitlines()[-1])
	    assert last["schema"] == 3, last
	    for h in last["histograms"]:
	        for b in h["buckets"]:
	            merged[b["index"]] = merged.get(b["index"], 0) + b["count"]
	n = sum(merged.values())
	rank, seen = -(-99 * n // 100), 0
	for i in sorted(merged):
	    seen += merged[i]
	    if seen >= rank:
	        break
	lo, hi = 2 ** ((i - 1) / 8), 2 ** (i / 8)
	print(f"  the tool's merged p99: bucket {i}, ({lo:.9g} s, {hi:.9g} s], of {n} samples")
	for what, v in (("instant", sys.argv[1]), ("rate", sys.argv[2])):
	    v = float(v)
	    if not lo * (1 - 1e-9) < v <= hi * (1 + 1e-9):
	        sys.exit(f"Prometheus' p99 ({what}) {v} s is not in bucket {i} ({lo}, {hi}]")
	PY
		fail "$(cat "$TMP/fleet.out")"
	sed 's/^/  /' "$TMP/fleet.out" | grep -v '^  $' | head -2
}

# series_phase RES: CGS reader processes, each in a cgroup of its own on
# host 0, traced with -C at --resolution RES and scraped by a fresh
# Prometheus; prints the series of each netstacklat_latency_seconds* name
# from /api/v1/status/tsdb once every read is in Prometheus.
series_phase() {
	local res=$1 j pids=() srv=() reads=0 q
	FLEET_PIDS=()
	fleet_tool 0 -e tcp-socket-read -C --resolution "$res" || return 1
	prometheus_start 127.0.0.1:$PORT0
	for ((j = 0; j < CGS; j++)); do
		rm -f "$TMP/ready-c$j"
		ip netns exec "${HOSTS[0]}" "$TG" server --proto tcp --bind "$(host_addr 0)" \
			--port $((5500 + j)) --ready-file "$TMP/ready-c$j" \
			--report "$TMP/fleet-c$j.json" > /dev/null &
		srv+=($!)
		BG_PIDS+=($!)
	done
	for ((j = 0; j < CGS; j++)); do
		wait_for 10 test -s "$TMP/ready-c$j" || { fail "server $j did not start"; return 1; }
		echo "$(cat "$TMP/ready-c$j")" > "$CG_DIR/$j/cgroup.procs" ||
			{ fail "cannot move server $j into its cgroup"; return 1; }
		ip netns exec "$NS_A" "$TG" client --proto tcp --connect "$(host_addr 0)" \
			--port $((5500 + j)) --count 20 --interval-us 2000 > /dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" "${srv[@]}" || { fail "traffic failed"; return 1; }
	for ((j = 0; j < CGS; j++)); do reads=$((reads + $(json_field "$TMP/fleet-c$j.json" reads))); done
	if [ "$res" = 1 ]; then
		q='sum(netstacklat_latency_seconds_count{hook="tcp-socket-read"})'
	else
		q='sum(histogram_count(netstacklat_latency_seconds{hook="tcp-socket-read"}))'
	fi
	wait_for 30 eval '[ "$(prom_scalar "$q")" = "$reads" ]' ||
		{ fail "resolution $res: Prometheus counts '$(prom_scalar "$q")' of $reads reads"; return 1; }
	prom_api /api/v1/status/tsdb > "$TMP/tsdb-$res.json"
	fleet_stop
}

# -C with 20 cgroups: at resolution 1 Prometheus keeps a series per
# classic bucket (34 bounds and +Inf), plus _count and _sum, per cgroup; at
# resolution 8 one native histogram series per cgroup.
test_fleet_series() {
	local j classic native
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ] ||
		{ skip "no writable cgroup v2 at $CG_ROOT"; return; }
	CG_DIR=$CG_ROOT/nsl$ID-fleet
	mkdir "$CG_DIR" || { fail "cannot create $CG_DIR"; return; }
	for ((j = 0; j < CGS; j++)); do
		mkdir "$CG_DIR/$j" && CGROUPS+=("$CG_DIR/$j") || { fail "cgroup $j"; return; }
	done
	CGROUPS+=("$CG_DIR")
	series_phase 1 || return
	series_phase 8 || return
	python3 - "$TMP/tsdb-1.json" "$TMP/tsdb-8.json" "$CGS" > "$TMP/series.out" 2>&1 <<-'PY' ||
	import json, sys
	def series(path):
	    d = json.load(open(path))["data"]
	    return {e["name"]: e["value"] for e in d["seriesCountByMetricName"]
	            if e["name"].startswith("netstacklat_latency_seconds")}, d["headStats"]["numSeries"]
	n = int(sys.argv[3])
	classic, total1 = series(sys.argv[1])
	native, total8 = series(sys.argv[2])
	print(f"  -C, {n} cgroups: resolution 1 (classic): {sum(classic.values())} latency series "
	      f"{classic} of {total1}; resolution 8 (native): {sum(native.values())} {native} of {total8}")
	assert classic.get("netstacklat_latency_seconds_bucket") == 35 * n, classic
	assert classic.get("netstacklat_latency_seconds_count") == n, classic
	assert native == {"netstacklat_latency_seconds": n}, native
	PY
		fail "$(cat "$TMP/series.out")"
	head -1 "$TMP/series.out"
}

need "" prereqs
need "" fleet_prereqs
need "cannot create namespaces/veth" setup_netns
need "cannot create the fleet's namespaces" setup_fleet
run_tests
