# SPDX-License-Identifier: GPL-2.0-or-later
# lib-sim.sh: shell helpers for integration tests that run the daemon against
# the kernel simulator ($CFSIM).  The daemon is $CACHEFILESD_SIM, the test
# build of the very same daemon objects linked with the simulator's transport
# (docs/kernel-seam.md), which finds the simulator's socket in
# $CACHEFILESD_DEVICE; the shipped $CACHEFILESD has no such hook.  Source it
# after tests/lib.sh:
#
#   . "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"
#   sim_setup                  temp dir (+ a small tmpfs when mount works), traps
#   sim_start [SERVE-OPTS]     start "cfsim serve" and wait until it answers
#   sim_config [LINES...]      write $SIM_CONF: dir $SIM_DIR, tag, limits, then LINES,
#                              then control_socket $SIM_CTLSOCK unless LINES set one
#   notify_start               start a NOTIFY_SOCKET listener (exports NOTIFY_SOCKET)
#   daemon_start [OPTS]        start the test daemon in the background (default -n -s)
#   sim_wait_bound [SECS]      wait until the simulator says the cache is bound
#   daemon_signal SIG          send SIG to the daemon
#   daemon_wait_exit [SECS]    wait for the daemon to end; sets DAEMON_STATUS
#   sim_ctl REQUEST...         one control request; prints the reply
#   sim_state KEY              one value from the simulator's "state" reply
#   statfs_limit f|b PCT       what the kernel computes at bind for PCT% of $SIM_DIR
#   sim_populate N [KB] [VOL]  N cache files of KB KiB in $SIM_DIR/cache/I$VOL/@xx/,
#                              atimes one minute apart, oldest first (names D0..)
#   sim_fill_to PCT            fill $SIM_FS until PCT % of its blocks are available
#
# Everything started here is stopped, the tmpfs unmounted and the temp dir
# removed on exit, also when a test fails half-way or is interrupted.
# Variables: SIM_TMP (temp dir), SIM_FS (tmpfs mount point or plain dir),
# SIM_TMPFS (1 if SIM_FS is a tmpfs of SIM_FS_SIZE/SIM_FS_INODES), SIM_DIR
# (the cache root, $SIM_FS/fscache), SIM_SOCK, SIM_CTL, SIM_LOG (the
# simulator's operation log), SIM_CONF, DAEMON_LOG (the daemon's stderr),
# DAEMON_PID, DAEMON_STATUS, NOTIFY_OUT (one notify message a line).
# Set SIM_KEEP=1 to keep the temp dir for inspection.

: "${CFSIM:?CFSIM must name the cfsim binary}"
: "${CACHEFILESD_SIM:?CACHEFILESD_SIM must name the test daemon (tests/cachefilesd-sim)}"

SIM_PID= NOTIFY_PID= DAEMON_PID= DAEMON_STATUS= SIM_EXTRA_PIDS=
SIM_TMPFS=0

# sim_setup: make the temp tree and install the clean-up traps.
sim_setup() {
	SIM_TMP=$(mktemp -d /tmp/cfsim.XXXXXX) || exit 1
	SIM_FS=$SIM_TMP/fs
	mkdir -p "$SIM_FS"
	if [ "${SIM_NO_TMPFS:-0}" != 1 ] &&
	    mount -t tmpfs -o "size=${SIM_FS_SIZE:-16m},nr_inodes=${SIM_FS_INODES:-4096},mode=0755" \
	    cfsim-test "$SIM_FS" 2>/dev/null; then
		SIM_TMPFS=1
	fi
	SIM_DIR=$SIM_FS/fscache
	mkdir -p "$SIM_DIR"
	SIM_SOCK=$SIM_TMP/dev.sock
	SIM_CTL=$SIM_TMP/ctl.sock
	SIM_LOG=$SIM_TMP/sim.log
	SIM_CONF=$SIM_TMP/cachefilesd.conf
	SIM_CTLSOCK=$SIM_TMP/control
	DAEMON_LOG=$SIM_TMP/daemon.log
	NOTIFY_OUT=$SIM_TMP/notify.out
	: >"$SIM_LOG"; : >"$DAEMON_LOG"; : >"$NOTIFY_OUT"
	trap sim_cleanup EXIT
	trap 'exit 1' INT TERM HUP PIPE
}

# proc_gone PID: the process has ended (gone, or a zombie not yet reaped).
proc_gone() {
	[ -r "/proc/$1/stat" ] || return 0
	[ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" = Z ]
}

# _sim_kill PID...: TERM, a bounded wait, then KILL.
_sim_kill() {
	for p in "$@"; do
		[ -n "$p" ] && kill -TERM "$p" 2>/dev/null
	done
	for p in "$@"; do
		[ -n "$p" ] || continue
		n=30
		while [ "$n" -gt 0 ] && ! proc_gone "$p"; do
			sleep 0.1; n=$((n - 1))
		done
		kill -KILL "$p" 2>/dev/null
	done
}

sim_cleanup() {
	st=$?
	_sim_kill $DAEMON_PID $SIM_EXTRA_PIDS
	_sim_kill $SIM_PID $NOTIFY_PID
	if [ "$SIM_TMPFS" = 1 ]; then
		umount "$SIM_FS" 2>/dev/null || umount -l "$SIM_FS" 2>/dev/null
	fi
	if [ "${SIM_KEEP:-0}" = 1 ]; then
		echo "# kept $SIM_TMP"
	else
		rm -rf "$SIM_TMP"
	fi
	exit "$st"
}

sim_ctl() { "$CFSIM" ctl "$SIM_CTL" "$@"; }

# sim_state KEY: print KEY's value from the simulator's state.
sim_state() {
	sim_ctl state | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# sim_start [OPTS]: start the simulator with OPTS (see cfsim serve).
sim_start() {
	"$CFSIM" serve "$SIM_SOCK" --control "$SIM_CTL" --log "$SIM_LOG" "$@" 2>>"$SIM_LOG" &
	SIM_PID=$!
	if ! wait_for 5 sim_ctl state >/dev/null; then
		not_ok "simulator starts"
		exit 1
	fi
}

# sim_stop: stop the simulator and wait for it.
sim_stop() {
	sim_ctl stop >/dev/null 2>&1
	wait_for 5 proc_gone "$SIM_PID"
	_sim_kill "$SIM_PID"
	wait "$SIM_PID" 2>/dev/null
	SIM_PID=
}

# sim_config [LINES...]: a configuration for $SIM_DIR with the usual limits,
# and the control socket at $SIM_TMP/control unless a LINE sets control_socket
# (never the system's default path: tests run side by side).
sim_config() {
	_own_sock=0
	{
		echo "dir $SIM_DIR"
		echo "tag simtest"
		echo "brun 10%"; echo "bcull 7%"; echo "bstop 3%"
		echo "frun 10%"; echo "fcull 7%"; echo "fstop 3%"
		for l in "$@"; do
			echo "$l"
			case $l in control_socket*) _own_sock=1 ;; esac
		done
		[ "$_own_sock" = 1 ] || echo "control_socket $SIM_CTLSOCK"
	} >"$SIM_CONF"
}

# notify_start [-t]: a NOTIFY_SOCKET stand-in; messages go to $NOTIFY_OUT,
# one a line (with -t each prefixed by the monotonic time, as in $SIM_LOG).
notify_start() {
	NOTIFY_SOCKET=$SIM_TMP/notify.sock
	"$CFSIM" notify-listen "$@" "$NOTIFY_SOCKET" "$NOTIFY_OUT" &
	NOTIFY_PID=$!
	wait_for 5 test -S "$NOTIFY_SOCKET" || { not_ok "notify listener starts"; exit 1; }
	export NOTIFY_SOCKET
}

# daemon_start [OPTS]: run the test daemon against the simulator in the
# background (-n -s -f $SIM_CONF unless OPTS are given), stderr to $DAEMON_LOG.
daemon_start() {
	if [ $# -eq 0 ]; then
		set -- -n -s -f "$SIM_CONF"
	fi
	# a bind counts only if it comes from an open after this point
	SIM_OPENS0=$(sim_state opens 2>/dev/null)
	CACHEFILESD_DEVICE=$SIM_SOCK "$CACHEFILESD_SIM" "$@" >>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	DAEMON_STATUS=
}

# _sim_bound: true when the simulator reports a cache bound by a client
# that opened the device after the last daemon_start.
_sim_bound() {
	st=$(sim_ctl state) || return 1
	b=$(echo "$st" | tr ' ' '\n' | sed -n 's/^bound=//p')
	o=$(echo "$st" | tr ' ' '\n' | sed -n 's/^opens=//p')
	[ "$b" = 1 ] && [ "$o" -gt "${SIM_OPENS0:-0}" ]
}

# sim_wait_bound [SECS]: wait until bound (status 1 on time-out).
sim_wait_bound() { wait_for "${1:-5}" _sim_bound; }

# sim_daemon_up: the daemon started in the foreground with the test's
# configuration, bound, and in its event loop ("Daemon Started" logged).
sim_daemon_up() {
	daemon_start -n -s -f "$SIM_CONF"
	sim_wait_bound 5 && wait_for 5 grep -q 'Daemon Started' "$DAEMON_LOG"
}

# sim_wait_settled STEPS STILL: poll every 0.2 s, at most STEPS times,
# until the kernel no longer asks for culling and the count of culled files
# has stayed put for STILL polls (status 1 if it never does).
# SIM_SETTLED_NS: when a poll last saw the count move (date +%s%N).
sim_wait_settled() {
	_left=$1 _same=0 _last=-1
	SIM_SETTLED_NS=$(date +%s%N)
	while [ "$_left" -gt 0 ]; do
		_c=$(sim_state cull_files)
		if [ "$_c" = "$_last" ] && [ "$(sim_state cull)" = 0 ]; then
			_same=$((_same + 1))
			[ "$_same" -ge "$2" ] && return 0
		else
			_same=0 SIM_SETTLED_NS=$(date +%s%N)
		fi
		_last=$_c _left=$((_left - 1))
		sleep 0.2
	done
	return 1
}

daemon_signal() { kill -"$1" "$DAEMON_PID" 2>/dev/null; }

daemon_alive() { [ -n "$DAEMON_PID" ] && ! proc_gone "$DAEMON_PID"; }

# daemon_wait_exit [SECS]: wait for the daemon (started by daemon_start) to
# end; DAEMON_STATUS is its exit status, or "timeout" (then it is killed).
daemon_wait_exit() {
	if wait_for "${1:-5}" proc_gone "$DAEMON_PID"; then
		wait "$DAEMON_PID"
		DAEMON_STATUS=$?
	else
		DAEMON_STATUS=timeout
		kill -KILL "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	DAEMON_PID=
}

# statfs_limit f|b PCT: (f_files/100)*PCT or (f_blocks/100)*PCT of $SIM_DIR.
statfs_limit() {
	if [ "$1" = f ]; then
		total=$(stat -f -c %c "$SIM_DIR")
	else
		total=$(stat -f -c %b "$SIM_DIR")
	fi
	echo $((total / 100 * $2))
}

# proc_field PID FIELD: a "Field:" value from /proc/PID/status.
proc_field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }

# proc_cpu PID: utime+stime from /proc/PID/stat, in clock ticks.
proc_cpu() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}

# sim_cwd_inside PID: the process's cwd is $SIM_DIR/cache or below.
sim_cwd_inside() {
	cwd=$(readlink "/proc/$1/cwd") || return 1
	real=$(cd "$SIM_DIR/cache" && pwd -P)
	case $cwd in
	"$real" | "$real"/*) return 0 ;;
	*) return 1 ;;
	esac
}

# sim_populate N [KB] [VOL]: cache-like objects with spread atimes.
sim_populate() {
	mkdir -p "$SIM_DIR/cache/I${3:-simvol}"
	"$CFSIM" populate "$SIM_DIR/cache/I${3:-simvol}" "$1" "${2:-4}"
}

# sim_fs_ours: SIM_FS is still the tmpfs sim_setup mounted.  Checked before
# each fill, not only at set-up: with the tmpfs unmounted under a running
# test (a CI run cut short, its clean-up done by hand), a fill would go on
# into the disk that holds /tmp.
sim_fs_ours() {
	[ "$SIM_TMPFS" = 1 ] && [ "$(stat -f -c %T "$SIM_FS" 2>/dev/null)" = tmpfs ]
}

# sim_fill_to PCT: a filler file leaves PCT % of the blocks available.
sim_fill_to() {
	sim_fs_ours || return 1	# never fill a real disk
	rm -f "$SIM_FS/filler"
	total=$(stat -f -c %b "$SIM_FS")
	avail=$(stat -f -c %a "$SIM_FS")
	want=$((total * $1 / 100))
	if [ "$avail" -gt "$want" ]; then
		dd if=/dev/zero of="$SIM_FS/filler" bs=4096 count=$((avail - want)) 2>/dev/null
	fi
	:
}

# sim_available_pct: the percentage of $SIM_FS's blocks available now.
sim_available_pct() {
	echo $(($(stat -f -c %a "$SIM_FS") * 100 / $(stat -f -c %b "$SIM_FS")))
}
