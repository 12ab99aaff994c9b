#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: boot Debian's kernel in QEMU, run cachefilesd against the real
# CacheFiles module, fill the cache disk and watch the daemon cull, live.
# Ends by itself (about a minute under TCG) with a short summary.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
. tests/vm/vm.sh

if [ -t 1 ]; then
	B=$(printf '\033[1m') D=$(printf '\033[2m') R=$(printf '\033[0m')
	C1=$(printf '\033[36m') C2=$(printf '\033[33m') C3=$(printf '\033[32m') C4=$(printf '\033[35m')
else
	B= D= R= C1= C2= C3= C4=
fi
say() { echo "${B}demo:${R} $*"; }

t0=$(date +%s)
mkdir -p "$VM_WORK"
vm_deps || exit 1
why=$(vm_unusable)
[ -z "$why" ] || { say "cannot run QEMU: $why"; exit 1; }
if [ ! -x "$CACHEFILESD" ]; then
	say "building cachefilesd"
	make -s BUILD="$BUILD" "$BUILD/cachefilesd" || exit 1
fi
if [ ! -x "$BUILD/cachefiles-cull" ]; then
	say "building cachefiles-cull"
	make -s BUILD="$BUILD" "$BUILD/cachefiles-cull" || exit 1
fi
if [ ! -x "$CFSIM" ]; then
	say "building cfsim (its notify-listen is the NOTIFY_SOCKET stand-in)"
	make -s BUILD="$BUILD" "$BUILD/tests/cfsim" || exit 1
fi
say "preparing the initramfs (Debian kernel $(vm_kver), busybox, cachefiles module, cachefilesd) and the data share"
vm_initramfs && vm_data_share || { say "preparation failed"; exit 1; }
accel=$(vm_accel)
say "booting the VM ($accel$( [ "$accel" = tcg ] && echo ', software emulation: a few seconds'))"
echo
bd=$VM_WORK/demo
rm -rf "$bd"; mkdir -p "$bd/out"
echo "demo 100" > "$bd/out/plan"
# The guest narrates on the serial console; colour it by line prefix and
# leave out the harness's own bookkeeping.
VM_CONSOLE=stdout vm_boot "$bd" 150 | awk -v b="$B" -v d="$D" -v r="$R" \
	-v c1="$C1" -v c2="$C2" -v c3="$C3" -v c4="$C4" '
	{ sub(/\r$/, "") }
	/^VM\[|reboot: Power down/ { next }
	/^step /   { print b $0 r; fflush(); next }
	/^daemon / { print c1 $0 r; fflush(); next }
	/^notify / { print c2 $0 r; fflush(); next }
	/^disk /   { print c3 $0 r; fflush(); next }
	/^tool /   { print c4 $0 r; fflush(); next }
	{ print d $0 r; fflush() }'
echo
if [ -f "$bd/out/summary.txt" ]; then
	echo "${B}summary${R} (whole demo: $(( $(date +%s) - t0 )) s)"
	sed "s/^/  /" "$bd/out/summary.txt"
	grep -q 'brun reached: *yes' "$bd/out/summary.txt"
else
	say "the guest did not finish; console and files in $bd"
	exit 1
fi
