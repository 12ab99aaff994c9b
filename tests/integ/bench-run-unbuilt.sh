#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh without its programs built (run alone, not by "make bench"):
# it must stop with a message naming what is missing, not print a page of
# ratios timed on programs that are not there.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-bench-unbuilt.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/build/bench"
BUILD=$T/build BENCH_OUT=$T/out.txt BENCH_DATA=$T/data sh "$TOP/bench/run.sh" > "$T/stdout" 2> "$T/stderr"
rc=$?
check "stops with status 2 when bench/cachegen is missing" test "$rc" -eq 2
check_grep "names the missing program and the command that builds it" \
    'bench/cachegen not built \(make BUILD=.* bench builds it\)' "$T/stderr"
check "prints no figure" test ! -s "$T/stdout"
check "writes no results file" test ! -e "$T/out.txt"
tap_done
