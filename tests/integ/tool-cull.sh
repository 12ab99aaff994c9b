#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cachefiles-cull cull against a stand-in for the daemon's control socket
# (python3; the daemon's side is tested with the daemon): each goal maps to
# its request words (docs/control-protocol.md), the reply is printed,
# "exhausted" gives status 3, a refusal prints the daemon's reason and
# gives 1, no daemon gives 1 and a pointer to trim; status shows the
# daemon's state when it answers; cull without -s finds the socket that
# /etc/cachefilesd.conf names.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/tool-lib.inc"

tool_setup
mkdir -p "$SIM_DIR/cache"
if [ "$HAVE_PY" != 1 ]; then
	skip "cull against a stand-in daemon" "python3 is not installed"
	exit 0
fi
SOCK=$SIM_TMP/control
REQS=$SIM_TMP/requests
# serve REPLY: answer one connection at a time with REPLY, log each request.
serve() {
	python3 - "$SOCK" "$REQS" "$1" <<'PY' &
import os, socket, sys
path, log, reply = sys.argv[1], sys.argv[2], sys.argv[3]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(4)
while True:
    c, _ = s.accept()
    data = b""
    while not data.endswith(b"\n"):
        b = c.recv(256)
        if not b:
            break
        data += b
    with open(log, "a") as f:
        f.write(data.decode())
    c.sendall(reply.encode() + b"\n")
    c.close()
PY
	SERVER=$!
	SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $SERVER"
	wait_for 5 test -S "$SOCK"
}
stop() { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -f "$SOCK"; }
cullc() { "$TOOL" -s "$SOCK" cull "$@" >"$TOOL_OUT" 2>"$TOOL_ERR"; }

serve '{"ok":true,"result":"met","culled":12,"bytes":49152,"ms":1500}'
cullc --to-run; check_eq "--to-run: status 0" 0 $?
cullc --free 30%
cullc --bytes 2M
cullc --older-than 2d
check_eq "requests as the protocol says" "cull to-run|cull free 30|cull bytes 2097152|cull older-than 172800|" \
    "$(tr '\n' '|' <"$REQS")"
check_grep "what was culled is printed" '^culled +12 objects, 48.0 KiB' "$TOOL_OUT"
check_grep "and how long it took" '^took +1.5 s' "$TOOL_OUT"
cullc --to-run --json
check_json "cull --json is valid JSON" "$TOOL_OUT"
check_grep "cull --json keys" '"goal":"to-run","result":"met","culled":12,"bytes":49152,"seconds":1.500' "$TOOL_OUT"
stop

serve '{"ok":true,"result":"exhausted","culled":3,"bytes":4096,"ms":10}'
cullc --free 90%; check_eq "exhausted: status 3" 3 $?
check_grep "exhausted: said so" 'not met, nothing more could be culled' "$TOOL_OUT"
stop

serve '{"ok":true,"result":"exhausted","culled":3,"bytes":4096,"ms":10,"unseen":2}'
cullc --older-than 1d; check_eq "exhausted, entries unseen: status 3" 3 $?
check_grep "  ... says the scan could not look at some" \
    "not met, the daemon's scan could not look at some entries" "$TOOL_OUT"
cullc --older-than 1d --json
check_grep "  ... --json counts them" '"seconds":0.010,"unseen":2}' "$TOOL_OUT"
stop

serve '{"ok":true,"result":"met","culled":1,"bytes":4096,"ms":5}'
cullc --bytes 1K
check_grep "one object culled: the singular" '^culled +1 object, 4.0 KiB$' "$TOOL_OUT"
stop

serve '{"ok":false,"error":"culling is disabled (nocull)"}'
cullc --to-run; check_eq "refused: status 1" 1 $?
check_grep "refused: the daemon's reason" 'refused: culling is disabled \(nocull\)' "$TOOL_ERR"
stop

# The request's limit is the daemon's, 256 bytes with the newline: the
# client sends 255 characters, and refuses 256 before connecting.
serve '{"ok":false,"error":"unknown request"}'
long=$(printf '%0255d' 0)
"$CFCTL" "$SOCK" "$long" >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "a request of 255 characters is sent" 0 $?
check_eq "  ... whole" "$long" "$(tail -1 "$REQS")"
"$CFCTL" "$SOCK" "${long}0" >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "a request of 256 characters is refused by the client" 2 $?
check_eq "  ... before it reaches the socket" "$long" "$(tail -1 "$REQS")"
stop

# A reply cut short, without a result, or with a figure out of range is
# not taken for a goal met: status 1, one line, nothing on stdout.
for r in '{"ok":true,"result":"met",' '{"ok":true,"culled":1,"bytes":4096,"ms":1}' \
    '{"ok":true,"result":"done","culled":1,"bytes":4096,"ms":1}' \
    '{"ok":true,"result":"met","culled":99999999999999999999,"bytes":4096,"ms":1}' \
    '{"ok":true,"result":"met","culled":-5,"bytes":4096,"ms":1}' \
    '{"ok":true,"result":"met","culled":1,"bytes":4096,"ms":1,"unseen":1.5}'; do
	serve "$r"
	cullc --bytes 1K --json; st=$?
	if [ "$st" = 1 ] && [ ! -s "$TOOL_OUT" ] && grep -q 'a reply to the cull that is not one' "$TOOL_ERR"; then
		ok "a bad cull reply is an error: $r"
	else
		not_ok "a bad cull reply is an error: $r"; note "status $st: $(cat "$TOOL_OUT" "$TOOL_ERR")"
	fi
	stop
done

serve "{\"ok\":true,\"version\":\"1.0.0\",\"dir\":\"$SIM_DIR\",\"state\":\"idle\",\"goals\":0,\"culled\":7,\"culled_bytes\":8192,\"scans\":2}"
check "status with a daemon" sh -c "\"\$0\" -d \"\$1\" -s \"\$2\" status >/dev/null" "$TOOL" "$SIM_DIR" "$SOCK"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" status >"$TOOL_OUT"
check_grep "status: bound, from the daemon" '^bound +yes \(the daemon answers\)' "$TOOL_OUT"
check_grep "status: the daemon's state and counters" '^daemon +idle, 0 goals; 2 scans, culled 7 objects' "$TOOL_OUT"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" status --json >"$TOOL_OUT"
check_json "status --json with a daemon is valid JSON" "$TOOL_OUT"
check_grep "status --json: daemon object" '"daemon":\{"state":"idle","goals":0,' "$TOOL_OUT"
check_grep "status --json: bound" '"bound":true,"bound_from":"daemon"' "$TOOL_OUT"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" trim --to-run --device "$SIM_TMP/dev" >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "trim refuses while a daemon answers" 1 $?
check_grep "trim points at cull" "cachefiles-cull cull" "$TOOL_ERR"
stop

# A reply without some counters (an older or newer daemon): the text shows
# "?" for each, not 0, as the JSON shows null.
serve "{\"ok\":true,\"version\":\"1.0.0\",\"dir\":\"$SIM_DIR\",\"goals\":1,\"culled\":-1}"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" status >"$TOOL_OUT"
check_grep "status: a figure the daemon did not give is ?, not 0 or empty" \
    '^daemon +\?, 1 goal; \? scans, culled \? objects \(\?\)$' "$TOOL_OUT"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" status --json >"$TOOL_OUT"
check_grep "  ... and null in --json" '"daemon":\{"state":null,"goals":1,"uptime_s":null,"scans":null,"culled":null,"culled_bytes":null' "$TOOL_OUT"
stop

# A daemon whose directory cannot be stat'ed from here (another mount
# namespace): not taken for this cache's, since its path differs too.
serve '{"ok":true,"version":"1.0.0","dir":"/nonexistent/x","state":"idle","goals":0,"culled":7,"culled_bytes":8192,"scans":2}'
"$TOOL" -d "$SIM_DIR" -s "$SOCK" status >"$TOOL_OUT"
check_grep "a daemon's dir that cannot be stat'ed: another cache's" \
    '^daemon +the one on .* serves another cache, /nonexistent/x$' "$TOOL_OUT"
"$TOOL" -d "$SIM_DIR" -s "$SOCK" cull --bytes 1 >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "  ... cull -d refuses it, status 1" 1 $?
check_eq "  ... and asked it nothing but its status" "status" "$(tail -1 "$REQS")"
stop

cullc --to-run; check_eq "no daemon: status 1" 1 $?
check_grep "no daemon: points at trim" 'no daemon answers.*cachefiles-cull trim' "$TOOL_ERR"

# control_socket none: no socket at all, not the default one.
printf 'dir %s\ncontrol_socket none\n' "$SIM_DIR" >"$SIM_TMP/nosock.conf"
"$TOOL" -f "$SIM_TMP/nosock.conf" cull --to-run >"$TOOL_OUT" 2>"$TOOL_ERR"
check_eq "control_socket none: cull refuses, status 1" 1 $?
check_grep "  ... saying the socket is off" 'control_socket none' "$TOOL_ERR"
check_no_grep_may_be_empty "  ... without trying the default socket" '/run/cachefilesd' "$TOOL_ERR"
"$TOOL" -f "$SIM_TMP/nosock.conf" status >"$TOOL_OUT" 2>"$TOOL_ERR"
check_grep "control_socket none: status says so" '^daemon +no control socket \(control_socket none\)' "$TOOL_OUT"
"$TOOL" -f "$SIM_TMP/nosock.conf" status --json >"$TOOL_OUT" 2>"$TOOL_ERR"
check_grep "control_socket none: status --json socket is null" '"socket":null,"daemon_answers":false' "$TOOL_OUT"

# cull without -s or -f: the socket the default file names.  The file is
# put in /etc inside a mount namespace of its own (an overlay on /etc), so
# the host's /etc is never touched.
default_conf_cull() {
	unshare -m sh -c '
		mount --make-rprivate / && mkdir -p "$1/up" "$1/work" &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc ||
			exit 99
		printf "dir %s\ncontrol_socket %s\n" "$2" "$3" >/etc/cachefilesd.conf
		"$4" cull --to-run' sh "$SIM_TMP/etc-ovl" "$SIM_DIR" "$SOCK" "$TOOL" \
		>"$TOOL_OUT" 2>"$TOOL_ERR"
}
serve '{"ok":true,"result":"met","culled":5,"bytes":20480,"ms":2}'
: >"$REQS"
st=99
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	default_conf_cull; st=$?
fi
if [ "$st" = 99 ]; then
	skip "cull reads the default file's control_socket" "no private mount namespace with an overlay on /etc here (needs root)"
else
	check_eq "cull, no -s: the default file's control_socket answers" 0 "$st"
	check_eq "cull, no -s: the request reached that socket" "cull to-run|" "$(tr '\n' '|' <"$REQS")"
fi
stop
tap_done
