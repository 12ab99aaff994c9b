#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package's init script (packaging/debian/cachefilesd.init), for
# systems without systemd, driving the test daemon against the simulator:
# start writes the pidfile and binds, status, reload (refused for a broken
# configuration), stop and force-stop, and RUN= from a 0.10.10
# /etc/default file.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

[ -r /lib/lsb/init-functions ] && command -v start-stop-daemon >/dev/null || {
	skip "the init script" "no /lib/lsb/init-functions or start-stop-daemon"
	tap_done; exit
}
sim_setup
sim_start
sim_config
S=$SIM_TMP/init
P=$SIM_TMP/cfd.pid
D=$SIM_TMP/default
sed -e "s|^DAEMON=.*|DAEMON=$CACHEFILESD_SIM|" -e "s|^PIDFILE=.*|PIDFILE=$P|" \
    -e "s|/etc/default/\$NAME|$D|g" "$TOP/packaging/debian/cachefilesd.init" >"$S"
export CACHEFILESD_DEVICE=$SIM_SOCK
run() { sh "$S" "$@" >"$SIM_TMP/out" 2>&1; }

check_grep "LSB headers" '^### BEGIN INIT INFO' "$S"
printf 'DAEMON_OPTS="-f %s"\n' "$SIM_CONF" >"$D"
run start
check_eq "RUN= unset in a 0.10.10 defaults file: start does nothing, status 0" 0 $?
check_grep "  ... and says RUN=yes is needed" 'RUN=yes' "$SIM_TMP/out"
check "  ... no pidfile" test ! -e "$P"
# The postinst restarts the service on every upgrade: disabled is not a failure.
run restart
check_eq "RUN= unset: restart does nothing, status 0" 0 $?
check "  ... no pidfile after restart" test ! -e "$P"

printf 'RUN=yes\nDAEMON_OPTS="-f %s"\n' "$SIM_CONF" >"$D"
run start
check_eq "start: status 0" 0 $?
check "  ... the pidfile is written" test -s "$P"
if sim_wait_bound 5; then ok "  ... the cache is bound"; else not_ok "  ... the cache is bound"; fi
pid=$(cat "$P" 2>/dev/null)
SIM_EXTRA_PIDS=$pid
run status
check_eq "status of a running daemon: 0" 0 $?
run start
check_eq "start when running: status 0" 0 $?
check_eq "  ... the same daemon" "$pid" "$(cat "$P" 2>/dev/null)"

run reload
check_eq "reload of a good configuration: status 0" 0 $?
cp "$SIM_CONF" "$SIM_TMP/good.conf"
echo "frobnicate 3" >>"$SIM_CONF"
run reload
check "reload of a broken configuration fails" test $? -ne 0
check "  ... and the daemon runs on" kill -0 "$pid"
cp "$SIM_TMP/good.conf" "$SIM_CONF"

run stop
check_eq "stop: status 0" 0 $?
check "  ... the daemon is gone" wait_for 5 proc_gone "$pid"
check "  ... the pidfile is removed" test ! -e "$P"
run status
check_eq "status of a stopped daemon: 3" 3 $?
# force-stop, as 0.10.10's script offered it.
run start
pid=$(cat "$P" 2>/dev/null)
SIM_EXTRA_PIDS=$pid
sim_wait_bound 5 >/dev/null
run force-stop
check_eq "force-stop: status 0" 0 $?
check "  ... the daemon is gone" wait_for 5 proc_gone "$pid"
run force-stop
check_eq "force-stop of a stopped daemon: 0" 0 $?
run reload
check_eq "reload of a stopped daemon: 7" 7 $?
run force-reload
check_eq "force-reload of a stopped daemon: 0" 0 $?
run stop
check_eq "stop of a stopped daemon: 0" 0 $?
sh -c 'exit 0' & dead=$!
wait "$dead"
echo "$dead" >"$P"
run status
check_eq "status with a stale pidfile: 1" 1 $?
rm -f "$P"
# Removed but not purged: start and stop do nothing, status is not "running".
sed "s|^DAEMON=.*|DAEMON=$SIM_TMP/removed|" "$S" >"$S.removed"
sh "$S.removed" start >"$SIM_TMP/out" 2>&1
check_eq "the binary removed: start does nothing, status 0" 0 $?
sh "$S.removed" status >"$SIM_TMP/out" 2>&1
check_eq "the binary removed: status says not running (3), not 0" 3 $?
run bogus
check_eq "an unknown action: usage, status 3" 3 $?
tap_done
