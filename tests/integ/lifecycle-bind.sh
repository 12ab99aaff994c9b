#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon binds the simulated cache with the configured limits, whatever
# order the limits are written in, and -N/nocull binds without culling.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
notify_start

# bind_with NAME LIMIT-LINES: start with these limits, check the absolute values.
bind_with() {
	name=$1; shift
	sim_config
	grep -Ev '^(brun|bcull|bstop|frun|fcull|fstop) ' "$SIM_CONF" >"$SIM_CONF.new"
	for l in "$@"; do echo "$l" >>"$SIM_CONF.new"; done
	mv "$SIM_CONF.new" "$SIM_CONF"
	: >"$DAEMON_LOG"
	daemon_start
	if sim_wait_bound 5; then
		ok "$name: binds"
	else
		not_ok "$name: binds"
		sed 's/^/#   /' "$DAEMON_LOG" | tail -5
	fi
	for l in "$@"; do
		key=${l%% *}; pct=${l#* }; pct=${pct%\%}
		set_=$(echo "$key" | cut -c1)
		exp=$(statfs_limit "$set_" "$pct")
		got=$(sim_state "$key")
		if [ "$got" != "$exp" ]; then
			not_ok "$name: $key is $pct% of the filesystem"
			note "expected $exp, simulator has '$got'"
			return
		fi
	done
	ok "$name: every limit is the configured percentage of the filesystem"
}

bind_with "default-like" "brun 10%" "bcull 7%" "bstop 3%" "frun 10%" "fcull 7%" "fstop 3%"
check_grep "the log says the cache is bound, with tag and dir" "[Bb]ound.*simtest.*$SIM_DIR|$SIM_DIR.*simtest" "$DAEMON_LOG"
check_eq "the simulator has the configured tag" simtest "$(sim_state tag)"
check_eq "the simulator has the configured dir" "$(cd "$SIM_DIR" && pwd -P)" "$(sim_state dir)"
check "the simulator sees no violation" sh -c "! grep -q VIOLATION '$SIM_LOG'"
daemon_signal TERM; daemon_wait_exit 5

bind_with "reverse order" "bstop 3%" "bcull 7%" "brun 10%" "fstop 3%" "fcull 7%" "frun 10%"
daemon_signal TERM; daemon_wait_exit 5
bind_with "raised" "bstop 85%" "fcull 90%" "brun 95%" "fstop 80%" "bcull 90%" "frun 95%"
daemon_signal TERM; daemon_wait_exit 5
bind_with "lowered" "brun 5%" "bcull 3%" "bstop 2%" "frun 4%" "fcull 2%" "fstop 0%"
daemon_signal TERM; daemon_wait_exit 5
bind_with "mixed" "bcull 50%" "fstop 20%" "brun 60%" "frun 40%" "bstop 1%" "fcull 30%"
n=$(grep -c 'write "[bf]\(run\|cull\|stop\) [0-9]*%" pid [0-9]* -> EINVAL' "$SIM_LOG")
check_eq "no limit command was refused on the way" 0 "$n"
daemon_signal TERM; daemon_wait_exit 5

# -N and nocull: bound, and no cull even when the kernel asks for it.
if [ "$SIM_TMPFS" = 1 ]; then
	sim_populate 20 4
	for how in "-N" "nocull"; do
		sim_config
		[ "$how" = nocull ] && echo nocull >>"$SIM_CONF"
		c0=$(sim_state culls)
		if [ "$how" = -N ]; then daemon_start -n -s -N -f "$SIM_CONF"; else daemon_start; fi
		sim_wait_bound 5 || not_ok "$how: binds"
		sim_fill_to 4
		sim_ctl check >/dev/null
		# the daemon has heard the kernel ask; then culls must not follow
		check "$how: the daemon hears the kernel ask for culling" \
		    wait_for 5 grep -q 'the kernel asks for culling' "$DAEMON_LOG"
		_culled() { [ "$(sim_state culls)" -gt "$c0" ]; }
		if wait_for 2 _culled; then st=culled; else st="no cull"; fi
		check_eq "$how: bound and no cull although the kernel asks" "1 no cull" "$(sim_state bound) $st"
		rm -f "$SIM_FS/filler"
		daemon_signal TERM; daemon_wait_exit 5
		check_eq "$how: exits 0 on SIGTERM" 0 "$DAEMON_STATUS"
	done
else
	skip "-N: bound and no cull although the kernel asks" "no tmpfs"
	skip "nocull: bound and no cull although the kernel asks" "no tmpfs"
fi

# The descriptor limit: started with a soft limit of 1024 (a service's
# default) under a hard one of 4096, the daemon raises the soft one to the
# hard one, for the directory descriptors culling keeps (cull/victims.c).
if command -v prlimit >/dev/null 2>&1; then
	sim_config
	SIM_OPENS0=$(sim_state opens 2>/dev/null)
	CACHEFILESD_DEVICE=$SIM_SOCK prlimit --nofile=1024:4096 "$CACHEFILESD_SIM" -n -s -f "$SIM_CONF" \
	    >>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	sim_wait_bound 5 || not_ok "started with 1024:4096 descriptors: binds"
	lim=$(awk '/^Max open files/ { print $4 ":" $5 }' "/proc/$DAEMON_PID/limits" 2>/dev/null)
	check_eq "started with a soft descriptor limit of 1024 under 4096: raised to 4096" \
	    "4096:4096" "$lim"
	daemon_signal TERM; daemon_wait_exit 5
else
	skip "started with a soft descriptor limit of 1024 under 4096: raised to 4096" "no prlimit"
fi
tap_done
