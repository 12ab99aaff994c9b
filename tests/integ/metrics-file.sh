#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The metrics file: written at start, replaced atomically (never seen half
# written, no temporary file left), mode 0644 under umask 077, valid for
# promtool, counters that grow after culls, one sample per volume.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"
. "$TOP/tests/integ/lib-ctl.sh"

need_cfctl "metrics file"
sim_setup
now=$(date +%s)
cull_objects v1 30 4 $((now - 86400)) 60
cull_objects 'v"2' 10 4 $((now - 3600)) 60
sim_start
M=$SIM_TMP/prom/cachefilesd.prom
mkdir "$SIM_TMP/prom"
sim_config "metrics_file $M"
mask=$(umask); umask 077; daemon_start; umask "$mask"
sim_wait_bound || { not_ok "daemon binds"; exit 1; }
cull_wait_scan || { not_ok "first scan"; exit 1; }
metric() { sed -n "s/^$1 //p" "$M"; }
check "the file is written" wait_for 5 sh -c "grep -q '^cachefilesd_scans_total 1' '$M'"
check_eq "mode 0644 under umask 077" 644 "$(stat -c %a "$M")"
check_eq "the scan's objects" 40 "$(metric cachefilesd_scan_objects)"
check_eq "objects of volume Iv1" 30 "$(metric 'cachefilesd_volume_objects{volume="Iv1"}')"
check_eq "objects of a volume with a quote in its name" 10 \
	"$(metric 'cachefilesd_volume_objects{volume="Iv\\"2"}')"
check_eq "the oldest atime" $((now - 86400)) "$(metric cachefilesd_oldest_atime_seconds)"
check_eq "nothing culled yet" 0 "$(metric cachefilesd_culled_objects_total)"
check_eq "the daemon up" 1 "$(metric cachefilesd_up)"
PROMTOOL=${PROMTOOL:-promtool}
command -v "$PROMTOOL" >/dev/null 2>&1 || PROMTOOL=$TOP/build/tools/promtool
if command -v "$PROMTOOL" >/dev/null 2>&1; then
	check "promtool check metrics passes" sh -c "'$PROMTOOL' check metrics <'$M'"
else
	skip "promtool check metrics passes" "promtool is neither installed nor in build/tools (make deps fetches it)"
fi

# Readers see one whole file or the other while it is rewritten.
ino0=$(stat -c %i "$M")
r=$(ctl "cull bytes 20480" 10000)
check_eq "a cull" '"met"' "$(jval result "$r")"
check "the file is rewritten after the episode" wait_for 5 sh -c \
	"grep -q '^cachefilesd_culled_objects_total 5' '$M'"
check_eq "culled bytes counted" 20480 "$(metric cachefilesd_culled_bytes_total)"
check "replaced by a rename (a new inode)" test "$(stat -c %i "$M")" != "$ino0"
check_eq "no temporary file is left" "cachefilesd.prom" "$(ls -A "$SIM_TMP/prom")"
check_eq "mode still 0644" 644 "$(stat -c %a "$M")"
ctl "cull bytes 8192" 10000 >/dev/null
check "the counter grows after another cull" wait_for 5 sh -c \
	"grep -q '^cachefilesd_culled_objects_total 7' '$M'"
if command -v "$PROMTOOL" >/dev/null 2>&1; then
	check "promtool check metrics passes after culls" sh -c "'$PROMTOOL' check metrics <'$M'"
fi
# The start time is read once: every rewrite gives the same second.
st0=$(metric cachefilesd_start_time_seconds)
daemon_signal TERM
daemon_wait_exit 5
check_eq "the daemon exits cleanly" 0 "$DAEMON_STATUS"
check "the start time is a time" test "${st0:-0}" -ge $((now - 60))

# Culling disabled (-N): no scan or episode writes the file; it is written at start.
rm -f "$M"
daemon_start -n -s -N -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds with -N"; exit 1; }
check "-N: the file is written at start" wait_for 5 test -s "$M"
check_eq "-N: culling_enabled 0" 0 "$(metric cachefilesd_culling_enabled)"
daemon_signal TERM
daemon_wait_exit 5
tap_done
