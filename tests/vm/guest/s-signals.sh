# SPDX-License-Identifier: GPL-2.0-or-later
# SIGTERM: the daemon exits 0 and the kernel withdraws the cache.
# SIGKILL while objects are in use, then an immediate restart: the new daemon
# binds again (the device may answer EBUSY while the old cache withdraws).
. /vm/glib.sh
DIR=$FS/signals
LOG=/out/signals-daemon.log
mkdir -p "$DIR"
conf_limits "$DIR" vmsig > /tmp/sig.conf

# active: is a cache called $1 listed as active (state A)?
active() { awk -v t="$1" '$NF == t && $(NF-1) == "A" { f = 1 } END { exit !f }' /proc/fs/fscache/caches; }

u0=$(nunreg)
if cfd_bind /tmp/sig.conf "$LOG" && active vmsig; then
	share_mount && read_files "$DATA/small/00.txt" "$DATA/new/00.bin" && share_umount
	cfd_stop "$CFD_PID" TERM
	wait_until 15 unreg_above "$u0"
	if [ "$CFD_RC" -eq 0 ] && [ "$(nunreg)" -gt "$u0" ] && ! active vmsig; then
		ok "SIGTERM: exit status 0 and the kernel unregisters the cache"
	else
		not_ok "SIGTERM: exit status 0 and the kernel unregisters the cache"
		diag "exit status $CFD_RC, unregistering lines $u0 -> $(nunreg)"
		sed 's/^/#   /' /proc/fs/fscache/caches
		diag_file "$LOG"
	fi
else
	not_ok "SIGTERM: exit status 0 and the kernel unregisters the cache"
	diag "the daemon did not bind"
	diag_file "$LOG"
fi

# SIGKILL with the share mounted and a file open.  The new daemon starts
# while the old one still holds the device, so its open() meets EBUSY for
# certain; it must retry and bind once the old one is killed.
echo "--- restart after SIGKILL" >> "$LOG"
r0=$(nreg)
if cfd_bind /tmp/sig.conf "$LOG" && share_mount; then
	read_files "$DATA/new/01.bin"
	sleep 1000 < "$DATA/new/02.bin" &
	remember_pid $!
	holder=$!
	old=$CFD_PID
	cfd_start /tmp/sig.conf "$LOG"
	sleep 1
	alive "$CFD_PID" && early=running || early=exited
	kill -KILL "$old"
	wait "$old" 2>/dev/null
	wait_until 30 reg_above $((r0 + 1))
	sleep 1
	if [ $early = running ] && [ "$(nreg)" -ge $((r0 + 2)) ] && alive "$CFD_PID" && active vmsig; then
		ok "SIGKILL then restart: the daemon binds again"
	else
		not_ok "SIGKILL then restart: the daemon binds again"
		diag "new daemon while the old one held the device: $early (must wait and retry on EBUSY)"
		diag "registered lines $r0 -> $(nreg), new daemon alive: $(alive "$CFD_PID" && echo yes || echo no)"
		dmesg | grep -E 'CacheFiles|FS-Cache' | tail -6 | sed 's/^/#   dmesg: /'
		diag_file "$LOG"
	fi
	kill "$holder"
	share_umount
	cfd_stop "$CFD_PID" TERM
else
	not_ok "SIGKILL then restart: the daemon binds again"
	diag "first daemon did not bind"
	diag_file "$LOG"
fi
[ "$FAILED" -eq 0 ]
