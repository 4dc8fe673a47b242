#!/usr/bin/env bash
# Groups (-I/-C) over a host's lifetime (issue #23): ids are never lost in
# the allocation race, gone groups are reclaimed, churn does not fill the
# map, and the tool's own memory and descriptors stay put.
source "$(dirname "$0")/lib.sh"

RACE=$ROOT/.output/tests/groupid_race
RACE_OBJ=$ROOT/.output/tests/groupid_race.bpf.o
TESTS=(test_group_id_race test_cgroup_churn)
MS=1000000		# ns in a millisecond

# Two CPUs add the same new keys at once, 2000 rounds, with the code of
# bpf/group_id.bpf.h: no id may be lost, no new key may find the map full.
# The control (the counter scheme it replaced) must lose ids, or the race
# was not hit and the test proves nothing.
test_group_id_race() {
	local out new_lost full old_lost
	[ "$(nproc)" -ge 2 ] || { skip "needs two CPUs"; return; }
	[ -x "$RACE" ] && [ -r "$RACE_OBJ" ] || { skip "groupid_race not built"; return; }
	out=$("$RACE" "$RACE_OBJ" 2000) || { fail "groupid_race failed: $out"; return; }
	new_lost=$(sed -n 's/^new lost=\([0-9]*\).*/\1/p' <<< "$out")
	full=$(sed -n 's/^new .*full=\([0-9]*\).*/\1/p' <<< "$out")
	old_lost=$(sed -n 's/^old lost=\([0-9]*\).*/\1/p' <<< "$out")
	expect "ids lost" "$new_lost" -eq 0
	expect "new keys that found no free id" "$full" -eq 0
	expect "ids the old scheme lost (the race was hit)" "$old_lost" -gt 0
	echo "  $(tr '\n' ';' <<< "$out")"
}

# tool_mem PID: "RSS_KB FDS" of a process
tool_mem() {
	echo "$(awk '/^VmRSS:/ { print $2 }' /proc/"$1"/status) $(ls /proc/"$1"/fd | wc -l)"
}

# cg_reader N PORT: a TCP server in NS_B in a cgroup of its own (made and
# removed here, in NS_B before its first read), a client in NS_A sending
# it CHURN_MSGS messages CHURN_GAP_US apart; the server's reads go to
# $TMP/cg-N.json. The cgroup is removed once the server has exited.
cg_reader() {
	local n=$1 port=$2 cg=$CG_ROOT/nsl$ID-churn-$1 ready=$TMP/cg-$1.ready
	mkdir "$cg" || return 1
	stat -c %i "$cg" > "$TMP/cg-$n.id"	# its cgroup id
	# the shell joins the cgroup, then becomes the server: every read is in it
	sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" "$3" server --proto tcp \
		--bind "$4" --port "$5" --ready-file "$6" --report "$7"' sh "$cg" "$NS_B" "$TG" \
		"$ADDR_B" "$port" "$ready" "$TMP/cg-$n.json" > /dev/null &
	local srv=$!
	wait_for 10 test -s "$ready" || { kill "$srv"; rmdir "$cg"; return 1; }
	ip netns exec "$NS_A" "$TG" client --proto tcp --connect "$ADDR_B" --port "$port" \
		--count "$CHURN_MSGS" --msg-size 200 --interval-us "$CHURN_GAP_US" > /dev/null
	wait "$srv"
	rmdir "$cg"
}

# sum_reads: the reads of every churn reader's report
sum_reads() {
	python3 -c '
import json, sys
print(sum(json.load(open(f))["reads"] for f in sys.argv[1:]))' "$TMP"/cg-*.json
}

# jq_last FILE EXPR: a Python expression over the last report (r)
jq_last() {
	python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
print(eval(sys.argv[2]))' "$1" "$2"
}

# 200 short-lived cgroups, 5 alive at once, each with a TCP reader of
# CHURN_MSGS messages, under -C --max-groups 32: every read is counted
# under its cgroup (the readers all start and end while the tool runs, so
# none is in flight at start or stop), map_full stays 0, the last report
# lists no gone group as live, and the tool's memory and descriptors after
# the churn are those after its first cgroups.
CHURN_CGROUPS=${CHURN_CGROUPS:-200}
CHURN_AT_ONCE=5
CHURN_MSGS=8
CHURN_GAP_US=50000
test_cgroup_churn() {
	local out=$TMP/churn.json i j port=6000 before after samples reads
	[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT/cgroup.procs" ] || { skip "no writable cgroup v2"; return; }
	start_tool "$out" -n "/run/netns/$NS_B" -e tcp-socket-read -y -C --max-groups 32 -r 0.5 || return
	for ((i = 0; i < CHURN_CGROUPS; i += CHURN_AT_ONCE)); do
		for ((j = i; j < i + CHURN_AT_ONCE && j < CHURN_CGROUPS; j++)); do
			cg_reader "$j" $((port + j)) &
		done
		wait $(jobs -p | grep -vx "$TOOL_PID") 2>/dev/null
		# after the first ones: the tool's working set is there
		[ "$i" -eq $((CHURN_AT_ONCE * 4)) ] && before=$(tool_mem "$TOOL_PID")
	done
	# three intervals: the last groups are found gone and reclaimed
	sleep 2
	after=$(tool_mem "$TOOL_PID")
	stop_tool
	reads=$(sum_reads)
	samples=$($JQ "$out" count tcp-socket-read)
	expect "readers that ran" "$(ls "$TMP"/cg-*.json | wc -l)" -eq "$CHURN_CGROUPS"
	# by id: a cgroup gone before the tool saw its group has no path
	expect "samples under the churn cgroups = their reads" \
		"$(cat "$TMP"/cg-*.id | python3 -c '
import json, sys
ids = set(int(l) for l in sys.stdin)
print(sum(h["count"] for l in open(sys.argv[1]) for h in json.loads(l)["histograms"]
          if h["cgroup"] in ids))' "$out")" -eq "$reads"
	expect "all samples = the readers' reads" "$samples" -eq "$reads"
	expect "map_full" "$($JQ "$out" counter tcp-socket-read map_full)" -eq 0
	expect "groups reclaimed" "$(python3 -c '
import json, sys
print(sum(json.loads(l)["groups"]["reclaimed"] for l in open(sys.argv[1])))' "$out")" -ge "$CHURN_CGROUPS"
	expect "groups reported gone" "$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) for h in json.loads(l)["histograms"] if h.get("gone")))' "$out")" \
		-ge "$CHURN_CGROUPS"
	expect "live groups in the last report" "$(jq_last "$out" 'r["groups"]["live"]')" -eq 0
	expect "groups listed in the last report" "$(jq_last "$out" 'len(r["histograms"])')" -eq 0
	expect "file descriptors after the churn (before: ${before#* })" "${after#* }" -eq "${before#* }"
	expect "resident memory after the churn, KiB (before: ${before% *})" \
		"${after% *}" -le $(( ${before% *} + 512 ))
	echo "  $CHURN_CGROUPS cgroups: reads $reads, samples $samples; RSS/fds after the first" \
	     "$((CHURN_AT_ONCE * 5)): $before, at the end: $after"
}

need "" prereqs
need "cannot create namespaces/veth" setup_netns
run_tests
