#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /init of the test VM (PID 1, busybox sh).  Loads the modules, mounts the
# cache disk at /fs and the results share at /out, then runs each line
# "SCENARIO SECONDS" of /out/plan as /vm/s-SCENARIO.sh under a time limit:
# stdout (TAP) to /out/SCENARIO.tap, stderr to /out/SCENARIO.log.  Between
# scenarios it cleans up what a failed one may have left behind.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "VM[$(up)] $*"; }

for m in $(cat /lib/modules/order); do
	insmod "/lib/modules/$m" || say "insmod $m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none out /out || say "mount /out failed"
mount -t ext4 /dev/vda /fs || say "mount /fs failed"
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
ln -sf /proc/self/fd /dev/fd 2>/dev/null
ip link set lo up 2>/dev/null
say "kernel $(uname -r) ready, modules loaded"

# Kill what a scenario started (the scenario records pids in /tmp/pids).
cleanup() {
	if [ -f /tmp/pids ]; then
		for p in $(cat /tmp/pids); do kill -9 "$p" 2>/dev/null; done
		rm -f /tmp/pids
	fi
	sleep 0.2
	while grep -q ' /data ' /proc/mounts; do umount /data 2>/dev/null || umount -l /data; done
}

if [ -f /out/plan ]; then
	while read -r name secs; do
		[ -n "$name" ] || continue
		say "scenario $name: start (limit ${secs}s)"
		t0=$(up)
		if [ "$name" = noop ]; then
			echo "ok - noop" > /out/noop.tap
			rc=0
		else
			timeout -s KILL "$secs" sh "/vm/s-$name.sh" > "/out/$name.tap" 2> "/out/$name.log" </dev/null
			rc=$?
		fi
		cleanup
		echo "$rc $t0 $(up)" > "/out/$name.rc"
		say "scenario $name: exit $rc"
		sync
	done < /out/plan
fi

dmesg > /out/dmesg.txt
touch /out/done
sync
umount /fs 2>/dev/null
umount /out
say "power off"
poweroff -f
echo o > /proc/sysrq-trigger
sleep 10
