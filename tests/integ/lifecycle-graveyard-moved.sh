#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# DIR/graveyard moved away (and another made in its place) while the
# daemon runs: what arrives in the moved one is not removed there, and the
# daemon exits with status 1, since the kernel would go on burying the
# directories it retires in the moved one, where nothing empties them.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config
GY=$SIM_DIR/graveyard
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
mkdir -p "$SIM_FS/elsewhere"
mv "$GY" "$SIM_FS/elsewhere/oldgy"
mkdir "$GY"
mkdir "$SIM_FS/elsewhere/oldgy/precious-dir"
echo data >"$SIM_FS/elsewhere/oldgy/precious-dir/file"
echo data >"$SIM_FS/elsewhere/oldgy/precious-file"
check "the daemon stops" daemon_wait_exit 10
check_eq "exit status 1" 1 "$DAEMON_STATUS"
check_grep "and says why" 'graveyard.* is no longer the directory opened at start' "$DAEMON_LOG"
check "a file that arrived in the moved graveyard survives" \
    test -e "$SIM_FS/elsewhere/oldgy/precious-file"
check "a tree that arrived there survives" test -e "$SIM_FS/elsewhere/oldgy/precious-dir/file"
check_no_grep "no violation" VIOLATION "$SIM_LOG"
tap_done
