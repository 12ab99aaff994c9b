#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every test layer and print one closing line: N passed, M failed[, K skipped].
#
# Every test program speaks TAP on stdout: "ok - name", "not ok - name",
# "ok - name # SKIP reason".  Layers (LAYERS, default all, in this order):
#   unit    cmocka programs $BUILD/tests/test_*
#   config  golden configuration corpus, tests/config/run.sh
#   integ   the test daemon against the kernel simulator, tests/integ/*.sh
#   vm      the daemon against the real module in QEMU, tests/vm/run.sh
#   system  the .deb in a Debian 12 guest with systemd, tests/system/run.sh
#   soak    long runs, tests/soak/*.sh (make soak; not in the default list)
# INTEG, a glob, picks integration scripts by name (INTEG='cull-*').
#
# INTEG_TESTS (names without .sh, space-separated) runs only those integ
# tests; TEST_TIMEOUT (seconds) ends any test program that runs longer (both
# for tests/mutate.sh).  The golden files are never rewritten from here.
#
# CACHEFILESD is the shipped daemon (vm layer, -t, install, and the check
# that it has no simulator hook); CACHEFILESD_SIM is the test daemon, the same
# objects linked with the simulator's transport (docs/kernel-seam.md).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LAYERS=${LAYERS:-unit config integ vm system}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac	# tests cd elsewhere
export BUILD
export CACHEFILESD=${CACHEFILESD:-$BUILD/cachefilesd}
export CACHEFILESD_SIM=${CACHEFILESD_SIM:-$BUILD/tests/cachefilesd-sim}
export CFSIM=${CFSIM:-$BUILD/tests/cfsim}
export CFCTL=${CFCTL:-$BUILD/tests/cfctl}
export TOP=$PWD
# Sanitizer builds hold shadow memory and a quarantine of freed blocks:
# memory bounds are for the build as shipped (SANITIZED names the runtime).
if [ -z "${SANITIZED+set}" ]; then
	SANITIZED=$(ldd "$CACHEFILESD" 2>/dev/null | sed -n 's/.*lib\(asan\|tsan\|ubsan\)\.so.*/\1/p' | head -1)
fi
export SANITIZED
unset UPDATE_GOLDEN	# a test run compares; only "make golden" rewrites
# make check runs this script as a plain recipe, so make closes its jobserver
# descriptors; a test's own make (the policy module, make install) would
# inherit MAKEFLAGS naming them and warn "jobserver unavailable" under -j.
unset MAKEFLAGS MFLAGS MAKELEVEL
INTEG_TESTS=${INTEG_TESTS:-}
TEST_TIMEOUT=${TEST_TIMEOUT:-}
LOGDIR=$BUILD/test-logs
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0
skipped_reasons=

# run_prog NAME CMD...: run one TAP program, count its results.
run_prog() {
	name=$1; shift
	log=$LOGDIR/$(echo "$name" | tr '/ ' '__').log
	if [ -n "$TEST_TIMEOUT" ]; then
		timeout -k 5 "$TEST_TIMEOUT" "$@" >"$log" 2>&1
	else
		"$@" >"$log" 2>&1
	fi
	rc=$?
	[ "$rc" -eq 124 ] && echo "not ok - $name timed out after $TEST_TIMEOUT s" >>"$log"
	# cmocka reports a skip as "not ok N # SKIP", TAP producers as "ok - x # SKIP".
	p=$(grep -Ec '^ok ' "$log")
	s=$(grep -Eic '^(not )?ok .*# *skip' "$log")
	sp=$(grep -Eic '^ok .*# *skip' "$log")
	f=$(grep -Ec '^not ok ' "$log")
	p=$((p - sp)); f=$((f - (s - sp)))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $rc" >>"$log"
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		f=1
		echo "not ok - $name ran no test" >>"$log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-28s %4d passed %3d failed %3d skipped\n' "$name" "$p" "$f" "$s"
	if [ "$f" -gt 0 ]; then
		grep -E '^not ok |^#' "$log" | grep -Eiv '# *skip' | head -40 | sed 's/^/    /'
		echo "    (full log: $log)"
	fi
	# A skip's reason: on its TAP line, or (cmocka, whose skip() takes
	# none) on a "# SKIP test: reason" line before it (tests/unit/skip.h).
	if [ "$s" -gt 0 ]; then
		skipped_reasons="$skipped_reasons$(grep -Ei '^(not )?ok .*# *skip|^# SKIP ' "$log" | awk -v n="$name" '{ print "    " n ": " $0 }')
"
	fi
}

for layer in $LAYERS; do
	case $layer in
	unit)
		for t in "$BUILD"/tests/test_*; do
			[ -x "$t" ] || continue
			CMOCKA_MESSAGE_OUTPUT=TAP run_prog "unit/${t##*/}" "$t"
		done ;;
	config)
		[ -f tests/config/run.sh ] && run_prog config/golden sh tests/config/run.sh ;;
	integ)
		for t in tests/integ/${INTEG:-*}.sh; do
			[ -f "$t" ] || continue
			case ${t##*/} in lib-*) continue ;; esac	# shell libraries
			if [ -n "$INTEG_TESTS" ]; then
				case " $INTEG_TESTS " in *" $(basename "$t" .sh) "*) ;; *) continue ;; esac
			fi
			run_prog "integ/$(basename "$t" .sh)" sh "$t"
		done ;;
	vm)
		[ -f tests/vm/run.sh ] && run_prog vm/scenarios sh tests/vm/run.sh ;;
	system)
		[ -f tests/system/run.sh ] && run_prog system/scenarios sh tests/system/run.sh ;;
	soak)
		for t in tests/soak/*.sh; do
			[ -f "$t" ] && run_prog "soak/$(basename "$t" .sh)" sh "$t"
		done ;;
	*)
		echo "run.sh: unknown layer $layer" >&2; fail=$((fail + 1)) ;;
	esac
done

if [ "$skip" -gt 0 ]; then
	echo "skipped, and why:"
	printf '%s' "$skipped_reasons"
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
