#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian prerm, in a scratch copy whose AppArmor interface is a temp
# dir: the package's profiles are unloaded on removal and on a downgrade to
# 0.10.10 (which ships none, and whose daemon ours would confine), kept
# loaded on an upgrade (the new postinst replaces them), and a profile that
# is not loaded is not asked to go.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-deb-prerm.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
if ! command -v dpkg >/dev/null; then
	skip "the prerm" "dpkg is not installed"; tap_done; exit
fi
sed -e "s|^AA=.*|AA=$T/aa|" -e 's|^#DEBHELPER#$||' \
    "$TOP/packaging/debian/cachefilesd.prerm" >"$T/prerm"
mkdir -p "$T/aa"
# pr ARGS...: a fresh .remove, the loaded profiles as the kernel lists them.
pr() {
	: >"$T/aa/.remove"
	printf 'cachefilesd (enforce)\ncachefiles-cull (enforce)\nother (complain)\n' >"$T/aa/profiles"
	sh "$T/prerm" "$@" >"$T/out" 2>&1
}

pr remove
check_eq "remove: the prerm succeeds" 0 $?
check_eq "  ... the profiles are unloaded (the last one written)" cachefiles-cull "$(cat "$T/aa/.remove")"
pr upgrade 1.1.0-2
check_eq "upgrade to a newer version: the prerm succeeds" 0 $?
check_eq "  ... the profiles stay loaded" "" "$(cat "$T/aa/.remove")"
pr upgrade 0.10.10-0.3
check_eq "downgrade to 0.10.10: the profiles are unloaded" cachefiles-cull "$(cat "$T/aa/.remove")"
pr failed-upgrade 0.10.10-0.3
check_eq "failed-upgrade: nothing unloaded" "" "$(cat "$T/aa/.remove")"
: >"$T/aa/.remove"
printf 'cachefilesd (enforce)\n' >"$T/aa/profiles"
sh "$T/prerm" remove >"$T/out" 2>&1
check_eq "only the loaded profile is asked to go" cachefilesd "$(cat "$T/aa/.remove")"
tap_done
