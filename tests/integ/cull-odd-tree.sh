#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A cache tree we did not write.  Old (pre-5.17) layout objects,
# odd names (blanks, tabs, bytes above 0x7f, '%'), special files and
# symlinks named like objects, symlinked volume and fan-out directories,
# an empty volume, a volume with a newline in its name (its objects are
# culled and the kept state holds it), an object with an atime in the future, one nested deeper
# than the scanner goes, and a name that would forge a log line.  Culling
# must go oldest first, never follow a symlink, never touch anything
# outside DIR/cache, and keep the log one line per message.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"
. "$TOP/tests/integ/cull-lib.inc"

SIM_FS_SIZE=32m SIM_FS_INODES=20000
sim_setup
if [ "$SIM_TMPFS" != 1 ]; then
	skip "odd cache tree" "needs a tmpfs for a deterministic fill"
	tap_done; exit
fi
sim_start
sim_config
sim_populate 800 4 vol1
C=$SIM_DIR/cache
O=$SIM_FS/outside
old() { touch -a -d "$1" "$2"; }

mkdir -p "$O"
for i in 1 2 3; do echo keep >"$O/Dout$i"; old 1990-01-01 "$O/Dout$i"; done
ln -s "$O/Dout1" "$C/Ivol1/@00/Dsym"
ln -s "$O" "$C/Ivol1/@sym"
ln -s "$O" "$C/Isymvol"
mkfifo "$C/Ivol1/@00/Dfifo"
mknod "$C/Ivol1/@00/Dchr" c 1 3 2>/dev/null
python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$C/Ivol1/@00/Dsock')" 2>/dev/null
# odd but sendable names, older than everything populated
for n in 'D with space' 'Dtab	x' "$(printf 'D\377\376')" 'D%s%n' 'Dback\\x'; do
	echo x >"$C/Ivol1/@01/$n"; old 2001-01-01 "$C/Ivol1/@01/$n"
done
# not sendable to the kernel: must be left alone
echo x >"$C/Ivol1/@01/ Dlead"; old 1991-01-01 "$C/Ivol1/@01/ Dlead"
# a name that would forge a log line
touch "$C/Ivol1/$(printf 'Zx\ncachefilesd: FORGED line')"
# future atime: the newest object
echo x >"$C/Ivol1/@02/Dfuture"; old 2100-01-01 "$C/Ivol1/@02/Dfuture"
# old layout
J=$C/@4a/I03nfs/@30/Ji000000000000000--fHg8hi8Q/@e1
mkdir -p "$J"
for i in 1 2 3 4 5; do
	dd if=/dev/zero of="$J/Es0g00og$i" bs=4k count=2 2>/dev/null
	old 2002-01-01 "$J/Es0g00og$i"
done
mkdir -p "$C/Iempty"
# a volume whose name holds a newline (a 9p mount source can): its old
# objects are culled, though no command could carry its name
NLV=$C/$(printf 'I9p,host\ntag,x')
mkdir -p "$NLV/@00"
for i in 1 2; do echo x >"$NLV/@00/Dnl$i"; old 1995-01-01 "$NLV/@00/Dnl$i"; done
echo x >"$NLV/@00/Dnl3"; old 2100-01-01 "$NLV/@00/Dnl3"	# kept, so in the state
# deeper than the scanner goes, and the oldest object of all
p=$C/Ideep
i=0
while [ "$i" -lt 40 ]; do p=$p/@d$i; i=$((i + 1)); done
mkdir -p "$p" && echo x >"$p/Ddeep" && old 1999-01-01 "$p/Ddeep"

sim_fill_to 4
daemon_start -n -s -d -f "$SIM_CONF"
sim_wait_bound 5 || not_ok "binds"
check "culling ends" wait_for 20 grep -Eq 'culling done|nothing cullable' "$DAEMON_LOG"
check "the cull count settles" cull_wait_idle 10
check "something was culled" test "$(sim_state culls)" -gt 0
check_eq "culling brought free space back (cull=0)" 0 "$(sim_state cull)"
check_eq "no cull or inuse outside DIR/cache" 0 "$(sim_state violations)"
check_eq "files outside the cache survive (symlink targets)" 3 "$(ls "$O" | wc -l)"
check "symlink named like an object is left alone" test -L "$C/Ivol1/@00/Dsym"
check "fifo named like an object is left alone" test -p "$C/Ivol1/@00/Dfifo"
check "socket named like an object is left alone" test -S "$C/Ivol1/@00/Dsock"
check "symlinked fan-out and volume directories are left alone" test -L "$C/Ivol1/@sym" -a -L "$C/Isymvol"
left=0
for n in 'D with space' 'Dtab	x' "$(printf 'D\377\376')" 'D%s%n' 'Dback\\x'; do
	[ -e "$C/Ivol1/@01/$n" ] && left=$((left + 1))
done
check_eq "old objects with blanks, tabs, high bytes and % in their names are culled" 0 "$left"
check "a name with a leading blank (not sendable) is left alone" test -f "$C/Ivol1/@01/ Dlead"
check_eq "old-layout objects (pre-5.17 tree) are culled" 0 "$(find "$C/@4a" -type f | wc -l)"
check "the object with a future atime is kept (it is the newest)" test -f "$C/Ivol1/@02/Dfuture"
check_eq "old objects in a volume with a newline in its name are culled" 1 \
    "$(find "$NLV" -type f -printf x | wc -c)"
check_eq "no cull of a missing name (every name resolved right)" 0 "$(sim_state cull_missing)"
# LRU order: every remaining populated object is newer than every culled one
culled_max=$(grep -E '^[0-9.]+ cull .*/D[0-9]+ \(file\) -> 0$' "$SIM_LOG" | sed 's,.*/D\([0-9]*\) (file).*,\1,' | sort -n | tail -1)
kept_min=$(find "$C/Ivol1" -name 'D[0-9]*' -type f | sed 's,.*/D,,' | sort -n | head -1)
note "newest culled D$culled_max, oldest kept D$kept_min"
check "culled oldest first" [ "${culled_max:-0}" -lt "${kept_min:-0}" ]
check_grep "an object too deep to be scanned is reported, not silently ignored" \
    'too deep|deeper|depth' "$DAEMON_LOG"
check_no_grep "a file name cannot forge a log line" '^cachefilesd: FORGED' "$DAEMON_LOG"
check_grep "symlinks in the cache are named in the log" 'Dsym.*symlink' "$DAEMON_LOG"
check "the daemon keeps running" daemon_alive
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
# The state file kept that volume's directory: the next start reads it.
: >"$DAEMON_LOG"
daemon_start -n -s -f "$SIM_CONF"
check "the kept state, with that volume in it, is read back" \
    wait_for 10 grep -q 'state: [0-9]* candidates kept' "$DAEMON_LOG"
check_no_grep "  ... not taken for damaged" 'state: .* ignored' "$DAEMON_LOG"
daemon_signal TERM
daemon_wait_exit 5
tap_done
