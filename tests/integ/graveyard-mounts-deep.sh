#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The graveyard with trees we did not write.  A bind mount inside
# DIR/graveyard whose source is on the same filesystem (same st_dev) must not
# be entered: what lies beyond it is outside the graveyard.  A huge tree and
# a very deep chain are emptied without blocking bind, READY=1 or SIGTERM.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

SIM_FS_SIZE=64m SIM_FS_INODES=40000
sim_setup
sim_start
sim_config
G=$SIM_DIR/graveyard
mkdir -p "$SIM_DIR/cache" "$G/bm" "$SIM_FS/outside/sub"
for i in 1 2 3; do
	echo keep >"$SIM_FS/outside/f$i"
	echo keep >"$SIM_FS/outside/sub/g$i"
done

# 1. A bind mount of a directory of the same filesystem inside the graveyard.
mounted=0
if mount --bind "$SIM_FS/outside" "$G/bm" 2>/dev/null; then
	mounted=1
	trap 'umount "$G/bm" 2>/dev/null; sim_cleanup' EXIT
fi
daemon_start -n -s -d -d -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds"
sleep 1.5
if [ "$mounted" = 1 ]; then
	n=$(find "$SIM_FS/outside" -type f | wc -l)
	check_eq "files behind a same-filesystem bind mount in the graveyard survive" 6 "$n"
	check_no_grep "the daemon removed nothing through the mount" 'removed (file|directory) (f[0-9]|g[0-9]|sub)$' "$DAEMON_LOG"
	check "the mount point itself is left in place" test -d "$G/bm"
	umount "$G/bm" 2>/dev/null
	trap sim_cleanup EXIT
else
	skip "files behind a same-filesystem bind mount in the graveyard survive" "mount --bind not possible here"
fi
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0 after the bind-mount pass" 0 "$DAEMON_STATUS"

# 2. A big tree (20000 files) and a chain 300 directories deep.
rm -rf "${G:?}"/*
i=0
while [ "$i" -lt 20 ]; do
	d=$G/dead$i/@x/Jkey
	mkdir -p "$d"
	(cd "$d" && seq 1 1000 | sed 's/^/D/' | xargs touch)
	i=$((i + 1))
done
p=$G/deepchain
i=0
while [ "$i" -lt 300 ]; do p=$p/d; i=$((i + 1)); done
mkdir -p "$p" && touch "$p/leaf"
note "graveyard entries: $(find "$G" | wc -l)"
notify_start
: >"$DAEMON_LOG"
t0=$(date +%s%N)
daemon_start -n -s -f "$SIM_CONF"
sim_wait_bound 10 || not_ok "binds with a big graveyard"
wait_for 5 grep -q '^READY=1' "$NOTIFY_OUT"
t1=$(date +%s%N)
note "bound and READY=1 after $(( (t1 - t0) / 1000000 )) ms"
check_grep "READY=1 with a big graveyard" '^READY=1$' "$NOTIFY_OUT"
check "READY=1 within 3 s with a big graveyard" [ $(( (t1 - t0) / 1000000 )) -lt 3000 ]
wait_for 60 sh -c "[ \$(find '$G' | wc -l) -le 1 ]"
check_eq "the big graveyard and the deep chain are emptied" 1 "$(find "$G" | wc -l)"
check "the graveyard itself stays" test -d "$G"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
check_eq "no cull or inuse outside DIR/cache" 0 "$(sim_state violations)"
tap_done
