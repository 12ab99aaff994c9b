#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culls are refused while culling is disabled (nocull, -N, also after a
# reload), and a waiting cull is answered when a reload disables culling;
# status still works.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl
sim_setup
now=$(date +%s)
cull_objects v1 20 4 $((now - 86400)) 60
sim_start --cull-delay-ms 200

refused() {	# DESC: a cull, a rescan and a status
	r=$(ctl "cull bytes 4096" 3000)
	check_eq "$1: cull refused" false "$(jval ok "$r")"
	check "$1: the reason says culling is disabled" sh -c "echo '$r' | grep -q 'culling is disabled'"
	r=$(ctl rescan 3000)
	check_eq "$1: rescan refused" false "$(jval ok "$r")"
	r=$(ctl status 3000)
	check_eq "$1: status served" true "$(jval ok "$r")"
	check_eq "$1: status says culling is disabled" false "$(jval culling_enabled "$r")"
	check_eq "$1: state stopped" '"stopped"' "$(jval state "$r")"
}

sim_config nocull
daemon_start
sim_wait_bound || { not_ok "daemon binds (nocull)"; exit 1; }
wait_for 5 test -S "$SIM_CTLSOCK"
refused "nocull"
daemon_signal TERM; daemon_wait_exit 5

sim_config
daemon_start -n -s -N -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds (-N)"; exit 1; }
wait_for 5 test -S "$SIM_CTLSOCK"
refused "-N"
# -N holds across a reload.
daemon_signal HUP
wait_for 5 grep -q 'configuration reloaded' "$DAEMON_LOG"
refused "-N after SIGHUP"
daemon_signal TERM; daemon_wait_exit 5

# Culling on, then a reload with nocull: refused from then on, and a cull
# waiting meanwhile is answered.
: >"$DAEMON_LOG"
sim_config
daemon_start
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }
ctl "cull bytes 40960" >"$SIM_TMP/waiting" 2>&1 &
waiter=$!
sleep 0.5
sim_config nocull
daemon_signal HUP
wait_for 5 grep -q 'configuration reloaded' "$DAEMON_LOG"
wait "$waiter"
r=$(cat "$SIM_TMP/waiting")
check_eq "reload to nocull: the waiting cull is answered" false "$(jval ok "$r")"
check "reload to nocull: it says why" sh -c "echo '$r' | grep -q 'culling was disabled'"
refused "nocull after SIGHUP"
check "the daemon is alive" daemon_alive
daemon_signal TERM; daemon_wait_exit 5
check_eq "the daemon exits cleanly" 0 "$DAEMON_STATUS"
tap_done
