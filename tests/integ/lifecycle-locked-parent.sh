#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# DIR below a 0700 directory of another user, the tree itself root's: the
# checks by path before each cull batch and each graveyard removal need
# search rights there, so the daemon keeps CAP_DAC_READ_SEARCH (and only
# it), culls, and empties the graveyard, rather than taking the cache for
# moved away and exiting.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$(id -u)" != 0 ]; then
	skip "a cache below another user's 0700 directory" "needs root (chown, and the DAC capabilities to drop)"
	exit 0
fi
if [ "$SIM_TMPFS" != 1 ]; then
	skip "a cache below another user's 0700 directory" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
cull_objects v1 200 32 $((now - 60 * 86400)) 600
sim_start
sim_config
# Every path to DIR passes through $SIM_TMP: nobody's, 0700.
chown nobody "$SIM_TMP"; chmod 0700 "$SIM_TMP"
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound 5 || { not_ok "binds"; tap_done; exit; }
check "the scan finishes" cull_wait_scan 10
check_grep "CAP_DAC_READ_SEARCH alone is kept, and why" \
	'capabilities kept: cap_dac_read_search .a directory above the cache root cannot be searched' "$DAEMON_LOG"
check_eq "the daemon's effective set is CAP_DAC_READ_SEARCH alone" 0000000000000004 \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$DAEMON_PID/status")"
# A tree the kernel buried: emptied.
mkdir -p "$SIM_DIR/t/sub"; echo x >"$SIM_DIR/t/sub/f"
mv "$SIM_DIR/t" "$SIM_DIR/graveyard/0000000100000001"
check "the graveyard is emptied" wait_for 10 test ! -e "$SIM_DIR/graveyard/0000000100000001"
# Culling: the check of DIR/cache by path before each batch passes.
brun=$(sim_state brun)
cull_fill 100
sim_ctl check >/dev/null
check "culling finishes" cull_wait_idle 30
check "free blocks reached brun" test "$(cull_bavail)" -ge "$brun"
check "the daemon still runs" kill -0 "$DAEMON_PID"
check_no_grep "DIR/cache not taken for moved" 'no longer the cache directory' "$DAEMON_LOG"
check_no_grep "the graveyard's walk checked" 'cannot check that the walk' "$DAEMON_LOG"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
chown root "$SIM_TMP"
tap_done
