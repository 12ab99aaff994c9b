# SPDX-License-Identifier: GPL-2.0-or-later
# Guest half of bench/vm-vs-historical.sh (busybox sh, run by tests/vm/init.sh
# as the scenario "vmbench").  /out/bench-plan lists the runs, one a line:
#   probe                      synthetic objects: does the kernel's cull take them?
#   cull DEV DAEMON COUNT LIMIT FILL RESTART RUN
#                              tree on /dev/DEV filled to FILL % free: bind,
#                              cull to brun; RESTART=1: fill again, restart
#   idle DEV DAEMON COUNT      tree within its limits: CPU over two 20 s windows
#   nocull DAEMON              only objects held open through 9p: CPU over 20 s
#   restart DAEMON TIMES       start, wait 3 s, stop, TIMES times on a small tree:
#                              bind times, and how often the daemon dies by itself
#   scan DEV COUNT [WAYS]      cold scans of the tree on /dev/DEV, each after
#                              drop_caches: bench/scan-orders in each stat order,
#                              du, and our scanner (cachefiles-cull report);
#                              WAYS, comma-separated, picks some of them
#   strace                     later runs under strace -f (debugging; spoils CPU and RSS)
#   perf                       later cull rounds profiled by perf record (cpu-clock,
#                              kernel call chains): OUT.perf.txt (costs CPU too)
#   sched                      later cull rounds keep every task switch and jbd2
#                              commit in OUT.trace (bench/vm-sched-split.awk)
# DAEMON is "historical" (/usr/sbin/cachefilesd-hist), "ours", or "floor"
# (/usr/bin/vm-floor: bench/vm-floor.c, the least work an exact-LRU daemon does),
# or "alt" (/usr/sbin/cachefilesd-alt: another build of ours, for an A/B run).  Each run
# writes /out/vmb-KIND-DAEMON-COUNT.raw (key=value lines) and its files;
# the host turns them into result lines.  Times come from one clock: the
# kernel's (printk and ftrace "local" share it), read from trace markers,
# the "registered" line in dmesg and the cachefiles_unlink trace events.
. /vm/glib.sh
TR=/sys/kernel/tracing
B=/b
mkdir -p "$TR" "$B"
mount -t tracefs nodev "$TR" 2>/dev/null
EV=$TR/events/cachefiles/cachefiles_unlink
if [ -d "$EV" ]; then
	echo 32768 > "$TR/buffer_size_kb"
	# printk stamps with local_clock(); so does the "global" trace clock
	echo global > "$TR/trace_clock"
	echo 1 > "$EV/enable"
else
	log "no cachefiles_unlink trace event: cull times will be missing"
fi

daemon_bin() {
	case $1 in
	historical) echo /usr/sbin/cachefilesd-hist ;;
	floor) echo /usr/bin/vm-floor ;;	# bench/vm-floor.c: the least work
	alt) echo /usr/sbin/cachefilesd-alt ;;	# another build of ours (VMB_ALT)
	*) echo "$CFD" ;;
	esac
}
# The kernel's clock now, as a trace marker and its timestamp.
mark() { echo "vmb $1" > "$TR/trace_marker"; }
mark_ts() { grep "tracing_mark_write: vmb $1\$" "$TR/trace" | tail -1 | sed 's/.* \([0-9.]*\): tracing_mark_write.*/\1/'; }
# Timestamps in the kernel log: the newest "registered" line, the newest
# line written by kmark TEXT.
reg_ts() { dmesg | grep 'CacheFiles: File cache on .* registered' | tail -1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/'; }
kmark() { echo "vmb $1" > /dev/kmsg; }
kmark_ts() { dmesg | grep "vmb $1\$" | tail -1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/'; }
vm_hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# reclaim PREFIX: the guest's free memory and reclaim counters so far, as
# PREFIX_key=value words (a round that needs reclaim measures the guest's
# memory, not the daemon)
reclaim() {
	awk -v p="$1" '/^(MemFree|MemAvailable):/ { printf "%s_%s=%s ", p, tolower($1), $2 }' /proc/meminfo | tr -d :
	awk -v p="$1" '$1 ~ /^(pgscan_kswapd|pgscan_direct|slabs_scanned|pgmajfault|pgsteal_kswapd|pgsteal_direct)$/ { printf "%s_%s=%s ", p, $1, $2 }' /proc/vmstat
	echo
}
ffree() { stat -f -c %d "$FS"; }
ffiles() { stat -f -c %c "$FS"; }
limits_ok() { [ "$(fs_bavail)" -ge "$brun" ] && [ "$(ffree)" -ge "$frun" ]; }

start_daemon() {
	bin=$(daemon_bin "$1")
	reg0=$(nreg)
	kmark "start $1"
	mark "start"
	if [ -n "${STRACE:-}" ] && [ -x /usr/bin/strace ]; then
		# debugging only: PID is strace's, so CPU and RSS are not the daemon's
		strace -f -tt -o "$2.strace" "$bin" -n -s -f /tmp/vmb.conf 2> "$2" &
	else
		# shellcheck disable=SC2046 # VMB_OURS_ARGS: words for our daemon
		"$bin" -n -s -f /tmp/vmb.conf $([ "$1" = ours ] || [ "$1" = alt ] && cat /out/ours-args 2>/dev/null) 2> "$2" &
	fi
	PID=$!
	remember_pid "$PID"
	wait_until 120 reg_above "$reg0"
}

mount_tree() {
	mount -t ext4 "/dev/$1" "$B" || { log "mount /dev/$1 failed"; return 1; }
	FS=$B
	conf_limits "$B/c" "vmb$2" > /tmp/vmb.conf
	# VMB_OURS_CONF: directives for our daemon only (0.10.10 knows fewer)
	case $2 in
	ours) [ -s /out/ours-extra.conf ] && cat /out/ours-extra.conf >> /tmp/vmb.conf ;;
	alt) [ -s /out/alt-extra.conf ] && cat /out/alt-extra.conf >> /tmp/vmb.conf ;;
	esac
	brun=$(fs_limit 10)
	frun=$(( $(ffiles) / 100 * 10 ))
}

stop_daemon() {
	kill -TERM "$PID" 2>/dev/null
	n=50
	while alive "$PID" && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
	kill -KILL "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	EXIT=$?
}

# cpu_until_idle PID LIMIT: wait until PID has used no CPU for 2 s (at most
# LIMIT s; the daemons' work after brun, such as the rest of a scan, counts).
cpu_until_idle() {
	n=$2
	c=$(cpu_ticks "$1")
	while [ "$n" -gt 0 ] && alive "$1"; do
		sleep 2
		c2=$(cpu_ticks "$1")
		[ $((c2 - c)) -le 1 ] && break
		c=$c2 n=$((n - 2))
	done
}

# perf_start OUT, perf_stop OUT: with the plan's "perf" line, profile PID
# from bind until it is idle; the report (symbols, then kernel callers of
# the hottest) goes to OUT.perf.txt, every sample's stack to OUT.perf.script.
perf_start() {
	PERFPID=
	[ -n "${PERF:-}" ] && [ -x /usr/bin/perf ] || return 0
	if [ "$PERF" = all ]; then
		/usr/bin/perf record -q -F 250 -g -a -o "$1.perf" 2> "$1.perf.err" &
	else
		/usr/bin/perf record -q -F 250 -g -o "$1.perf" -p "$PID" 2> "$1.perf.err" &
	fi
	PERFPID=$!
}

perf_stop() {
	[ -n "$PERFPID" ] || return 0
	kill -INT "$PERFPID" 2>/dev/null
	wait "$PERFPID" 2>/dev/null
	{
		/usr/bin/perf report -i "$1.perf" --stdio --no-children -g none \
			--sort dso,sym --percent-limit 0.2 2>&1
		/usr/bin/perf report -i "$1.perf" --stdio --no-children -g caller,0.5,callee \
			--sort sym --percent-limit 2 2>&1 | head -n 400
	} > "$1.perf.txt"
	# every sample's stack, for folding by system call on the host
	/usr/bin/perf script -i "$1.perf" -F comm,tid,ip,sym > "$1.perf.script" 2>/dev/null
	rm -f "$1.perf"
}

# cull_round WHO OUT LIMIT: drop caches, start WHO on the mounted tree (below
# bcull), wait until the kernel's conditions for clearing "cull" hold, then
# until the daemon is idle, and stop it cleanly.  Writes OUT.raw, .log,
# .trace (the kernel's unlinks) and .surv (the objects left).
cull_round() {
	who=$1 ro=$2 limit=$3
	{
		echo "objects_before=$(find "$B/c/cache" -type f | wc -l)"
		echo "bavail_start=$(fs_bavail) brun=$brun ffree_start=$(ffree) frun=$frun blocks=$(fs_blocks) bsize=$(fs_bsize)"
		echo "state_file=$([ -f "$B/c/cachefilesd.state" ] && echo 1 || echo 0)"
	} > "$ro.raw"
	sync; echo 3 > /proc/sys/vm/drop_caches
	echo > "$TR/trace"
	start_daemon "$who" "$ro.log" || { echo "bound=0" >> "$ro.raw"; stop_daemon; return 1; }
	echo "bind_ts=$(reg_ts) kstart_ts=$(kmark_ts "start $who")" >> "$ro.raw"
	reclaim mem0 >> "$ro.raw"
	perf_start "$ro"
	reached=0
	if [ -x /usr/bin/vm-watch ]; then
		# bench/vm-watch.c: statfs every 10 ms, the marker written at once
		vm-watch "$FS" "$brun" "$frun" "$PID" "$limit" "$TR/trace_marker" && reached=1
		[ $reached = 1 ] || mark "reached"
	else
		n=$((limit * 2))
		while [ $n -gt 0 ] && alive "$PID"; do
			if limits_ok; then reached=1; break; fi
			sleep 0.5; n=$((n - 1))
		done
		mark "reached"
	fi
	sleep 3
	echo "reached=$reached cpu_ticks=$(cpu_ticks "$PID")" >> "$ro.raw"
	reclaim mem1 >> "$ro.raw"
	cpu_until_idle "$PID" "$limit"
	perf_stop "$ro"
	{
		echo "alive=$(alive "$PID" && echo 1 || echo 0)"
		echo "cpu_idle_ticks=$(cpu_ticks "$PID") rss_kb=$(vm_hwm "$PID")"
		awk '{ print "user_ticks=" $14 " sys_ticks=" $15 " minflt=" $10 }' "/proc/$PID/stat"
		echo "bavail_end=$(fs_bavail) ffree_end=$(ffree)"
		echo "start_ts=$(mark_ts start) reached_ts=$(mark_ts reached)"
	} >> "$ro.raw"
	stop_daemon
	echo "exit=$EXIT" >> "$ro.raw"
	grep -E "cachefiles_unlink|tracing_mark_write${SCHED:+|sched_switch|jbd2_}" "$TR/trace" > "$ro.trace"
	find "$B/c/cache" -type f | sed 's,.*/,,' > "$ro.surv"
	log "cull round $ro: $(tr '\n' ' ' < "$ro.raw")"
}

# run_cull DEV WHO COUNT LIMIT FILL RESTART RUN: fill the tree on DEV to
# FILL % free and cull; with RESTART=1, fill it again and restart the same
# daemon on the same cache (its kept state, if any, in place).
run_cull() {
	dev=$1 who=$2 count=$3 limit=${4:-300} fill=${5:-6} restart=${6:-0} run=${7:-1}
	out=/out/vmb-cull-$who-$count-$run
	mount_tree "$dev" "$who" || return 1
	echo "dev=$dev fill=$fill" > "$out-1.dev"
	fill_to "$fill" "$B/filler" || { umount "$B"; return 1; }
	cull_round "$who" "$out-1" "$limit"
	if [ "$restart" = 1 ]; then
		fill_to "$fill" "$B/filler2" || { umount "$B"; return 1; }
		cull_round "$who" "$out-2" "$limit"
	fi
	[ -f "$B/filler" ] && echo "filler_kept=1" >> "$out-1.raw" || echo "filler_kept=0" >> "$out-1.raw"
	rm -f "$B/filler" "$B/filler2"
	umount "$B"
}

run_idle() {
	dev=$1 who=$2 count=$3
	out=/out/vmb-idle-$who-$count
	mount_tree "$dev" "$who" || return 1
	echo "bavail_start=$(fs_bavail) brun=$brun" > "$out.raw"
	sync; echo 3 > /proc/sys/vm/drop_caches
	start_daemon "$who" "$out.log" || { echo "bound=0" >> "$out.raw"; stop_daemon; umount "$B"; return 1; }
	c0=$(cpu_ticks "$PID"); t0=$(up)
	sleep 20
	c1=$(cpu_ticks "$PID"); t1=$(up)
	sleep 20
	c2=$(cpu_ticks "$PID"); t2=$(up)
	echo "t0=$t0 t1=$t1 t2=$t2 c0=$c0 c1=$c1 c2=$c2 rss_kb=$(vm_hwm "$PID")" >> "$out.raw"
	echo "objects_after=$(find "$B/c/cache" -type f | wc -l)" >> "$out.raw"
	stop_daemon
	umount "$B"
	log "idle run $who $count: $(tr '\n' ' ' < "$out.raw")"
}

# Nothing cullable: every object is held open through the 9p share, the disk
# is below bcull.  As in tests/vm/guest/s-inuse.sh.
run_nocull() {
	who=$1
	out=/out/vmb-nocull-$who-0
	FS=/fs
	d=/fs/nocull-$who
	mkdir -p "$d"
	conf_limits "$d" "vmbnc$who" > /tmp/vmb.conf
	start_daemon "$who" "$out.log" || { echo "bound=0" > "$out.raw"; stop_daemon; return 1; }
	share_mount || { stop_daemon; return 1; }
	read_files "$DATA"/busy/*.bin
	drop_caches
	# sleep holds each file open through its stdin (shellcheck SC2217 is wrong here)
	holders=
	for f in "$DATA"/busy/*.bin "$DATA/small/01.txt" "$DATA/small/02.txt"; do
		sleep 100000 < "$f" &
		remember_pid $!
		holders="$holders $!"
	done
	sleep 1
	before=$(nobjects "$d")
	fill_to 5 /fs/filler
	# A new object makes the kernel check the space and ask for culling.
	sleep 100000 < "$DATA/small/03.txt" &
	remember_pid $!
	holders="$holders $!"
	sleep 5
	c0=$(cpu_ticks "$PID"); t0=$(up)
	sleep 20
	c1=$(cpu_ticks "$PID"); t1=$(up)
	echo "t0=$t0 t1=$t1 c0=$c0 c1=$c1 objects_before=$before objects_after=$(nobjects "$d") alive=$(alive "$PID" && echo 1 || echo 0) rss_kb=$(vm_hwm "$PID")" > "$out.raw"
	for h in $holders; do kill "$h" 2>/dev/null; done
	wait $holders 2>/dev/null
	share_umount
	stop_daemon
	rm -f /fs/filler
	rm -rf "$d"
	log "nocull run $who: $(cat "$out.raw")"
}

# Many short lives on a small tree of 300 objects (within its limits): the
# start-up scan and its table hand-over happen each time.  Records the bind
# time of each start and the exit status of each daemon that ended by itself.
run_restarts() {
	who=$1 times=$2
	out=/out/vmb-restart-$who-0
	FS=/fs
	d=/fs/restart-$who
	i=0
	while [ $i -lt 300 ]; do
		f=$d/cache/Itest,vol/@$(printf %02x $((i % 16)))
		mkdir -p "$f"
		echo "object $i" > "$f/D$i,restart"
		i=$((i + 1))
	done
	conf_limits "$d" "vmbr$who" > /tmp/vmb.conf
	echo "aslr=$(cat /proc/sys/kernel/randomize_va_space)" > "$out.raw"
	i=0
	while [ $i -lt "$times" ]; do
		if start_daemon "$who" /tmp/restart.log; then
			b=$(sub_ts "$(reg_ts)" "$(kmark_ts "start $who")")
		else
			b=NA
		fi
		sleep 3
		if alive "$PID"; then died=0; else died=1; fi
		stop_daemon
		echo "run=$i bind_s=$b died=$died exit=$EXIT" >> "$out.raw"
		[ $died = 1 ] && cp /tmp/restart.log "$out.died$i.log"
		i=$((i + 1))
	done
	rm -rf "$d"
	log "restart runs $who: $(tr '\n' ' ' < "$out.raw")"
}
sub_ts() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "NA"; else printf "%.3f", a - b }'; }

# Synthetic objects against the real module, driven by hand through the
# device: bind a cache whose tree was made with mkdir and echo (no xattr),
# then "inuse" and "cull" each kind of name.
run_probe() {
	out=/out/vmb-probe.raw
	p=/fs/probe
	v=$p/cache/Itest,vol
	mkdir -p "$v/@00" "$v/@01"
	for n in Dshort,1 Eabc_defghijklmnopqrstuvwxyz0123456789ABCDEF Sdeadbeef00000000 T00000000cafe; do
		echo data > "$v/@00/$n"
	done
	echo keep > "$v/@01/Dkeep"
	: > "$out"
	exec 3<> /dev/cachefiles || { echo "open=failed" > "$out"; return 1; }
	printf 'dir %s' "$p" >&3 && printf 'tag vmprobe' >&3 && printf 'bind' >&3 ||
		{ echo "bind=failed" >> "$out"; exec 3>&-; return 1; }
	(
		cd "$v/@00" || exit 1
		for n in Dshort,1 Eabc_defghijklmnopqrstuvwxyz0123456789ABCDEF Sdeadbeef00000000 T00000000cafe; do
			printf 'inuse %s' "$n" >&3 2>/dev/null; iu=$?
			printf 'cull %s' "$n" >&3 2>/dev/null; cu=$?
			[ -e "$n" ] && gone=0 || gone=1
			printf 'cull %s' "$n" >&3 2>/tmp/probe-err; again=$(cat /tmp/probe-err)
			echo "name=$n inuse_rc=$iu cull_rc=$cu gone=$gone second_cull=\"$again\""
		done
	) >> "$out"
	exec 3>&-
	[ -f "$v/@01/Dkeep" ] && echo "untouched_kept=1" >> "$out" || echo "untouched_kept=0" >> "$out"
	rm -rf "$p"
	log "probe: $(cat "$out")"
}

# run_scan DEV COUNT: the tree mounted read-only, each way of walking it
# twice, each from cold dentry, inode and page caches.
run_scan() {
	dev=$1 count=$2 ways=$(echo "${3:-readdir,dents,dirino,global,du,tool}" | tr ',' ' ')
	out=/out/vmb-scan-$count.raw
	mount -t ext4 -o ro "/dev/$dev" "$B" || { log "mount /dev/$dev failed"; return 1; }
	: > "$out"
	for rep in 1 2; do
		for m in $ways; do
			sync; echo 3 > /proc/sys/vm/drop_caches
			t0=$(up)
			case $m in
			du) r=$(du -s "$B/c/cache") ;;
			tool) r=$(/usr/sbin/cachefiles-cull -d "$B/c" report 2>&1 | grep -c .) ;;
			*) r=$(/usr/bin/scan-orders "$m" "$B/c/cache") ;;
			esac
			echo "rep=$rep way=$m wall_s=$(sub_ts "$(up)" "$t0") $r" >> "$out"
		done
	done
	umount "$B"
	log "scan runs: $(cat "$out")"
}

# The kernel's random generator seeds itself late in this guest (no RDRAND
# on the emulated CPU, no virtio-rng, few interrupts: "crng init done" came
# 71 s after boot).  Until then every get_random_u32() is a whole ChaCha
# block instead of a word of a per-CPU batch, and the slab allocator takes
# one for each new slab: the daemon that ran first in a boot paid 1 to 2 %
# more CPU for it (a profile, 2026-12-03).  A blocking read of /dev/random
# makes the kernel gather jitter entropy until it is seeded.
crng_t0=$(up)
timeout 600 head -c 1 /dev/random > /dev/null ||
	log "crng: /dev/random still blocked after 600 s; the first round pays for seeding"
log "crng: seeded $(sub_ts "$(up)" "$crng_t0") s after the plan began ($(dmesg | grep -m 1 'crng init done' || echo 'no crng line'))"

while read -r kind a b c d e f g; do
	case $kind in
	strace) STRACE=1 ;;
	perf)   PERF=${a:-1} ;;
	sched)	SCHED=1
		# who runs when: the on-CPU time of each task in a window of a round
		echo 1 > "$TR/events/sched/sched_switch/enable"
		for ev in jbd2_start_commit jbd2_end_commit; do
			echo 1 > "$TR/events/jbd2/$ev/enable" 2>/dev/null
		done ;;
	probe)  run_probe ;;
	cull)   run_cull "$a" "$b" "$c" "$d" "$e" "$f" "$g" ;;
	idle)   run_idle "$a" "$b" "$c" ;;
	nocull) run_nocull "$a" ;;
	restart) run_restarts "$a" "$b" ;;
	scan)   run_scan "$a" "$b" "$c" ;;
	esac
done < /out/bench-plan
echo "ok - vmbench finished"
