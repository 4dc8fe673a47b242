# shellcheck shell=bash
# Another Debian suite's packages, fetched without touching the host's apt
# configuration (scripts/vm/build: the VM kernels; scripts/prometheus-sid).
# The caller sets CACHE (where each suite's lists and packages go) and
# defines die; private_apt sets APT, the options to give apt-get and
# apt-cache.

# The mirror of the host's own Debian archive: the first package file
# apt-cache policy lists whose release is Debian's main archive (not its
# security archive, which has no sid).
host_mirror() {
	apt-cache policy 2>/dev/null | awk '
		$1 ~ /^[0-9]+$/ && $2 ~ /^(https?|file):/ { url = $2; next }
		url && /release / && /o=Debian,/ && /l=Debian,/ { print url; exit }
		{ url = "" }'
}

# A private suite through apt options, never the host's configuration:
# its own sources.list, lists and package cache, in $CACHE/apt-NAME, given
# to every apt call (-o Dir::Etc::SourceList ... -o Dir::Cache).
#   private_apt NAME "SUITE [SUITE...]" ["SECURITY-SUITE"]
private_apt() {
	local name=$1 suites=$2 security=${3:-} d=$CACHE/apt-$1 mirror s
	mirror=$(host_mirror)
	[ -n "$mirror" ] || die "no Debian mirror in the host's apt sources"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	for s in $suites; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
	done > "$d/sources.list"
	[ -z "$security" ] ||
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $security main" \
			>> "$d/sources.list"
	# an empty dpkg status: an installed package of the host's suite (the
	# 6.1 image of a Debian cloud machine) must not hide the suite's own
	# candidate (issue #33 item 8: bullseye's 5.10 was "not found" so)
	APT=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
	     -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache"
	     -o Dir::State::status=/dev/null)
	# at every build that needs the archive (only what changed is
	# fetched); without the network, the lists of the last build serve
	apt-get "${APT[@]}" update -qq >&2 ||
		ls "$d"/lists/*_Packages > /dev/null 2>&1 ||
		die "cannot fetch $name's package lists from $mirror"
}
private_suite() {
	exec 8> "$CACHE/apt-$1.lock"
	flock 8
	private_apt "$@"
	flock -u 8
}
