# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Testbed library (bash, sourced): two network namespaces joined by veth,
# with the project's own TCP segment dropper (bpf/testbed/dropper.bpf.c) on
# the receiver's tc ingress, because these kernels have no netem.
# scripts/testbed is the command-line entry point; integration tests and
# scripts/loss-sweep source this file. Needs ip, tc and bpftool only (no
# python): it must also run inside a minimal VM.
#
# Everything lives inside the namespaces: deleting them (tb_destroy) removes
# the veth pair, the clsact qdisc, the program and its maps. Nothing is
# pinned. This file sets no traps: the caller owns cleanup.
#
#   tb_create NAME          namespaces NAME-tx, NAME-rx, veth NAME-t/NAME-r
#   tb_destroy              delete what tb_create made
#   tb_attach NS IFACE      dropper on IFACE's ingress (an existing netns)
#   tb_find NS IFACE        find the maps of a dropper attached earlier
#   tb_one_seg NS IFACE     one TCP segment per skb leaving IFACE (no GSO)
#   tb_wire DELAY_US [STATS] a delayed TUN wire between the namespaces, the
#                           dropper moved onto its receiving end
#   tb_rule_off | tb_rule_loss PCT [SEED] | tb_rule_nth N [K [PERIOD]]
#   tb_port PORT            only segments from/to PORT (0: all)
#   tb_stats                data_segs=.. dropped=.. dropped_retrans=.. gso_skbs=..
#   tb_stat NAME            one of those numbers

TB_ROOT=${TB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
TB_OBJ=${TB_OBJ:-$TB_ROOT/.output/testbed/dropper.bpf.o}
TB_CREATED=()

# Map keys: mirror bpf/testbed/testbed.h.
TB_MODE_OFF=0 TB_MODE_LOSS=1 TB_MODE_NTH=2
TB_CFG_MODE=0 TB_CFG_LOSS_PPM=1 TB_CFG_SEED=2 TB_CFG_NTH=3 TB_CFG_RETRANS=4
TB_CFG_PERIOD=5 TB_CFG_PORT=6 TB_CFG_L2_NONE=7
TB_STAT_NAMES=(data_segs dropped dropped_retrans gso_skbs target_seq retrans_left
	       new_segs high_seq)

tb_err() {
	echo "testbed: $*" >&2
	return 1
}

tb_need() {
	local c
	for c in ip tc bpftool awk; do
		command -v "$c" >/dev/null || { tb_err "$c not found"; return 1; }
	done
	[ -r "$TB_OBJ" ] || tb_err "$TB_OBJ missing (make testbed)"
}

# Build the dropper if it is missing and a source tree is here.
tb_build() {
	[ -r "$TB_OBJ" ] && return 0
	[ -f "$TB_ROOT/Makefile" ] || { tb_err "$TB_OBJ missing"; return 1; }
	make -C "$TB_ROOT" --no-print-directory testbed >&2
}

tb_create() {
	local name=$1
	[ ${#name} -le 13 ] || { tb_err "name '$name' too long (13 at most)"; return 1; }
	TB_NS_TX=$name-tx TB_NS_RX=$name-rx
	TB_IF_TX=$name-t TB_IF_RX=$name-r
	TB_ADDR_TX=198.18.1.1 TB_ADDR_RX=198.18.1.2
	TB_ADDR6_TX=fd00:198:18:1::1 TB_ADDR6_RX=fd00:198:18:1::2
	ip netns add "$TB_NS_TX" || return 1
	TB_CREATED+=("$TB_NS_TX")
	ip netns add "$TB_NS_RX" || return 1
	TB_CREATED+=("$TB_NS_RX")
	ip link add "$TB_IF_TX" netns "$TB_NS_TX" type veth \
		peer name "$TB_IF_RX" netns "$TB_NS_RX" || return 1
	ip -n "$TB_NS_TX" addr add $TB_ADDR_TX/24 dev "$TB_IF_TX" &&
	ip -n "$TB_NS_RX" addr add $TB_ADDR_RX/24 dev "$TB_IF_RX" &&
	ip -n "$TB_NS_TX" addr add $TB_ADDR6_TX/64 dev "$TB_IF_TX" nodad &&
	ip -n "$TB_NS_RX" addr add $TB_ADDR6_RX/64 dev "$TB_IF_RX" nodad &&
	ip -n "$TB_NS_TX" link set lo up && ip -n "$TB_NS_RX" link set lo up &&
	tb_one_seg "$TB_NS_TX" "$TB_IF_TX" && tb_one_seg "$TB_NS_RX" "$TB_IF_RX" &&
	ip -n "$TB_NS_TX" link set "$TB_IF_TX" up &&
	ip -n "$TB_NS_RX" link set "$TB_IF_RX" up &&
	tb_attach "$TB_NS_RX" "$TB_IF_RX"
}

# tb_wire DELAY_US [STATS_FILE]: after tb_create, a second path between
# the two namespaces: a TUN wire (tests/tunwire.c, TB_WIRE) that holds each
# packet DELAY_US in each direction (a round trip of 2 x DELAY_US, as a
# long link), addresses TB_WADDR_TX/TB_WADDR_RX. Packets from a TUN device
# carry RX timestamps, as from a NIC. The dropper goes onto the wire's
# receiving end (tb_rule_* then act there). The devices are tbw-tx and
# tbw-rx (names are per namespace). TB_WIRE_PID is the wire's; it writes
# STATS_FILE (how late packets left) when tb_destroy stops it.
tb_wire() {
	local delay=$1 stats=${2:-} ready i
	TB_WIRE=${TB_WIRE:-$TB_ROOT/.output/tests/tunwire}
	TB_WADDR_TX=198.18.2.1 TB_WADDR_RX=198.18.2.2
	[ -x "$TB_WIRE" ] || { tb_err "$TB_WIRE missing"; return 1; }
	ready=$(mktemp) && rm -f "$ready" || return 1
	"$TB_WIRE" --delay-us "$delay" ${stats:+--stats "$stats"} \
		"/run/netns/$TB_NS_TX" tbw-tx "/run/netns/$TB_NS_RX" tbw-rx \
		"$ready" &
	TB_WIRE_PID=$!
	for i in $(seq 100); do [ -s "$ready" ] && break; sleep 0.1; done
	[ -s "$ready" ] || { tb_err "the TUN wire did not start"; return 1; }
	rm -f "$ready"
	ip -n "$TB_NS_TX" addr add $TB_WADDR_TX/24 dev tbw-tx &&
	ip -n "$TB_NS_RX" addr add $TB_WADDR_RX/24 dev tbw-rx &&
	ip -n "$TB_NS_TX" link set tbw-tx up &&
	ip -n "$TB_NS_RX" link set tbw-rx up &&
	tb_attach "$TB_NS_RX" tbw-rx
}

# Processes still inside a namespace would keep it (and its veth) alive
# after 'ip netns del': end them first, each by its PID.
tb_destroy() {
	local ns pid
	if [ -n "${TB_WIRE_PID:-}" ]; then
		kill -TERM "$TB_WIRE_PID" 2>/dev/null && wait "$TB_WIRE_PID" 2>/dev/null
		TB_WIRE_PID=
	fi
	for ns in "${TB_CREATED[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	TB_CREATED=()
}

# TCP sizes its skbs by the route device's gso_max_segs: with 1 every skb
# is one segment, so the dropper drops segments, not 64 KiB bursts of them
# (no ethtool needed). Must be set before TCP connections are made.
tb_one_seg() {
	ip -n "$1" link set dev "$2" gso_max_segs 1
}

tb_attach() {
	local ns=$1 dev=$2
	tb_need || return 1
	tc -n "$ns" qdisc add dev "$dev" clsact || return 1
	tc -n "$ns" filter add dev "$dev" ingress bpf direct-action \
		obj "$TB_OBJ" sec tc || return 1
	tb_find "$ns" "$dev" || return 1
	# no Ethernet header on an L3 device (TUN)
	if ip -n "$ns" link show dev "$dev" | grep -q 'link/none'; then
		tb_map_set "$TB_CFG_MAP" $TB_CFG_L2_NONE 1
	fi
}

# tb_find NS IFACE: sets TB_CFG_MAP and TB_STATE_MAP (map ids) from the
# program tc shows on IFACE's ingress.
tb_find() {
	local ns=$1 dev=$2 prog ids id name
	TB_CFG_MAP= TB_STATE_MAP=
	prog=$(tc -n "$ns" filter show dev "$dev" ingress |
	       awk '/ name tb_drop / { for (i = 1; i < NF; i++) if ($i == "id") print $(i + 1) }')
	[ -n "$prog" ] || { tb_err "no dropper on $dev in $ns"; return 1; }
	ids=$(bpftool prog show id "$prog" | awk '{ for (i = 1; i < NF; i++) if ($i == "map_ids") print $(i + 1) }')
	for id in ${ids//,/ }; do
		name=$(bpftool map show id "$id" | awk 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "name") print $(i + 1) }')
		case $name in
		tb_config) TB_CFG_MAP=$id ;;
		tb_state) TB_STATE_MAP=$id ;;
		esac
	done
	[ -n "$TB_CFG_MAP" ] && [ -n "$TB_STATE_MAP" ] ||
		tb_err "maps of program $prog not found"
}

# little-endian bytes of an unsigned 64-bit number, for bpftool
tb_le64() {
	local v=$1 i out=
	for i in 0 1 2 3 4 5 6 7; do
		out+="$(((v >> (8 * i)) & 0xff)) "
	done
	echo "$out"
}

tb_map_set() {	# tb_map_set MAP_ID KEY VALUE
	# shellcheck disable=SC2046
	bpftool map update id "$1" key $(tb_le64 "$2" | cut -d' ' -f1-4) \
		value $(tb_le64 "$3")
}

tb_reset_state() {
	local k
	for k in "${!TB_STAT_NAMES[@]}"; do
		tb_map_set "$TB_STATE_MAP" "$k" 0 || return 1
	done
}

# Rules: the mode goes off first and on last, so the program never runs
# with half of a rule.
tb_rule_off() {
	tb_map_set "$TB_CFG_MAP" $TB_CFG_MODE $TB_MODE_OFF
}

# tb_rule_loss PERCENT [SEED]: e.g. 0.5 drops 1 in 200 on average.
tb_rule_loss() {
	local pct=$1 seed=${2:-1} ppm
	[[ $pct =~ ^[0-9]+(\.[0-9]+)?$ ]] || { tb_err "bad loss '$pct'"; return 1; }
	[[ $seed =~ ^[0-9]+$ ]] || { tb_err "bad seed '$seed'"; return 1; }
	ppm=$(awk -v p="$pct" 'BEGIN { printf "%d", p * 10000 + 0.5 }')
	[ "$ppm" -le 1000000 ] || { tb_err "loss '$pct' above 100 %"; return 1; }
	tb_rule_off && tb_reset_state &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_LOSS_PPM "$ppm" &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_SEED "$seed" &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_MODE $TB_MODE_LOSS
}

# tb_rule_nth N [K [PERIOD]]: drop the Nth data segment and its first K
# retransmissions; with PERIOD, again every PERIOD segments.
tb_rule_nth() {
	local n=$1 k=${2:-0} period=${3:-0}
	[[ $n =~ ^[1-9][0-9]*$ && $k =~ ^[0-9]+$ && $period =~ ^[0-9]+$ ]] ||
		{ tb_err "bad nth rule '$*'"; return 1; }
	tb_rule_off && tb_reset_state &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_NTH "$n" &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_RETRANS "$k" &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_PERIOD "$period" &&
	tb_map_set "$TB_CFG_MAP" $TB_CFG_MODE $TB_MODE_NTH
}

tb_port() {
	[[ $1 =~ ^[0-9]+$ && $1 -le 65535 ]] || { tb_err "bad port '$1'"; return 1; }
	tb_map_set "$TB_CFG_MAP" $TB_CFG_PORT "$1"
}

tb_stats() {
	bpftool map dump id "$TB_STATE_MAP" | awk -v names="${TB_STAT_NAMES[*]}" '
		BEGIN { n = split(names, nm, " ") }
		/"key":/ { gsub(/[^0-9]/, "", $2); k = $2 }
		/"value":/ { gsub(/[^0-9]/, "", $2); v[k] = $2 }
		END { for (i = 1; i <= 4; i++) printf "%s=%s%s", nm[i], v[i - 1], i < 4 ? " " : "\n" }'
}

tb_stat() {
	tb_stats | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'
}
