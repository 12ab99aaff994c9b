#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The graveyard's place cannot be checked for a while (a directory above
# DIR made unsearchable after the daemon dropped its DAC capabilities):
# the pass is given up and nothing removed meanwhile, and once the error
# is gone the buried tree is removed by a retry on a timer, without
# waiting for the kernel to bury something else (it may not for days);
# but an arrival meanwhile does not wait for that timer.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
if [ "$(id -u)" != 0 ]; then
	skip "the graveyard retried after an error" "needs root (chown, and the DAC capabilities to drop)"
	exit 0
fi
sim_start
sim_config
GY=$SIM_DIR/graveyard
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
check_grep "no capability kept (the test needs them dropped)" 'capabilities kept: none' "$DAEMON_LOG"
# The loop runs and its first pass is done: a "given up" below is the arrival's.
mkdir "$SIM_DIR/s"; mv "$SIM_DIR/s" "$GY/0000000100000000"
check "an arrival before the error is removed" wait_for 10 test ! -e "$GY/0000000100000000"
chown nobody "$SIM_TMP"; chmod 0700 "$SIM_TMP"		# the error begins
mkdir -p "$SIM_DIR/t/sub"; echo x >"$SIM_DIR/t/sub/f"
mv "$SIM_DIR/t" "$GY/0000000100000001"
check "the pass is given up, to be tried again" \
	wait_for 5 grep -q 'cannot check that the walk is still in the graveyard; tried again later' "$DAEMON_LOG"
check "nothing removed while the error lasts" test -e "$GY/0000000100000001/sub/f"
chown root "$SIM_TMP"					# and ends
check "the tree goes with the retry, nothing new buried" \
	wait_for 15 test ! -e "$GY/0000000100000001"
# Again, and this time something else is buried while the retry waits
# (5 s): the arrival starts a pass at once, which takes both.
chown nobody "$SIM_TMP"
mkdir "$SIM_DIR/u"; echo x >"$SIM_DIR/u/f"; mv "$SIM_DIR/u" "$GY/0000000100000002"
check "given up again" wait_for 5 sh -c \
	"[ \$(grep -c 'tried again later' '$DAEMON_LOG') -ge 2 ]"
chown root "$SIM_TMP"
mkdir "$SIM_DIR/v"; mv "$SIM_DIR/v" "$GY/0000000100000003"
check "an arrival does not wait for the retry's timer" \
	wait_for 3 sh -c "! ls -A '$GY' | grep -q ."
check "the daemon still runs" kill -0 "$DAEMON_PID"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
