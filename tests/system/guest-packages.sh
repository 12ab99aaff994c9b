# SPDX-License-Identifier: GPL-2.0-or-later
# The system layer's package scenarios, sourced by guest.sh in the AppArmor
# boot once the package has been purged (its helpers: ok, not_ok, check,
# wait_until, active, nregistered, ...).  As an administrator meets them:
#   fresh     apt-get install of the .deb on a system that never had
#             cachefilesd: the service state README.md promises, the
#             AppArmor profiles loaded by the postinst
#   autopkgtest  the package's debian/tests run by the real autopkgtest
#             (null runner: this guest is the testbed)
# Files from the host on /out: src/debian (the package's debian/ for
# autopkgtest).  Ours is /root/cachefilesd.deb.
DEB=/root/cachefilesd.deb
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
