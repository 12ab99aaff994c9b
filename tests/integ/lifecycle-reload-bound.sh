#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGHUP and the settings the kernel fixed at bind (dir, tag, limits):
#  - dir written another way (a trailing slash, a link to it) is no
#    change, and says nothing; another directory is logged;
#  - a tag removed is logged as the kernel's default it would become;
#  - cachefiles-cull status shows the tag and limits in force (the
#    daemon's), not the reloaded file's;
#  - a file with mistakes is refused in the words of -t, and one that is
#    not a regular file (a FIFO) is refused without waiting on it: the
#    daemon still answers at once.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_populate 20 4
sim_config
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
TOOL=$BUILD/cachefiles-cull
since() { tail -n +$(($1 + 1)) "$DAEMON_LOG" | grep -Eq -- "$2"; }
not_since() { ! since "$@"; }
# reload LINE-EDIT...: edit the file with sed, SIGHUP, wait for its end.
reload() {
	line=$(wc -l <"$DAEMON_LOG")
	sed -i "$@" "$SIM_CONF"
	daemon_signal HUP
	wait_for 5 since "$line" 'configuration reloaded|keeping the configuration' ||
		not_ok "the reload ends ($*)"
}

reload "s|^dir .*|dir $SIM_DIR/|"
check "dir with a trailing slash: no change logged" not_since "$line" 'dir changed'
ln -s "$SIM_DIR" "$SIM_TMP/alias"
reload "s|^dir .*|dir $SIM_TMP/alias|"
check "dir through a link to it: no change logged" not_since "$line" 'dir changed'
mkdir -p "$SIM_TMP/elsewhere"
reload "s|^dir .*|dir $SIM_TMP/elsewhere|"
check "another dir: the change is logged" since "$line" \
	"reload: dir changed to $SIM_TMP/elsewhere; it takes effect at the next start"
reload '/^tag /d; s/^brun .*/brun 30%/; s/^bcull .*/bcull 25%/; s/^bstop .*/bstop 20%/'
check "the tag removed: logged as the default it becomes" since "$line" \
	'reload: tag changed to "CacheFiles" \(the kernel.s default'
check "the limits' change is logged" since "$line" 'reload: brun changed from 10% to 30%'

"$TOOL" -f "$SIM_CONF" -d "$SIM_DIR" status >"$SIM_TMP/st" 2>&1
check_grep "status: the tag in force, the daemon's" '^cache .*\(tag simtest\)$' "$SIM_TMP/st"
check_grep "status: the limits in force" 'brun 10%  bcull 7%  bstop 3%' "$SIM_TMP/st"
"$TOOL" -f "$SIM_CONF" -d "$SIM_DIR" --json status >"$SIM_TMP/st" 2>&1
check_grep "status --json: the same" '"tag":"simtest",.*"limits":\{"brun":10,"bcull":7,"bstop":3,' \
	"$SIM_TMP/st"

reload 's/^brun .*/brun banana/'
check "a mistake: refused in the words of -t" since "$line" \
	"$SIM_CONF: configuration has 1 error; keeping the configuration in force"
cp "$SIM_CONF" "$SIM_TMP/conf.saved"
rm -f "$SIM_CONF"
mkfifo "$SIM_CONF"
line=$(wc -l <"$DAEMON_LOG")
daemon_signal HUP
check "a FIFO: refused, not waited on" wait_for 5 since "$line" \
	"$SIM_CONF: not a regular file; keeping the configuration in force"
t0=$(date +%s)
"$CFCTL" "$SIM_CTLSOCK" status 3000 >"$SIM_TMP/st" 2>&1
check_grep "  ... and the daemon answers at once" '"ok":true' "$SIM_TMP/st"
check "  ... within 3 s" test $(($(date +%s) - t0)) -le 3
rm -f "$SIM_CONF"
cp "$SIM_TMP/conf.saved" "$SIM_CONF"
daemon_signal TERM
daemon_wait_exit 10
check_eq "stops on SIGTERM" 0 "$DAEMON_STATUS"
tap_done
