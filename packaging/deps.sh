#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian 12 packages cachefilesd needs to build and test.
#   deps.sh check   install only what is missing (used by make check/bench/demo)
#   deps.sh all     the same, loudly
set -eu
BUILD_PKGS="gcc make pkg-config libevent-dev libattr1-dev libcap-dev libsystemd-dev libcmocka-dev"
TEST_PKGS="mandoc attr e2fsprogs qemu-system-x86 linux-image-amd64 busybox-static cpio kmod procps selinux-policy-dev checkpolicy"
missing=
for p in $BUILD_PKGS $TEST_PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ "${1:-check}" = all ] && echo "deps: everything is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
