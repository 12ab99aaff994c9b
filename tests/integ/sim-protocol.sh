#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel simulator against the kernel interface reference: framing,
# errnos, limit ordering, bind, the state line, the state-changed notices,
# cull/inuse in the writer's cwd, the graveyard, a dead cache, close.
# Scripts go through "cfsim client"; expected transcripts are the
# documented kernel answers.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start

# transcript NAME: run the client script on stdin, compare with $SIM_TMP/expect.
transcript() {
	"$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got" 2>&1
	if diff "$SIM_TMP/expect" "$SIM_TMP/got" >"$SIM_TMP/diff"; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' "$SIM_TMP/diff"
	fi
}
hex() { printf '%x' "$1"; }
CTL="$CFSIM ctl $SIM_CTL"

# --- the fixed conformance sequence (the same one runs on the real module) ---
# tests/integ/sim-conform.expected holds the kernel's documented answers.
cp "$TOP/tests/integ/sim-conform.expected" "$SIM_TMP/expect"
"$CFSIM" conform "$SIM_SOCK" "$SIM_DIR" >"$SIM_TMP/got" 2>"$SIM_TMP/conform.err"
if diff "$SIM_TMP/expect" "$SIM_TMP/got" >"$SIM_TMP/diff"; then
	ok "conform sequence gives the kernel's answers"
else
	not_ok "conform sequence gives the kernel's answers"
	sed 's/^/#   /' "$SIM_TMP/diff"
fi
check_eq "simulator unbound after the conform client closed" 0 "$(sim_state bound)"
check "cache and graveyard stay after close" test -d "$SIM_DIR/cache" -a -d "$SIM_DIR/graveyard"

# --- exclusive open; a new client after the first one closed ---
cat >"$SIM_TMP/expect" <<EOF
open: ok
open: EBUSY
EOF
printf 'x %s client %s </dev/null || :\n' "$CFSIM" "$SIM_SOCK" | transcript "second open gets EBUSY while the first is held"
printf 'r\n' | "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
check_eq "a new open after close starts unbound" "open: ok
r: EOF" "$(cat "$SIM_TMP/got")"

# --- bind: absolute limits from statfs, computed as the kernel does ---
fr=$(hex "$(statfs_limit f 20)"); fc=$(hex "$(statfs_limit f 10)"); fs=$(hex "$(statfs_limit f 5)")
br=$(hex "$(statfs_limit b 30)"); bc=$(hex "$(statfs_limit b 20)"); bs=$(hex "$(statfs_limit b 2)")
cat >"$SIM_TMP/expect" <<EOF
open: ok
w bstop 2%: ok
w bcull 20%: EINVAL
w brun 30%: ok
w bcull 20%: ok
w frun 20%: ok
w fcull 10%: ok
w fstop 5%: ok
w dir $SIM_DIR: ok
w bind: ok
r: cull=0 frun=$fr fcull=$fc fstop=$fs brun=$br bcull=$bc bstop=$bs freleased=0 breleased=0
w frun 50%: ok
r: cull=0 frun=$fr fcull=$fc fstop=$fs brun=$br bcull=$bc bstop=$bs freleased=0 breleased=0
EOF
cat <<EOF | transcript "limits: per-command ordering, absolute values from statfs at bind"
w bstop 2%
w bcull 20%
w brun 30%
w bcull 20%
w frun 20%
w fcull 10%
w fstop 5%
w dir $SIM_DIR
w bind
r
w frun 50%
r
EOF

# --- in-use objects, release counters and the state-changed notice ---
mkdir -p "$SIM_DIR/cache/Ivol/@00"
head -c 10000 /dev/zero >"$SIM_DIR/cache/Ivol/@00/Dobj"
blocks=$(hex "$(stat -c %b "$SIM_DIR/cache/Ivol/@00/Dobj")")
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_DIR: ok
w bind: ok
r: cull=0 frun=$(hex "$(statfs_limit f 7)") fcull=$(hex "$(statfs_limit f 5)") fstop=$(hex "$(statfs_limit f 1)") brun=$(hex "$(statfs_limit b 7)") bcull=$(hex "$(statfs_limit b 5)") bstop=$(hex "$(statfs_limit b 1)") freleased=0 breleased=0
n: no
w inuse Dobj: EBUSY
w cull Dobj: EBUSY
w cull @00: EBUSY
n: yes
n: no
r: cull=0 frun=$(hex "$(statfs_limit f 7)") fcull=$(hex "$(statfs_limit f 5)") fstop=$(hex "$(statfs_limit f 1)") brun=$(hex "$(statfs_limit b 7)") bcull=$(hex "$(statfs_limit b 5)") bstop=$(hex "$(statfs_limit b 1)") freleased=1 breleased=$blocks
r: cull=0 frun=$(hex "$(statfs_limit f 7)") fcull=$(hex "$(statfs_limit f 5)") fstop=$(hex "$(statfs_limit f 1)") brun=$(hex "$(statfs_limit b 7)") bcull=$(hex "$(statfs_limit b 5)") bstop=$(hex "$(statfs_limit b 1)") freleased=0 breleased=0
w inuse Dobj: ok
w cull Dobj: ok
w cull Dobj: ENOENT
EOF
cat <<EOF | transcript "busy objects give EBUSY; release counts, notifies once, read resets"
w dir $SIM_DIR
w bind
r
n 100
x $CTL busy Ivol/@00/Dobj >/dev/null
x $CTL busy Ivol/@00 >/dev/null
cd $SIM_DIR/cache/Ivol/@00
w inuse Dobj
w cull Dobj
cd $SIM_DIR/cache/Ivol
w cull @00
x $CTL release Ivol/@00/Dobj >/dev/null
n 1000
n 100
r
r
cd $SIM_DIR/cache/Ivol/@00
w inuse Dobj
w cull Dobj
w cull Dobj
EOF
check "a culled file is unlinked" test ! -e "$SIM_DIR/cache/Ivol/@00/Dobj"
: >"$SIM_DIR/cache/Dshort"
printf 'w dir %s\nw bind\nx %s release Dshort >/dev/null\nr 16\nx %s state\nr\n' "$SIM_DIR" "$CTL" "$CTL" |
    "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
check_grep "a short read fails EMSGSIZE" '^r: EMSGSIZE$' "$SIM_TMP/got"
check_grep "... and the counters it would have shown are lost" '^r: cull=0 .* freleased=0 breleased=0$' "$SIM_TMP/got"
check_grep "... and the state-changed flag is cleared" '^ok .* changed=0 ' "$SIM_TMP/got"
sim_ctl unbusy Ivol/@00 >/dev/null

# --- directories go to the graveyard; cwd outside the cache is flagged ---
mkdir -p "$SIM_DIR/cache/Ivol/@01/sub"
echo keep >"$SIM_FS/outside.txt"
v0=$(grep -c '^[0-9.]* VIOLATION' "$SIM_LOG")
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_DIR: ok
w bind: ok
w cull @01: ok
w cull cache: EBUSY
w inuse outside.txt: ok
w cull outside.txt: EIO
EOF
cat <<EOF | transcript "cull of a directory buries it; cull outside the cache is refused"
w dir $SIM_DIR
w bind
cd $SIM_DIR/cache/Ivol
w cull @01
cd $SIM_DIR
w cull cache
cd $SIM_FS
w inuse outside.txt
w cull outside.txt
EOF
check "the file outside the cache survives" test -f "$SIM_FS/outside.txt"
n=$(ls "$SIM_DIR/graveyard" | grep -Ec '^[0-9a-f]{16}$')
check_eq "graveyard holds one 16-hex-digit entry" 1 "$n"
check "the buried directory keeps its contents" test -d "$SIM_DIR/graveyard/$(ls "$SIM_DIR/graveyard" | head -1)/sub"
check_eq "each cull/inuse from outside DIR/cache is a VIOLATION" 3 $(($(grep -c '^[0-9.]* VIOLATION' "$SIM_LOG") - v0))
check_grep "the log names the resolved path" "VIOLATION: cull $SIM_FS/outside.txt" "$SIM_LOG"
rm -rf "$SIM_DIR/graveyard"/*

# --- a dead cache: every command fails EIO, reads go on ---
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_DIR: ok
w bind: ok
w debug 0: EIO
w frobnicate: EIO
w cull x: EIO
EOF
cat <<EOF | transcript "after 'dead' every command fails with EIO"
w dir $SIM_DIR
w bind
x $CTL dead >/dev/null
w debug 0
w frobnicate
w cull x
EOF

# --- dir and bind errors, in the kernel's order ---
: >"$SIM_FS/afile"
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_DIR/missing: ok
w bind: ENOENT
w tag x: EEXIST
EOF
cat <<EOF | transcript "bind of a missing directory: ENOENT; the default tag is set"
w dir $SIM_DIR/missing
w bind
w tag x
EOF
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_FS/afile: ok
w bind: ENOTDIR
EOF
printf 'w dir %s/afile\nw bind\n' "$SIM_FS" | transcript "bind of a file: ENOTDIR"
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_DIR : ok
w bind: ENOENT
EOF
printf 'w dir %s \nw bind\n' "$SIM_DIR" | transcript "trailing whitespace is part of the argument"
mkdir -p "$SIM_FS/bad"; : >"$SIM_FS/bad/graveyard"
cat >"$SIM_TMP/expect" <<EOF
open: ok
w dir $SIM_FS/bad: ok
w bind: EIO
EOF
printf 'w dir %s/bad\nw bind\n' "$SIM_FS" | transcript "graveyard that is not a directory: EIO"

# --- the space check: cull flag, hysteresis, notices, stop limit ---
if [ "$SIM_TMPFS" = 1 ]; then
	total=$(stat -f -c %b "$SIM_DIR")
	# fill_to PCT: leave PCT percent of the blocks available
	fill_to() {
		rm -f "$SIM_FS/filler"
		avail=$(stat -f -c %a "$SIM_DIR")
		want=$((total * $1 / 100))
		[ "$avail" -gt "$want" ] && dd if=/dev/zero of="$SIM_FS/filler" bs=4096 count=$((avail - want)) 2>/dev/null
		:
	}
	cat >"$SIM_TMP/expect" <<EOF
open: ok
w brun 30%: ok
w bcull 20%: ok
w bstop 10%: ok
w dir $SIM_DIR: ok
w bind: ok
n: no
n: yes
r: cull=1
n: no
r: cull=1
r: cull=0
n: no
EOF
	cat <<EOF | "$CFSIM" client "$SIM_SOCK" | sed 's/^\(r: cull=.\).*/\1/' >"$SIM_TMP/got"
w brun 30%
w bcull 20%
w bstop 10%
w dir $SIM_DIR
w bind
n 100
x rm -f $SIM_FS/filler; avail=\$(stat -f -c %a $SIM_DIR); dd if=/dev/zero of=$SIM_FS/filler bs=4096 count=\$((avail - $total * 15 / 100)) 2>/dev/null
x $CTL check >/dev/null
n 1000
r
n 100
x rm -f $SIM_FS/filler; avail=\$(stat -f -c %a $SIM_DIR); dd if=/dev/zero of=$SIM_FS/filler bs=4096 count=\$((avail - $total * 25 / 100)) 2>/dev/null
r
x rm -f $SIM_FS/filler
r
n 100
EOF
	if diff "$SIM_TMP/expect" "$SIM_TMP/got" >"$SIM_TMP/diff"; then
		ok "space check: cull below bcull with a notice, hysteresis until brun"
	else
		not_ok "space check: cull below bcull with a notice, hysteresis until brun"
		sed 's/^/#   /' "$SIM_TMP/diff"
	fi
	fill_to 5
	printf 'w brun 30%%\nw bcull 20%%\nw bstop 10%%\nw dir %s\nw bind\nx %s check\n' \
	    "$SIM_DIR" "$CTL" | "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
	check_grep "below bstop the check refuses (ENOBUFS)" '^ok cull=1 enobufs' "$SIM_TMP/got"
	rm -f "$SIM_FS/filler"
else
	skip "space check: cull below bcull with a notice, hysteresis until brun" "no tmpfs"
	skip "below bstop the check refuses (ENOBUFS)" "no tmpfs"
fi
sim_stop

# --- variants: newest kernels, old kernels, no privilege, withdrawal ---
sim_start --estale
printf 'w dir %s\nw bind\ncd %s/cache\nw cull nothere\nw inuse nothere\n' "$SIM_DIR" "$SIM_DIR" |
    "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
check_eq "--estale: a missing name gives ESTALE" 2 "$(grep -c ': ESTALE$' "$SIM_TMP/got")"
sim_stop
sim_start --old-kernel
: >"$SIM_DIR/cache/Dold"
printf 'w dir %s\nw bind\nx %s release Dold >/dev/null\nn 200\nr\n' "$SIM_DIR" "$CTL" |
    "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
check_grep "--old-kernel: state line ends at bstop" '^r: cull=0 frun=[0-9a-f]+ fcull=[0-9a-f]+ fstop=[0-9a-f]+ brun=[0-9a-f]+ bcull=[0-9a-f]+ bstop=[0-9a-f]+$' "$SIM_TMP/got"
check_grep "--old-kernel: a release sends no notice" '^n: no$' "$SIM_TMP/got"
sim_stop
sim_start --withdraw-ms 3000
printf 'r\n' | "$CFSIM" client "$SIM_SOCK" >/dev/null
"$CFSIM" client "$SIM_SOCK" </dev/null >"$SIM_TMP/got"
check_eq "--withdraw-ms: an open right after a close gets EBUSY" "open: EBUSY" "$(cat "$SIM_TMP/got")"
sim_stop
sim_start
check "control: a relative path before any bind is an error" sh -c "! $CTL busy Dx >/dev/null"
check "control: an unknown request is an error" sh -c "! $CTL frobnicate >/dev/null"
check "control: release needs a bound cache" sh -c "! $CTL release $SIM_DIR/cache/Dold >/dev/null"
$CTL log hello-mark >/dev/null
check_grep "control: log writes a mark" 'MARK hello-mark$' "$SIM_LOG"
sim_stop
sim_start --eperm
"$CFSIM" client "$SIM_SOCK" </dev/null >"$SIM_TMP/got"
check_eq "--eperm: open fails with EPERM" "open: EPERM" "$(cat "$SIM_TMP/got")"
sim_stop
sim_start --busy-ms 3000
"$CFSIM" client "$SIM_SOCK" </dev/null >"$SIM_TMP/got"
check_eq "--busy-ms: open fails with EBUSY at first" "open: EBUSY" "$(cat "$SIM_TMP/got")"
wait_for 6 sh -c "'$CFSIM' client '$SIM_SOCK' </dev/null >'$SIM_TMP/got'"
check_eq "--busy-ms: open works afterwards" "open: ok" "$(cat "$SIM_TMP/got")"
sim_stop
sim_start --fail-bind EOPNOTSUPP
printf 'w dir %s\nw bind\n' "$SIM_DIR" | "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
check_grep "--fail-bind: bind fails with the given errno" '^w bind: EOPNOTSUPP$' "$SIM_TMP/got"
sim_stop

# --- notify-listen: datagrams become lines ---
notify_start
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import socket,os; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"READY=1\nSTATUS=bound", os.environ["NOTIFY_SOCKET"])'
	wait_for 5 grep -q '^STATUS=bound$' "$NOTIFY_OUT"
	check_eq "notify-listen writes one message a line" "READY=1
STATUS=bound" "$(cat "$NOTIFY_OUT")"
else
	skip "notify-listen writes one message a line" "python3 missing"
fi
tap_done
