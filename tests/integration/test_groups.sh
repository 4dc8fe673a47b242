#!/usr/bin/env bash
# Groups (-I/-C) over a host's lifetime (issue #23): ids are never lost in
# the allocation race, gone groups are reclaimed, churn does not fill the
# map, and the tool's own memory and descriptors stay put.
source "$(dirname "$0")/lib.sh"

RACE=$ROOT/.output/tests/groupid_race
RACE_OBJ=$ROOT/.output/tests/groupid_race.bpf.o
TESTS=(test_group_id_race)

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

need "" prereqs
run_tests
