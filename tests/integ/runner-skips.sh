#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run.sh as a packager sees it on a machine where some tests
# cannot run (non-root buildd, no QEMU): the closing line counts the skips
# and the reasons are printed above it.  Runs run.sh on a scratch BUILD
# directory holding two fake unit programs.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-runner-skips.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tests"
cat >"$T/tests/test_fake_skip" <<'EOF'
#!/bin/sh
echo "ok - something that ran"
echo "ok - something that could not run # SKIP no frobnicator here"
EOF
cat >"$T/tests/test_fake_cmocka" <<'EOF'
#!/bin/sh
echo "ok 1 - ran"
echo "not ok 2 - needs root # SKIP not root"
echo "# SKIP test_mount: cannot mount a tmpfs: Operation not permitted"
echo "ok 3 # SKIP"
EOF
chmod +x "$T/tests/test_fake_skip" "$T/tests/test_fake_cmocka"
BUILD=$T LAYERS=unit sh "$TOP/tests/run.sh" >"$T/out" 2>"$T/err"
note "run.sh status $?"
last=$(tail -n 1 "$T/out")
check_eq "closing line counts passes and skips" "2 passed, 0 failed, 3 skipped" "$last"
check_grep "the reason of a TAP skip is printed above it" 'no frobnicator here' "$T/out"
check_grep "the reason of a cmocka skip is printed above it" 'not root' "$T/out"
check_grep "a reason printed by skip_why() before a bare skip is shown" \
    'test_mount: cannot mount a tmpfs' "$T/out"
if [ -s "$T/err" ]; then
	not_ok "run.sh writes nothing on stderr"
	sed 's/^/#   /' "$T/err" | head -5
else
	ok "run.sh writes nothing on stderr"
fi
tap_done
