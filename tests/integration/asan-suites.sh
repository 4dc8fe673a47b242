# shellcheck shell=bash
# What test_sanitizers.sh reruns with the tool built with ASan+UBSan, read
# by it and by scripts/asan-select, which chooses among these suites' tests
# by what they reach (issue #46 item 7).
#
# ASAN_SUITES: the suites. ASAN_ENV: a suite's variables under ASan, the
# same in the coverage run that chooses. A suite runs the same userspace
# paths with fewer rounds where its rounds only repeat them (test_groups'
# churn was most of its 6 minutes; the counts that judge the algorithms
# run in the suite itself, unsanitized): the churn, the dead namespaces,
# the Prometheus churn (24 ids), the gone groups (3) and the tenants each
# still outnumber the ids (--max-groups) and the quota (8).
# ASAN_LEAVE_OUT: per suite, the tests not rerun (tests/integration/
# asan-leave-out, which scripts/asan-select writes: each reaches no line
# and no branch of src/ that the tests kept do not).

# shellcheck disable=SC2034	# used by the scripts that source this
ASAN_SUITES=(test_core test_errors test_netfilter test_prometheus test_groups)
# shellcheck disable=SC2034
declare -A ASAN_ENV=([test_groups]="CHURN_CGROUPS=40 CHURN_IFACES=20 CHURN_NETNS=40
	DEAD_NETNS=60 PROM_CHURN=30 GONE_CAPPED=6 TENANT_NETNS=40 TENANT_CGROUPS=30")
declare -A ASAN_LEAVE_OUT=()

# asan_read_leave_out FILE: ASAN_LEAVE_OUT from FILE's "suite<TAB>test" lines
asan_read_leave_out() {
	local suite test
	while IFS=$'\t' read -r suite test; do
		[[ -z "$suite" || "$suite" == "#"* ]] && continue
		ASAN_LEAVE_OUT[$suite]="${ASAN_LEAVE_OUT[$suite]:-} $test"
	done < "$1"
}
