#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The graveyard is emptied at start and whenever something arrives, never
# following a symlink and never removing anything outside it.
. "$TOP/tests/lib.sh"
. "$TOP/tests/integ/lib-sim.sh"

sim_setup
sim_start
sim_config
GY=$SIM_DIR/graveyard
mkdir -p "$GY" "$SIM_DIR/cache"

# Things outside that links in the graveyard point to.
OUT=$SIM_FS/outside
mkdir -p "$OUT/dir/sub"
echo precious >"$OUT/file"
echo precious >"$OUT/dir/sub/file"
echo keep >"$SIM_DIR/not-in-graveyard"
mkdir -p "$SIM_DIR/cache/Ikeep/@00"; echo keep >"$SIM_DIR/cache/Ikeep/@00/Dkeep"

# plant NAME: a buried tree like the kernel's, with links pointing outside.
plant() {
	d=$1
	mkdir -p "$d/@00/deep/er/still" "$d/@01"
	echo x >"$d/@00/Dfile"; echo y >"$d/@00/deep/er/still/Dz"
	ln -s "$OUT" "$d/@01/link-to-dir"
	ln -s "$OUT/file" "$d/@01/link-to-file"
	ln -s "$OUT/dir/sub" "$d/@00/deep/link"
	mkfifo "$d/@01/fifo" 2>/dev/null
	chmod -R go-rwx "$d"
}
plant "$GY/0000000100000001"
plant "$GY/0000000100000002"
ln -s "$OUT/dir" "$GY/0000000100000003"
ln -s "$OUT/file" "$GY/0000000100000004"
echo stray >"$GY/0000000100000005"
mkdir -p "$GY/0000000100000006"
i=0; while [ $i -lt 300 ]; do : >"$GY/0000000100000006/f$i"; i=$((i + 1)); done
# As the kernel makes them when the cache root belongs to another user:
# directories 0700 and files 0000 owned by that user.
plant "$GY/0000000100000007"
find "$GY/0000000100000007" -type f -exec chmod 000 {} +
chown -hR 4242:4242 "$GY/0000000100000007"

# outside_intact: nothing the links point to was touched.
outside_intact() {
	[ "$(cat "$OUT/file")" = precious ] && [ "$(cat "$OUT/dir/sub/file")" = precious ] &&
	    [ -f "$SIM_DIR/not-in-graveyard" ] && [ -f "$SIM_DIR/cache/Ikeep/@00/Dkeep" ]
}
# gy_empty: nothing left but the foreign-owned entry (checked on its own).
gy_empty() { [ -z "$(ls -A "$GY" | grep -v '^0000000100000007$')" ]; }

daemon_start
sim_wait_bound 5 || not_ok "binds"
if wait_for 5 gy_empty; then ok "at start: the graveyard is emptied"; else
	not_ok "at start: the graveyard is emptied"; ls -lR "$GY" | head -20 | sed 's/^/#   /'; fi
check "at start: link targets and everything outside the graveyard survive" outside_intact
if wait_for 3 test ! -e "$GY/0000000100000007"; then
	ok "at start: an entry owned by another user (0700 dirs, 0000 files) is removed"
else
	not_ok "at start: an entry owned by another user (0700 dirs, 0000 files) is removed"
	note "the kernel creates files as the owner of the cache root, which need not be root"
	rm -rf "$GY/0000000100000007"
fi
check "the graveyard directory itself stays" test -d "$GY" -a ! -L "$GY"

# While running: a tree renamed in (as the kernel's cull does) and one created in place.
mkdir -p "$SIM_DIR/cache/Ivictim"; plant "$SIM_DIR/cache/Ivictim"
mv "$SIM_DIR/cache/Ivictim" "$GY/0000000200000001"	# one rename, as the kernel does
if wait_for 5 gy_empty; then ok "running: a tree moved into the graveyard is removed"; else
	not_ok "running: a tree moved into the graveyard is removed"; ls -lR "$GY" | head | sed 's/^/#   /'; fi
mkdir "$SIM_FS/stage"
ln -s "$OUT/dir" "$SIM_FS/stage/l"
mv "$SIM_FS/stage" "$GY/0000000200000002"
ln -s "$OUT" "$GY/0000000200000003"
mkdir "$GY/0000000200000004"
if wait_for 5 gy_empty; then ok "running: new entries and symlinks are removed"; else
	not_ok "running: new entries and symlinks are removed"; ls -l "$GY" | sed 's/^/#   /'; fi
check "running: link targets and everything outside the graveyard survive" outside_intact

# A big tree does not stall the loop: a state change is still served at once.
mkdir -p "$SIM_FS/big"
"$CFSIM" populate "$SIM_FS/big" 2000 0
r0=$(grep -c 'read [0-9]* ->' "$SIM_LOG")
mv "$SIM_FS/big" "$GY/0000000300000001"
sim_ctl release Ikeep/@00/Dkeep >/dev/null
if wait_for 3 sh -c "[ \$(grep -c 'read [0-9]* ->' '$SIM_LOG') -gt $r0 ]"; then
	ok "a big graveyard tree does not keep the loop from reading the state"
else
	not_ok "a big graveyard tree does not keep the loop from reading the state"
fi
if wait_for 10 gy_empty; then ok "a big tree (2000 files) is removed"; else not_ok "a big tree (2000 files) is removed"; fi
check "daemon still running" daemon_alive
check_no_grep "no violation" VIOLATION "$SIM_LOG"
daemon_signal TERM
daemon_wait_exit 5
check_eq "exit 0" 0 "$DAEMON_STATUS"
tap_done
