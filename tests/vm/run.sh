#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The "vm" layer of tests/run.sh: cachefilesd against the real CacheFiles
# module of Debian's kernel, booted in QEMU (KVM when it works, else TCG).
# Scenarios are batched into two boots that run side by side; each boot and
# each scenario has a time limit.  Prints TAP, one line per check.
#
#   CACHEFILESD, CFSIM   the programs under test (dynamically linked is fine)
#   VM_WORK              work directory (default $BUILD/vm)
#   VM_ACCEL=kvm|tcg     skip the KVM probe
#   VM_ONLY="a b"        run only these scenarios (names of guest/s-NAME.sh)
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
. tests/vm/vm.sh
. "$TOP/tests/lib.sh"

# Boots: "scenario seconds" lines.  Boot 1 holds the short scenarios, boot 2
# the two that fill the disk; the two take about as long.
PLAN1="bind 90
signals 120
limits 90
badconf 40
conform 150
user 80
tool 90
sockcull 90"
PLAN2="cull 200
inuse 160
hostile 150
soak $((120 + ${SOAK_CYCLES:-20} * 6 + ${SOAK_ROUNDS:-12} * 10))"

want() { [ -z "${VM_ONLY:-}" ] || echo " $VM_ONLY " | grep -q " $1 "; }
filter_plan() { echo "$1" | while read -r n s; do want "$n" && echo "$n $s"; done; }
plan_names() { echo "$1" | awk '{ print $1 }'; }

mkdir -p "$VM_WORK"
vm_deps || true
why=$(vm_unusable)
if [ -n "$why" ]; then
	for n in $(plan_names "$PLAN1") $(plan_names "$PLAN2"); do
		want "$n" && skip "vm/$n" "QEMU cannot run here: $why"
	done
	exit 0
fi

for p in "$CACHEFILESD" "$CFSIM"; do
	[ -x "$p" ] || { not_ok "program under test $p is missing"; exit 1; }
done
t_start=$(date +%s)
if ! vm_initramfs || ! vm_data_share; then
	not_ok "vm: building the initramfs and the data share"
	exit 1
fi
accel=$(vm_accel)
note "accelerator $accel, kernel $(vm_kver), initramfs $(du -h "$VM_WORK/initramfs.cpio" | cut -f1)"

# boot N PLAN: run one boot in the background; its directory is $VM_WORK/bootN.
boot() {
	bd=$VM_WORK/boot$1
	rm -rf "$bd"
	mkdir -p "$bd/out"
	echo "$2" > "$bd/out/plan"
	printf 'SOAK_CYCLES=%s\nSOAK_ROUNDS=%s\nSANITIZED=%s\n' "${SOAK_CYCLES:-20}" \
	    "${SOAK_ROUNDS:-12}" "${SANITIZED:-}" > "$bd/out/params"
	limit=$(echo "$2" | awk '{ s += $2 } END { print s + 60 }')
	[ "$accel" = tcg ] || limit=$((limit / 2 + 60))
	(
		s=$(date +%s)
		vm_boot "$bd" "$limit"
		echo "$? $(( $(date +%s) - s ))" > "$bd/qemu.rc"
	) &
}

plans=
p1=$(filter_plan "$PLAN1"); p2=$(filter_plan "$PLAN2")
[ -n "$p1" ] && { boot 1 "$p1"; plans="$plans 1"; }
# One TCG guest per host core: on a single core, boot one after the other.
[ "$(nproc)" -lt 2 ] && wait
[ -n "$p2" ] && { boot 2 "$p2"; plans="$plans 2"; }
wait

# Conformance, host half: the same command sequence against the simulator.
conform_host() {
	c=$VM_WORK/conform-host
	rm -rf "$c"; mkdir -p "$c/dir"
	"$CFSIM" serve "$c/sock" --log "$c/sim.log" > "$c/serve.out" 2>&1 &
	sim=$!
	wait_for 10 test -S "$c/sock"
	(cd "$c/dir" && timeout 60 "$CFSIM" conform "$c/sock" "$c/dir" > "$c/out.txt" 2> "$c/err.txt")
	echo $? > "$c/rc"
	kill "$sim" 2>/dev/null
	wait "$sim" 2>/dev/null
}

report_conform() {
	k=$VM_WORK/boot1/out/conform-kernel.txt
	c=$VM_WORK/conform-host
	name="conformance: cfsim conform gives the same output against /dev/cachefiles and the simulator"
	if [ ! -f "$k" ] || [ "$(cat "${k%.txt}.rc" 2>/dev/null)" != 0 ]; then
		not_ok "$name"
		note "the guest run of cfsim conform failed (status $(cat "${k%.txt}.rc" 2>/dev/null || echo none)):"
		tail -n 10 "${k%.txt}.err" 2>/dev/null | sed 's/^/#   /'
		return
	fi
	conform_host
	if [ "$(cat "$c/rc")" != 0 ]; then
		not_ok "$name"
		note "cfsim conform against the simulator failed (status $(cat "$c/rc")):"
		tail -n 10 "$c/err.txt" | sed 's/^/#   /'
		return
	fi
	if [ ! -s "$k" ]; then
		not_ok "$name"
		note "cfsim conform printed nothing in the guest"
	elif diff -u "$k" "$c/out.txt" > "$c/diff.txt"; then
		ok "$name"
		note "$(wc -l < "$k") steps agree"
	else
		not_ok "$name"
		note "diff kernel (-) simulator (+); the kernel is right:"
		sed 's/^/#   /' "$c/diff.txt"
	fi
}

# Results, in plan order.  A scenario that left no verdict (it hung, the
# guest died) is a failure with the tail of its log and of the console.
for b in $plans; do
	bd=$VM_WORK/boot$b
	read -r qrc qsecs < "$bd/qemu.rc"
	note "boot $b: QEMU status $qrc after ${qsecs}s ($accel)"
	for n in $(plan_names "$(cat "$bd/out/plan")"); do
		if [ "$n" = conform ]; then
			report_conform
			continue
		fi
		tap=$bd/out/$n.tap
		[ -f "$tap" ] && grep -E '^(ok|not ok) |^#' "$tap"
		rc=$(cut -d' ' -f1 "$bd/out/$n.rc" 2>/dev/null)
		if [ "$rc" = 137 ] || [ -z "$rc" ] || { [ "$rc" != 0 ] && ! grep -q '^not ok ' "$tap" 2>/dev/null; }; then
			not_ok "vm/$n: scenario did not finish (status ${rc:-none}$([ "$rc" = 137 ] && echo ': killed at its time limit'), QEMU $qrc)"
			[ -f "$bd/out/$n.log" ] && tail -n 15 "$bd/out/$n.log" | sed 's/^/#   log: /'
			tail -n 10 "$bd/console.log" | sed 's/^/#   console: /'
		fi
	done
done
note "VM layer took $(( $(date +%s) - t_start ))s"
tap_done
