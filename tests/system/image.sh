# SPDX-License-Identifier: GPL-2.0-or-later
# Host side of the system layer, sourced by tests/system/run.sh: the cached
# Debian 12 root filesystem images and the QEMU boot.
#
# Two cached layers under $SYS_WORK ($BUILD/system):
#   base-HASH.tar   mmdebstrap --variant=minbase with tests/system/packages;
#                   HASH covers the package list and the options, so a
#                   changed list builds a new tarball (about 30 s).
#   root-HASH.img   the tarball unpacked, the kernel's modules that the
#                   scenarios need, the project's .deb installed with dpkg -i,
#                   the harness unit, fstab; made into ext4 with mkfs.ext4 -d.
#                   HASH covers the base hash, the .deb, the kernel version and
#                   the files of tests/system/image/ (about 20 s).
# The scenarios themselves travel on the 9p share at each boot, so editing
# them rebuilds nothing.

SYS_HERE=${SYS_HERE:-$TOP/tests/system}
SYS_WORK=${SYS_WORK:-$BUILD/system}
SYS_SUITE=${SYS_SUITE:-bookworm}

sys_log() { echo "system: $*" >&2; }

sys_hash() { sha256sum | cut -c1-16; }

# sys_packages [selinux]: the package list of the image (flavour).
sys_packages() {
	{ cat "$SYS_HERE/packages"; cat "$SYS_HERE/packages-${1:-apparmor}"; } |
		grep -v '^#' | grep . | paste -sd, -
}

# Why the layer cannot run here, or nothing.
sys_unusable() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "qemu-system-x86_64 not installed"; return; }
	command -v mmdebstrap >/dev/null 2>&1 || { echo "mmdebstrap not installed"; return; }
	command -v mkfs.ext4 >/dev/null 2>&1 || { echo "e2fsprogs not installed"; return; }
	[ "$(id -u)" = 0 ] || { echo "building the root filesystem needs root (chroot, dpkg -i, file owners)"; return; }
	k=$(sys_kver)
	[ -n "$k" ] || { echo "no kernel with vmlinuz, initrd.img and modules"; return; }
}

# Newest Debian kernel with an image, an initramfs and its modules.
sys_kver() {
	if [ -n "${SYS_KVER:-}" ]; then echo "$SYS_KVER"; return; fi
	for k in $(ls /lib/modules 2>/dev/null | sort -rV); do
		if [ -r "/boot/vmlinuz-$k" ] && [ -r "/boot/initrd.img-$k" ] &&
		   [ -f "/lib/modules/$k/modules.dep" ]; then
			echo "$k"; return
		fi
	done
}

sys_deps() {
	need=
	command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
	command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$need qemu-system-x86"
	command -v mkfs.ext4 >/dev/null 2>&1 || need="$need e2fsprogs"
	[ -z "$need" ] && return 0
	[ "$(id -u)" = 0 ] || return 1
	sys_log "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$need >/dev/null 2>&1 || { sys_log "apt-get install$need failed"; return 1; }
}

# sys_base [FLAVOUR]: the cached mmdebstrap tarball; prints its path.
sys_base() {
	fl=${1:-apparmor}
	h=$( (echo "$SYS_SUITE minbase"; sys_packages "$fl") | sys_hash)
	t=$SYS_WORK/base-$fl-$h.tar
	if [ ! -s "$t" ]; then
		sys_log "mmdebstrap $SYS_SUITE for $fl (package list changed or first run)"
		rm -f "$SYS_WORK"/base-$fl-*.tar
		nice mmdebstrap --quiet --format=tar --variant=minbase --include="$(sys_packages "$fl")" \
			"$SYS_SUITE" "$t.tmp" >"$SYS_WORK/mmdebstrap.log" 2>&1 ||
			{ sys_log "mmdebstrap failed: $(tail -3 "$SYS_WORK/mmdebstrap.log")"; rm -f "$t.tmp"; return 1; }
		mv "$t.tmp" "$t"
	fi
	echo "$t"
}

# The modules the guest loads itself (the host's initrd brings virtio_blk
# and ext4 for the root disk): the directories that hold cachefiles, netfs,
# 9p, virtio and their dependencies.  depmod runs in the image.
SYS_MODDIRS="kernel/fs kernel/net/9p kernel/drivers/virtio kernel/drivers/block kernel/lib kernel/crypto kernel/arch kernel/drivers/char"

# sys_image DEB [FLAVOUR [PP]]: the cached root image for this .deb;
# prints its path.  FLAVOUR selinux: the policy packages too, the module PP
# loaded with semodule at priority 400, the tree labelled with setfiles.
sys_image() {
	deb=$1 fl=${2:-apparmor} pp=${3:-}
	base=$(sys_base "$fl") || return 1
	kver=$(sys_kver)
	h=$( (echo "$base $kver"; sha256sum "$deb" | cut -d' ' -f1;
	      [ -n "$pp" ] && sha256sum "$pp" | cut -d' ' -f1;
	      cat "$SYS_HERE"/image/* "$SYS_HERE"/selinux/* "$SYS_HERE"/image.sh) | sys_hash)
	img=$SYS_WORK/root-$fl-$h.img
	[ -s "$img" ] && { echo "$img"; return 0; }
	sys_log "building root image $img"
	rm -f "$SYS_WORK"/root-$fl-*.img
	r=$SYS_WORK/rootdir
	rm -rf "$r"; mkdir -p "$r"
	tar -C "$r" --numeric-owner --xattrs --xattrs-include='*' -xpf "$base" || return 1
	md=/lib/modules/$kver
	mkdir -p "$r$md"
	for d in $SYS_MODDIRS; do
		[ -d "$md/$d" ] || continue
		mkdir -p "$r$md/$(dirname "$d")"
		cp -a "$md/$d" "$r$md/$(dirname "$d")/"
	done
	cp -a "$md"/modules.order "$md"/modules.builtin* "$r$md/" 2>/dev/null
	depmod -b "$r" "$kver" || return 1
	# The package under test, as an administrator installs it.
	cp "$deb" "$r/tmp/cachefilesd.deb"
	chroot "$r" dpkg -i /tmp/cachefilesd.deb >"$SYS_WORK/dpkg-i.log" 2>&1 ||
		{ sys_log "dpkg -i failed: $(tail -5 "$SYS_WORK/dpkg-i.log")"; return 1; }
	rm -f "$r/tmp/cachefilesd.deb"
	cp "$deb" "$r/root/cachefilesd.deb"	# for the reinstall after dpkg -P
	# The harness: a unit that runs the scenarios from the share, fstab.
	install -m 0755 "$SYS_HERE/image/cfsys-harness" "$r/usr/local/sbin/cfsys-harness"
	install -m 0644 "$SYS_HERE/image/cfsys-harness.service" "$r/etc/systemd/system/"
	ln -sf /etc/systemd/system/cfsys-harness.service \
		"$r/etc/systemd/system/multi-user.target.wants/cfsys-harness.service"
	install -m 0644 "$SYS_HERE/image/fstab" "$r/etc/fstab"
	mkdir -p "$r/out" "$r/data" "$r/srv/fscache"
	echo cfsys > "$r/etc/hostname"
	# Nothing that runs on a timer or waits for a terminal during the boot.
	for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	         fstrim.timer getty@tty1.service serial-getty@ttyS0.service \
	         systemd-timesyncd.service dpkg-db-backup.timer; do
		ln -sf /dev/null "$r/etc/systemd/system/$u"
	done
	# No network in the guest: apt reads only the local files it is given
	# (autopkgtest's own repository of the .deb).  man-db's index is not
	# rebuilt at each dpkg -i (minutes under TCG); man -w needs no index.
	: > "$r/etc/apt/sources.list"
	rm -f "$r/var/lib/man-db/auto-update"
	# Root without a password would only matter on a console nobody uses.
	sed -i 's/^root:[^:]*:/root:*:/' "$r/etc/shadow"
	if [ "$fl" = selinux ]; then
		cp "$pp" "$r/tmp/cachefilesd.pp"
		# The harness's permissive domain (tests/system/selinux/).
		t=$SYS_WORK/cfsystest
		rm -rf "$t"; mkdir -p "$t"
		cp "$SYS_HERE"/selinux/cfsystest.* "$t/"
		make -s -C "$t" -f /usr/share/selinux/devel/Makefile cfsystest.pp >"$SYS_WORK/selinux.log" 2>&1 ||
			{ sys_log "the harness module does not build: $(tail -3 "$SYS_WORK/selinux.log")"; return 1; }
		cp "$t/cfsystest.pp" "$r/tmp/"
		# setfiles labels through /proc/self/fd: it needs /proc in the chroot.
		mount -t proc proc "$r/proc" || return 1
		{ chroot "$r" semodule -n -X 400 -i /tmp/cachefilesd.pp &&
		  chroot "$r" semodule -n -i /tmp/cfsystest.pp &&
		  sed -i 's/^SELINUX=.*/SELINUX=enforcing/' "$r/etc/selinux/config" &&
		  chroot "$r" setfiles -F -e /proc /etc/selinux/default/contexts/files/file_contexts / ; } \
			>>"$SYS_WORK/selinux.log" 2>&1
		rc=$?
		umount "$r/proc"
		[ $rc = 0 ] || { sys_log "semodule/setfiles failed: $(tail -5 "$SYS_WORK/selinux.log")"; return 1; }
		rm -f "$r/tmp/cachefilesd.pp" "$r/tmp/cfsystest.pp"
	fi
	nice mkfs.ext4 -q -F -L cfsys-root -d "$r" "$img.tmp" 1536M >"$SYS_WORK/mkfs.log" 2>&1 ||
		{ sys_log "mkfs.ext4 -d failed: $(tail -3 "$SYS_WORK/mkfs.log")"; rm -f "$img.tmp"; return 1; }
	mv "$img.tmp" "$img"
	rm -rf "$r"
	echo "$img"
}

# sys_boot IMG BOOTDIR TIMEOUT LSM: boot IMG (snapshot=on: writes are thrown away) with
# systemd as PID 1 and the given LSM command line; BOOTDIR/out is the 9p
# share "out" (guest.sh goes in, TAP and logs come out), BOOTDIR/console.log
# the serial console.  Returns QEMU's status (124 on time-out).
sys_boot() {
	img=$1 bd=$2 limit=$3 lsm=$4
	mkdir -p "$bd/out"
	rm -f "$bd/cache.img" "$bd/alt.img"
	truncate -s 64M "$bd/cache.img" && mkfs.ext4 -F -q -L fscache "$bd/cache.img" || return 1
	truncate -s 64M "$bd/alt.img" && mkfs.ext4 -F -q -L altcache "$bd/alt.img" || return 1
	kver=$(sys_kver)
	m="-machine q35"
	[ -f /usr/share/qemu/qboot.rom ] && m="$m -bios /usr/share/qemu/qboot.rom"
	timeout -k 5 "$limit" nice qemu-system-x86_64 -accel tcg $m -m 1024 -smp 1 \
		-nodefaults -no-reboot -display none -serial stdio \
		-kernel "/boot/vmlinuz-$kver" -initrd "/boot/initrd.img-$kver" \
		-append "root=/dev/vda rw init=/lib/systemd/systemd console=ttyS0 panic=-1 $lsm systemd.show_status=0 loglevel=4" \
		-drive "file=$img,if=virtio,format=raw,snapshot=on" \
		-drive "file=$bd/cache.img,if=virtio,format=raw" \
		-drive "file=$bd/alt.img,if=virtio,format=raw" \
		-virtfs "local,path=$SYS_WORK/data,mount_tag=data,security_model=none,readonly=on" \
		-virtfs "local,path=$bd/out,mount_tag=out,security_model=none" \
		< /dev/null > "$bd/console.log" 2>&1
}

# Files read through 9p with cache=fscache: 24 objects of 512 KiB in two
# generations and a few small ones.
sys_data() {
	d=$SYS_WORK/data
	layout="old 8, new 16 of 512 KiB; small 8"
	[ "$(cat "$d/.complete" 2>/dev/null)" = "$layout" ] && return 0
	rm -rf "$d"
	mkdir -p "$d/old" "$d/new" "$d/small"
	i=0
	while [ $i -lt 16 ]; do
		n=$(printf %02d $i)
		[ $i -lt 8 ] && head -c 524288 /dev/urandom > "$d/old/$n.bin"
		head -c 524288 /dev/urandom > "$d/new/$n.bin"
		[ $i -lt 8 ] && echo "small file $n" > "$d/small/$n.txt"
		i=$((i + 1))
	done
	echo "$layout" > "$d/.complete"
}

# Debian's cachefilesd 0.10.10, the version the package upgrades from:
# apt-get download on the host (as bench/vm-vs-historical.sh does), cached
# in $SYS_WORK/historical; the guest gets the file on its share and never
# downloads anything.  Prints its path; fails when apt has no 0.x version.
sys_historical() {
	h=$SYS_WORK/historical
	f=$(ls "$h"/cachefilesd_0.*.deb 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		mkdir -p "$h"
		(cd "$h" && apt-get download cachefilesd >"$h/download.log" 2>&1) || return 1
		f=$(ls "$h"/cachefilesd_0.*.deb 2>/dev/null | head -1)
	fi
	[ -n "$f" ] && echo "$f"
}
