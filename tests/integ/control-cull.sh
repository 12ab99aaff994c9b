#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket: status, and each cull goal on a cache the kernel is not
# asking to cull: the goal is reached, oldest objects first, and the reply
# counts what went; a goal that cannot be met is answered "exhausted".
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "cull goals over the control socket" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
N=100
cull_objects v1 "$N" 16 $((now - 30 * 86400)) 60
# Fill until free blocks are between bcull (7%) and brun (10%): the kernel does not ask.
total=$(stat -f -c %b "$SIM_FS")
cull_fill $((total * 85 / 1000))
sim_start
sim_config
daemon_start
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }

r=$(ctl status 2000)
check_eq "status: ok" true "$(jval ok "$r")"
check_eq "status: the state" '"idle"' "$(jval state "$r")"
check_eq "status: the kernel does not ask" false "$(jval kernel_cull "$r")"
check_eq "status: the scan's objects" "$N" "$(jval last_scan_objects "$r")"
check_eq "status: the oldest atime" $((now - 30 * 86400)) "$(jval oldest_atime "$r")"
check_eq "status: the tag" '"simtest"' "$(jval tag "$r")"
check "status: the socket is mode 0600" test "$(stat -c %a "$SIM_CTLSOCK")" = 600
check "status: the socket is a socket" test -S "$SIM_CTLSOCK"

# to-run: up to brun (10%), which the kernel does not ask for now.
brun=$(sim_state brun)
r=$(ctl "cull to-run")
note "to-run: $r (brun $brun blocks, now $(cull_bavail))"
check_eq "cull to-run: met" '"met"' "$(jval result "$r")"
c1=$(jval culled "$r")
check "cull to-run: free blocks reached brun" test "$(cull_bavail)" -ge "$brun"
check "cull to-run: something was culled ($c1)" test "${c1:-0}" -gt 0
check_eq "cull to-run: the oldest went, in order" "$c1" "$(cull_survivors v1 $N | head -1)"
check_eq "cull to-run: the bytes counted" $((c1 * 16384)) "$(jval bytes "$r")"

# bytes: 10 objects' worth, after the daemon has been idle a while: its
# episode's line times the cull, not the idle stretch before the request.
sleep 3
b0=$(cull_bavail)
r=$(ctl "cull bytes 163840")
c2=$(jval culled "$r")
wait_for 5 grep -q "culled 10 objects" "$DAEMON_LOG"
check_grep "cull bytes: its log line times the cull alone" \
    'culled 10 objects, [0-9.]+ MiB in [0-2]\.[0-9] s' "$DAEMON_LOG"

check_eq "cull bytes: met" '"met"' "$(jval result "$r")"
check_eq "cull bytes: ten objects of 16 KiB" 10 "$c2"
check "cull bytes: 40 more blocks free" test "$(cull_bavail)" -ge $((b0 + 40))
check_eq "cull bytes: the next oldest, in order" $((c1 + c2)) "$(cull_survivors v1 $N | head -1)"

# free P: one point more than now.
p=$(( $(cull_bavail) * 100 / total + 1 ))
r=$(ctl "cull free $p")
c3=$(jval culled "$r")
check_eq "cull free $p: met" '"met"' "$(jval result "$r")"
check "cull free $p: reached" test $(( $(cull_bavail) * 100 )) -ge $((total * p))
check_eq "cull free: the next oldest, in order" $((c1 + c2 + c3)) "$(cull_survivors v1 $N | head -1)"

# older-than: everything older than object 59.5 goes.
done_n=$((c1 + c2 + c3))
r=$(ctl "cull older-than $((30 * 86400 - 60 * 60 + 30))")
check_eq "cull older-than: met" '"met"' "$(jval result "$r")"
check_eq "cull older-than: objects 0..59 are gone" $((60 - done_n)) "$(jval culled "$r")"
check_eq "cull older-than: object 60 is the oldest left" 60 "$(cull_survivors v1 $N | head -1)"
check_eq "cull older-than: the younger ones stay" 40 "$(cull_survivors v1 $N | wc -l)"
r=$(ctl status 2000)
check_eq "status: culled counts every goal" 60 "$(jval culled "$r")"
check_eq "status: no goal pending" 0 "$(jval goals "$r")"

# A client that shuts down its writing side after the request and reads on
# (socat at the end of its input) still gets its goal and the reply.
r=$(printf 'cull bytes 16384\n' | "$CFCTL" -r "$SIM_CTLSOCK" 30)
check_eq "cull after a half-close: met" '"met"' "$(jval result "$r")"
check_eq "cull after a half-close: one 16 KiB object went" 1 "$(jval culled "$r")"
check_eq "cull after a half-close: the next oldest" 61 "$(cull_survivors v1 $N | head -1)"
check_no_grep "cull after a half-close: the goal was not withdrawn" 'went away' "$DAEMON_LOG"

# older-than with objects past it in use by the kernel: the others go,
# those stay, and the goal is not met.
sim_ctl busy "$(cull_obj_path v1 61)" >/dev/null
sim_ctl busy "$(cull_obj_path v1 62)" >/dev/null
c0=$(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat")
r=$(ctl "cull older-than $((30 * 86400 - 63 * 60 - 30))" 10000)
c1=$(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat")
check_eq "cull older-than, two past it busy: exhausted" '"exhausted"' "$(jval result "$r")"
check_eq "  ... the one not busy went" 1 "$(jval culled "$r")"
check "  ... answered without spinning ($((c1 - c0)) ticks)" test $((c1 - c0)) -lt 50
check_eq "  ... the busy ones stay, the oldest" "61 62 64" "$(cull_survivors v1 $N | head -3 | tr '\n' ' ' | sed 's/ $//')"
sim_ctl unbusy "$(cull_obj_path v1 61)" >/dev/null
sim_ctl unbusy "$(cull_obj_path v1 62)" >/dev/null

# More than the cache holds: everything goes, then "exhausted".
r=$(ctl "cull bytes 1000000000")
check_eq "cull bytes beyond the cache: exhausted" '"exhausted"' "$(jval result "$r")"
check_eq "cull bytes beyond the cache: the rest went" 38 "$(jval culled "$r")"
check_eq "cull bytes beyond the cache: nothing is left" 0 "$(cull_survivors v1 $N | wc -l)"
check_grep "one log line per episode" 'culled [0-9]+ objects, [0-9]+\.[0-9] MiB in [0-9]+\.[0-9] s \([0-9]+ busy, skipped\)' "$DAEMON_LOG"

# The logcheck rule the package installs ignores that line, as syslog writes it.
line=$(sed -n 's/^cachefilesd: \(culled .*\)$/Dec  1 01:02:03 host-1 cachefilesd[42]: \1/p' "$DAEMON_LOG" | head -1)
grep -v '^#' "$TOP/packaging/debian/cachefilesd.logcheck.ignore.server" >"$SIM_TMP/logcheck"
check "the logcheck rule matches the episode line" sh -c "printf '%s\n' '$line' | grep -Eqf '$SIM_TMP/logcheck'"
check "the logcheck rule matches nothing else" sh -c "! printf '%s\n' '${line%)} more)' | grep -Eqf '$SIM_TMP/logcheck'"
# Each routine line of an episode, as the daemon's format strings write it, and near misses.
ignored() { printf 'Dec  1 01:02:03 host-1 cachefilesd[42]: %s\n' "$1" | grep -Eqf "$SIM_TMP/logcheck"; }
reported() { ! ignored "$1"; }
for l in "the kernel asks for culling" \
    "scan: 200000 objects, 2147 MiB in 14.966 s, 45173 candidates, 1 of 4 threads" \
    "scan: 12 empty directories removed" \
    "cull: culling before the scan ends: 6 of the 1747 objects seen so far are certainly among the oldest" \
    "culling done: free space is above the run limits"; do
	check "the logcheck rules ignore: $l" ignored "$l"
done
for l in "the kernel asks for culling again" \
    "scan: 200000 objects, 2147 MiB in 14.966 s, 45173 candidates, 1 of 4 threads; 3 errors" \
    "cull: nothing cullable (3 busy); waiting 60 s or for released objects" \
    "scan: 12 empty directories removed; 1 refused" \
    "DIR/cache is no longer the cache directory bound at start"; do
	check "the logcheck rules report: $l" reported "$l"
done

# An old object no cull command can carry (a newline in its name): the
# scan cannot offer it, so older-than is not met, and the reply says why.
nl=$(dirname "$(cull_obj_path v1 99)")/$(printf 'D\nx')
mkdir -p "$(dirname "$nl")" && : >"$nl"
touch -a -d "@$((now - 40 * 86400))" "$nl"
r=$(ctl rescan 2000)
check_eq "rescan: ok" '{"ok":true}' "$r"
check "rescan: a scan ran" wait_for 5 sh -c "[ \$(grep -c 'scan: [0-9]* objects' '$DAEMON_LOG') -ge 2 ]"
r=$(ctl "cull older-than 86400" 10000)
check_eq "cull older-than, an object the scan cannot offer: exhausted" '"exhausted"' "$(jval result "$r")"
check_eq "  ... the reply counts it unseen" 1 "$(jval unseen "$r")"
check "  ... and it is still there" test -f "$nl"

# A stop while a client waits for its goal (every cull slowed to 2 s):
# the client is told, not left with a closed connection, and the log does
# not say it went away.
cull_objects v2 20 16 $((now - 50 * 86400)) 60
ctl rescan 2000 >/dev/null
wait_for 5 sh -c "[ \$(grep -c 'scan: [0-9]* objects' '$DAEMON_LOG') -ge 3 ]"
sim_ctl fault "cull slow=2000" >/dev/null
c0=$(sim_state culls)
ctl "cull bytes 163840" 20000 >"$SIM_TMP/stopped.reply" 2>&1 &
waiter=$!
wait_for 5 sh -c "[ \$(sim_state culls) -gt $c0 ]" || sleep 1
daemon_signal TERM
wait "$waiter"
check_grep "a stop while a goal waits: the client gets an answer" \
    '^\{"ok":false,"error":"the daemon is stopping; the goal is withdrawn"\}$' "$SIM_TMP/stopped.reply"
daemon_wait_exit 10
check_eq "the daemon exits cleanly" 0 "$DAEMON_STATUS"
check_no_grep "  ... and does not say the client went away" 'went away' "$DAEMON_LOG"
check "the socket is removed at exit" test ! -e "$SIM_CTLSOCK"
tap_done
