#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Does the start-up scan's prewarm help?  One QEMU boot of Debian's kernel
# with the real CacheFiles module (tests/vm/vm.sh: fresh 64 MiB ext4 cache
# disk, a 9p share mounted with cache=fscache).  The share holds PW_FILES
# small files (default 3000 of 1..4 KiB in 30 directories).  The guest
# (bench/vm-prewarm-guest.sh) fills the cache with them, then times reading
# them all through 9p after drop_caches, with the daemon's start-up scan
# done ("scan"), without any scan ("noscan": nocull), and with the scan done
# and the caches dropped again ("dropped").  Prints one line a pass:
#   bench=vm-prewarm mode=M round=R read_s=S scan_s=X objects=N
# and the median per mode.
#
#   BUILD      build directory (default build); needs $BUILD/cachefilesd
#   PW_FILES   files in the share (default 3000)
#   PW_ROUNDS  rounds of the three modes (default 3)
#   VM_WORK    work directory (default $BUILD/vm-prewarm)
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
VM_HERE=$TOP/tests/vm
VM_WORK=${VM_WORK:-$B/vm-prewarm}
CACHEFILESD=${CACHEFILESD:-$B/cachefilesd}
CFSIM=${CFSIM:-$B/tests/cfsim}
FILES=${PW_FILES:-3000}
ROUNDS=${PW_ROUNDS:-3}
export VM_HERE VM_WORK CACHEFILESD CFSIM BUILD
. "$VM_HERE/vm.sh"

skip() { echo "bench=vm-prewarm skipped reason=\"$*\""; exit 0; }
mkdir -p "$VM_WORK"
why=$(vm_unusable)
[ -z "$why" ] || skip "QEMU cannot run here: $why"
[ -x "$CACHEFILESD" ] || skip "$CACHEFILESD not built"

# The share: FILES small files, cached between runs.
d=$VM_WORK/data
if [ "$(cat "$d/.complete" 2>/dev/null)" != "$FILES" ]; then
	rm -rf "$d"; mkdir -p "$d"
	i=0
	while [ "$i" -lt "$FILES" ]; do
		sub=$d/d$((i % 30)); mkdir -p "$sub"
		head -c $((1024 + (i * 977) % 3072)) /dev/urandom > "$sub/f$i"
		i=$((i + 1))
	done
	echo "$FILES" > "$d/.complete"
fi

vm_initramfs || skip "building the initramfs failed"
x=$VM_WORK/extra-root
rm -rf "$x"; mkdir -p "$x/vm"
cp "$TOP/bench/vm-prewarm-guest.sh" "$x/vm/s-prewarm.sh"
(cd "$x" && find . | cpio -o -H newc --quiet) > "$VM_WORK/extra.cpio" || skip "cpio failed"
cat "$VM_WORK/extra.cpio" >> "$VM_WORK/initramfs.cpio"

bd=$VM_WORK/boot
rm -rf "$bd"; mkdir -p "$bd/out"
echo "$ROUNDS" > "$bd/out/prewarm-rounds"
echo "prewarm 3000" > "$bd/out/plan"
echo "# vm-prewarm: host load before: $(cut -d' ' -f1-3 /proc/loadavg); accel $(vm_accel); kernel $(vm_kver)" >&2
t0=$(date +%s)
vm_boot "$bd" 3600
qrc=$?
echo "# vm-prewarm: QEMU status $qrc after $(( $(date +%s) - t0 )) s; host load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ -s "$bd/out/prewarm.raw" ] || skip "no results (see $bd/console.log, $bd/out/prewarm.log)"
sed 's/^/bench=vm-prewarm accel='"$(vm_accel)"' /' "$bd/out/prewarm.raw"
for m in scan noscan dropped; do
	sed -n "s/^mode=$m .*read_s=\([0-9.]*\).*/\1/p" "$bd/out/prewarm.raw" | sort -n |
		awk -v m="$m" '{ v[NR] = $1 } END { if (NR) printf "bench=vm-prewarm-median mode=%s read_s=%s runs=%d\n", m, v[int((NR + 1) / 2)], NR }'
done
