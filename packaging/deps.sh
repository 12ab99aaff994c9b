#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian 12 packages cachefilesd needs to build and test.
#   deps.sh check   install only what is missing (used by make check/bench/demo)
#   deps.sh all     the same, loudly
#   deps.sh fuzz    what make fuzz needs: the build packages and clang with
#                   libFuzzer (not part of check: clang is large)
#   deps.sh soak    what make soak needs: the test packages and valgrind
set -eu
BUILD_PKGS="gcc make pkg-config libevent-dev libattr1-dev libcap-dev libsystemd-dev libcmocka-dev"
TEST_PKGS="mandoc attr e2fsprogs qemu-system-x86 linux-image-amd64 busybox-static cpio kmod procps selinux-policy-dev checkpolicy"
# Debian 12: clang-14's -fsanitize=fuzzer links libclang_rt.fuzzer, which
# libclang-rt-14-dev ships (clang only recommends it); ASan/UBSan too.
FUZZ_PKGS="clang libclang-rt-14-dev"
SOAK_PKGS="valgrind"
case ${1:-check} in
fuzz) WANT="$BUILD_PKGS $FUZZ_PKGS" ;;
soak) WANT="$BUILD_PKGS $TEST_PKGS $SOAK_PKGS" ;;
*) WANT="$BUILD_PKGS $TEST_PKGS" ;;
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
