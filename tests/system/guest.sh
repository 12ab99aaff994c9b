#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The system layer's scenarios, run inside the Debian 12 guest (systemd as
# PID 1, the project's .deb installed with dpkg -i) by cfsys-harness.service
# from the 9p share /out.  TAP on stdout, one line per check; notes and raw
# findings on stderr (/out/guest.log).  /out/params says which boot this is
# (LSM=apparmor|selinux).
set -u
. /out/params
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONF=/etc/cachefilesd.conf
FS=/var/cache/fscache
DATA=/data
N=0 FAILED=0

up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(up)] $*" >&2; }
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skip() { t=$1; shift; N=$((N + 1)); echo "ok $N - $t # SKIP $*"; }
diag() { echo "# $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; diag "failed: $*"; fi; }
# wait_until SECONDS CMD...: poll every 0.5 s.
wait_until() {
	n=$(($1 * 2)); shift
	while [ "$n" -gt 0 ]; do "$@" 2>/dev/null && return 0; sleep 0.5; n=$((n - 1)); done
	return 1
}
mainpid() { systemctl show -p MainPID --value cachefilesd; }
active() { [ "$(systemctl is-active cachefilesd)" = active ]; }
status_text() { systemctl show -p StatusText --value cachefilesd; }
nregistered() { dmesg | grep -c 'CacheFiles: File cache on .* registered'; }
jcursor() { journalctl -n0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p'; }
# jsince CURSOR: the daemon's journal lines since CURSOR.
jsince() { journalctl -q --no-pager -o cat -u cachefilesd --after-cursor="$1" 2>/dev/null; }
new_pid() { p=$(mainpid); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] && active; }
bound_more() { [ "$(nregistered)" -gt "$1" ]; }

log "LSM=$LSM kernel $(uname -r); $(cat /proc/cmdline)"
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
diag "guest: multi-user.target reached at uptime $(awk -v u="${mu:-0}" 'BEGIN { printf "%.1f", u / 1e6 }') s, scenarios start at $(up) s"

# The SELinux boot: the cache disks are fresh filesystems, labelled here
# (the root one was labelled by setfiles at image build time), and the
# kernel module acts for the cache as cachefiles_kernel_t (secctx,
# selinux/README.md).
if [ "$LSM" = selinux ]; then
	log "getenforce: $(getenforce 2>&1); sestatus: $(sestatus 2>&1 | tr '\n' '|')"
	restorecon -R /var/cache/fscache >&2
	grep -q '^secctx' "$CONF" || echo "secctx system_u:system_r:cachefiles_kernel_t:s0" >> "$CONF"
	systemctl stop cachefilesd
	# Denials before this point come from the boot's start on the
	# unlabelled fresh disk: recorded, not counted.
	dmesg | grep 'avc: *denied' | sed 's/^/before relabelling: /' >&2
	dmesg -C
	ls -Zd /var/cache/fscache /usr/sbin/cachefilesd /etc/cachefilesd.conf >&2
fi

# ---------------------------------------------------------------- start
systemctl start cachefilesd
check "start: systemctl start cachefilesd leaves the unit active" active
st=$(status_text)
log "StatusText=$st"
case $st in
*"bound"*) ok "start: StatusText shows the state ($st)" ;;
*) not_ok "start: StatusText shows the state"; diag "StatusText='$st'" ;;
esac
if dmesg | grep -q "CacheFiles: File cache on .* registered"; then
	ok "start: the cache is bound on the real module (dmesg: $(dmesg | grep -o 'CacheFiles: File cache on .* registered' | tail -1))"
else
	not_ok "start: the cache is bound on the real module"; dmesg | tail -20 | sed 's/^/# /'
fi
PID=$(mainpid)
grep -E '^(Cap|NoNewPrivs|Seccomp)' "/proc/$PID/status" > /out/proc-status.txt
cat /out/proc-status.txt >&2
field() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$PID/status"; }
# cachefilesd.8: the cache tree is root's, so the daemon keeps no capability;
# the bounding set stays as the unit made it (SYS_ADMIN, DAC_READ_SEARCH,
# DAC_OVERRIDE: bits 21, 2, 1); PR_SET_NO_NEW_PRIVS; the unit's seccomp filter.
[ "$(field CapEff)" = 0000000000000000 ] && ok "sandbox: CapEff is empty, as cachefilesd(8) says for a root-owned cache" ||
	{ not_ok "sandbox: CapEff is empty, as cachefilesd(8) says for a root-owned cache"; diag "CapEff $(field CapEff)"; }
[ "$(field CapBnd)" = 0000000000200006 ] && ok "sandbox: CapBnd is the unit's three capabilities (0x200006)" ||
	{ not_ok "sandbox: CapBnd is the unit's three capabilities (0x200006)"; diag "CapBnd $(field CapBnd)"; }
check "sandbox: NoNewPrivs is set" [ "$(field NoNewPrivs)" = 1 ]
# cachefilesd.8: the soft limit on open files raised to the hard one, at
# most 8192 (the unit's default is 1024 under 524288): the seccomp filter
# lets it through.
nofile=$(awk '/^Max open files/ { print $4 ":" $5 }' "/proc/$PID/limits")
check "sandbox: the soft limit on open files is raised to 8192 under the unit ($nofile)" \
	sh -c "case '$nofile' in 8192:*) true ;; *) false ;; esac"
check "sandbox: a seccomp filter is in force (Seccomp: 2)" [ "$(field Seccomp)" = 2 ]
# ProtectSystem=strict: / read-only in the daemon's mount namespace, the
# cache and the runtime directory writable.
mopt() { awk -v m="$1" '$5 == m { o = $6 } END { print o }' "/proc/$PID/mountinfo"; }
cat "/proc/$PID/mountinfo" > /out/daemon-mountinfo.txt
case $(mopt /),$(mopt /usr),$(mopt /etc) in
ro*,*) ok "sandbox: / is read-only in the daemon's mount namespace" ;;
*) not_ok "sandbox: / is read-only in the daemon's mount namespace"; diag "/ $(mopt /)" ;;
esac
case $(mopt $FS) in
rw*) ok "sandbox: $FS is writable in the daemon's mount namespace" ;;
*) not_ok "sandbox: $FS is writable in the daemon's mount namespace"; diag "$FS '$(mopt $FS)'" ;;
esac
case $(mopt /run/cachefilesd) in
rw*) ok "sandbox: /run/cachefilesd is writable in the daemon's mount namespace" ;;
*) not_ok "sandbox: /run/cachefilesd is writable in the daemon's mount namespace"; diag "'$(mopt /run/cachefilesd)'" ;;
esac
# ProtectHome=yes: /root and /home are covered by inaccessible mounts.
if awk '$5 == "/root" { r = 1 } $5 == "/home" { h = 1 } END { exit !(r && h) }' "/proc/$PID/mountinfo"; then
	ok "sandbox: ProtectHome covers /root and /home in the daemon's mount namespace"
else
	not_ok "sandbox: ProtectHome covers /root and /home in the daemon's mount namespace"
fi

# ---------------------------------------------------------------- LSM
if [ "$LSM" = apparmor ]; then
	aa-status > /out/aa-status.txt 2>&1
	cur=$(cat "/proc/$PID/attr/current" 2>/dev/null)
	check "apparmor: the daemon runs confined by its profile in enforce mode ($cur)" [ "$cur" = "cachefilesd (enforce)" ]
	if grep -A100 'profiles are in enforce mode' /out/aa-status.txt | sed '/complain mode/q' | grep -qx '   cachefiles-cull'; then
		ok "apparmor: aa-status lists the cachefiles-cull profile in enforce mode"
	else
		not_ok "apparmor: aa-status lists the cachefiles-cull profile in enforce mode"
	fi
	out=$(cachefiles-cull status 2>&1); rc=$?
	echo "$out" > /out/tool-status.txt
	check "apparmor: cachefiles-cull status works under its profile" [ $rc = 0 ]
elif [ "$LSM" = selinux ]; then
	cur=$(cat "/proc/$PID/attr/current" 2>/dev/null)
	log "SELinux: getenforce $(getenforce 2>/dev/null), daemon $cur"
	case $cur in
	*:cachefilesd_t:*) ok "selinux: the daemon runs in its own domain ($cur)" ;;
	*) not_ok "selinux: the daemon runs in its own domain"; diag "context '$cur'" ;;
	esac
	check "selinux: enforcing" [ "$(cat /sys/fs/selinux/enforce 2>/dev/null)" = 1 ]
fi

# ---------------------------------------------------------------- reload
cp "$CONF" /tmp/conf.orig
c=$(jcursor)
echo nocull >> "$CONF"
systemctl reload cachefilesd; rc=$?
wait_until 10 sh -c "journalctl -q -o cat -u cachefilesd --after-cursor='$c' | grep -q 'reload: nocull: culling stops'"
got=$?
jsince "$c" | sed 's/^/reload(valid): /' >&2
if [ $rc = 0 ] && [ $got = 0 ] && active && [ "$(mainpid)" = "$PID" ]; then
	ok "reload: a valid change (nocull) is applied (\"reload: nocull: culling stops\")"
else
	not_ok "reload: a valid change (nocull) is applied"; diag "reload status $rc, log line found: $got, pid $PID -> $(mainpid)"
fi
cp /tmp/conf.orig "$CONF"
c=$(jcursor)
systemctl reload cachefilesd
wait_until 10 sh -c "journalctl -q -o cat -u cachefilesd --after-cursor='$c' | grep -q 'reload: culling enabled'" &&
	ok "reload: removing nocull enables culling again" || not_ok "reload: removing nocull enables culling again"

c=$(jcursor)
echo "frobnicate this line" >> "$CONF"
echo "brun 300%" >> "$CONF"
systemctl reload cachefilesd; rc=$?
sleep 3
jsince "$c" > /tmp/badreload
sed 's/^/reload(invalid): /' /tmp/badreload >&2
diag "reload with an invalid configuration: systemctl reload exited $rc (ExecReload=$(systemctl show -p ExecReload --value cachefilesd | grep -o 'path=[^ ;]*' | head -1)); daemon said: $(grep -v '^$' /tmp/badreload | head -3 | tr '\n' '|')"
if active && [ "$(mainpid)" = "$PID" ] && status_text | grep -q bound; then
	ok "reload: an invalid configuration leaves the daemon running with the old one (reload status $rc)"
else
	not_ok "reload: an invalid configuration leaves the daemon running with the old one"
	diag "active $(systemctl is-active cachefilesd), pid $PID -> $(mainpid)"
fi
# ExecReload= checks the file first (cachefilesd -t): the reload fails, and says where.
if [ "$rc" -ne 0 ] && grep -q "$CONF:[0-9]*: " /tmp/badreload; then
	ok "reload: systemctl reload fails on an invalid configuration and names FILE:LINE"
else
	not_ok "reload: systemctl reload fails on an invalid configuration and names FILE:LINE"
	diag "systemctl reload exited $rc"
fi
cp /tmp/conf.orig "$CONF"
systemctl reload cachefilesd
sleep 1

# A configuration error at start: exit 2, and RestartPreventExitStatus=2
# keeps systemd from starting it again and again.
c=$(jcursor)
echo "brun 300%" >> "$CONF"
systemctl restart cachefilesd
sleep 5
st=$(systemctl show -p ExecMainStatus --value cachefilesd)
nr=$(systemctl show -p NRestarts --value cachefilesd)
if ! active && [ "$st" = 2 ] && [ "$nr" = 0 ] &&
   journalctl -q -o cat -u cachefilesd --after-cursor="$c" | grep -q "$CONF:[0-9]*: "; then
	ok "a configuration error at start: exit status 2, named FILE:LINE, not restarted ($nr restarts)"
else
	not_ok "a configuration error at start: exit status 2, named FILE:LINE, not restarted"
	diag "active $(systemctl is-active cachefilesd), ExecMainStatus $st, NRestarts $nr"
fi
cp /tmp/conf.orig "$CONF"
systemctl reset-failed cachefilesd 2>/dev/null
systemctl restart cachefilesd
wait_until 20 active
PID=$(mainpid)

# ---------------------------------------------------------------- cull
fs_bavail() { stat -f -c %a "$FS"; }
fs_blocks() { stat -f -c %b "$FS"; }
fs_pct() { awk -v a="$(fs_bavail)" -v b="$(fs_blocks)" 'BEGIN { printf "%.1f", a * 100 / b }'; }
bavail_at_least() { [ "$(fs_bavail)" -ge "$1" ]; }
read_files() { for f in "$@"; do cat "$f" > /dev/null; done; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
mkdir -p "$DATA"
if mount -t 9p -o trans=virtio,version=9p2000.L,cache=fscache data "$DATA"; then
	c=$(jcursor)
	read_files "$DATA"/old/*.bin; drop_caches; sleep 1.2
	read_files "$DATA"/new/*.bin; drop_caches
	nobj=$(find "$FS/cache" -type f | wc -l)
	have=$(fs_bavail); target=$(( $(fs_blocks) * 5 / 100 ))
	fallocate -l $(( (have - target) * $(stat -f -c %S "$FS") )) "$FS/filler"; sync
	filled=$(fs_pct)
	brun=$(( $(fs_blocks) / 100 * 10 ))
	read_files "$DATA"/small/*.txt
	t0=$(up)
	wait_until 90 bavail_at_least "$brun"; reached=$?
	t1=$(up)
	nafter=$(find "$FS/cache" -type f | wc -l)
	jsince "$c" | sed 's/^/cull: /' >&2
	if [ $reached = 0 ] && [ "$nafter" -lt "$nobj" ] && active; then
		ok "cull: a full cache disk is culled back to brun under the sandbox ($filled% free -> $(fs_pct)%, objects $nobj -> $nafter, $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s)"
	else
		not_ok "cull: a full cache disk is culled back to brun under the sandbox"
		diag "objects $nobj -> $nafter, $filled% free after filling, $(fs_pct)% now, brun $brun blocks"
		status_text | sed 's/^/# status: /'
	fi
	rm -f "$FS/filler"
	umount "$DATA"
else
	not_ok "cull: mounting the 9p share with cache=fscache"
fi

# ---------------------------------------------------------------- kill -9
n0=$(nregistered); PID=$(mainpid)
kill -9 "$PID"
if wait_until 30 new_pid "$PID" && wait_until 20 bound_more "$n0"; then
	ok "restart: after kill -9 systemd restarts the daemon and it binds again (pid $PID -> $(mainpid))"
else
	not_ok "restart: after kill -9 systemd restarts the daemon and it binds again"
	diag "state $(systemctl is-active cachefilesd), pid $PID -> $(mainpid), binds $n0 -> $(nregistered)"
fi

# ---------------------------------------------------------------- watchdog
wd=$(systemctl show -p WatchdogUSec --value cachefilesd)
diag "shipped unit: WatchdogSec=$wd"
if [ "$wd" = 0 ] || [ "$wd" = infinity ]; then
	skip "watchdog: a SIGSTOP'ed daemon is restarted" "the shipped unit sets no WatchdogSec="
else
	# The shipped 5 min would outlast the layer's budget: shorten it.
	mkdir -p /run/systemd/system/cachefilesd.service.d
	printf '[Service]\nWatchdogSec=10s\n' > /run/systemd/system/cachefilesd.service.d/wd.conf
	systemctl daemon-reload; systemctl restart cachefilesd
	wait_until 20 active
	n0=$(nregistered); PID=$(mainpid)
	kill -STOP "$PID"
	t0=$(up)
	if wait_until 60 new_pid "$PID" && wait_until 20 bound_more "$n0"; then
		ok "watchdog: a SIGSTOP'ed daemon is restarted by the watchdog (shipped WatchdogSec=$wd, test drop-in 10s; $(awk -v a="$t0" -v b="$(up)" 'BEGIN{printf "%d", b-a}') s)"
	else
		not_ok "watchdog: a SIGSTOP'ed daemon is restarted by the watchdog"
		diag "state $(systemctl is-active cachefilesd), pid $PID -> $(mainpid)"
		kill -CONT "$PID" 2>/dev/null
	fi
	rm -rf /run/systemd/system/cachefilesd.service.d
	systemctl daemon-reload
fi

# ---------------------------------------------------------------- moved cache
ALT=/srv/fscache
# The security module's steps first (they are the documented ones), so that
# what is tested next is the unit's sandbox alone.
if [ "$LSM" = apparmor ]; then
	printf '%s/ rw,\n%s/** rwlk,\n' "$ALT" "$ALT" > /etc/apparmor.d/local/usr.sbin.cachefilesd
	apparmor_parser -r /etc/apparmor.d/usr.sbin.cachefilesd
elif [ "$LSM" = selinux ]; then
	# selinux/README.md: semanage fcontext + restorecon; semanage is not in
	# the image, chcon gives the same label for this boot.
	chcon -R -t cachefilesd_cache_t "$ALT"
fi
# Without the drop-in, the unit's sandbox leaves $ALT read-only: the daemon
# must say so at start (exit 2, naming ReadWritePaths=), not bind and fail later.
sed "s,^dir .*,dir $ALT," /tmp/conf.orig > "$CONF"
c=$(jcursor); n0=$(nregistered)
systemctl restart cachefilesd
sleep 5
st=$(systemctl show -p ExecMainStatus --value cachefilesd)
if ! active && [ "$st" = 2 ] && [ "$(nregistered)" = "$n0" ] &&
   journalctl -q -o cat -u cachefilesd --after-cursor="$c" | grep -q 'ReadWritePaths='; then
	ok "moved cache without the drop-in: refused at start, exit 2, naming ReadWritePaths="
else
	not_ok "moved cache without the drop-in: refused at start, exit 2, naming ReadWritePaths="
	diag "active $(systemctl is-active cachefilesd), ExecMainStatus $st"
	journalctl -q -o cat -u cachefilesd --after-cursor="$c" -n 5 | sed 's/^/# /'
fi
systemctl reset-failed cachefilesd 2>/dev/null
mkdir -p /etc/systemd/system/cachefilesd.service.d
printf '[Unit]\nRequiresMountsFor=%s\n\n[Service]\nReadWritePaths=%s\n' "$ALT" "$ALT" \
	> /etc/systemd/system/cachefilesd.service.d/dir.conf
systemctl daemon-reload
n0=$(nregistered)
systemctl restart cachefilesd
if wait_until 20 active && wait_until 20 bound_more "$n0" && status_text | grep -q "$ALT" &&
   [ -d "$ALT/cache" ] && [ "$(stat -c %m "$ALT/cache")" = "$ALT" ]; then
	ok "moved cache: $ALT on another filesystem works with the documented drop-in ($(status_text | cut -c1-60)...)"
else
	not_ok "moved cache: $ALT on another filesystem works with the documented drop-in"
	diag "active $(systemctl is-active cachefilesd); status $(status_text)"
	journalctl -q -o cat -u cachefilesd -n 10 | sed 's/^/# /'
fi
rm -rf /etc/systemd/system/cachefilesd.service.d
cp /tmp/conf.orig "$CONF"
[ "$LSM" = apparmor ] && : > /etc/apparmor.d/local/usr.sbin.cachefilesd
systemctl daemon-reload
systemctl restart cachefilesd
wait_until 20 active

# ---------------------------------------------------------------- denials
# (the SELinux boot cleared the ring after relabelling the cache disks)
dmesg > /out/dmesg-scenarios.txt
if [ "$LSM" = apparmor ]; then
	if grep 'apparmor="DENIED"' /out/dmesg-scenarios.txt > /out/denials.txt; then
		not_ok "apparmor: no DENIED line in the kernel log during the scenarios"
		sed 's/^/# /' /out/denials.txt | head -20
	else
		ok "apparmor: no DENIED line in the kernel log during the scenarios"
	fi
elif [ "$LSM" = selinux ]; then
	grep 'avc: *denied' /out/dmesg-scenarios.txt > /out/avc-all.txt
	if grep -E 'scontext=[^ ]*:(cachefilesd_t|cachefiles_kernel_t):' /out/avc-all.txt > /out/denials.txt; then
		not_ok "selinux: no AVC denial for cachefilesd during the scenarios"
		sed 's/^/# /' /out/denials.txt | head -20
	else
		ok "selinux: no AVC denial for cachefilesd during the scenarios"
	fi
fi

# ---------------------------------------------------------------- remove, purge
dpkg -r cachefilesd > /tmp/dpkg-r.log 2>&1; rc=$?
sed 's/^/dpkg -r: /' /tmp/dpkg-r.log >&2
sleep 1
left=
pgrep -x cachefilesd >/dev/null && left="$left process"
[ "$(systemctl show -p LoadState --value cachefilesd)" = not-found ] || left="$left unit($(systemctl show -p LoadState --value cachefilesd))"
[ -e /run/cachefilesd ] && left="$left /run/cachefilesd"
[ -e /run/cachefilesd.pid ] && left="$left /run/cachefilesd.pid"
[ -e /usr/sbin/cachefilesd ] && left="$left /usr/sbin/cachefilesd"
if [ $rc = 0 ] && [ -z "$left" ]; then
	ok "remove: dpkg -r leaves no process, unit or runtime file"
else
	not_ok "remove: dpkg -r leaves no process, unit or runtime file"; diag "status $rc; left:$left"
fi
dpkg -P cachefilesd > /tmp/dpkg-p.log 2>&1; rc=$?
sed 's/^/dpkg -P: /' /tmp/dpkg-p.log >&2
left=
for f in /etc/cachefilesd.conf /etc/apparmor.d/usr.sbin.cachefilesd /etc/apparmor.d/usr.sbin.cachefiles-cull \
	/lib/systemd/system/cachefilesd.service /etc/systemd/system/multi-user.target.wants/cachefilesd.service \
	/etc/systemd/system/remote-fs.target.wants/cachefilesd.service /run/cachefilesd; do
	[ -e "$f" ] && left="$left $f"
done
if [ $rc = 0 ] && [ -z "$left" ] && ! dpkg -s cachefilesd >/dev/null 2>&1; then
	ok "purge: dpkg -P removes the configuration, the profiles and the unit's links"
else
	not_ok "purge: dpkg -P removes the configuration, the profiles and the unit's links"; diag "status $rc; left:$left"
fi
if [ "$LSM" = apparmor ]; then
	# The package's prerm unloads both profiles on removal (dh_apparmor
	# only loads them).
	check "apparmor: after dpkg -r and -P neither profile is loaded in the kernel" \
		sh -c '! grep -E "^(cachefilesd|cachefiles-cull) \(" /sys/kernel/security/apparmor/profiles'
fi
if [ "$LSM" = apparmor ]; then
	. /out/packages.sh
else
	diag "the package scenarios (tests/system/guest-packages.sh) run in the AppArmor boot only"
fi
echo "1..$N"
[ "$FAILED" = 0 ]
