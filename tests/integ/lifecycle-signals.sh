#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Signals: SIGHUP reloads what can change while bound and reports the rest;
# SIGTERM and SIGINT stop cleanly (exit 0, STOPPING=1, the device closed).
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
notify_start
sim_config
daemon_start
sim_wait_bound 5 || { not_ok "binds"; tap_done; exit; }
wait_for 5 grep -q '^READY=1' "$NOTIFY_OUT"
opens=$(sim_state opens)
# 0.10.10's start and stop lines, word for word (log watchers match them).
wait_for 5 grep -q 'Daemon Started' "$DAEMON_LOG"
check_eq "start: 0.10.10's two lines, in order" \
    "Bound cache: tag simtest on $SIM_DIR|Daemon Started" \
    "$(sed -n 's/^cachefilesd: //; /^Bound cache: /p; /^Daemon Started$/p' "$DAEMON_LOG" | paste -sd'|')"

# reload_and_wait PATTERN: SIGHUP, then wait for PATTERN in the daemon's log.
reload_and_wait() {
	lines=$(wc -l <"$DAEMON_LOG")
	daemon_signal HUP
	wait_for 5 sh -c "tail -n +$((lines + 1)) '$DAEMON_LOG' | grep -Eq -- '$1'"
}

# A change the daemon can apply while bound: the kernel debug mask.
echo "debug 0x5" >>"$SIM_CONF"
reload_and_wait 'reload' || true
wait_for 5 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^debug=//p')\" = 5 ]"
check_eq "SIGHUP: the new debug mask reaches the kernel" 5 "$(sim_state debug)"
check "SIGHUP: the daemon keeps running" daemon_alive

# A bad configuration is reported with FILE:LINE and the old one stays.
cp "$SIM_CONF" "$SIM_CONF.good"
echo "brun lots" >>"$SIM_CONF"
if reload_and_wait "$SIM_CONF:11"; then ok "SIGHUP with a bad file: FILE:LINE reported"; else
	not_ok "SIGHUP with a bad file: FILE:LINE reported"; sed 's/^/#   /' "$DAEMON_LOG" | tail -5; fi
sleep 0.3
check "SIGHUP with a bad file: the daemon keeps running" daemon_alive
check_eq "SIGHUP with a bad file: still bound, device not reopened" "1 $opens" "$(sim_state bound) $(sim_state opens)"
check_eq "SIGHUP with a bad file: the debug mask in force stays" 5 "$(sim_state debug)"

# What the kernel fixed at bind needs a restart: say so, change nothing.
sed "s,^dir .*,dir $SIM_FS/elsewhere,; s,^tag .*,tag othertag," "$SIM_CONF.good" >"$SIM_CONF"
lines=$(wc -l <"$DAEMON_LOG")
daemon_signal HUP
wait_for 5 sh -c "tail -n +$((lines + 1)) '$DAEMON_LOG' | grep -q 'tag'"
tail -n +$((lines + 1)) "$DAEMON_LOG" >"$SIM_TMP/reload.log"
check_grep "SIGHUP with a new dir: a restart is needed" "dir .*(restart|next start)" "$SIM_TMP/reload.log"
check_grep "SIGHUP with a new tag: a restart is needed" "tag .*(restart|next start)" "$SIM_TMP/reload.log"
check_eq "SIGHUP with a new dir: same cache, same open" "1 $opens simtest" "$(sim_state bound) $(sim_state opens) $(sim_state tag)"
cp "$SIM_CONF.good" "$SIM_CONF"

# SIGTERM: exit 0, STOPPING=1, the simulator sees the close (unbind).
closes=$(sim_state closes)
daemon_signal TERM
daemon_wait_exit 5
check_eq "SIGTERM: exit status 0" 0 "$DAEMON_STATUS"
check_grep "SIGTERM: 0.10.10's last line" '^cachefilesd: Daemon Terminated \(signal 15\)$' "$DAEMON_LOG"
wait_for 2 grep -q '^STOPPING=1' "$NOTIFY_OUT"
check_grep "SIGTERM: STOPPING=1 sent" '^STOPPING=1$' "$NOTIFY_OUT"
wait_for 2 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^closes=//p')\" = $((closes + 1)) ]"
check_eq "SIGTERM: the device was closed (cache unbound)" "0 0 $((closes + 1))" \
    "$(sim_state connected) $(sim_state bound) $(sim_state closes)"
check "SIGTERM: cache and graveyard stay" test -d "$SIM_DIR/cache" -a -d "$SIM_DIR/graveyard"
check_no_grep "no violation" VIOLATION "$SIM_LOG"

# SIGINT: the same.
: >"$NOTIFY_OUT"
daemon_start
sim_wait_bound 5 || not_ok "binds again"
wait_for 5 grep -q '^READY=1' "$NOTIFY_OUT"
closes=$(sim_state closes)
daemon_signal INT
daemon_wait_exit 5
check_eq "SIGINT: exit status 0" 0 "$DAEMON_STATUS"
wait_for 2 grep -q '^STOPPING=1' "$NOTIFY_OUT"
check_grep "SIGINT: STOPPING=1 sent" '^STOPPING=1$' "$NOTIFY_OUT"
wait_for 2 sh -c "[ \"\$($CFSIM ctl $SIM_CTL state | tr ' ' '\n' | sed -n 's/^closes=//p')\" = $((closes + 1)) ]"
check_eq "SIGINT: the device was closed" "0 $((closes + 1))" "$(sim_state connected) $(sim_state closes)"

# SIGKILL: the kernel withdraws the cache (the device is busy meanwhile); a
# new daemon waits for the withdrawal and binds again.
sim_stop
sim_start --withdraw-ms 1500
daemon_start
sim_wait_bound 5 || not_ok "binds with a slow withdrawal"
kill -KILL "$DAEMON_PID"
daemon_wait_exit 5
check_eq "SIGKILL: the device was closed by the kernel" 0 "$(sim_state connected)"
: >"$DAEMON_LOG"
daemon_start
if sim_wait_bound 8; then ok "after SIGKILL a new daemon binds once the cache is withdrawn"; else
	not_ok "after SIGKILL a new daemon binds once the cache is withdrawn"; sed 's/^/#   /' "$DAEMON_LOG" | tail -3; fi
check_grep "the new daemon met EBUSY and waited" 'busy' "$DAEMON_LOG"
check "the new daemon's cwd is inside DIR/cache" sim_cwd_inside "$DAEMON_PID"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
