#!/usr/bin/env bash
# Debian 13 (trixie), the current stable, next to the bookworm this
# project's CI machines run (issue #27): in a trixie root made with
# debootstrap, whose build, unit-test and packaging dependencies the
# project's own scripts/install-deps installed, a copy of the tree without
# .git builds, its unit tests pass, `make deb` builds a lintian-clean
# package, dpkg -i installs it, and the installed binary attaches and
# reports; every name of install-deps' test role resolves there too. The
# chroot shares this machine's kernel, so BPF works in it.
#
# The root is built once per machine (one to two minutes here, from the
# mirror this host's apt uses) into $NSL_TRIXIE_CACHE (default
# /var/cache/netstacklat/trixie), keyed by install-deps and the recipe
# below, so that a changed package list rebuilds it; later runs take it as
# it is. Each run works in an overlay on top of it, dropped at the end, so
# the cached root never changes. See docs/trixie-test.md.
source "$(dirname "$0")/lib.sh"

TESTS=(trixie_root trixie_test_deps trixie_build trixie_unit trixie_deb
       trixie_lintian trixie_dpkg_install trixie_installed_runs trixie_unmounted)
CACHE=${NSL_TRIXIE_CACHE:-/var/cache/netstacklat/trixie}
SUITE_CODENAME=trixie
# a root not used for this long is removed when another is built
PRUNE_DAYS=7
RUN=		# this run's overlay: RUN/upper, RUN/work, RUN/merged
M=		# the merged root the tests run in
BUILT=		# set by trixie_build: the later tests need a build
DEB=		# set by trixie_deb: the package's path in the root

# host_mirror: the Debian archive this host's apt uses for its own
# release, from one-line (.list) and deb822 (.sources) files alike.
host_mirror() {
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 1
	# deb [options] URI SUITE COMPONENT...
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v c="$codename" '$1 == "deb" {
			i = 2
			if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
			if ($(i + 1) == c) { print $i; exit }
		}'
	# Types: deb / URIs: ... / Suites: ... (Enabled: no skipped)
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk -v c="$codename" 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""; enabled = 1
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:/) types = " " substr($i, 7) " "
				if ($i ~ /^URIs:/) uris = substr($i, 6)
				if ($i ~ /^Suites:/) suites = " " substr($i, 8) " "
				if ($i ~ /^Enabled: *no/) enabled = 0
			}
			if (enabled && types ~ / deb / && suites ~ (" " c " ")) {
				split(uris, u, " "); print u[1]; exit
			}
		}'
}

# mounted_under DIR: the mount points at or below DIR (none: nothing printed)
mounted_under() {
	findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1'
}

# bind_system DIR: this machine's /proc, /sys and /dev in the root DIR
# (with what is mounted below them: /sys/fs/bpf, /sys/kernel/btf's
# /sys, /dev/pts). Slaves, so that unmounting them here never propagates
# to the host's own mounts.
bind_system() {
	local d
	for d in proc sys dev; do
		mount --rbind "/$d" "$1/$d" && mount --make-rslave "$1/$d" || return 1
	done
}

# unbind_system DIR: the contrary, also after a partial bind_system.
unbind_system() {
	local d
	for d in dev sys proc; do
		mountpoint -q "$1/$d" && umount -R "$1/$d"
	done
	[ -z "$(mounted_under "$1")" ]
}

# remove_tree DIR: rm -rf, but only when nothing is mounted in it, and
# never across into another filesystem (a bind mount of /dev that failed
# to unmount must not be emptied).
remove_tree() {
	[ -e "$1" ] || return 0
	if [ -n "$(mounted_under "$1")" ]; then
		echo "  still mounted, left in place: $(mounted_under "$1" | tr '\n' ' ')"
		return 1
	fi
	rm -rf --one-file-system "$1"
}

# The root: a minbase trixie with what `make`, `make test-unit` and `make
# deb` need, installed by the project's own scripts/install-deps (that is
# the point: it must work there). Built in KEY.tmp, renamed when done,
# removed when it failed (its logs are in the test's output).
build_root() {
	local dir=$1 tmp=$1.tmp mirror=$2
	unbind_system "$tmp" 2> /dev/null
	remove_tree "$tmp" || return 1
	debootstrap --variant=minbase "$SUITE_CODENAME" "$tmp" "$mirror" \
		> "$TMP/debootstrap.log" 2>&1 || { remove_tree "$tmp"; return 2; }
	# apt in the root needs a resolver; no daemon may start from the
	# root's package scripts (they would run on this machine)
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod +x "$tmp/usr/sbin/policy-rc.d"
	cp "$ROOT/scripts/install-deps" "$tmp/root/install-deps"
	bind_system "$tmp" || { unbind_system "$tmp"; return 1; }
	chroot "$tmp" /root/install-deps build unit deb > "$TMP/install-deps.log" 2>&1
	local rc=$?
	unbind_system "$tmp" || return 1
	[ $rc -eq 0 ] || { remove_tree "$tmp"; return 3; }
	# the downloaded .debs: not needed again (the lists stay, for apt -s)
	chroot "$tmp" apt-get clean
	rm "$tmp/root/install-deps"
	mv "$tmp" "$dir"
}

# prune_roots: the roots of other keys not used for PRUNE_DAYS (the
# caller holds the lock exclusively: no run is using any of them).
prune_roots() {
	local d
	for d in "$CACHE"/root-*; do
		[ -d "$d" ] && [ "$d" != "$ROOTDIR" ] || continue
		[ -n "$(find "$d" -maxdepth 0 -mtime -"$PRUNE_DAYS")" ] && continue
		remove_tree "$d"
	done
}

# Root ready: built now (cold) or taken from the cache (warm). Runs hold
# the lock shared for as long as they use the root; building and pruning
# hold it exclusively, so no run's root changes under it.
trixie_root() {
	local key mirror start=$SECONDS rc
	mkdir -p "$CACHE"
	key=$( { cat "$ROOT/scripts/install-deps"; declare -f build_root bind_system;
		 echo "$SUITE_CODENAME"; } | sha256sum | cut -c1-16)
	ROOTDIR=$CACHE/root-$key
	exec {LOCK_FD}> "$CACHE/lock"
	flock -s "$LOCK_FD"
	if [ ! -d "$ROOTDIR" ]; then
		mirror=${NSL_TRIXIE_MIRROR:-$(host_mirror | head -1)}
		[ -n "$mirror" ] || { skip "no Debian mirror in this host's apt sources (NSL_TRIXIE_MIRROR sets one)"; return; }
		flock -x "$LOCK_FD"
		if [ ! -d "$ROOTDIR" ]; then
			echo "  building the trixie root from $mirror (once per machine)"
			# interrupted: nothing of it stays mounted, a half root goes
			AT_EXIT+=("unbind_system '$ROOTDIR.tmp'; remove_tree '$ROOTDIR.tmp'")
			build_root "$ROOTDIR" "$mirror"
			rc=$?
			case $rc in
			0) echo "  root built in $((SECONDS - start)) s" ;;
			2) skip "debootstrap $SUITE_CODENAME from $mirror failed (archive unreachable?): $(grep -E '^E:' "$TMP/debootstrap.log" | tail -1)" ;;
			3) fail "scripts/install-deps in the trixie root: $(tail -3 "$TMP/install-deps.log")" ;;
			*) fail "could not build the root (mounts?)" ;;
			esac
			prune_roots
		fi
		flock -s "$LOCK_FD"
		[ -d "$ROOTDIR" ] || return
	else
		echo "  cached root $ROOTDIR (built $(stat -c %y "$ROOTDIR" | cut -d. -f1))"
	fi
	touch "$ROOTDIR"	# used now: not pruned
	grep -qx "VERSION_CODENAME=$SUITE_CODENAME" "$ROOTDIR/etc/os-release" ||
		{ fail "the root is not $SUITE_CODENAME: $(grep PRETTY "$ROOTDIR/etc/os-release")"; return; }
	drop_dead_runs
	# this run's copy: an overlay, dropped at the end
	RUN=$CACHE/run.$ID
	mkdir -p "$RUN/upper" "$RUN/work" "$RUN/merged"
	AT_EXIT+=("teardown")
	mount -t overlay overlay -o "lowerdir=$ROOTDIR,upperdir=$RUN/upper,workdir=$RUN/work" \
		"$RUN/merged" || { fail "overlay mount failed"; return; }
	M=$RUN/merged
	bind_system "$M" || { fail "cannot bind /proc, /sys, /dev into the root"; return; }
	# the tree as a source tarball would have it: no .git, no build products
	mkdir "$M/build"
	"$ROOT/scripts/tree-tar" | tar -xf - -C "$M/build" || { fail "cannot copy the tree"; return; }
	[ -e "$M/build/.git" ] && fail ".git copied into the root"
	echo "  $(in_root clang --version | head -1); libbpf $(in_root pkg-config --modversion libbpf);" \
		"$(in_root bpftool version | head -1)"
	echo "  ready in $((SECONDS - start)) s"
}

# in_root COMMAND...: COMMAND in the trixie root, with a clean environment
in_root() {
	chroot "$M" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}

# teardown: unmount everything of this run and drop its overlay (also
# when a test failed or the script is interrupted: lib.sh's EXIT trap)
teardown() {
	[ -n "$RUN" ] || return 0
	drop_run "$RUN" && RUN=
}

# drop_run DIR: a run's overlay (DIR/merged) unmounted, with what is
# mounted in it, and DIR removed
drop_run() {
	unbind_system "$1/merged"
	# -R: with anything a test mounted inside (all slaves or its own)
	mountpoint -q "$1/merged" && umount -R "$1/merged"
	remove_tree "$1"
}

# drop_dead_runs: the overlays of runs killed before their teardown
# (run.PID, PID gone)
drop_dead_runs() {
	local run
	for run in "$CACHE"/run.*; do
		[ -d "$run" ] && ! kill -0 "${run##*.}" 2> /dev/null || continue
		drop_run "$run"
	done
}

need_root_ready() {
	[ -n "$M" ] && return 0
	skip "no trixie root (trixie_root)"
	return 1
}

# Every package of install-deps' test role exists in trixie, with what it
# needs: `make test` can install its dependencies there (apt, offline)
trixie_test_deps() {
	need_root_ready || return
	cp "$ROOT/scripts/install-deps" "$M/root/install-deps"
	in_root /root/install-deps --simulate test > "$TMP/simulate.log" 2>&1 ||
		{ fail "install-deps --simulate test: $(grep -E '^E:' "$TMP/simulate.log" | head -3)"; return; }
	echo "  $(grep -c '^Inst ' "$TMP/simulate.log") packages more for make test: $(sed -n 's/^install-deps: would install //p' "$TMP/simulate.log")"
}

trixie_build() {
	local start=$SECONDS
	need_root_ready || return
	# and the test programs: gcc 14 once failed one that gcc 12 built
	in_root make --no-print-directory -C /build -j2 all test-progs > "$TMP/build.log" 2>&1 ||
		{ fail "make: $(tail -5 "$TMP/build.log")"; return; }
	in_root /build/netstacklat --version > "$TMP/version" 2>&1 ||
		{ fail "the build does not run: $(cat "$TMP/version")"; return; }
	BUILT=1
	echo "  $(head -1 "$TMP/version"), built in $((SECONDS - start)) s"
}

trixie_unit() {
	local start=$SECONDS summary
	[ -n "$BUILT" ] || { skip "no build (trixie_build)"; return; }
	in_root make --no-print-directory -C /build -j2 test-unit > "$TMP/unit.log" 2>&1 ||
		fail "make test-unit: $(grep -E 'FAILED|failed' "$TMP/unit.log" | head -5)"
	summary=$(tail -1 "$TMP/unit.log")
	[[ $summary =~ ^([0-9]+)\ passed,\ 0\ failed ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
		fail "unit tests: $summary"
	echo "  $summary, in $((SECONDS - start)) s"
}

trixie_deb() {
	local start=$SECONDS version
	need_root_ready || return
	in_root make --no-print-directory -C /build deb > "$TMP/deb.log" 2>&1 ||
		{ fail "make deb: $(tail -5 "$TMP/deb.log")"; return; }
	version=$(sed -n '1s/^netstacklat (\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")
	DEB=/build/.output/deb/netstacklat_${version}_amd64.deb
	[ -f "$M$DEB" ] || { fail "no $DEB: $(ls "$M/build/.output/deb")"; DEB=; return; }
	echo "  $(basename "$DEB") (version from debian/changelog, no git), in $((SECONDS - start)) s"
}

trixie_lintian() {
	[ -n "$DEB" ] || { skip "no package (trixie_deb)"; return; }
	local rc
	in_root lintian --pedantic -I "$DEB" > "$TMP/lintian.out" 2>&1
	rc=$?
	# 1: it found errors (shown below); more: it could not check
	[ $rc -le 1 ] || { fail "lintian exit $rc: $(tail -3 "$TMP/lintian.out")"; return; }
	grep -qE '^[EW]: ' "$TMP/lintian.out" &&
		fail "lintian $(in_root lintian --version): $(grep -E '^[EW]: ' "$TMP/lintian.out" | head -3)"
	echo "  lintian info tags: $(grep -cE '^I: ' "$TMP/lintian.out") ($(grep -E '^I: ' "$TMP/lintian.out" | awk '{ print $3 }' | tr '\n' ' '))"
}

trixie_dpkg_install() {
	[ -n "$DEB" ] || { skip "no package (trixie_deb)"; return; }
	in_root dpkg -i "$DEB" > "$TMP/dpkg.log" 2>&1 ||
		{ fail "dpkg -i: $(tail -3 "$TMP/dpkg.log")"; return; }
	[ "$(in_root dpkg-query -W -f='${Status}' netstacklat)" = "install ok installed" ] ||
		fail "netstacklat not installed after dpkg -i"
	[ -x "$M/usr/sbin/netstacklat" ] || fail "no /usr/sbin/netstacklat"
	in_root getent passwd netstacklat > /dev/null || fail "no system user netstacklat"
}

# The installed binary, on this machine's kernel: every hook listed with
# the method it gets here (or why none), and a report, attached.
trixie_installed_runs() {
	local hooks defaults
	[ -x "$M/usr/sbin/netstacklat" ] 2> /dev/null || { skip "not installed (trixie_dpkg_install)"; return; }
	in_root /usr/sbin/netstacklat -l > "$TMP/list.out" 2>&1 ||
		{ fail "netstacklat -l: $(tail -3 "$TMP/list.out")"; return; }
	hooks=$(grep -cE '^  [a-z-]+ +(fentry|netfilter|tracepoint|unavailable) ' "$TMP/list.out")
	# every hook of the table, as the build of this tree here lists them
	[ -x "$NSL" ] || { fail "$NSL not built here (make): no list to compare with"; return; }
	expect "hooks listed by -l, each with its method or unavailable, as $NSL -l" "$hooks" -eq \
		"$("$NSL" -l 2> /dev/null | grep -c '^  [a-z-]')"
	# a run of the default hooks reports each as `-l -e` exactly those
	# says it attaches on this kernel (what attaches is the machine's)
	defaults=$(default_hooks_in < "$TMP/list.out")
	in_root /usr/sbin/netstacklat -l -e "$defaults" > "$TMP/probe.out" 2> /dev/null ||
		{ fail "netstacklat -l -e $defaults: $(tail -3 "$TMP/probe.out")"; return; }
	in_root /usr/sbin/netstacklat -F json -r 1 --count 1 > "$TMP/report.json" 2> "$TMP/tool.err" ||
		{ fail "netstacklat -F json --count 1: exit $?"; return; }
	grep -q attached "$TMP/tool.err" || fail "no 'attached' on stderr"
	python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"{len(lines)} lines"
r = json.loads(lines[0])
assert isinstance(r["histograms"], list) and isinstance(r["counters"], dict), "no histograms, counters"
methods = {h: v.get("method") for h, v in r["hooks"].items()}
probe = {l.split()[0]: l.split()[1] for l in open(sys.argv[2]) if l.startswith("  ")}
want = {h: None if probe[h] == "unavailable" else probe[h] for h in sys.argv[3].split(",")}
assert methods == want, ("report", methods, "-l -e", want)
print("  report: " + ", ".join(f"{h} {m or chr(45)}" for h, m in methods.items()))
' "$TMP/report.json" "$TMP/probe.out" "$defaults" || fail "report against -l -e $defaults: $(head -c 300 "$TMP/report.json")"
}

# Nothing of this run stays mounted, and its overlay is gone.
trixie_unmounted() {
	local run=$RUN
	[ -n "$run" ] || { skip "no run (trixie_root)"; return; }
	teardown
	[ -z "$(mounted_under "$run")" ] || fail "still mounted: $(mounted_under "$run" | tr '\n' ' ')"
	[ -e "$run" ] && fail "$run left behind"
}

need "needs root" test "$(id -u)" -eq 0
need "debootstrap missing (scripts/install-deps test)" eval 'command -v debootstrap > /dev/null'
need "no overlay filesystem in this kernel" grep -qw overlay /proc/filesystems
run_tests
