#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What the daemon shows when it ends, and when nothing culls:
#  1. a cache already below the run limits at bind: "the kernel asks for
#     culling" is the first word of that episode, as of any other;
#  2. stopped in the middle of an episode (SIGTERM): the episode still gets
#     its line, marked cut short, and the metrics file its last figures,
#     every cull counted in both;
#  3. the cache dying in the middle of one: the same, and the metrics file
#     says "dead";
#  4. culling disabled (-N): a change in the kernel's request still reaches
#     the metrics file, which no culling step rewrites.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "what the daemon shows when it ends" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
now=$(date +%s)
cull_objects v1 600 4 $((now - 80 * 86400)) 60
M=$SIM_TMP/metrics.prom
sim_start --cull-delay-ms 20
sim_config "metrics_file $M"
cull_fill 100
_culling() { [ "$(sim_state cull_files)" -ge 10 ]; }
_metric() { sed -n "s/^$1 //p" "$M"; }

# 1 and 2: below the limits at bind, stopped while culling.
sim_daemon_up || { not_ok "binds and starts"; tap_done; exit; }
check "it culls" wait_for 20 _culling
daemon_signal TERM
daemon_wait_exit 10
check_eq "stopped by SIGTERM: status 0" 0 "$DAEMON_STATUS"
culls=$(sim_state cull_files)
check_grep "below the limits at bind: the kernel's request is logged" \
	'the kernel asks for culling' "$DAEMON_LOG"
check_grep "the episode cut short has its line, every cull counted" \
	"culled $culls objects, [0-9.]+ MiB in [0-9]+\\.[0-9] s \\(0 busy, skipped\\); cut short" \
	"$DAEMON_LOG"
check_eq "  ... before the last line" "Daemon Terminated (signal 15)" \
	"$(grep -v '^$' "$DAEMON_LOG" | tail -1 | sed 's/^cachefilesd: //')"
check_eq "the metrics file counts every cull" "$culls" "$(_metric cachefilesd_culled_objects_total)"
check_eq "  ... and the kernel still asking" 1 "$(_metric cachefilesd_kernel_cull)"
check_eq "  ... and the daemon down" 0 "$(_metric cachefilesd_up)"

# 3: the cache dies while culling.
: >"$DAEMON_LOG"
base=$(sim_state cull_files)
daemon_start
sim_wait_bound 5 || not_ok "binds again"
_more() { [ "$(sim_state cull_files)" -ge $((base + 10)) ]; }
check "it culls again" wait_for 20 _more
sim_ctl dead >/dev/null
daemon_wait_exit 10
check_eq "the cache died: status 1" 1 "$DAEMON_STATUS"
culls=$(($(sim_state cull_files) - base))
check_grep "the episode the death cut short has its line" \
	"culled $culls objects, .*; cut short" "$DAEMON_LOG"
check_eq "the metrics file counts its culls" "$culls" "$(_metric cachefilesd_culled_objects_total)"
check_eq "  ... and says dead" 1 "$(_metric 'cachefilesd_state{state="dead"}')"
check_eq "  ... and the daemon down" 0 "$(_metric cachefilesd_up)"

# 4: culling disabled; the kernel asks, then stops asking.
sim_stop
rm -f "$SIM_FS/filler"
sim_start
sim_config "metrics_file $M"
: >"$DAEMON_LOG"
daemon_start -n -s -N -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds with culling off"
_zero() { [ "$(_metric cachefilesd_kernel_cull)" = 0 ]; }
check "culling off: the metrics file is written at start" wait_for 5 _zero
cull_fill 100
sim_ctl check >/dev/null
_one() { [ "$(_metric cachefilesd_kernel_cull)" = 1 ]; }
check "culling off: the kernel's request reaches the metrics file" wait_for 5 _one
rm -f "$SIM_FS/filler"
sim_ctl check >/dev/null
check "culling off: and its end too" wait_for 5 _zero
daemon_signal TERM
daemon_wait_exit 10
check_eq "stopped: status 0" 0 "$DAEMON_STATUS"
tap_done
