# SPDX-License-Identifier: GPL-2.0-or-later
# The system layer's package scenarios, sourced by guest.sh in the AppArmor
# boot once the package has been purged (its helpers: ok, not_ok, check,
# wait_until, active, nregistered, ...).  As an administrator meets them:
#   fresh     apt-get install of the .deb on a system that never had
#             cachefilesd: the service state README.md promises, the
#             AppArmor profiles loaded by the postinst
#   autopkgtest  the package's debian/tests run by the real autopkgtest
#             (null runner: this guest is the testbed)
#   upgrade-run  Debian's 0.10.10 installed with dpkg -i and running with
#             RUN=yes and DAEMON_OPTS, a customised configuration, then ours
#             with dpkg -i --force-confdef --force-confold
#   upgrade-norun  the same with RUN= left unset (0.10.10's default), and
#             ours installed with a plain dpkg -i first (what happens
#             without the conffile options)
#   apparmor-prefix  profiles installed by "make install PREFIX=/usr/local"
#             attach to /usr/local/sbin; the default ones do not
# Files from the host on /out: old.deb (Debian's 0.10.10, from apt-get
# download on the host; absent: the upgrade scenarios are skipped),
# src/debian (the package's debian/ for autopkgtest), aa-usr/ and
# aa-local/ (profiles from make install-apparmor).  Ours is /root/cachefilesd.deb.
DEB=/root/cachefilesd.deb
OLD=/out/old.deb
AA=/sys/kernel/security/apparmor/profiles
export DEBIAN_FRONTEND=noninteractive

svc() { echo "$(systemctl is-enabled cachefilesd 2>/dev/null)/$(systemctl is-active cachefilesd 2>/dev/null)"; }
aa_mode() { sed -n "s/^$1 (\\(.*\\))\$/\\1/p" "$AA"; }
# rc links that point nowhere, and what names cachefilesd in them.
dangling_rc() { find /etc/rc?.d /etc/init.d -xtype l -name '*cachefilesd*' 2>/dev/null; }
exe_of() { readlink "/proc/$1/exe" 2>/dev/null; }
# ours_runs: the main PID is our daemon (the version it answers), not 0.10.10's.
ours_runs() {
	p=$(mainpid); [ -n "$p" ] && [ "$p" != 0 ] || return 1
	e=$(exe_of "$p"); [ -n "$e" ] || return 1
	case $e in *deleted*) return 1 ;; esac
	"$e" --version 2>&1 | grep -q '^cachefilesd version 1\.'
}
# purge_all: nothing of either version left, for the next scenario.
purge_all() {
	systemctl stop cachefilesd 2>/dev/null
	dpkg -P cachefilesd >/tmp/purge.log 2>&1 || sed 's/^/purge: /' /tmp/purge.log >&2
	systemctl daemon-reload
	systemctl reset-failed cachefilesd 2>/dev/null
}

# ---------------------------------------------------------------- fresh install
# README.md (Packages, service state): a fresh install enables and starts
# the service; the postinst loads the AppArmor profiles (dh_apparmor).
n0=$(nregistered)
apt-get install -y -q "$DEB" >/tmp/fresh.log 2>&1; rc=$?
sed 's/^/fresh: /' /tmp/fresh.log >&2
check "fresh: apt-get install of the .deb succeeds on a system without cachefilesd" [ $rc = 0 ]
wait_until 20 bound_more "$n0"
st=$(svc)
if [ "$st" = enabled/active ] && bound_more "$n0" && ours_runs; then
	ok "fresh: the service is enabled and active and the cache bound, as README.md says ($st)"
else
	not_ok "fresh: the service is enabled and active and the cache bound, as README.md says"
	diag "state $st, binds $n0 -> $(nregistered), main pid $(mainpid) $(exe_of "$(mainpid)")"
fi
check "fresh: the postinst loaded the daemon's AppArmor profile in enforce mode ($(aa_mode cachefilesd))" \
	[ "$(aa_mode cachefilesd)" = enforce ]
check "fresh: ... and the tool's ($(aa_mode cachefiles-cull))" [ "$(aa_mode cachefiles-cull)" = enforce ]
check "fresh: the running daemon is confined by it" \
	[ "$(cat "/proc/$(mainpid)/attr/current" 2>/dev/null)" = "cachefilesd (enforce)" ]

# ---------------------------------------------------------------- autopkgtest
# The real tool, null runner: this guest is the testbed, as root.  The
# package is given as a .deb; autopkgtest installs it and the test's
# dependencies with apt from a local repository (everything is in the image).
if command -v autopkgtest >/dev/null 2>&1; then
	t0=$(up)
	rm -rf /tmp/apt-out
	# /out/src is a built tree (it has debian/files): autopkgtest takes the
	# tests from it as they are, without dpkg-source.
	autopkgtest --output-dir /tmp/apt-out /out/src "$DEB" -- null >/tmp/autopkgtest.log 2>&1; rc=$?
	sed 's/^/autopkgtest: /' /tmp/autopkgtest.log >&2
	cp /tmp/apt-out/summary /out/autopkgtest-summary.txt 2>/dev/null
	summary=$(tr -s ' ' < /tmp/apt-out/summary 2>/dev/null | tr '\n' ';')
	if [ $rc = 0 ] && grep -q '^installed *PASS' /tmp/apt-out/summary 2>/dev/null &&
	   ! grep -qv 'PASS' /tmp/apt-out/summary; then
		ok "autopkgtest: debian/tests pass under the real autopkgtest, null runner, as root ($summary $(awk -v a="$t0" -v b="$(up)" 'BEGIN{printf "%d", b-a}') s)"
	else
		not_ok "autopkgtest: debian/tests pass under the real autopkgtest, null runner, as root"
		diag "autopkgtest exited $rc; summary: $summary"
		tail -15 /tmp/autopkgtest.log | sed 's/^/# /'
	fi
else
	skip "autopkgtest: debian/tests pass under the real autopkgtest" "autopkgtest is not in the image"
fi

# ---------------------------------------------------------------- remove: profiles unloaded
dpkg -r cachefilesd >/tmp/dpkg-r2.log 2>&1
if [ -z "$(aa_mode cachefilesd)$(aa_mode cachefiles-cull)" ]; then
	ok "apparmor: dpkg -r unloads both profiles from the kernel"
else
	not_ok "apparmor: dpkg -r unloads both profiles from the kernel"; grep cachefile "$AA" | sed 's/^/# /'
fi
purge_all

# ---------------------------------------------------------------- upgrade from 0.10.10
# old_install RUN OPTS: Debian's 0.10.10 as its administrator had it: the
# configuration customised (brun changed, a comment added), RUN= and
# DAEMON_OPTS set in /etc/default/cachefilesd; started when RUN=yes.
old_install() {
	dpkg -i "$OLD" >/tmp/old-i.log 2>&1 || { sed 's/^/0.10.10 dpkg -i: /' /tmp/old-i.log >&2; return 1; }
	sed 's/^/0.10.10 dpkg -i: /' /tmp/old-i.log >&2
	sed -i 's/^brun 10%$/brun 13%/' "$CONF"
	printf '# customised by the administrator on %s\n' "$(hostname)" >> "$CONF"
	grep -q '^brun 13%' "$CONF" || return 1
	cp -p "$CONF" /tmp/conf.admin
	# RUN= empty: the shipped "#RUN=yes" stays commented out.
	[ -n "$1" ] && sed -i "s|^#\\?RUN=.*|RUN=$1|" /etc/default/cachefilesd
	sed -i "s|^DAEMON_OPTS=.*|DAEMON_OPTS=\"$2\"|" /etc/default/cachefilesd
	sed 's/^/0.10.10 defaults: /' /etc/default/cachefilesd >&2
	systemctl daemon-reload
	if [ "$1" = yes ]; then
		systemctl restart cachefilesd 2>&1 | sed 's/^/0.10.10 start: /' >&2
	fi
	return 0
}
# old_running N0: wait until 0.10.10 has bound (more than N0 binds) and
# still runs a few seconds later. 0.10.10 aborts at random soon after
# binding (its pointer-poisoning check trips under ASLR; the reference
# notes it): that is the old package's bug, not the upgrade under test, so
# start it again, at most three times, and say so.
old_running() {
	ob=$1; try=1
	while :; do
		wait_until 20 bound_more "$ob"
		sleep 3
		pgrep -x cachefilesd >/dev/null && return 0
		[ $try -ge 3 ] && return 1
		diag "upgrade-run: 0.10.10 exited after binding (try $try: $(journalctl -q -o cat -t cachefilesd -n 3 2>/dev/null | tr '\n' '|')); starting it again"
		ob=$(nregistered); try=$((try + 1))
		systemctl restart cachefilesd 2>&1 | sed 's/^/0.10.10 start: /' >&2
	done
}
# upgrade_common NAME: what both variants must show after ours is installed.
upgrade_common() {
	if cmp -s /tmp/conf.admin "$CONF"; then
		ok "$1: the customised /etc/cachefilesd.conf is kept byte for byte"
	else
		not_ok "$1: the customised /etc/cachefilesd.conf is kept byte for byte"; diff /tmp/conf.admin "$CONF" | sed 's/^/# /'
	fi
	check "$1: ours is installed where its unit runs it (/usr/sbin/cachefilesd, version 1.x)" \
		sh -c '/usr/sbin/cachefilesd --version 2>&1 | grep -q "^cachefilesd version 1\\."'
	fp=$(systemctl show -p FragmentPath --value cachefilesd)
	check "$1: the unit is the package's, not one generated from the old init script ($fp)" \
		sh -c "case '$fp' in /lib/systemd/system/*|/usr/lib/systemd/system/*) true ;; *) false ;; esac"
	check "$1: /etc/init.d/cachefilesd is the new script (conffile replaced, unmodified)" \
		grep -q 'cachefilesd.service takes its place' /etc/init.d/cachefilesd
	d=$(dangling_rc)
	check "$1: no rc link or init script link points nowhere${d:+ ($d)}" [ -z "$d" ]
	check "$1: 0.10.10's logcheck rules are gone, ours are in place" \
		sh -c '[ ! -e /etc/logcheck/ignore.d.workstation/cachefilesd ] && [ -f /etc/logcheck/ignore.d.server/cachefilesd ]'
	check "$1: dpkg knows the package as installed, version 1.x" \
		sh -c 'dpkg-query -W -f "\${Status} \${Version}" cachefilesd | grep -q "^install ok installed 1\\."'
}

if [ ! -f "$OLD" ]; then
	skip "upgrade: from Debian's cachefilesd 0.10.10" "no 0.10.10 .deb on the share (apt-get download on the host failed)"
else
	diag "upgrade from $(dpkg-deb -f "$OLD" Package Version | tr '\n' ' ')"
	# ---- RUN=yes, options that translate (-d), the old daemon running
	n0=$(nregistered)
	if old_install yes "-d"; then
		old_running "$n0"
		# The unit systemd generated from the old init script may not know
		# the main PID: look for the process.
		# (Under systemd the unit is "failed" while the daemon runs on:
		# 0.10.10's init script checks its pidfile before the daemon
		# wrote it, and the generated unit has KillMode=process.)
		oldpid=$(pgrep -x cachefilesd | head -1)
		diag "upgrade-run: 0.10.10 running as pid $oldpid, its unit $(svc)"
		if bound_more "$n0" && [ -n "$oldpid" ] &&
		   ! "$(exe_of "$oldpid")" --version 2>&1 | grep -q '^cachefilesd version 1\.'; then
			ok "upgrade-run: 0.10.10 installed with RUN=yes runs its own daemon and binds (pid $oldpid)"
		else
			not_ok "upgrade-run: 0.10.10 installed with RUN=yes runs its own daemon and binds"
			diag "state $(svc), binds $n0 -> $(nregistered), pid $oldpid"
		fi
		n1=$(nregistered); cur=$(jcursor)
		# Unattended, as an administrator's script or unattended-upgrades
		# runs it: keep a modified conffile, take the new one otherwise.
		dpkg -i --force-confdef --force-confold "$DEB" </dev/null >/tmp/up-run.log 2>&1; rc=$?
		sed 's/^/upgrade-run dpkg -i: /' /tmp/up-run.log >&2
		check "upgrade-run: dpkg -i --force-confdef --force-confold succeeds" [ $rc = 0 ]
		upgrade_common upgrade-run
		wait_until 20 bound_more "$n1"
		st=$(svc)
		if [ "$st" = enabled/active ] && ours_runs && bound_more "$n1" && [ "$(mainpid)" != "$oldpid" ]; then
			ok "upgrade-run: RUN=yes: enabled and active, our daemon replaced 0.10.10's and bound ($st, pid $oldpid -> $(mainpid))"
		else
			not_ok "upgrade-run: RUN=yes: enabled and active, our daemon replaced 0.10.10's and bound"
			diag "state $st, binds $n1 -> $(nregistered), pid $oldpid -> $(mainpid) $(exe_of "$(mainpid)")"
			pgrep -a cachefilesd | sed 's/^/# running: /'
		fi
		check "upgrade-run: no 0.10.10 daemon is left running" [ "$(pgrep -x cachefilesd | wc -l)" = 1 ]
		# The old daemon is stopped before ours starts (preinst): ours
		# binds at its first start, not after a restart by systemd.
		nr=$(systemctl show -p NRestarts --value cachefilesd)
		check "upgrade-run: our daemon bound at its first start (NRestarts=$nr, no \"device busy\")" \
			sh -c "[ '$nr' = 0 ] && ! journalctl -q -o cat -u cachefilesd --after-cursor='$cur' | grep -q 'cachefiles is busy'"
		dropin=/etc/systemd/system/cachefilesd.service.d/debian-daemon-opts.conf
		if grep -q '^ExecStart=/usr/sbin/cachefilesd -n -d$' "$dropin" 2>/dev/null &&
		   systemctl show -p ExecStart --value cachefilesd | grep -q 'argv\[\]=/usr/sbin/cachefilesd -n -d ' &&
		   grep -q 'carried into' /tmp/up-run.log; then
			ok "upgrade-run: DAEMON_OPTS=\"-d\" is carried into the drop-in, the running unit uses it and dpkg's output says so"
		else
			not_ok "upgrade-run: DAEMON_OPTS=\"-d\" is carried into the drop-in, the running unit uses it and dpkg's output says so"
			diag "ExecStart: $(systemctl show -p ExecStart --value cachefilesd)"
		fi
		check "upgrade-run: the daemon runs confined by its profile" \
			[ "$(cat "/proc/$(mainpid)/attr/current" 2>/dev/null)" = "cachefilesd (enforce)" ]
		cachefiles-cull status > /tmp/up-status.txt 2>&1
		sed 's/^/upgrade-run status: /' /tmp/up-status.txt >&2
		check "upgrade-run: the daemon works from the kept configuration (cachefiles-cull status: brun 13%)" \
			grep -q 'brun 13%' /tmp/up-status.txt
	else
		not_ok "upgrade-run: installing 0.10.10 with dpkg -i"
	fi
	purge_all
	left=
	for f in /etc/default/cachefilesd /etc/cachefilesd.conf /etc/init.d/cachefilesd \
		/etc/systemd/system/cachefilesd.service.d; do
		[ -e "$f" ] && left="$left $f"
	done
	left="$left$(ls /etc/rc?.d/*cachefilesd 2>/dev/null | tr '\n' ' ')"
	check "upgrade-run: dpkg -P after the upgrade removes 0.10.10's obsolete conffiles, the drop-in and the rc links${left:+ (left:$left)}" \
		[ -z "$(echo "$left" | tr -d ' ')" ]

	# ---- RUN= unset (0.10.10's default), options that do not translate
	if old_install "" "-p /run/old-cachefilesd.pid"; then
		check "upgrade-norun: 0.10.10 with RUN= unset is installed and not running" \
			sh -c '! pgrep -x cachefilesd >/dev/null'
		# Without --force-conf*: dpkg asks about the modified configuration
		# on a terminal; here stdin is not one.
		dpkg -i "$DEB" </dev/null >/tmp/up-plain.log 2>&1; rc=$?
		sed 's/^/upgrade-norun plain dpkg -i: /' /tmp/up-plain.log >&2
		diag "upgrade-norun: plain dpkg -i with stdin not a terminal exited $rc: $(grep -i 'conffile\|cachefilesd.conf\|error' /tmp/up-plain.log | head -4 | tr '\n' '|')"
		if [ $rc != 0 ]; then
			check "upgrade-norun: without --force-confold a non-interactive dpkg -i stops at the conffile question and keeps the file" \
				sh -c 'grep -qi "conffile\|end of file" /tmp/up-plain.log && cmp -s /tmp/conf.admin '"$CONF"
			dpkg --configure --force-confdef --force-confold -a </dev/null >/tmp/up-norun.log 2>&1; rc=$?
			sed 's/^/upgrade-norun dpkg --configure: /' /tmp/up-norun.log >&2
			check "upgrade-norun: dpkg --configure -a --force-confdef --force-confold then completes it" [ $rc = 0 ]
			cat /tmp/up-plain.log /tmp/up-norun.log > /tmp/up-norun-all.log
		else
			ok "upgrade-norun: a plain non-interactive dpkg -i completes (no conffile question)"
			cp /tmp/up-plain.log /tmp/up-norun-all.log
		fi
		upgrade_common upgrade-norun
		sleep 2
		st=$(svc)
		if [ "$st" = disabled/inactive ] && ! pgrep -x cachefilesd >/dev/null; then
			ok "upgrade-norun: RUN= unset: the service stays disabled and inactive, as it was ($st)"
		else
			not_ok "upgrade-norun: RUN= unset: the service stays disabled and inactive, as it was"; diag "state $st"
		fi
		check "upgrade-norun: dpkg's output says the service stays disabled and how to enable it" \
			sh -c 'grep -q "RUN=yes is not set" /tmp/up-norun-all.log && grep -q "systemctl enable --now cachefilesd" /tmp/up-norun-all.log'
		if grep -q "WARNING: DAEMON_OPTS=\"-p /run/old-cachefilesd.pid\"" /tmp/up-norun-all.log &&
		   [ ! -e /etc/systemd/system/cachefilesd.service.d/debian-daemon-opts.conf ]; then
			ok "upgrade-norun: DAEMON_OPTS that cannot be carried (-p) are reported by dpkg's output, not dropped silently, and no drop-in guesses"
		else
			not_ok "upgrade-norun: DAEMON_OPTS that cannot be carried (-p) are reported by dpkg's output, not dropped silently"
		fi
		# What NEWS.Debian tells the administrator to do.
		n0=$(nregistered)
		systemctl enable --now cachefilesd >/dev/null 2>&1
		if wait_until 20 bound_more "$n0" && [ "$(svc)" = enabled/active ] && ours_runs; then
			ok "upgrade-norun: systemctl enable --now cachefilesd then starts it and it binds"
		else
			not_ok "upgrade-norun: systemctl enable --now cachefilesd then starts it and it binds"; diag "state $(svc)"
		fi
	else
		not_ok "upgrade-norun: installing 0.10.10 with dpkg -i"
	fi
	purge_all
fi

# ---------------------------------------------------------------- AppArmor profile's attachment path
# The profiles as "make install" writes them (on the host, make
# install-apparmor): default SBINDIR attaches to /{usr/,}sbin, PREFIX=/usr/local
# to /usr/local/sbin.  A stand-in executable there (sleep) shows which
# profile the kernel attaches at exec.
if [ -f /out/aa-local/etc/apparmor.d/usr.sbin.cachefilesd ] && [ -f /out/aa-usr/etc/apparmor.d/usr.sbin.cachefilesd ]; then
	mkdir -p /usr/local/sbin
	cp /bin/sleep /usr/local/sbin/cachefilesd
	confined_as() {
		apparmor_parser -r "$1" >/dev/null 2>&1 || { echo "not loaded"; return; }
		/usr/local/sbin/cachefilesd 30 & p=$!
		sleep 0.5
		cat "/proc/$p/attr/current" 2>/dev/null
		kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
	}
	a=$(confined_as /out/aa-usr/etc/apparmor.d/usr.sbin.cachefilesd)
	b=$(confined_as /out/aa-local/etc/apparmor.d/usr.sbin.cachefilesd)
	printf cachefilesd > /sys/kernel/security/apparmor/.remove 2>/dev/null
	rm -f /usr/local/sbin/cachefilesd
	check "apparmor-prefix: the default profile does not confine /usr/local/sbin/cachefilesd ($a)" [ "$a" = unconfined ]
	check "apparmor-prefix: the one make install PREFIX=/usr/local writes does ($b)" [ "$b" = "cachefilesd (enforce)" ]
else
	skip "apparmor-prefix: profiles follow SBINDIR" "make install-apparmor did not run on the host"
fi
