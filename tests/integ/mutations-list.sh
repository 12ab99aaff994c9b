#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mutation list follows the code: every original snippet of
# tests/mutations.txt is found exactly once in its file, and every integ
# test it names exists (tests/mutate.sh --check; make mutate runs the rest).
. "$TOP/tests/lib.sh"

out=$(sh "$TOP/tests/mutate.sh" --check 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "tests/mutations.txt follows the code"
else
	not_ok "tests/mutations.txt follows the code"
	echo "$out" | sed 's/^/#   /'
fi
n=$(grep -c '^name ' "$TOP/tests/mutations.txt")
check "at least 30 mutants are listed ($n)" test "$n" -ge 30
tap_done
