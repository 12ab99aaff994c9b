# SPDX-License-Identifier: GPL-2.0-or-later
# Harness self-test: the guest runs, sees the device, the disk and the share,
# and can run the dynamically linked programs under test.
. /vm/glib.sh
test -c /dev/cachefiles; verdict $? "guest has /dev/cachefiles"
grep -q ' /fs ext4 ' /proc/mounts; verdict $? "guest has the ext4 cache disk"
share_mount && ls $DATA/small > /dev/null && share_umount; verdict $? "guest mounts the 9p share with cache=fscache"
$CFD -h > /tmp/h.txt 2>&1; rc=$?; [ $rc -le 2 ] && [ -s /tmp/h.txt ]; verdict $? "cachefilesd runs in the guest (status $rc)"
head -3 /tmp/h.txt >&2
cat /proc/fs/fscache/caches >&2
