# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the guest scenario scripts (busybox sh, sourced).  A scenario
# prints TAP on stdout and its narrative on stderr (/out/NAME.log).
CFD=/usr/sbin/cachefilesd
CFSIM=/usr/bin/cfsim
FS=/fs
DATA=/data
FAILED=0
# Seconds the daemon may take, once the kernel asks for culling and cullable
# objects exist, to bring free space back to brun (the work itself takes
# about a second under TCG).
CULL_LATENCY=20

up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(up)] $*" >&2; }
ok() { echo "ok - $*"; log "PASS $*"; }
not_ok() { echo "not ok - $*"; log "FAIL $*"; FAILED=$((FAILED + 1)); }
diag() { echo "# $*"; log "# $*"; }
# diag_file FILE [N]: the last N lines of FILE as TAP diagnostics.
diag_file() {
	[ -f "$1" ] || { diag "($1 does not exist)"; return; }
	diag "--- $1 (last ${2:-15} lines)"
	tail -n "${2:-15}" "$1" | sed 's/^/#   /'
	tail -n "${2:-15}" "$1" >&2
}
# verdict COND DESC: ok/not ok depending on the exit status of the previous command.
verdict() { if [ "$1" -eq 0 ]; then ok "$2"; else not_ok "$2"; fi; }

# wait_until SECONDS CMD...: run CMD every 0.2 s until it succeeds.
wait_until() {
	n=$(($1 * 5)); shift
	while [ "$n" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.2; n=$((n - 1))
	done
	return 1
}

remember_pid() { echo "$1" >> /tmp/pids; }

# Kernel log counters: caches registered and unregistered so far.
nreg() { dmesg | grep -c 'CacheFiles: File cache on .* registered'; }
nunreg() { dmesg | grep -c 'CacheFiles: File cache on .* unregistering'; }
# For wait_until, which needs the count taken at each try.
reg_above() { [ "$(nreg)" -gt "$1" ]; }
unreg_above() { [ "$(nunreg)" -gt "$1" ]; }
# dmesg_since N: kernel lines after the first N lines.
dmesg_lines() { dmesg | wc -l; }
dmesg_since() { dmesg | tail -n "+$(($1 + 1))"; }

# conf_limits DIR TAG: a configuration with the usual 10/7/3 limits.
conf_limits() {
	printf 'dir %s\ntag %s\nbrun 10%%\nbcull 7%%\nbstop 3%%\nfrun 10%%\nfcull 7%%\nfstop 3%%\n' "$1" "$2"
}

# cfd_start CONF LOG [NOTIFY_SOCKET]: start the daemon in the foreground
# mode, logging to stderr; sets CFD_PID.  Its lines reach LOG stamped with
# the guest's uptime, so that they line up with the scenario's own log.
cfd_start() {
	CFD_N=$((${CFD_N:-0} + 1))
	fifo=/tmp/cfd-log.$$.$CFD_N
	mkfifo "$fifo"
	awk '{ getline u < "/proc/uptime"; close("/proc/uptime"); split(u, a, " ")
	       print "[" a[1] "] " $0; fflush() }' < "$fifo" >> "$2" &
	remember_pid $!
	if [ -n "${3:-}" ]; then
		NOTIFY_SOCKET=$3 "$CFD" -n -s -f "$1" > "$fifo" 2>&1 &
	else
		"$CFD" -n -s -f "$1" > "$fifo" 2>&1 &
	fi
	CFD_PID=$!
	remember_pid "$CFD_PID"
	log "started cachefilesd -n -s -f $1 (pid $CFD_PID)"
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# cfd_bind CONF LOG [NOTIFY]: start and wait for the kernel's "registered" line.
cfd_bind() {
	r0=$(nreg)
	cfd_start "$@"
	if wait_until 30 reg_above "$r0"; then
		log "bound: $(dmesg | grep 'registered' | tail -1)"
		return 0
	fi
	log "no new 'registered' line in dmesg within 30 s"
	return 1
}
# cfd_stop PID [SIGNAL]: signal and reap; sets CFD_RC.
cfd_stop() {
	kill "-${2:-TERM}" "$1" 2>/dev/null
	wait "$1"
	CFD_RC=$?
	log "cachefilesd pid $1 exited with status $CFD_RC after SIG${2:-TERM}"
}

share_mount() {
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=fscache data "$DATA" ||
		{ log "mount 9p data with cache=fscache failed"; return 1; }
}
share_umount() { umount "$DATA"; }
# read_files FILE...: read each file through the cached share.
read_files() { for f in "$@"; do cat "$f" > /dev/null || log "read $f failed"; done; }
# Evict the netfs inodes so that the kernel links the objects into the tree.
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# objects DIR: the data files of the cache DIR/cache, one per line.
objects() { find "$1/cache" -type f 2>/dev/null | sort; }
nobjects() { objects "$1" | wc -l; }

# Free space of /fs in statfs blocks, and the kernel's limit for PCT percent
# (it computes (f_blocks / 100) * pct at bind).
fs_bavail() { stat -f -c %a "$FS"; }
fs_blocks() { stat -f -c %b "$FS"; }
fs_bsize() { stat -f -c %S "$FS"; }
fs_limit() { echo $(( $(fs_blocks) / 100 * $1 )); }
fs_pct() { awk -v a="$(fs_bavail)" -v b="$(fs_blocks)" 'BEGIN { printf "%.2f", a * 100 / b }'; }
# fill_to PCT FILE: fallocate FILE so that PCT % of the blocks stay available.
fill_to() {
	target=$(( $(fs_blocks) * $1 / 100 ))
	have=$(fs_bavail)
	if [ "$have" -le "$target" ]; then log "fill_to $1: already at $(fs_pct)%"; return 0; fi
	fallocate -l $(( (have - target) * $(fs_bsize) )) "$2" || { log "fallocate $2 failed"; return 1; }
	sync
	log "filler $2: $(( (have - target) * $(fs_bsize) / 1024 )) KiB, now $(fs_pct)% available"
}
bavail_at_least() { [ "$(fs_bavail)" -ge "$1" ]; }

# cpu_ticks PID: utime + stime of PID in clock ticks (USER_HZ = 100 on x86).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# notify_start SOCKET OUTFILE: the NOTIFY_SOCKET stand-in.
notify_start() {
	rm -f "$1"
	"$CFSIM" notify-listen "$1" "$2" >> /tmp/notify-listen.log 2>&1 &
	NOTIFY_PID=$!
	remember_pid "$NOTIFY_PID"
	wait_until 10 test -S "$1" || { log "notify listener did not create $1"; return 1; }
}
