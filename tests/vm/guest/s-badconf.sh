# SPDX-License-Identifier: GPL-2.0-or-later
# A bad configuration: the daemon exits non-zero with "FILE:LINE: message"
# and leaves the kernel alone.
. /vm/glib.sh
DIR=$FS/badconf
mkdir -p "$DIR"
printf '# a comment\ndir %s\nbrun 150%%\ntag vmbad\n' "$DIR" > /tmp/bad.conf
r0=$(nreg)
timeout -s KILL 30 "$CFD" -n -s -f /tmp/bad.conf > /out/badconf-daemon.log 2>&1
rc=$?
sleep 0.5
if [ "$rc" -ne 0 ] && [ "$rc" -ne 137 ] && grep -qE '^/tmp/bad\.conf:3: .+' /out/badconf-daemon.log &&
   [ "$(nreg)" -eq "$r0" ]; then
	ok "bad configuration: non-zero exit with FILE:LINE: message"
	grep -E '^/tmp/bad\.conf:3: ' /out/badconf-daemon.log | head -2 | sed 's/^/# /'
else
	not_ok "bad configuration: non-zero exit with FILE:LINE: message"
	diag "exit status $rc (137: still running after 30 s); registered $r0 -> $(nreg); expected /tmp/bad.conf:3: ..."
	diag_file /out/badconf-daemon.log
fi
[ "$FAILED" -eq 0 ]
