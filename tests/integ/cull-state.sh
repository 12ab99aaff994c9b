#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Kept state (state_file, on by default): a scan leaves DIR/cachefilesd.state;
# a restart culls from it before its own scan ends (the scan is held by the
# test daemon's gate, CFSIM_SCAN_GATE, so "before" is certain), except an
# object touched after the file was written; once the scan ends, exactly the
# deficit is culled, oldest first.  A damaged, truncated, stale or foreign
# file is ignored with one log line and a full scan runs; state_file no
# neither reads nor writes it.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"; . "$TOP/tests/integ/cull-lib.inc"

N=2560
SIM_FS_SIZE=32m SIM_FS_INODES=4096
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "kept state" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
V=$SIM_DIR/cache/Ivol1
S=$SIM_DIR/cachefilesd.state
GATE=$SIM_TMP/scan-gate

obj() { printf '%s/@%02x/D%d\n' "$V" $(($1 % 256)) "$1"; }
missing() {
	i=0
	while [ "$i" -lt "$N" ]; do
		[ -e "$(obj "$i")" ] || echo "$i"
		i=$((i + 1))
	done
}
_culled_some() { [ "$(sim_state culls)" -gt 0 ]; }
_scanned() { grep -q 'scan: .* objects' "$DAEMON_LOG"; }
_state_line() { grep -q 'state: ' "$DAEMON_LOG"; }

# run_once [CONFIG LINES]: start, wait for a scan, stop.
run_once() {
	: >"$DAEMON_LOG"
	sim_config "scan_threads 1" "$@"
	daemon_start -n -s -f "$SIM_CONF"
	sim_wait_bound || { not_ok "daemon binds"; exit 1; }
	wait_for 20 _scanned
	daemon_signal TERM
	daemon_wait_exit 5
}

sim_start
mkdir -p "$V"
"$CFSIM" populate "$V" "$N" 0 256
# No deficit at the usual limits: a scan, the state written, nothing culled.
run_once
check "the scan wrote $S" test -f "$S"
check_eq "nothing culled without a deficit" 0 "$(sim_state culls)"
check "no temporary file left" test ! -e "$S.tmp"
cp "$S" "$SIM_TMP/good.state"

# state_file no: nothing read, nothing written.
rm -f "$S"
run_once "state_file no"
check "state_file no writes nothing" test ! -e "$S"
cp "$SIM_TMP/good.state" "$S"

# ignored FILE-CHANGE WHAT: the daemon says why, once, and a full scan runs.
ignored() {
	run_once "$3"
	check_eq "a $1 state file is ignored with one log line" 1 \
		"$(grep -c "state: cachefilesd.state ignored ($2" "$DAEMON_LOG")"
	check "a full scan ran ($1)" _scanned
	[ "$1" = foreign ] || cp "$SIM_TMP/good.state" "$S"
}
len=$(stat -c %s "$S")
printf 'X' | dd of="$S" bs=1 seek=$((len / 2)) conv=notrunc status=none
ignored damaged "damaged: checksum"
truncate -s $((len / 2)) "$S"
ignored truncated "damaged: truncated"
if command -v python3 >/dev/null 2>&1; then
	# Written 8 days ago, summed again: only its age is wrong.
	python3 - "$S" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
w = struct.unpack_from('=Q', b, 40)[0]
struct.pack_into('=Q', b, 40, w - 8 * 86400)
struct.pack_into('=Q', b, 80, 0)
h = 0xcbf29ce484222325
for c in b:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into('=Q', b, 80, h)
open(p, 'wb').write(b)
PY
	ignored stale "stale"
else
	skip "a stale state file is ignored" "no python3 to forge one"
fi

# DIR/cache made anew, the same objects moved in: the file is another cache's.
mv "$SIM_DIR/cache" "$SIM_DIR/cache.old"
mkdir "$SIM_DIR/cache"
mv "$SIM_DIR/cache.old/Ivol1" "$SIM_DIR/cache/"
rmdir "$SIM_DIR/cache.old"
ignored foreign "from another cache"
# The scan just wrote the new cache's state: the restart below uses it.
run_once
check "the state of the new DIR/cache is used" grep -q 'state: [0-9]* candidates kept' "$DAEMON_LOG"

# Restart with a deficit: culling from the kept state while the scan is held.
sleep 1.1
touch -a "$(obj 0)"		# D0, the oldest, used after the file was written
: >"$DAEMON_LOG"
sim_config "scan_threads 1" "frun 60%" "fcull 50%" "fstop 1%" "cull_early no"
CFSIM_SCAN_GATE=$GATE
export CFSIM_SCAN_GATE
c0=$(sim_state culls)
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound || { not_ok "daemon binds with a deficit"; exit 1; }
frun=$(sim_state frun)
check "culling starts while the first scan is held" wait_for 10 _culled_some
check "the kept state was used" grep -q 'state: [0-9]* candidates kept' "$DAEMON_LOG"
check "the scan has not ended" sh -c "! grep -q 'scan: .* objects' '$DAEMON_LOG'"
check "D0, touched after the state was written, is still there" test -e "$(obj 0)"
early=$(missing)
first=$(printf '%s\n' "$early" | head -1)
check_eq "the oldest of the rest went first" 1 "$first"
: >"$GATE"
wait_for 20 _scanned
check "culling finishes" cull_wait_idle 30
k=$((frun - $(cull_ffree) + $(sim_state culls) - c0))
gone=$(missing)
n_gone=$(printf '%s\n' "$gone" | grep -c .)
last=$(printf '%s\n' "$gone" | tail -1)
check_eq "the deficit was culled" "$k" "$n_gone"
check_eq "exactly the oldest went, D0 spared (exact LRU)" "$k" "$last"
check "D0 is still there" test -e "$(obj 0)"
tap_done
