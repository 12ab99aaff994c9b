#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Syslog priorities, as 0.10.10 gave them and as "journalctl -p err" or an
# rsyslog "*.err" rule expect: a failure that ends the daemon (a mistake in
# the configuration, a refused bind) at err, "Daemon Started" and "Daemon
# Terminated" at notice, all with facility daemon.  Runs in a mount
# namespace of its own whose /dev/log is a socket this test reads.
. "$TOP/tests/lib.sh"

# Re-run in a new mount namespace, told the namespace it came from; the
# mounts below happen only in one that differs from it.
here=$(readlink /proc/self/ns/mnt)
if [ "${1:-}" != --in-namespace-other-than ]; then
	if [ "$(id -u)" != 0 ] || ! command -v python3 >/dev/null 2>&1 ||
	    [ -z "$here" ] || ! unshare -m true 2>/dev/null; then
		skip "syslog priorities" "needs root, python3 and a private mount namespace (unshare -m)"
		exit 0
	fi
	exec unshare -m sh "$0" --in-namespace-other-than "$here"
fi
if [ -z "$here" ] || [ -z "${2:-}" ] || [ "$here" = "$2" ]; then
	not_ok "a mount namespace of our own (this one is $here, the starter's ${2:-unknown})"
	exit 1
fi
. "$TOP/tests/integ/lib-sim.sh"
sim_setup
# A /dev of our own: the nodes the daemon needs, made afresh, and our log
# socket.  The real /dev is never mounted anywhere else: the clean-up
# removes the temp dir, and must find no device directory in it.
mount --make-rprivate / || { not_ok "private mounts"; exit 1; }
mount -t tmpfs -o mode=0755 cfd-syslog-dev /dev || { not_ok "a /dev of our own"; exit 1; }
mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 &&
    mknod -m 666 /dev/random c 1 8 && mknod -m 666 /dev/urandom c 1 9 ||
	{ not_ok "device nodes in our /dev"; exit 1; }
ln -s /proc/self/fd /dev/fd
SYSLOG=$SIM_TMP/syslog
: >"$SYSLOG"
python3 - "$SYSLOG" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open(sys.argv[1], "a", buffering=1) as out:
    while True:
        out.write(s.recv(65536).decode("utf-8", "replace").rstrip("\n") + "\n")
PY
SIM_EXTRA_PIDS="$SIM_EXTRA_PIDS $!"
wait_for 5 test -S /dev/log || { not_ok "the log socket"; exit 1; }

# pri MESSAGE-RE: the priority number of the first syslog line matching it.
pri() { sed -n "s/^<\([0-9]*\)>.*$1.*/\1/p" "$SYSLOG" | head -n 1; }

sim_start
sim_config
daemon_start -n -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds"
check "Daemon Started is logged" wait_for 5 grep -q 'Daemon Started' "$SYSLOG"
daemon_signal TERM
daemon_wait_exit 5
check "Daemon Terminated is logged" wait_for 5 grep -q 'Daemon Terminated' "$SYSLOG"
# facility daemon (3) * 8 + notice (5) = 29; err (3) gives 27
check_eq "Daemon Started at daemon.notice" 29 "$(pri 'Daemon Started')"
check_eq "Daemon Terminated at daemon.notice" 29 "$(pri 'Daemon Terminated')"

printf 'dir %s\nbrun 10\n' "$SIM_DIR" >"$SIM_TMP/bad.conf"
daemon_start -n -f "$SIM_TMP/bad.conf"
daemon_wait_exit 5
check_eq "a configuration mistake: exit 2" 2 "$DAEMON_STATUS"
wait_for 5 grep -q 'configuration has 1 error' "$SYSLOG"
check_eq "  ... each message at daemon.err" 27 "$(pri 'bad.conf:2: ')"
check_eq "  ... and the count" 27 "$(pri 'configuration has 1 error')"

printf 'dir %s/missing\n' "$SIM_FS" >"$SIM_TMP/nodir.conf"
daemon_start -n -f "$SIM_TMP/nodir.conf"
daemon_wait_exit 5
check_eq "a cache directory that is missing: exit 1" 1 "$DAEMON_STATUS"
wait_for 5 grep -q 'kernel refused "bind"' "$SYSLOG"
check_eq "  ... the refused bind at daemon.err" 27 "$(pri 'kernel refused "bind"')"
tap_done
