# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for TAP test scripts: source it, call the assertions, end with tap_done.
TAP_FAILED=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; TAP_FAILED=$((TAP_FAILED + 1)); }
skip() { t=$1; shift; echo "ok - $t # SKIP $*"; }
# note TEXT: diagnostic line
note() { echo "# $*"; }

# check DESC CMD...: passes when CMD exits 0.
check() {
	d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; note "failed: $*"; fi
}
# check_grep DESC PATTERN FILE: passes when FILE has a line matching PATTERN (ERE).
check_grep() {
	if grep -Eq -- "$2" "$3"; then ok "$1"; else not_ok "$1"; note "no match for /$2/ in $3:"; sed 's/^/#   /' "$3" | tail -20; fi
}
# check_no_grep DESC PATTERN FILE: passes when FILE has no line matching
# PATTERN; FILE must exist and not be empty, or there was nothing to search
# (the thing that writes it never ran).  check_no_grep_may_be_empty allows that.
check_no_grep() {
	if [ ! -s "$3" ]; then
		not_ok "$1"; note "nothing to search: $3 is missing or empty"; return
	fi
	check_no_grep_may_be_empty "$@"
}
check_no_grep_may_be_empty() {
	if grep -Eq -- "$2" "$3"; then not_ok "$1"; note "unexpected /$2/ in $3:"; grep -E -- "$2" "$3" | sed 's/^/#   /' | head; else ok "$1"; fi
}
# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; note "expected '$2', got '$3'"; fi
}
# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds; status 1 on time-out.
wait_for() {
	n=$(($1 * 10)); shift
	while [ "$n" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1; n=$((n - 1))
	done
	return 1
}
tap_done() { [ "$TAP_FAILED" -eq 0 ]; }
