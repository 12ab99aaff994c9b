# SPDX-License-Identifier: GPL-2.0-or-later
# Host side of the VM harness, sourced by tests/vm/run.sh and tests/vm/demo.sh.
#
# It boots Debian's own kernel (linux-image-amd64) under QEMU with a small
# initramfs: static busybox, the ext4/virtio/9p/netfs/fscache/cachefiles
# modules, our /init and guest scripts, and the binaries under test with every
# shared library ldd names (so sanitizer builds run too).  The guest sees
#   /dev/vda      a fresh ext4 image that holds the caches (mounted at /fs)
#   9p "data"     a read-only host directory, mounted with cache=fscache
#   9p "out"      a read-write host directory for plans and results (/out)
#
# Variables read: VM_WORK (work directory), VM_ACCEL (kvm|tcg, else probed),
# VM_KVER (kernel version, default the newest with a vmlinuz), CACHEFILESD, CFSIM,
# CFCTL (the control-socket test client).

# Defaults for the callers, which source this file from the top directory.
TOP=${TOP:-$PWD}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
VM_HERE=${VM_HERE:-$TOP/tests/vm}
VM_WORK=${VM_WORK:-$BUILD/vm}
CACHEFILESD=${CACHEFILESD:-$BUILD/cachefilesd}
CFSIM=${CFSIM:-$BUILD/tests/cfsim}
CFCTL=${CFCTL:-$BUILD/tests/cfctl}
export VM_HERE VM_WORK CACHEFILESD CFSIM CFCTL
VM_MODULES="virtio_pci virtio_blk crc32c_generic ext4 cachefiles 9pnet_virtio 9p"
VM_MEM=${VM_MEM:-1024}

vm_log() { echo "vm: $*" >&2; }

# Packages the harness needs; installed with apt-get when missing (as root).
vm_deps() {
	need=
	command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$need qemu-system-x86"
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || need="$need busybox-static"
	command -v cpio >/dev/null 2>&1 || need="$need cpio"
	command -v mkfs.ext4 >/dev/null 2>&1 || need="$need e2fsprogs"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || need="$need linux-image-amd64"
	[ -z "$need" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		vm_log "missing packages:$need (not root, cannot install)"
		return 1
	fi
	vm_log "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$need >/dev/null 2>&1 || { vm_log "apt-get install$need failed"; return 1; }
}

# Newest kernel that has both an image and its modules.
vm_kver() {
	if [ -n "${VM_KVER:-}" ]; then echo "$VM_KVER"; return; fi
	for k in $(ls /lib/modules 2>/dev/null | sort -rV); do
		if [ -f "/boot/vmlinuz-$k" ] && [ -f "/lib/modules/$k/modules.dep" ]; then
			echo "$k"; return
		fi
	done
}

# Why QEMU cannot run at all here, or nothing when it can.
vm_unusable() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "qemu-system-x86_64 not installed"; return; }
	[ -n "$(vm_kver)" ] || { echo "no kernel with modules in /boot and /lib/modules"; return; }
	[ -r "/boot/vmlinuz-$(vm_kver)" ] || { echo "/boot/vmlinuz-$(vm_kver) not readable"; return; }
	[ -x /bin/busybox ] || { echo "busybox-static not installed"; return; }
	command -v cpio >/dev/null 2>&1 || { echo "cpio not installed"; return; }
}

# Copy FILE into root R at the same path (dereferencing symlinks).
vm_put() {
	mkdir -p "$1$(dirname "$2")"
	cp -L "$2" "$1$2"
}

# Copy a dynamically linked program to R/DEST with the loader and every library.
vm_put_program() {
	r=$1 src=$2 dest=$3
	mkdir -p "$r$(dirname "$dest")"
	cp -L "$src" "$r$dest"
	chmod 755 "$r$dest"
	# "name => /path (addr)", "/lib64/ld-linux-x86-64.so.2 (addr)", "linux-vdso.so.1 (addr)"
	ldd "$src" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$r$lib" ] || vm_put "$r" "$lib"
	done
}

# The constant part of the initramfs: busybox, modules (order from
# modules.dep: dependencies right to left, then the module).  Cached.
vm_base_cpio() {
	kver=$(vm_kver)
	out=$VM_WORK/base-$kver.cpio
	[ -s "$out" ] && [ "$out" -nt /bin/busybox ] && [ "$out" -nt "$VM_HERE/vm.sh" ] && return 0
	md=/lib/modules/$kver
	r=$VM_WORK/base-root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/sbin" "$r/lib/modules" "$r/proc" "$r/sys" "$r/dev" \
		"$r/tmp" "$r/run" "$r/fs" "$r/data" "$r/out" "$r/etc"
	cp /bin/busybox "$r/bin/busybox"
	ln -s busybox "$r/bin/sh"
	: > "$VM_WORK/modlist"
	for m in $VM_MODULES; do
		pat=$(echo "$m" | sed 's/[-_]/[-_]/g')
		line=$(grep -E "/$pat\.ko(\.xz|\.zst|\.gz)?:" "$md/modules.dep") ||
			{ vm_log "module $m not in $md/modules.dep"; return 1; }
		rev=
		for d in ${line#*:}; do rev="$d $rev"; done
		for f in $rev ${line%%:*}; do
			grep -qxF "$f" "$VM_WORK/modlist" || echo "$f" >> "$VM_WORK/modlist"
		done
	done
	while read -r f; do
		b=${f##*/}
		case $b in
		*.ko.xz)  xz -dc "$md/$f" > "$r/lib/modules/${b%.xz}"; b=${b%.xz} ;;
		*.ko.zst) zstd -qdc "$md/$f" > "$r/lib/modules/${b%.zst}"; b=${b%.zst} ;;
		*.ko.gz)  gzip -dc "$md/$f" > "$r/lib/modules/${b%.gz}"; b=${b%.gz} ;;
		*)        cp "$md/$f" "$r/lib/modules/$b" ;;
		esac
		echo "$b" >> "$r/lib/modules/order"
	done < "$VM_WORK/modlist"
	printf 'root:x:0:0:root:/:/bin/sh\n' > "$r/etc/passwd"
	printf 'root:x:0:\n' > "$r/etc/group"
	(cd "$r" && find . | cpio -o -H newc --quiet) > "$out.tmp" && mv "$out.tmp" "$out"
}

# The part that changes with every build: /init, guest scripts, the programs
# under test and their libraries.  The kernel unpacks concatenated archives.
vm_initramfs() {
	mkdir -p "$VM_WORK"
	vm_base_cpio || return 1
	r=$VM_WORK/top-root
	rm -rf "$r"
	mkdir -p "$r/vm" "$r/usr/sbin" "$r/usr/bin"
	cp "$VM_HERE/init.sh" "$r/init"
	chmod 755 "$r/init"
	cp "$VM_HERE"/guest/*.sh "$r/vm/"
	if [ -n "${CACHEFILESD:-}" ] && [ -x "$CACHEFILESD" ]; then
		vm_put_program "$r" "$CACHEFILESD" /usr/sbin/cachefilesd
	fi
	if [ -n "${CFSIM:-}" ] && [ -x "$CFSIM" ]; then
		vm_put_program "$r" "$CFSIM" /usr/bin/cfsim
	fi
	[ -x /usr/bin/setpriv ] && vm_put_program "$r" /usr/bin/setpriv /usr/bin/setpriv
	# e2fsprogs' chattr, for the hostile scenario's immutable object.
	[ -x /usr/bin/chattr ] && vm_put_program "$r" /usr/bin/chattr /usr/bin/chattr
	# The culling tool, for the tool scenario.
	if [ -x "${CULLTOOL:-$BUILD/cachefiles-cull}" ]; then
		vm_put_program "$r" "${CULLTOOL:-$BUILD/cachefiles-cull}" /usr/sbin/cachefiles-cull
	fi
	if [ -n "${CFCTL:-}" ] && [ -x "$CFCTL" ]; then
		vm_put_program "$r" "$CFCTL" /usr/bin/cfctl
	fi
	if [ -f "$VM_HERE/../../config/cachefilesd.conf" ]; then
		cp "$VM_HERE/../../config/cachefilesd.conf" "$r/vm/shipped.conf"
	fi
	(cd "$r" && find . | cpio -o -H newc --quiet) > "$VM_WORK/top.cpio" || return 1
	cat "$VM_WORK/base-$(vm_kver).cpio" "$VM_WORK/top.cpio" > "$VM_WORK/initramfs.cpio"
}

# Files read through 9p: groups of 512 KiB objects plus a few small ones.
vm_data_share() {
	d=$VM_WORK/data
	layout="old 8, new 16, busy 8 of 512 KiB; small 16; demo 40 of 384 KiB"
	[ "$(cat "$d/.complete" 2>/dev/null)" = "$layout" ] && return 0
	rm -rf "$d"
	mkdir -p "$d/old" "$d/new" "$d/busy" "$d/small" "$d/demo"
	i=0
	while [ $i -lt 16 ]; do
		n=$(printf %02d $i)
		[ $i -lt 8 ] && head -c 524288 /dev/urandom > "$d/old/$n.bin"
		head -c 524288 /dev/urandom > "$d/new/$n.bin"
		[ $i -lt 8 ] && head -c 524288 /dev/urandom > "$d/busy/$n.bin"
		echo "small file $n" > "$d/small/$n.txt"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 40 ]; do
		head -c 393216 /dev/urandom > "$d/demo/$(printf %02d $i).bin"
		i=$((i + 1))
	done
	echo "$layout" > "$d/.complete"
}

vm_machine() {
	m="-machine q35"
	[ -f /usr/share/qemu/qboot.rom ] && m="$m -bios /usr/share/qemu/qboot.rom"
	echo "$m"
}

# KVM when it really boots a guest, TCG otherwise.  /dev/kvm existing is not
# enough: nested or paravirtual KVM may abort QEMU or hang the firmware, so
# a short probe boot decides; the answer is cached in the work directory.
vm_accel() {
	if [ -n "${VM_ACCEL:-}" ]; then echo "$VM_ACCEL"; return; fi
	if [ -f "$VM_WORK/accel" ]; then cat "$VM_WORK/accel"; return; fi
	a=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		p=$VM_WORK/kvm-probe
		rm -rf "$p"; mkdir -p "$p/out"
		echo "noop 10" > "$p/out/plan"
		if (VM_ACCEL=kvm; vm_boot "$p" 40) >/dev/null 2>&1 && [ -f "$p/out/done" ]; then
			a=kvm
		fi
	fi
	echo "$a" > "$VM_WORK/accel"
	echo "$a"
}

# vm_boot BOOTDIR TIMEOUT: boot once.  BOOTDIR/out/plan lists "scenario
# seconds" lines; results appear in BOOTDIR/out; the serial console goes to
# BOOTDIR/console.log (or to stdout when VM_CONSOLE=stdout).  Returns QEMU's
# status (124 on time-out).
vm_boot() {
	bd=$1 limit=$2
	mkdir -p "$bd/out"
	rm -f "$bd/cache.img"
	truncate -s 64M "$bd/cache.img"
	mkfs.ext4 -F -q "$bd/cache.img" || return 1
	case $(vm_accel) in
	kvm) acc="-accel kvm" ;;
	*)   acc="-accel tcg" ;;
	esac
	set -- timeout -k 5 "$limit" qemu-system-x86_64 $acc $(vm_machine) \
		-m "$VM_MEM" -smp 1 -nodefaults -no-reboot -display none -serial stdio \
		-kernel "/boot/vmlinuz-$(vm_kver)" -initrd "$VM_WORK/initramfs.cpio" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet" \
		-drive "file=$bd/cache.img,if=virtio,format=raw" \
		-virtfs "local,path=$VM_WORK/data,mount_tag=data,security_model=none,readonly=on" \
		-virtfs "local,path=$bd/out,mount_tag=out,security_model=none"
	if [ "${VM_CONSOLE:-}" = stdout ]; then
		"$@" < /dev/null 2>&1
	else
		"$@" < /dev/null > "$bd/console.log" 2>&1
	fi
}
