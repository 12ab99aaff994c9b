#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Empty directories below DIR/cache (what the kernel leaves of a volume
# whose objects are gone: the volume's directory and its 256 fan-outs)
# are removed as the daemon's scan finds them, with no object culled for
# it; a fan-out holding objects, a directory the scan does not enter, and
# empty directories outside DIR/cache (reached through a symlink or not)
# stay.  0.10.10 removed them too: a cache short of files needs those
# inodes back.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
now=$(date +%s)
# 40 objects in v1 (fan-outs @00 to @27); three empty volumes.
cull_objects v1 40 4 $((now - 10 * 86400)) 600
for v in e1 e2 e3; do
	i=0
	while [ $i -lt 256 ]; do mkdir -p "$SIM_DIR/cache/I$v/$(printf '@%02x' $i)"; i=$((i + 1)); done
done
mkdir -p "$SIM_DIR/cache/Xforeign/empty" "$SIM_FS/outside/@00" "$SIM_DIR/elsewhere"
ln -s "$SIM_FS/outside" "$SIM_DIR/cache/Ilinked"
sim_start
sim_config
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
check "the scan finishes" cull_wait_scan 10
# 3 x 257 for the empty volumes, and v1's 216 empty fan-outs.
check_grep "the scan says how many went" 'scan: 987 empty directories removed' "$DAEMON_LOG"
check "the empty volumes are gone" sh -c "! ls -d '$SIM_DIR'/cache/Ie* 2>/dev/null"
check_eq "every object is still there" 40 "$(cull_survivors v1 40 | wc -l)"
check_eq "v1 keeps the fan-outs that hold objects, and itself" 40 \
	"$(ls "$SIM_DIR/cache/Iv1" | wc -l)"
check_eq "no object culled for it" 0 "$(sim_state cull_files)"
check "a directory the scan does not enter stays" test -d "$SIM_DIR/cache/Xforeign/empty"
check "an empty directory outside, behind a symlink, stays" test -d "$SIM_FS/outside/@00"
check "the symlink stays" test -L "$SIM_DIR/cache/Ilinked"
check "an empty directory beside DIR/cache stays" test -d "$SIM_DIR/elsewhere"
check "DIR/cache and DIR/graveyard stay" test -d "$SIM_DIR/cache" -a -d "$SIM_DIR/graveyard"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
