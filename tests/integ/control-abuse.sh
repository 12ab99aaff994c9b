#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket under abuse: garbage, an oversize line, idle clients,
# more than 16 clients, a client hanging up mid-cull, a caller that is not
# root.  Others are still served, culling goes on, the daemon exits cleanly.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl
sim_setup
now=$(date +%s)
N=60
cull_objects v1 "$N" 4 $((now - 86400)) 60
sim_start --cull-delay-ms 100
sim_config
daemon_start
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }

r=$(printf 'sta\001tus\n' | "$CFCTL" -r "$SIM_CTLSOCK" 5)
check_eq "garbage: an error reply" '{"ok":false,"error":"request is not printable ASCII"}' "$r"
r=$(printf 'status' | "$CFCTL" -r "$SIM_CTLSOCK" 5)
check_eq "no newline before hanging up: an error reply" \
	'{"ok":false,"error":"incomplete request: no newline"}' "$r"
r=$(head -c 300 /dev/zero | tr '\0' a | "$CFCTL" -r "$SIM_CTLSOCK" 5)
check_eq "oversize line: an error reply" '{"ok":false,"error":"request too long"}' "$r"
# Much more than a request holds, all sent before the reply is read: the
# reply, then the end of the connection, not a reset (socat would report
# an error after printing the reply).
r=$(head -c 20000 /dev/zero | tr '\0' a | "$CFCTL" -r "$SIM_CTLSOCK" 5 2>"$SIM_TMP/long.err")
st=$?
check_eq "a 20,000-byte line: the same error reply" '{"ok":false,"error":"request too long"}' "$r"
check_eq "a 20,000-byte line: the connection then ends cleanly (cfctl status)" 0 "$st"
check_no_grep_may_be_empty "a 20,000-byte line: no reset after the reply" 'reset|read:' "$SIM_TMP/long.err"
r=$( (printf 'x%.0s' $(seq 255); echo) | "$CFCTL" -r "$SIM_CTLSOCK" 5)
check_eq "a 256-byte line is read whole" '{"ok":false,"error":"unknown request"}' "$r"

# Sixteen idle clients take every slot; the seventeenth is refused at once.
i=0 pids=
while [ $i -lt 16 ]; do
	"$CFCTL" -i "$SIM_CTLSOCK" 9 >"$SIM_TMP/idle.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $pids"
sleep 1
t0=$(date +%s)
r=$(ctl status 3000)
check_eq "a 17th client: refused" '{"ok":false,"error":"too many clients"}' "$r"
check "the refusal is immediate" test $(($(date +%s) - t0)) -le 1
# One that sends nothing is told why at the time-out, not "timed out".
"$CFCTL" -i "$SIM_CTLSOCK" 9 >"$SIM_TMP/idle.17th" 2>&1
check_grep "an idle 17th client: told there are too many clients" \
    'too many clients' "$SIM_TMP/idle.17th"
mv "$SIM_TMP/idle.17th" "$SIM_TMP/refused.17th"
for p in $pids; do wait "$p"; done
check_eq "idle clients: each told it timed out" 16 \
	"$(cat "$SIM_TMP"/idle.* | grep -c 'timed out waiting for the request')"
r=$(ctl status 3000)
check_eq "after the idle clients: served again" true "$(jval ok "$r")"

# Every slot taken, served and refused (32 idle clients): a 33rd is
# refused without a slot.  Its request, sent while the daemon was stopped
# and so queued before the accept, is read before the close: the client
# gets the reason, then the end of the connection, not a reset.
i=0 pids=
while [ $i -lt 32 ]; do
	"$CFCTL" -i "$SIM_CTLSOCK" 9 >/dev/null 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $pids"
sleep 1
daemon_signal STOP
printf 'status\n' | "$CFCTL" -r "$SIM_CTLSOCK" 5 >"$SIM_TMP/33rd" 2>"$SIM_TMP/33rd.err" &
c33=$!
sleep 1
daemon_signal CONT
wait "$c33"
st=$?
check_eq "a 33rd client with its request queued: the reason" \
    '{"ok":false,"error":"too many clients"}' "$(cat "$SIM_TMP/33rd")"
check_eq "  ... then the end of the connection (cfctl status 0, not 3)" 0 "$st"
check_no_grep_may_be_empty "  ... no reset" 'reset|read:' "$SIM_TMP/33rd.err"
for p in $pids; do wait "$p"; done

# An idle client does not hold up a cull, nor a status.
"$CFCTL" -i "$SIM_CTLSOCK" 9 >/dev/null 2>&1 &
idle=$!
SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $idle"
r=$(ctl "cull bytes 8192" 10000)
check_eq "an idle client meanwhile: the cull is served" '"met"' "$(jval result "$r")"
check_eq "an idle client meanwhile: two objects culled" 2 "$(jval culled "$r")"

# stopped_short WHAT C0: after a withdrawn goal of 40 culls, culling stops
# short of it (C0: the simulator's culls before) and no more come.
stopped_short() {
	sleep 1
	_c1=$(sim_state culls)
	sleep 1
	_c2=$(sim_state culls)
	note "culls: $2 before, $_c1 and $_c2 after the hang-up"
	check "$1: culling stopped short of the goal" test $((_c2 - $2)) -lt 40
	check_eq "$1: no more culls" "$_c1" "$_c2"
}

# A client hanging up mid-cull withdraws its goal (culls take 100 ms each).
c0=$(sim_state culls)
"$CFCTL" -q "$SIM_CTLSOCK" "cull bytes 163840" 1
check "hang-up: the goal is withdrawn" wait_for 3 grep -q 'client went away; its goal is withdrawn' "$DAEMON_LOG"
stopped_short hang-up "$c0"
r=$(ctl status 3000)
check_eq "hang-up: no goal pending" 0 "$(jval goals "$r")"

# Half-closed after the request, then closed a second later: withdrawn too.
c0=$(sim_state culls)
printf 'cull bytes 163840\n' | "$CFCTL" -r "$SIM_CTLSOCK" 1 >/dev/null
check "half-close, then hang-up: the goal is withdrawn" \
    wait_for 3 sh -c "[ \$(grep -c 'client went away; its goal is withdrawn' '$DAEMON_LOG') -ge 2 ]"
stopped_short "half-close, then hang-up" "$c0"

# Callers that are not root.
if command -v setpriv >/dev/null 2>&1; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CFCTL" "$SIM_CTLSOCK" status 3000 2>&1)
	check "not root: the socket's mode keeps it out" sh -c "echo '$out' | grep -q 'Permission denied'"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override \
	    --ambient-caps=+dac_override "$CFCTL" "$SIM_CTLSOCK" status 3000 2>&1)
	if echo "$out" | grep -q 'Operation not permitted\|setpriv:'; then
		skip "not root past the mode: refused by credentials" "setpriv cannot keep CAP_DAC_OVERRIDE here: $out"
	else
		check_eq "not root past the mode: refused by credentials" \
			'{"ok":false,"error":"permission denied"}' "$out"
	fi
else
	skip "not root: refused" "setpriv is not installed"
fi

check "the daemon is alive" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "with an idle client connected, the daemon exits cleanly" 0 "$DAEMON_STATUS"
tap_done
