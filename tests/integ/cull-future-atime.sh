#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An access time past 2554 (tmpfs and btrfs store one; 64 bits of
# nanoseconds end there) sorts as the newest object, not, wrapped around,
# as the oldest: the truly oldest objects go first and it stays.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "a far-future atime is the newest" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
cull_objects v1 100 32 $((now - 90 * 86400)) 60
future=$SIM_DIR/cache/Iv1/@00/Dfuture
head -c 32768 /dev/zero >"$future"
touch -a -d @20000000000 "$future"	# the year 2603
if [ "$(stat -c %X "$future")" != 20000000000 ]; then
	skip "a far-future atime is the newest" "the filesystem does not store an atime in 2603"
	exit 0
fi
sim_start
sim_config
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
check "the first scan ends" cull_wait_scan 10
brun=$(sim_state brun)
cull_fill 200
need=$(((brun - $(cull_bavail) + 7) / 8))
sim_ctl check >/dev/null
check "culling finishes" cull_wait_idle 30
check "the object used in 2603 is still there" test -e "$future"
check_eq "the oldest objects went first" "$need" "$(cull_survivors v1 100 | head -1)"
tap_done
