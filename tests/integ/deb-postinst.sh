#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian postinst's upgrade from 0.10.10, in a scratch copy whose
# paths point into a temp dir and whose deb-systemd-helper is a stub that
# records its calls: RUN= decides the unit's state, DAEMON_OPTS become a
# drop-in when they translate safely and a warning otherwise; a fresh
# install and an upgrade from 1.0.0 touch nothing; 0.10.10's emptied
# workstation logcheck directory goes unless a package owns it.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-deb-postinst.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$*" >>"%s/calls"\n' "$T" >"$T/bin/deb-systemd-helper"
chmod +x "$T/bin/deb-systemd-helper"
# SELinux off, whatever this host has, so that its tools never run here
# (tests/integ/deb-selinux.sh covers them); a semodule or restorecon call
# would be recorded, and the "nothing done" checks below would see it.
printf '#!/bin/sh\nexit 1\n' >"$T/bin/selinuxenabled"
for s in semodule restorecon; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$s" "$T" >"$T/bin/$s"
done
chmod +x "$T/bin/selinuxenabled" "$T/bin/semodule" "$T/bin/restorecon"
# mk_postinst SNIPPET OUT: the scratch copy, SNIPPET in place of #DEBHELPER#.
mk_postinst() {
	sed -e "s|^DEFAULTS=.*|DEFAULTS=$T/default|" -e "s|^DROPIN_DIR=.*|DROPIN_DIR=$T/d|" \
	    -e "s|^OLD_LOGCHECK=.*|OLD_LOGCHECK=$T/ignore.d.workstation|" -e "s|^RC_ROOT=.*|RC_ROOT=$T|" \
	    -e "s|^SE_\([A-Z]*\)=.*|SE_\1=$T/se-\1|" \
	    -e "s,^#DEBHELPER#\$,$1," "$TOP/packaging/debian/cachefilesd.postinst" >"$2"
}
mk_postinst "" "$T/postinst"
if ! command -v dpkg >/dev/null; then
	skip "the postinst" "dpkg is not installed"; tap_done; exit
fi
pi() { rm -rf "$T/d" "$T/calls"; PATH=$T/bin:$PATH sh "$T/postinst" "$@" >"$T/out" 2>&1; }
D=$T/d/debian-daemon-opts.conf
# 0.10.10's init script, started at boot (update-rc.d defaults) unless a
# case below disables it.
mkdir -p "$T/rc2.d" "$T/rc5.d"
ln -s ../init.d/cachefilesd "$T/rc2.d/S01cachefilesd"
ln -s ../init.d/cachefilesd "$T/rc5.d/S01cachefilesd"

# 0.10.10's own file: RUN=yes commented out, DAEMON_OPTS empty.
printf '#RUN=yes\nDAEMON_OPTS=""\n' >"$T/default"
pi configure 0.10.10-0.3
check_eq "0.10.10 as shipped (RUN unset): the postinst succeeds" 0 $?
check_eq "  ... a disabled state is recorded for the unit" "enable cachefilesd.service
disable cachefilesd.service" "$(cat "$T/calls" 2>/dev/null)"
check_grep "  ... and the admin is told so" 'stays disabled' "$T/out"
check "  ... no drop-in for empty DAEMON_OPTS" test ! -e "$D"

printf 'RUN=yes\nDAEMON_OPTS="-d -N -f /etc/other.conf -s"\n' >"$T/default"
pi configure 0.10.10-0.3
check "RUN=yes: the unit's state is left to debhelper (enabled)" test ! -e "$T/calls"
check_grep "  ... DAEMON_OPTS carried into ExecStart=" '^ExecStart=/usr/sbin/cachefilesd -n -d -N -f /etc/other.conf$' "$D"
check_grep "  ... ExecStart= reset first" '^ExecStart=$' "$D"
check_grep "  ... the reload checks the -f file" '^ExecReload=/usr/sbin/cachefilesd -t -f /etc/other.conf$' "$D"
check_grep "  ... then sends SIGHUP to \$MAINPID" '^ExecReload=/bin/kill -HUP \$MAINPID$' "$D"
check_grep "  ... and says where" 'carried into' "$T/out"
check_grep "  ... and that the AppArmor profile reads no /etc/other.conf" \
	"only from /etc/cachefilesd\*\.conf; with AppArmor enabled, move /etc/other.conf" "$T/out"
check_grep "  ... naming the local rule to add" "'/etc/other.conf r,' to /etc/apparmor.d/local" "$T/out"
printf 'RUN=yes\nDAEMON_OPTS="-f /etc/cachefilesd-site.conf"\n' >"$T/default"
pi configure 0.10.10-0.3
check_no_grep "a -f file the profile allows: no AppArmor note" "NOTE" "$T/out"
# The profile's * stops at a slash: a file in a directory is not allowed.
printf 'RUN=yes\nDAEMON_OPTS="-f /etc/cachefilesd.d/site.conf"\n' >"$T/default"
pi configure 0.10.10-0.3
check_grep "a -f file in /etc/cachefilesd.d/: the AppArmor note" \
    "move /etc/cachefilesd.d/site.conf" "$T/out"

# RUN=yes, but the admin disabled the init script under 0.10.10
# (update-rc.d cachefilesd disable: the start links become K links).
printf 'RUN=yes\n' >"$T/default"
mv "$T/rc2.d/S01cachefilesd" "$T/rc2.d/K01cachefilesd"
mv "$T/rc5.d/S01cachefilesd" "$T/rc5.d/K01cachefilesd"
pi configure 0.10.10-0.3
check_eq "RUN=yes with the init script disabled: a disabled state is recorded" \
	"enable cachefilesd.service
disable cachefilesd.service" "$(cat "$T/calls" 2>/dev/null)"
check_grep "  ... and the admin is told why" 'init script was disabled.*stays disabled' "$T/out"
mv "$T/rc2.d/K01cachefilesd" "$T/rc2.d/S01cachefilesd"
pi configure 0.10.10-0.3
check "  ... one start link left (runlevel 2): left to debhelper (enabled)" test ! -e "$T/calls"
mv "$T/rc5.d/K01cachefilesd" "$T/rc5.d/S01cachefilesd"

# A last line that returns non-zero, as 0.10.10's script (no set -e) allowed.
printf 'RUN=yes\nDAEMON_OPTS="-d"\n[ -r /nonexistent ] && DAEMON_OPTS=-N\n' >"$T/default"
pi configure 0.10.10-0.3
check_eq "a defaults file whose last line fails: the postinst succeeds" 0 $?
check "  ... RUN=yes still read (the unit's state left to debhelper)" test ! -e "$T/calls"
check_grep "  ... DAEMON_OPTS still read" '^ExecStart=/usr/sbin/cachefilesd -n -d$' "$D"
# A failing command in the middle: dash applies set -e inside a sourced
# file even where the caller suspends it, so old_var must say set +e.
printf 'RUN=yes\nfalse\nDAEMON_OPTS="-N"\n' >"$T/default"
pi configure 0.10.10-0.3
check_eq "a defaults file with a failing line inside: the postinst succeeds" 0 $?
check "  ... RUN=yes read past it" test ! -e "$T/calls"
check_grep "  ... DAEMON_OPTS read past it" '^ExecStart=/usr/sbin/cachefilesd -n -N$' "$D"
printf 'RUN=yes\nDAEMON_OPTS="-d\n' >"$T/default"
pi configure 0.10.10-0.3
check_eq "a defaults file that does not parse: the postinst succeeds" 0 $?
check_grep "  ... and keeps the service disabled" 'stays disabled' "$T/out"

printf 'RUN=yes\nDAEMON_OPTS="-p /var/run/other.pid"\n' >"$T/default"
pi configure 0.10.10-0.3
check "DAEMON_OPTS with -p: no drop-in" test ! -e "$D"
check_grep "  ... a warning naming the option" "WARNING.*-p" "$T/out"

# 0.10.10's workstation logcheck directory, left empty by the maintscript.
W=$T/ignore.d.workstation
printf '#RUN=yes\n' >"$T/default"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/dpkg-query"	# nobody owns it
chmod +x "$T/bin/dpkg-query"
mkdir -p "$W"
pi configure 0.10.10-0.3
check "the upgrade removes 0.10.10's empty logcheck directory" test ! -e "$W"
mkdir -p "$W"; : >"$W/cachefilesd.dpkg-bak"
pi configure 0.10.10-0.3
check "  ... but keeps it holding the admin's changed rule" test -e "$W/cachefilesd.dpkg-bak"
rm -f "$W/cachefilesd.dpkg-bak"
printf '#!/bin/sh\necho "logcheck: $1"\n' >"$T/bin/dpkg-query"	# logcheck ships it
pi configure 0.10.10-0.3
check "  ... and keeps it when a package owns it" test -d "$W"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/dpkg-query"
pi configure 1.0.0-1
check "  ... an upgrade from 1.0.0 leaves it alone" test -d "$W"
rm -f "$T/bin/dpkg-query"; rmdir "$W"

pi configure 1.0.0-1
check "an upgrade from 1.0.0: nothing done" test ! -e "$T/calls" -a ! -e "$D"
pi configure
check "a fresh install: nothing done (debhelper enables and starts)" test ! -e "$T/calls" -a ! -e "$D"

# Without systemd: debhelper's init snippet, as debian/rules has it made
# (--error-handler=init_failed), with a start that fails as it does
# without the cachefiles module.  The package stays configured.
mk_postinst 'invoke-rc.d --skip-systemd-native cachefilesd start || init_failed' "$T/postinst-init"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/invoke-rc.d"
chmod +x "$T/bin/invoke-rc.d"
PATH=$T/bin:$PATH sh "$T/postinst-init" configure >"$T/out" 2>&1
check_eq "without systemd, a start that fails: the postinst succeeds" 0 $?
check_grep "  ... and warns, naming cachefilesd -t" "did not start.*cachefilesd -t" "$T/out"
tap_done
