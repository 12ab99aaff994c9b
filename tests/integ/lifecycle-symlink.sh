#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A dir that is a symbolic link: the kernel does not follow a final link at
# bind (ENOTDIR, modelled by the simulator), so the daemon binds the target.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
notify_start
ln -s "$SIM_DIR" "$SIM_TMP/link"

# The simulator itself refuses the link, as the kernel does.
out=$(printf 'w dir %s\nw bind\n' "$SIM_TMP/link" | "$CFSIM" client "$SIM_SOCK" 2>&1)
case $out in
*ENOTDIR*) ok "the simulator refuses to bind a final symbolic link (ENOTDIR)" ;;
*) not_ok "the simulator refuses to bind a final symbolic link (ENOTDIR)"; note "$out" ;;
esac

sim_config
sed -i "s,^dir .*,dir $SIM_TMP/link," "$SIM_CONF"
out=$("$CACHEFILESD" -t -f "$SIM_CONF" 2>&1)
check_eq "-t accepts a dir that is a symbolic link" 0 $?
case $out in
*"symbolic link"*"$SIM_DIR"*) ok "-t says which directory will be bound" ;;
*) not_ok "-t says which directory will be bound"; note "$out" ;;
esac

daemon_start
if sim_wait_bound 5; then ok "the daemon binds through the link"; else
	not_ok "the daemon binds through the link"; sed 's/^/#   /' "$DAEMON_LOG" | tail -5; fi
check_eq "the simulator bound the link's target" "$(cd "$SIM_DIR" && pwd -P)" "$(sim_state dir)"
check_grep "the log names the target" "symbolic link: binding $SIM_DIR" "$DAEMON_LOG"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit status 0 on SIGTERM" 0 "$DAEMON_STATUS"
tap_done
