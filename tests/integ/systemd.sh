#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd unit: "systemd-analyze verify" accepts it and
# "systemd-analyze security" rates its exposure at most MAX_EXPOSURE.
# Skips, with the reason, where systemd-analyze (or its --offline mode) is
# missing.  Runs offline: no systemd instance is needed.
set -u
cd "${TOP:-$(dirname "$0")/../..}"
. tests/lib.sh

MAX_EXPOSURE=2.0	# 1.6 with systemd 252; the sandbox must not erode
UNIT=config/cachefilesd.service
BUILD=${BUILD:-build}
CACHEFILESD=${CACHEFILESD:-$PWD/$BUILD/cachefilesd}
TMP=$(mktemp -d /tmp/cfd-systemd.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# The unit as "make install" writes it, pointing at the binary under test.
sbindir=$(dirname "$CACHEFILESD")
sed "s,@SBINDIR@,$sbindir,g" "$UNIT" >"$TMP/cachefilesd.service"

# Static promises of the unit, whatever systemd-analyze says.
check_grep "unit is Type=notify" '^Type=notify$' "$UNIT"
check_grep "ExecStart keeps the @SBINDIR@ placeholder and -n" '^ExecStart=@SBINDIR@/cachefilesd -n$' "$UNIT"
check_grep "modprobe before start, failure tolerated" '^ExecStartPre=-\+?/sbin/modprobe .*cachefiles' "$UNIT"
check_grep "reload sends SIGHUP" '^ExecReload=/bin/kill -HUP \$MAINPID$' "$UNIT"
check_grep "module loaded before the device policy is set up" '^After=.*modprobe@cachefiles\.service' "$UNIT"
check_grep "ordered before remote-fs-pre.target" '^Before=.*remote-fs-pre\.target' "$UNIT"
check_grep "waits for the cache mount" '^RequiresMountsFor=/var/cache/fscache' "$UNIT"
check_grep "watchdog configured" '^WatchdogSec=' "$UNIT"
check_grep "device allowed read-write" '^DeviceAllow=/dev/cachefiles rw$' "$UNIT"
check_no_grep "no securebits that would strip root's capabilities at exec" '^SecureBits=.*noroot' "$UNIT"
check_grep "cache directory writable under ProtectSystem=strict" '^ReadWritePaths=-?/var/cache/fscache' "$UNIT"
check_grep "  ... and the older default the security modules allow" '^ReadWritePaths=-/var/fscache$' "$UNIT"
check_no_grep "no placeholder left after substitution" '@SBINDIR@' "$TMP/cachefilesd.service"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd-analyze verify" "systemd-analyze is not installed"
	skip "systemd-analyze security" "systemd-analyze is not installed"
	tap_done; exit
fi

# --man=no: the man pages are not installed where the test runs.
if (cd "$TMP" && systemd-analyze verify --man=no ./cachefilesd.service) >"$TMP/verify.out" 2>&1; then
	ok "systemd-analyze verify accepts the unit"
else
	not_ok "systemd-analyze verify accepts the unit"
	sed 's/^/#   /' "$TMP/verify.out"
fi
check_no_grep_may_be_empty "verify prints no warning" '.' "$TMP/verify.out"

if ! systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
	skip "systemd-analyze security" "this systemd-analyze has no --offline mode (systemd < 250)"
	tap_done; exit
fi
(cd "$TMP" && systemd-analyze security --offline=true --no-pager ./cachefilesd.service) \
	>"$TMP/security.out" 2>&1
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$TMP/security.out")
if [ -z "$score" ]; then
	not_ok "systemd-analyze security reports an exposure level"
	sed 's/^/#   /' "$TMP/security.out" | tail -20
else
	note "exposure level $score (at most $MAX_EXPOSURE)"
	if awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
		ok "exposure level $score <= $MAX_EXPOSURE"
	else
		not_ok "exposure level $score <= $MAX_EXPOSURE"
		grep '✗' "$TMP/security.out" | sed 's/^/#   /'
	fi
fi
# The settings the daemon's safety rests on, one by one.
for s in NoNewPrivileges= ProtectSystem= ProtectHome= PrivateNetwork= PrivateTmp= \
	 ProtectKernelModules= ProtectKernelTunables= ProtectControlGroups= \
	 RestrictNamespaces=~user SystemCallFilter=~@mount 'CapabilityBoundingSet=~CAP_SYS_MODULE' \
	 'RestrictAddressFamilies=~AF_(INET|INET6)'; do
	check_grep "security: $s in force" "^✓ $(printf '%s' "$s" | sed 's/[]()|[]/\\&/g')" "$TMP/security.out"
done
tap_done
