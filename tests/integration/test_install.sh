#!/usr/bin/env bash
# The man page renders without warnings, and make install puts the binary
# and the man page under DESTDIR/PREFIX.
source "$(dirname "$0")/lib.sh"

TESTS=(test_man_page test_make_install)

test_man_page() {
	command -v man > /dev/null || { skip "man missing (man-db)"; return; }
	MANWIDTH=80 man --warnings -l "$ROOT/docs/netstacklat.8" > "$TMP/man.txt" 2> "$TMP/man.err" ||
		fail "man failed: $(head -3 "$TMP/man.err")"
	[ -s "$TMP/man.err" ] && fail "man warnings: $(head -3 "$TMP/man.err")"
	grep -q "netstacklat - latency inside the Linux network receive stack" "$TMP/man.txt" ||
		fail "man page NAME section missing"
	# every long option of --help is documented in the man page
	for opt in $("$NSL" --help | grep -oE -- '--[a-z-]+' | sort -u); do
		case $opt in --help|--usage|--version) continue ;; esac
		grep -q -- "$opt" "$TMP/man.txt" || fail "man page lacks $opt"
	done
}

test_make_install() {
	make -C "$ROOT" --no-print-directory install DESTDIR="$TMP/root" PREFIX=/usr > "$TMP/install.log" 2>&1 ||
		{ fail "make install: $(tail -2 "$TMP/install.log")"; return; }
	[ -x "$TMP/root/usr/sbin/netstacklat" ] || fail "no $TMP/root/usr/sbin/netstacklat"
	[ -f "$TMP/root/usr/share/man/man8/netstacklat.8" ] || fail "no man page installed"
	"$TMP/root/usr/sbin/netstacklat" --version | grep -q netstacklat || fail "installed binary does not run"
}

must "tool not built" test -x "$NSL"
run_tests
