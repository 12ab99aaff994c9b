#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile trees: symlink loops and symlinks out of the cache at every level
# (volume, fan-out, object), fifos, sockets, device nodes, hard links to
# files outside the cache, and names with newlines, spaces and invalid
# UTF-8, all named like cache objects and older than every real one.  The
# kernel asks for more than the cache holds, so the daemon culls all it
# may.  Nothing outside the cache changes (checksums), planted entries are
# left alone, the daemon stays up and its memory stays bounded.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"; . "$TOP/tests/integ/fault-lib.inc"

SIM_FS_SIZE=32m
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "hostile entries" "needs a tmpfs"
	exit 0
fi
now=$(date +%s)
old=$((now - 400 * 86400))
cull_objects v1 40 64 $((now - 30 * 86400)) 600
fault_sentinel
c=$SIM_DIR/cache
o=$SIM_FS/outside
# Symlinks out of the cache, at each level, and loops.
ln -s "$o/Ivol" "$c/Ilinkvol"
ln -s / "$c/Iroot"
ln -s "$c/Iloop" "$c/Iloop"
rm -rf "$c/Iv1/@aa" "$c/Iv1/@ab" "$c/Iv1/@ac"
ln -s "$o/Ivol/@00" "$c/Iv1/@aa"
ln -s "$c/Iv1/@ac" "$c/Iv1/@ab"
ln -s "$c/Iv1/@ab" "$c/Iv1/@ac"
ln -s "$o/Ivol/@00/Dsentinel" "$c/Iv1/@01/Dlink"
ln -s Dloop "$c/Iv1/@01/Dloop"
ln -s ../../.. "$c/Iv1/@01/Dup"
# Special files named like data objects.
mkfifo "$c/Iv1/@02/Dfifo"
"$CFSIM" tree sock "$c/Iv1/@02/Dsock" || not_ok "make a socket"
if mknod "$c/Iv1/@02/Ddev" c 1 3 2>/dev/null; then dev=1; else dev=0; fi
# A hard link to a file outside the cache (outside the sentinel, whose
# checksum counts links): culling the name in the cache may unlink it, but
# the outside file and its bytes must stay.
mkdir -p "$SIM_FS/hard"
head -c 8192 /dev/urandom >"$SIM_FS/hard/Dhard"
hsum=$(sha256sum <"$SIM_FS/hard/Dhard")
ln "$SIM_FS/hard/Dhard" "$c/Iv1/@03/Dhard"
# Odd names.
nl='
'
for n in "D with spaces" "Dtrailing " "D${nl}newline" "D$(printf '\377\376')bad-utf8" "D\\backslash"; do
	head -c 4096 /dev/zero >"$c/Iv1/@04/$n"
done
find "$c" ! -type l -name 'D*' -path '*@0[1-4]*' -exec touch -a -d "@$old" {} + 2>/dev/null

sim_start
sim_config
daemon_start
sim_wait_bound 5 || { not_ok "daemon binds"; exit 1; }
cull_wait_scan 10 || not_ok "the scan ends"
cull_fill 30
sim_ctl check >/dev/null
_all_culled() { [ "$(cull_survivors v1 40 | wc -l)" -eq 0 ]; }
check "every real object is culled" wait_for 20 _all_culled
sleep 1
check "still running" daemon_alive
fault_check_outside "hostile entries"
for l in Ilinkvol Iroot Iloop Iv1/@aa Iv1/@ab Iv1/@ac Iv1/@01/Dlink Iv1/@01/Dloop Iv1/@01/Dup; do
	check "symlink left alone: $l" test -L "$c/$l"
done
check "fifo left alone" test -p "$c/Iv1/@02/Dfifo"
check "socket left alone" test -S "$c/Iv1/@02/Dsock"
if [ "$dev" = 1 ]; then
	check "device node left alone" test -c "$c/Iv1/@02/Ddev"
else
	skip "device node left alone" "mknod not permitted here"
fi
check_eq "the hard-linked file outside the cache is unchanged" "$hsum" "$(sha256sum <"$SIM_FS/hard/Dhard")"
check "a name with a newline is left alone (no cull command can carry it)" test -e "$c/Iv1/@04/D${nl}newline"
check_grep "... and counted" ' [1-9][0-9]* names no cull command can carry' "$DAEMON_LOG"
for n in "D with spaces" "Dtrailing " "D$(printf '\377\376')bad-utf8" "D\\backslash"; do
	check "culled exactly: $(printf '%s' "$n" | od -An -c | tr -s ' ' | head -c 60)" \
		grep -qF "cull $c/Iv1/@04/$n (file) -> 0" "$SIM_LOG"
done
check_eq "no directory was culled" 0 "$(sim_state cull_dirs)"
hwm=$(fault_hwm)
check "memory bounded: VmHWM $hwm kB < $FAULT_HWM_KB kB" test "$hwm" -lt "$FAULT_HWM_KB"
note "table: symlinks (9), fifo, socket, device$([ $dev = 1 ] || echo ' (skipped)'), hard link, 5 odd names | culled $(fault_culls) | VmHWM $hwm kB | hard link culled: $([ -e "$c/Iv1/@03/Dhard" ] && echo no || echo yes)"
tap_done
