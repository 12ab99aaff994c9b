#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Our cachefilesd against the historical one (Debian's cachefilesd 0.10.10,
# unpacked with dpkg-deb, never installed), in one QEMU boot of Debian's
# kernel with the real CacheFiles module (tests/vm/vm.sh), each daemon on its
# own copy of the same synthetic cache tree (bench/vm-gen.c, laid into an
# ext4 image with mkfs.ext4 -d; QEMU opens it with snapshot=on, so both runs
# start from identical bytes).  Each cull run fills the tree's disk to FILL %
# free (limits 10/7/3), drops the dentry and inode caches, starts the daemon
# and measures until free space is back above brun; with a restart round, it
# then fills the disk again, drops the caches and starts the same daemon again
# on the same cache.  Prints one line per round and ratio lines:
#   bench=vm-cull daemon=D objects=N run=R round=1|2 bind_s= first_cull_s=
#       done_s= scan_s= cpu_s= user_s= sys_s= rss_kb= culled= lru= ...
#   bench=vm-cull-ratio objects=N run=R round=1|2 first_cull= done= cpu= ...
#       (ours / historical: below 1 means ours is better)
#   bench=vm-cull-floor objects=N run=R round=1|2 done= cpu= ours_done= ours_cpu=
#       (bench/vm-floor.c, the least work, / historical; ours / floor)
#   bench=vm-idle daemon=D objects=N startup20_cpu_s= idle20_cpu_s=
#   bench=vm-nocull daemon=D cpu20_s= ...
#   bench=vm-restart daemon=D starts= died= exit_codes= bind_median_s=
#
#   BUILD            build directory (default build); needs $BUILD/cachefilesd,
#                    $BUILD/bench/vm-gen and $BUILD/bench/vm-watch
#                    (make BUILD=... $BUILD/bench/vm-gen $BUILD/bench/vm-watch)
#   VMB_COUNTS       object counts (default 200000)
#   VMB_SIZE         object sizes, MIN-MAX KiB, log-uniform (default 4-16)
#   VMB_FILL         free space, in %, the disk is filled to (default 6)
#   VMB_DIRINDEX=0   leave the directories as mkfs.ext4 -d lays them: a list
#                    scanned from the start at each lookup; by default
#                    e2fsck -fD gives each directory of more than one block
#                    a hashed index, as the kernel does when it fills a cache
#   VMB_RESTART=0    no restart round
#   VMB_RUNS         cull runs of each daemon at each count (default 1)
#   VMB_SMP          the guest's virtual CPUs (default 1)
#   VMB_NOCULL=0     skip the nothing-cullable runs
#   VMB_DAEMONS      which cull runs (default "historical ours floor"; floor is
#                    bench/vm-floor.c, needs $BUILD/bench/vm-floor; alt is
#                    another build of our daemon, VMB_ALT, for an A/B run)
#   VMB_ALT          that build's cachefilesd (with VMB_DAEMONS="ours alt"; our
#                    own build again for an A/B of settings)
#   VMB_ALT_CONF     directives added to alt's configuration (as VMB_OURS_CONF)
#   VMB_IDLE=0       skip the idle runs
#   VMB_RESTARTS     short lives of each daemon on a small tree (default 16; 0 skips)
#   VMB_SCAN=1       cold scans of the first tree in each stat order, du and
#                    our scanner (needs $BUILD/bench/scan-orders)
#   VMB_SCAN_WAYS    which of them, comma-separated (default
#                    readdir,dents,dirino,global,du,tool; chunkN: N directories
#                    at a time, each N's files in one inode order)
#   VMB_OURS_CONF    directives added to our daemon's configuration, separated
#                    by ';' (for example "cull_early 0")
#   VMB_OURS_ARGS    options added to our daemon's command line (such as -d)
#   VMB_STRACE=1     run the daemons under strace -f (debugging only)
#   VMB_PERF=1       profile each cull round with the host's perf (debugging
#                    only): vmb-cull-*.perf.txt beside the results;
#                    VMB_PERF=all profiles the whole guest instead (kernel
#                    threads and idle too: where a round waits)
#   VMB_SCHED=1      keep the guest's task switches in each round's .trace:
#                    awk -f bench/vm-sched-split.awk splits a round's CPU time
#                    by task (debugging only; tracing costs a little CPU)
#   VMB_LIMIT        seconds a cull round may take before it counts as failed (300)
#   VM_WORK          work directory (default $BUILD/vm-bench)
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
BUILD=${BUILD:-build}
VM_HERE=$TOP/tests/vm
case $BUILD in
/*) B=$BUILD ;;
*)  B=$TOP/$BUILD ;;
esac
VM_WORK=${VM_WORK:-$B/vm-bench}
CACHEFILESD=${CACHEFILESD:-$B/cachefilesd}
CFSIM=${CFSIM:-$B/tests/cfsim}
GEN=${VMB_GEN:-$B/bench/vm-gen}
COUNTS=${VMB_COUNTS:-200000}
SIZE=${VMB_SIZE:-4-16}
FILL=${VMB_FILL:-6}
DIRINDEX=${VMB_DIRINDEX:-1}
RESTART=${VMB_RESTART:-1}
RUNS=${VMB_RUNS:-1}
NCOUNTS=$(echo $COUNTS | wc -w)
LIMIT=${VMB_LIMIT:-300}
DAEMONS=${VMB_DAEMONS:-historical ours floor}
export VM_HERE VM_WORK CACHEFILESD CFSIM
. "$VM_HERE/vm.sh"

say() { echo "# vm-vs-historical: $*" >&2; }
skip() { echo "bench=vm-cull skipped reason=\"$*\""; exit 0; }

mkdir -p "$VM_WORK"
vm_deps >/dev/null 2>&1 || true
why=$(vm_unusable)
[ -z "$why" ] || skip "QEMU cannot run here: $why"
[ -x "$CACHEFILESD" ] || skip "$CACHEFILESD not built"
[ -x "$GEN" ] || skip "$GEN not built (make BUILD=$BUILD $GEN)"
case $SIZE in
*[!0-9-]* | -* | *- | *-*-* | "") skip "VMB_SIZE=$SIZE: want MIN-MAX in KiB" ;;
*-*) MINKIB=${SIZE%-*} MAXKIB=${SIZE#*-} ;;
*) MINKIB=$SIZE MAXKIB=$SIZE ;;
esac
case $FILL in
[0-9] | [1-9][0-9]) ;;
*) skip "VMB_FILL=$FILL: want a percentage below 100" ;;
esac

# The historical daemon: Debian's package, unpacked, never installed.
hist_daemon() {
	h=$VM_WORK/historical
	[ -x "$h/root/sbin/cachefilesd" ] && return 0
	rm -rf "$h"; mkdir -p "$h"
	(cd "$h" && apt-get download cachefilesd >/dev/null 2>&1) || return 1
	dpkg-deb -x "$h"/cachefilesd_*.deb "$h/root" || return 1
	[ -x "$h/root/sbin/cachefilesd" ]
}
hist_daemon || skip "apt-get download cachefilesd failed"
HIST=$VM_WORK/historical/root/sbin/cachefilesd
HIST_VERSION=$(basename "$VM_WORK"/historical/cachefilesd_*.deb .deb | sed 's/^cachefilesd_//')

# image N: the pristine tree of N objects and its manifest (cached, keyed by
# the generator's source, the count, the sizes and the directory index).
image() {
	n=$1 tn=$(tree_name "$1")
	img=$VM_WORK/$tn.ext4 man=$VM_WORK/$tn.manifest
	stamp="$(cksum < "$TOP/bench/vm-gen.c") $n $MINKIB $MAXKIB dirindex=$DIRINDEX"
	[ -s "$img" ] && [ -s "$man" ] && [ "$(cat "$img.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	say "generating $n objects of $MINKIB-$MAXKIB KiB"
	t=$VM_WORK/$tn.d
	rm -rf "$t" "$img"; mkdir -p "$t"
	"$GEN" -s "$n" -m "$MINKIB" -k "$MAXKIB" "$t/c" "$n" "$man.tmp" || return 1
	# objects in 4 KiB blocks, plus a third for the filler and the limits,
	# plus inode tables (256 bytes an inode, three inodes an object)
	kib=$(awk '{ b += int(($2 + 4095) / 4096) } END { printf "%d", b * 4 * 4 / 3 + NR * 3 / 4 + 65536 }' "$man.tmp")
	mkfs.ext4 -F -q -b 4096 -I 256 -N $((n * 3 + 4096)) -d "$t" "$img" "${kib}K" || return 1
	# mkfs.ext4 -d writes each directory as a plain list, which the kernel
	# searches linearly at every lookup; a cache the kernel filled has a
	# hashed index in each directory of more than one block (dir_index is
	# on by default).  e2fsck -D builds those indexes.  Status 1: fixed.
	if [ "$DIRINDEX" = 1 ]; then
		e2fsck -fyD "$img" > /dev/null 2>&1
		[ $? -le 1 ] || return 1
	fi
	rm -rf "$t"
	mv "$man.tmp" "$man"
	echo "$stamp" > "$img.stamp"
}

# tree_name N: the image's name; the unindexed tree keeps its old name.
tree_name() {
	if [ "$DIRINDEX" = 1 ]; then echo "tree-$1-$MINKIB-$MAXKIB-dx"; else echo "tree-$1-$MINKIB-$MAXKIB"; fi
}

plan=
drives=
ndrive=1
letter() { echo abcdefghijklmnopqrstuvwxyz | cut -c"$1"; }
# add_drive IMAGE: one more virtio disk backed by IMAGE, copy-on-write.
add_drive() {
	ndrive=$((ndrive + 1))
	drives="$drives -drive file=$1,if=virtio,format=raw,snapshot=on,file.locking=off"
	DEV=vd$(letter "$ndrive")
}
plan="probe"
first=
for n in $COUNTS; do
	image "$n" || skip "could not generate the $n-object image"
	[ -n "$first" ] || first=$n
	r=1
	while [ "$r" -le "$RUNS" ]; do
		for who in $DAEMONS; do
			add_drive "$VM_WORK/$(tree_name "$n").ext4"
			plan="$plan
cull $DEV $who $n $LIMIT $FILL $RESTART $r"
		done
		r=$((r + 1))
	done
done
[ "${VMB_STRACE:-0}" = 1 ] && plan="strace
$plan"
case ${VMB_PERF:-0} in
1|all)
	command -v perf > /dev/null || skip "VMB_PERF=1 needs perf on the host (Debian package linux-perf)"
	plan="perf $VMB_PERF
$plan" ;;
esac
[ "${VMB_SCHED:-0}" = 1 ] && plan="sched
$plan"
if [ "${VMB_SCAN:-0}" = 1 ]; then
	[ -x "$B/bench/scan-orders" ] || skip "$B/bench/scan-orders not built"
	add_drive "$VM_WORK/$(tree_name "$first").ext4"
	plan="$plan
scan $DEV $first ${VMB_SCAN_WAYS:-}"
fi
[ "${VMB_IDLE:-1}" = 0 ] || for who in historical ours; do
	add_drive "$VM_WORK/$(tree_name "$first").ext4"
	plan="$plan
idle $DEV $who $first"
done
if [ "${VMB_RESTARTS:-16}" -gt 0 ]; then
	plan="$plan
restart historical ${VMB_RESTARTS:-16}
restart ours ${VMB_RESTARTS:-16}"
fi
if [ "${VMB_NOCULL:-1}" != 0 ]; then
	plan="$plan
nocull historical
nocull ours"
fi

vm_initramfs || skip "building the initramfs failed"
vm_data_share || skip "building the 9p data share failed"
# A second archive on top of the harness's: the guest script and the
# historical daemon (with what ldd lists).  The kernel unpacks both.
x=$VM_WORK/extra-root
rm -rf "$x"; mkdir -p "$x/vm"
cp "$TOP/bench/vm-guest.sh" "$x/vm/s-vmbench.sh"
vm_put_program "$x" "$HIST" /usr/sbin/cachefilesd-hist
[ "${VMB_STRACE:-0}" = 1 ] && vm_put_program "$x" "$(command -v strace)" /usr/bin/strace
[ "${VMB_PERF:-0}" != 0 ] && vm_put_program "$x" "$(command -v perf)" /usr/bin/perf
[ "${VMB_SCAN:-0}" = 1 ] && vm_put_program "$x" "$B/bench/scan-orders" /usr/bin/scan-orders
case " $DAEMONS " in
*" alt "*)
	[ -x "${VMB_ALT:-}" ] || skip "VMB_DAEMONS names alt but VMB_ALT is no program"
	vm_put_program "$x" "$VMB_ALT" /usr/sbin/cachefilesd-alt ;;
esac
case " $DAEMONS " in
*" floor "*)
	[ -x "$B/bench/vm-floor" ] || skip "$B/bench/vm-floor not built"
	vm_put_program "$x" "$B/bench/vm-floor" /usr/bin/vm-floor ;;
esac
# The time back above brun, to 10 ms (the guest script polls every half
# second without it).
[ -x "$B/bench/vm-watch" ] || skip "$B/bench/vm-watch not built (make BUILD=... $B/bench/vm-watch)"
vm_put_program "$x" "$B/bench/vm-watch" /usr/bin/vm-watch
(cd "$x" && find . | cpio -o -H newc --quiet) > "$VM_WORK/extra.cpio" || skip "cpio failed"
cat "$VM_WORK/initramfs.cpio" "$VM_WORK/extra.cpio" > "$VM_WORK/bench-initramfs.cpio"

bd=$VM_WORK/boot
rm -rf "$bd"; mkdir -p "$bd/out"
echo "$plan" > "$bd/out/bench-plan"
printf '%s\n' "${VMB_OURS_CONF:-}" | tr ';' '\n' > "$bd/out/ours-extra.conf"
printf '%s\n' "${VMB_ALT_CONF:-}" | tr ';' '\n' > "$bd/out/alt-extra.conf"
printf '%s\n' "${VMB_OURS_ARGS:-}" > "$bd/out/ours-args"
echo "vmbench $((LIMIT * 4 * NCOUNTS * RUNS * (RESTART + 1) + 900))" > "$bd/out/plan"
truncate -s 64M "$bd/cache.img"
mkfs.ext4 -F -q "$bd/cache.img" || skip "mkfs failed"
accel=$(vm_accel)
case $accel in
kvm) acc="-accel kvm" ;;
*)   acc="-accel tcg" ;;
esac
say "host load before: $(cut -d' ' -f1-3 /proc/loadavg)"
say "booting ($accel, ${VMB_SMP:-1} vCPU, kernel $(vm_kver)); plan: $(echo "$plan" | tr '\n' ';')"
# The same QEMU command as vm_boot in tests/vm/vm.sh, with our disks added
# (vm_boot makes one fresh 64 MiB disk and takes no others).
t0=$(date +%s)
timeout -k 5 $((LIMIT * 4 * NCOUNTS * RUNS * (RESTART + 1) + 1000)) qemu-system-x86_64 $acc $(vm_machine) \
	-m "$VM_MEM" -smp "${VMB_SMP:-1}" -nodefaults -no-reboot -display none -serial stdio \
	-kernel "/boot/vmlinuz-$(vm_kver)" -initrd "$VM_WORK/bench-initramfs.cpio" \
	-append "console=ttyS0 rdinit=/init panic=-1 quiet" \
	-drive "file=$bd/cache.img,if=virtio,format=raw" $drives \
	-virtfs "local,path=$VM_WORK/data,mount_tag=data,security_model=none,readonly=on" \
	-virtfs "local,path=$bd/out,mount_tag=out,security_model=none" \
	< /dev/null > "$bd/console.log" 2>&1
qrc=$?
say "host load after: $(cut -d' ' -f1-3 /proc/loadavg)"
say "QEMU status $qrc after $(( $(date +%s) - t0 ))s; results in $bd/out"
sh "$TOP/bench/vm-report.sh" "$bd/out" "$VM_WORK" "$accel vcpus=${VMB_SMP:-1} dirindex=$DIRINDEX" \
	"$HIST_VERSION" "$MINKIB-$MAXKIB" "$([ "$DIRINDEX" = 1 ] && echo -dx)"
