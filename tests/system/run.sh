#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The "system" layer of tests/run.sh: the project's Debian package installed
# with dpkg -i in a Debian 12 root filesystem made by mmdebstrap, booted with
# Debian's kernel and systemd as PID 1 under QEMU, the scenarios of
# tests/system/guest.sh checked from inside by a unit of the harness.  One
# boot under AppArmor (Debian's default), one under SELinux enforcing
# (SYS_SELINUX=0 skips it), side by side on two cores
# (tests/system/README.md).  Prints TAP.
#
#   BUILD            build directory; images are cached in $BUILD/system
#   SYS_DEB          the .deb to test (default: the newest $BUILD/deb/*.deb,
#                    built with "make deb BUILD=$BUILD" when there is none)
#   SYS_TIMEOUT      seconds one boot may take (default 900)
#   SYS_PARALLEL=0   one boot after the other (a host shared with other VMs)
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
. "$TOP/tests/lib.sh"
. "$TOP/tests/system/image.sh"
SYS_TIMEOUT=${SYS_TIMEOUT:-900}
NAMES="start sandbox apparmor reload cull restart watchdog moved-cache remove purge fresh autopkgtest upgrade-run upgrade-norun apparmor-prefix"

skip_all() {
	for n in $NAMES; do skip "system/$n" "$1"; done
	exit 0
}

mkdir -p "$SYS_WORK"
sys_deps || true
why=$(sys_unusable)
[ -n "$why" ] && skip_all "$why"

t_start=$(date +%s)
deb=${SYS_DEB:-$(ls -t "$BUILD"/deb/cachefilesd_*.deb 2>/dev/null | head -1)}
if [ -z "$deb" ]; then
	note "no .deb in $BUILD/deb: make deb BUILD=$BUILD (without its check)"
	DEB_BUILD_OPTIONS=nocheck nice make -s deb BUILD="$BUILD" > "$SYS_WORK/make-deb.log" 2>&1
	deb=$(ls -t "$BUILD"/deb/cachefilesd_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || skip_all "no package: make deb failed ($(tail -1 "$SYS_WORK/make-deb.log"))"
fi
note "package under test: $deb"
# What a Debian maintainer runs first (make deb runs it too, but its
# status is not seen here): no error or warning, overrides as shipped.
changes=$(ls -t "$(dirname "$deb")"/cachefilesd_*.changes 2>/dev/null | head -1)
if ! command -v lintian >/dev/null 2>&1; then
	skip "lintian: no errors or warnings" "lintian is not installed"
elif [ -z "$changes" ]; then
	skip "lintian: no errors or warnings" "no .changes beside $deb"
elif lintian --fail-on error,warning "$changes" >"$SYS_WORK/lintian.log" 2>&1; then
	ok "lintian: no errors or warnings"
else
	not_ok "lintian: no errors or warnings"
	grep -E '^[EW]:' "$SYS_WORK/lintian.log" | sed 's/^/#   /'
fi
# Without systemd, a start that fails leaves the package configured, as
# under systemd: debhelper's init snippets call init_failed (debian/rules),
# which the postinst defines as a warning and the prerm as exit 1.
E=$(mktemp -d)
if dpkg-deb -e "$deb" "$E" 2>/dev/null; then
	check_grep "the postinst's invoke-rc.d start calls init_failed, not exit 1" \
	    'invoke-rc\.d .*cachefilesd .*\|\| init_failed$' "$E/postinst"
	check_grep "  ... which the postinst defines" '^init_failed\(\) \{$' "$E/postinst"
	check_grep "the prerm's invoke-rc.d stop calls init_failed, which it defines" \
	    '^init_failed\(\) \{ exit 1; \}$' "$E/prerm"
else
	not_ok "dpkg-deb -e $(basename "$deb")"
fi
rm -rf "$E"
img=$(sys_image "$deb" apparmor) || { not_ok "system: building the root image (see $SYS_WORK/*.log)"; exit 1; }
sys_data
note "root image $img ($(du -h "$img" | cut -f1) allocated), kernel $(sys_kver), built or reused in $(( $(date +%s) - t_start ))s"

# packages_share DIR: what the package scenarios (guest-packages.sh, the
# AppArmor boot) read from the share: 0.10.10's .deb, the package's debian/
# for autopkgtest, and the profiles as make install writes them for the
# default SBINDIR and for PREFIX=/usr/local.
packages_share() {
	cp "$SYS_HERE/guest-packages.sh" "$1/packages.sh"
	[ -n "$old_deb" ] && cp "$old_deb" "$1/old.deb"
	mkdir -p "$1/src"
	cp -r "$TOP/packaging/debian" "$1/src/debian"
	# The tree the .deb was built from, as dpkg-buildpackage leaves it:
	# debian/files names it.  autopkgtest then runs the tests of this tree
	# against the given .deb without unpacking a source package (which
	# would need dpkg-dev in the guest).
	echo "$(basename "$deb") admin optional" > "$1/src/debian/files"
	make -s -C "$TOP" install-apparmor DESTDIR="$1/aa-usr" > "$SYS_WORK/aa-install.log" 2>&1
	make -s -C "$TOP" install-apparmor DESTDIR="$1/aa-local" PREFIX=/usr/local >> "$SYS_WORK/aa-install.log" 2>&1
}
old_deb=$(sys_historical) && note "upgrade scenarios from $(basename "$old_deb")" ||
	note "apt-get download cachefilesd failed ($(tail -1 "$SYS_WORK/historical/download.log" 2>/dev/null)): the upgrade scenarios are skipped"

# start NAME IMAGE LSM-CMDLINE LSM: one boot in the background; its
# directory is $SYS_WORK/boot-NAME, QEMU's status and time in qemu.rc.
start() {
	bd=$SYS_WORK/boot-$1
	rm -rf "$bd"; mkdir -p "$bd/out"
	cp "$SYS_HERE/guest.sh" "$bd/out/guest.sh"
	echo "LSM=$4" > "$bd/out/params"
	[ "$4" = apparmor ] && packages_share "$bd/out"
	(
		s=$(date +%s)
		sys_boot "$2" "$bd" "$SYS_TIMEOUT" "$3"
		echo "$? $(( $(date +%s) - s ))" > "$bd/qemu.rc"
	) &
}

# report NAME LSM-CMDLINE: the boot's TAP under system/NAME.
report() {
	bd=$SYS_WORK/boot-$1
	read -r rc secs < "$bd/qemu.rc"
	note "boot $1 ($2): QEMU status $rc after ${secs}s; harness started at guest uptime $(sed -n 's/harness: start at uptime //p' "$bd/out/harness.log" 2>/dev/null)s"
	if [ ! -f "$bd/out/done" ]; then
		not_ok "system/$1: the guest did not finish its scenarios (QEMU status $rc$([ "$rc" = 124 ] && echo ", time-out ${SYS_TIMEOUT}s"))"
		[ -f "$bd/out/scenarios.tap" ] && sed -n 's/^\(ok\|not ok\) [0-9]* - /\1 - system\/'"$1"': /p' "$bd/out/scenarios.tap"
		tail -n 15 "$bd/console.log" | sed 's/^/#   console: /'
		return 1
	fi
	sed -e 's/^\(ok\|not ok\) [0-9]* - /\1 - system\/'"$1"': /' -e '/^1\.\./d' "$bd/out/scenarios.tap"
	grep -q '^not ok' "$bd/out/scenarios.tap" && {
		TAP_FAILED=$((TAP_FAILED + 1))
		note "guest log: $bd/out/guest.log, journal: $bd/out/journal.txt"
	}
	[ -s "$bd/out/failed-units.txt" ] && note "failed units at boot: $(tr -s ' ' < "$bd/out/failed-units.txt" | cut -d' ' -f2 | tr '\n' ' ')"
	return 0
}

# Part 2: a sibling image with Debian's reference policy and the project's
# module, labelled at build time, booted enforcing.
selinux_why=
if [ "${SYS_SELINUX:-1}" = 0 ]; then
	selinux_why="SYS_SELINUX=0"
elif [ ! -f /usr/share/selinux/devel/Makefile ]; then
	selinux_why="selinux-policy-dev is not installed on the host (make deps)"
elif ! nice make -s selinux BUILD="$BUILD" > "$SYS_WORK/make-selinux.log" 2>&1; then
	selinux_why="make selinux failed ($(tail -1 "$SYS_WORK/make-selinux.log"))"
elif ! seimg=$(sys_image "$deb" selinux "$BUILD/selinux/cachefilesd.pp"); then
	selinux_why="the SELinux image could not be built (see $SYS_WORK/selinux.log)"
fi

# One TCG guest per host core: side by side on two or more.
LSM_AA="apparmor=1 security=apparmor"
LSM_SE="security=selinux selinux=1 enforcing=1"
start apparmor "$img" "$LSM_AA" apparmor
{ [ "$(nproc)" -lt 2 ] || [ "${SYS_PARALLEL:-1}" = 0 ]; } && wait
[ -z "$selinux_why" ] && start selinux "$seimg" "$LSM_SE" selinux
wait
report apparmor "$LSM_AA"
if [ -n "$selinux_why" ]; then
	skip "system/selinux: the daemon in cachefilesd_t, enforcing" "$selinux_why"
else
	report selinux "$LSM_SE"
fi
note "system layer took $(( $(date +%s) - t_start ))s"
tap_done
