#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every libFuzzer target for FUZZ_SECONDS (make fuzz builds them into
# $BUILD/tests/).  Each target starts from its committed seed corpus,
# tests/fuzz/corpus/TARGET/, and grows a scratch corpus in
# $BUILD/corpus/TARGET/, so the committed seeds stay as they are.  A crash,
# leak, timeout or sanitizer report fails the target; libFuzzer keeps the
# input as $BUILD/crashes/TARGET-crash-* (or leak-*, timeout-*, oom-*).
# Prints one line per target and "N passed, M failed"; exits non-zero
# when one failed.  FUZZ_TARGETS limits the run to the targets named.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c; done)}
mkdir -p "$BUILD/crashes" "$BUILD/logs"
pass=0 fail=0
for t in $TARGETS; do
	bin=$BUILD/tests/$t
	log=$BUILD/logs/$t.log
	seeds=tests/fuzz/corpus/${t#fuzz_}
	work=$BUILD/corpus/${t#fuzz_}
	mkdir -p "$work"
	if [ ! -x "$bin" ]; then
		printf '%-14s FAILED: %s was not built\n' "$t" "$bin"
		fail=$((fail + 1))
		continue
	fi
	# Options the target wants (one a line) live in tests/fuzz/TARGET.options.
	opts=
	[ -f "tests/fuzz/$t.options" ] && opts=$(grep -v '^#' "tests/fuzz/$t.options")
	# shellcheck disable=SC2086	# opts is a list of words
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	nice -n 10 "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
	    -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$t-" $opts \
	    "$work" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	# A sanitizer report that did not stop the run still fails it.
	if [ "$rc" -eq 0 ] && grep -Eq 'runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|property failed' "$log"; then
		rc=99
	fi
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		printf '%-14s ok: %ss, %s runs (%s/s)\n' "$t" "$FUZZ_SECONDS" "${execs:-?}" "${secs:-?}"
	else
		fail=$((fail + 1))
		input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		why=$(grep -Em1 'ERROR: |runtime error:|property failed' "$log" | cut -c1-160)
		printf '%-14s FAILED (exit %s): %s\n' "$t" "$rc" "${why:-see the log}"
		printf '%-14s   input: %s\n' "" "${input:-none kept}"
		printf '%-14s   log: %s\n' "" "$log"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
