#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian 12 packages cachefilesd needs to build and test.
#   deps.sh check   install only what is missing (used by make check/bench/demo)
#   deps.sh all     the same, loudly
#   deps.sh fuzz    what make fuzz needs: the build packages and clang with
#                   libFuzzer (not part of check: clang is large)
#   deps.sh soak    what make soak needs: the test packages and valgrind
#   deps.sh pkg     what make deb and make rpm need, with lintian and rpmlint
set -eu
BUILD_PKGS="gcc make pkg-config libevent-dev libattr1-dev libcap-dev libsystemd-dev libcmocka-dev"
TEST_PKGS="mandoc attr e2fsprogs qemu-system-x86 linux-image-amd64 busybox-static cpio kmod procps selinux-policy-dev checkpolicy apparmor"
# apparmor: its apparmor_parser checks the installed profiles (parsed only,
# never loaded into the host's kernel: tests/integ/install-destdir.sh).
# Debian 12: clang-14's -fsanitize=fuzzer links libclang_rt.fuzzer, which
# libclang-rt-14-dev ships (clang only recommends it); ASan/UBSan too.
FUZZ_PKGS="clang libclang-rt-14-dev"
SOAK_PKGS="valgrind"
PKG_PKGS="dpkg-dev debhelper dh-apparmor fakeroot lintian devscripts rpm rpmlint systemd selinux-policy-dev git"
case ${1:-check} in
fuzz) WANT="$BUILD_PKGS $FUZZ_PKGS" ;;
soak) WANT="$BUILD_PKGS $TEST_PKGS $SOAK_PKGS" ;;
# check and all: the system layer builds the .deb (make deb) and tests it
*) WANT="$BUILD_PKGS $TEST_PKGS $PKG_PKGS" ;;
esac
# Two programs the tests run are extracted from their Debian packages into
# build/tools rather than installed: promtool validates the metrics file,
# and the prometheus package that ships it would also start a Prometheus
# server; insserv orders the init script as update-rc.d does on a system
# without systemd, where it would be one more boot tool on this one.
# fetch_tool NAME PACKAGE PATH: PATH inside PACKAGE's .deb.
fetch_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	[ -x "build/tools/$1" ] && return 0
	t=$(mktemp -d) || return 0
	if (cd "$t" && { apt-get download "$2" >/dev/null 2>&1 ||
	     { apt-get update -qq >/dev/null 2>&1 && apt-get download "$2" >/dev/null 2>&1; }; }) &&
	   dpkg-deb -x "$t/$2"_*.deb "$t/x" 2>/dev/null && [ -x "$t/x$3" ]; then
		mkdir -p build/tools && cp "$t/x$3" "build/tools/$1" &&
			echo "deps: $1 extracted from Debian's $2 package into build/tools"
	else
		echo "deps: could not fetch $1 (package $2); its checks will be skipped" >&2
	fi
	rm -rf "$t"
}
cd "$(dirname "$0")/.."
case ${1:-check} in
check | all)
	fetch_tool promtool prometheus /usr/bin/promtool
	fetch_tool insserv insserv /sbin/insserv
	;;
esac

missing=
for p in $WANT; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ "${1:-check}" = all ] && echo "deps: everything is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'sh packaging/deps.sh ${1:-check}' as root)" >&2
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
