#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull against the real daemon (the test build, on the kernel
# simulator), finding its socket through the configuration: status shows
# the daemon's state; cull --bytes frees exactly what it asks, oldest
# objects first; a goal that cannot be met ends with status 3; a daemon
# with culling disabled refuses, and the tool says why with status 1; with
# -d naming another cache, status, cull and trim do not take that daemon for
# this cache's; a socket whose listen queue is full does not hang status.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
TOOL=${TOOL:-$BUILD/cachefiles-cull}

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "the tool with the daemon" "cannot mount a tmpfs"
	exit 0
fi
now=$(date +%s)
N=100
cull_objects v1 "$N" 16 $((now - 30 * 86400)) 60
# Between bcull (7 %) and brun (10 %): the kernel does not ask.
cull_fill $(($(stat -f -c %b "$SIM_FS") * 85 / 1000))
sim_start
sim_config
daemon_start
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }
out=$SIM_TMP/tool.out

"$TOOL" -f "$SIM_CONF" status > "$out" 2>&1
check_grep "status finds the daemon through the configuration's control_socket" \
    '^bound +yes \(the daemon answers\)' "$out"
"$TOOL" -f "$SIM_CONF" --json status > "$out" 2>&1
check_grep "status --json: the daemon answers" '"daemon_answers":true' "$out"
check_grep "status --json: the daemon's state" '"state":"idle"' "$out"

# -d naming another cache than the daemon's: its daemon is not this one's.
other=$SIM_TMP/other
mkdir -p "$other/cache/Ivol/@00"
"$TOOL" -d "$SIM_DIR" -s "$SIM_CTLSOCK" status > "$out" 2>&1
check_grep "-d naming the daemon's own directory: it answers" '^bound +yes \(the daemon answers\)' "$out"
"$TOOL" -d "$other" -s "$SIM_CTLSOCK" status > "$out" 2>&1
check_grep "-d naming another cache: status says whose daemon answers" \
    "^daemon +the one on .* serves another cache, $SIM_DIR\$" "$out"
check_no_grep "-d naming another cache: not bound through that daemon" 'the daemon answers' "$out"
check_grep "-d naming another cache: not bound at all (one daemon at a time)" \
    "^bound +no \\(the bound cache is the other daemon's\\)" "$out"
"$TOOL" -d "$other" -s "$SIM_CTLSOCK" --json status > "$out" 2>&1
check_grep "-d naming another cache: status --json, no daemon answers for it" \
    '"daemon_answers":false' "$out"
check_grep "  ... not bound" '"bound":false,"bound_from":"daemon"' "$out"
check_grep "  ... and the directory the daemon serves" "\"daemon_serves\":\"$SIM_DIR\"" "$out"
"$TOOL" -d "$SIM_DIR" -s "$SIM_CTLSOCK" --json status > "$out" 2>&1
check_grep "-d naming the daemon's own: daemon_serves is null" '"daemon_serves":null' "$out"
"$TOOL" -d "$other" -s "$SIM_CTLSOCK" cull --bytes 1 > "$out" 2>&1
check_eq "cull -d naming another cache: refused, status 1" 1 "$?"
check_grep "cull -d naming another cache: says which cache the daemon serves" \
    "serves $SIM_DIR, not $other" "$out"
check_eq "cull -d naming another cache: nothing culled" "$N" "$(cull_survivors v1 "$N" | wc -l)"
# The same named by a configuration file, with the daemon's socket in it.
sed "s|^dir .*|dir $other|" "$SIM_CONF" > "$SIM_TMP/other.conf"
"$TOOL" -f "$SIM_TMP/other.conf" cull --bytes 1 > "$out" 2>&1
check_eq "cull -f naming another cache: refused, status 1" 1 "$?"
check_grep "cull -f naming another cache: says which cache the daemon serves" \
    "serves $SIM_DIR, not $other" "$out"
check_eq "cull -f naming another cache: nothing culled" "$N" "$(cull_survivors v1 "$N" | wc -l)"
"$TOOL" -d "$other" -s "$SIM_CTLSOCK" trim --older-than 1s --device "$SIM_TMP/no-device" > "$out" 2>&1
check_eq "trim of another cache while a daemon runs: refused, status 1" 1 "$?"
check_grep "trim of another cache: names the daemon's cache" "another cache \\($SIM_DIR\\)" "$out"

# Ten objects of 16 KiB (allocated: 16 KiB on a tmpfs) and a byte less.
"$TOOL" -f "$SIM_CONF" cull --bytes $((10 * 16384 - 1)) > "$out" 2>&1
rc=$?
check_eq "cull --bytes: status 0" 0 "$rc"
check_grep "cull --bytes: the goal is met" '^goal +bytes .*: met' "$out"
check_grep "cull --bytes: ten objects culled" '^culled +10 objects' "$out"
check_eq "cull --bytes: the ten oldest went" 10 "$(cull_survivors v1 "$N" | head -1)"
check_eq "cull --bytes: no other object went" $((N - 10)) "$(cull_survivors v1 "$N" | wc -l)"

"$TOOL" -f "$SIM_CONF" cull --free 99% > "$out" 2>&1
check_eq "cull --free 99%: nothing more can be culled, status 3" 3 "$?"
check_grep "cull --free 99%: says so" 'not met, nothing more could be culled' "$out"
check_eq "cull --free 99%: every object went on the way" 0 "$(cull_survivors v1 "$N" | wc -l)"
check_eq "no cull from outside DIR/cache" 0 "$(sim_state violations)"

daemon_signal TERM
daemon_wait_exit 10

# Culling disabled: refused, with the daemon's reason.
sim_config nocull
daemon_start
sim_wait_bound || { not_ok "daemon binds with nocull"; exit 1; }
wait_for 5 test -S "$SIM_CTLSOCK"
"$TOOL" -f "$SIM_CONF" cull --to-run > "$out" 2>&1
check_eq "nocull: the tool fails with status 1" 1 "$?"
check_grep "nocull: it gives the daemon's reason" '[Cc]ulling is disabled|nocull' "$out"

# A socket whose listen queue is full (a daemon stopped or hung): status
# gives up on it within its limit instead of blocking in connect().
if command -v python3 >/dev/null 2>&1; then
	stuck=$SIM_TMP/stuck.sock
	python3 - "$stuck" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(0)
held = []
for i in range(8):
    c = socket.socket(socket.AF_UNIX)
    c.setblocking(False)
    try:
        c.connect(sys.argv[1])
    except BlockingIOError:
        pass
    held.append(c)
open(sys.argv[1] + ".full", "w").close()
time.sleep(60)
EOF
	SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $!"
	wait_for 10 test -e "$stuck.full"
	t0=$(date +%s)
	timeout 30 "$TOOL" -d "$SIM_DIR" -s "$stuck" status > "$out" 2>&1
	rc=$? t1=$(date +%s)
	check_eq "a full listen queue: status ends, status 0" 0 "$rc"
	check "a full listen queue: within 10 s" test $((t1 - t0)) -le 10
	check_grep "a full listen queue: not answering, timed out" \
	    '^daemon +not answering on .*timed out' "$out"
else
	skip "a full listen queue" "python3 is not installed"
fi

# A daemon serving a directory whose name holds a backslash and a byte
# that is not UTF-8 names it in the reply's convention (decoded, "\\" and
# "\xff"); the tool reads the name back to its bytes.  A stand-in answers
# status with the dir given as JSON text.
# With JSON-TEXT "silent" it reads the request and never answers.
fake_status() {	# SOCKET JSON-TEXT
	python3 - "$1" "$2" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
open(sys.argv[1] + ".up", "w").close()
held = []
while True:
    c, _ = s.accept()
    c.recv(512)
    if sys.argv[2] == "silent":
        held.append(c)
        continue
    c.sendall(b'{"ok":true,"state":"idle","dir":"' + sys.argv[2].encode() + b'"}\n')
    c.close()
PY
	SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $!"
	wait_for 10 test -e "$1.up"
}
if command -v python3 >/dev/null 2>&1; then
	odd=$(printf '%s/a\\b\377c' "$SIM_TMP")
	mkdir -p "$odd/cache" "$SIM_TMP/a/cache"
	# As JSON text: the backslash as four, the byte as \\xff.
	fake_status "$SIM_TMP/odd.sock" "$SIM_TMP/a\\\\\\\\b\\\\xffc"
	"$TOOL" -d "$odd" -s "$SIM_TMP/odd.sock" status > "$out" 2>&1
	check_grep "a dir with a backslash and a byte not UTF-8: its daemon answers for it" \
	    '^bound +yes \(the daemon answers\)' "$out"
	"$TOOL" -d "$SIM_TMP/a" -s "$SIM_TMP/odd.sock" status > "$out" 2>&1
	check_grep "  ... and not for another directory" \
	    "^bound +no \\(the bound cache is the other daemon's\\)" "$out"
	# An escape the writer never makes: not known to be this cache.
	fake_status "$SIM_TMP/bad.sock" "$SIM_TMP/a\\\\qb"
	"$TOOL" -d "$odd" -s "$SIM_TMP/bad.sock" cull --bytes 1 > "$out" 2>&1
	check_eq "a dir the reply does not carry readably: cull refused, status 1" 1 "$?"
	check_grep "  ... as a daemon of another cache" "serves \\?, not " "$out"
	# Connected, but no status reply: cull -d does not wait on it for good.
	fake_status "$SIM_TMP/silent.sock" silent
	t0=$(date +%s)
	timeout 30 "$TOOL" -d "$SIM_DIR" -s "$SIM_TMP/silent.sock" cull --bytes 1 > "$out" 2>&1
	rc=$? t1=$(date +%s)
	check_eq "cull -d, a daemon that never answers: refused, status 1" 1 "$rc"
	check "  ... within 10 s" test $((t1 - t0)) -le 10
	check_grep "  ... saying it does not answer" "does not answer status \\(timed out\\)" "$out"
else
	skip "a dir with a backslash and a byte not UTF-8" "python3 is not installed"
fi
# Not root, past the socket's mode: status says the daemon refused, and why.
if command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override \
	    --ambient-caps=+dac_override "$TOOL" -f "$SIM_CONF" status > "$out" 2>&1
	if grep -q 'Operation not permitted\|setpriv:' "$out"; then
		skip "status not root: the refusal named" "setpriv cannot keep CAP_DAC_OVERRIDE here"
	else
		check_grep "status not root: the refusal named" \
		    '^daemon +the one on .* refused to answer: permission denied$' "$out"
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override \
		    --ambient-caps=+dac_override "$TOOL" -f "$SIM_CONF" cull --to-run > "$out" 2>&1
		check_grep "cull -f not root: the refusal named too" \
		    '^cachefiles-cull: the daemon refused: permission denied$' "$out"
	fi
else
	skip "status not root: the refusal named" "setpriv is not installed"
fi
tap_done
