#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "make install DESTDIR=..." as a packager runs it.  Works on a
# scratch copy of the Makefile, man/ and config/ with the binary under test,
# so that nothing in the work tree is rebuilt or overwritten.
set -u
. "$TOP/tests/lib.sh"
CFD=${CACHEFILESD:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-install-destdir.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src"
cp -r "$TOP/Makefile" "$TOP/man" "$TOP/config" "$T/src/"
mkdir -p "$T/src/packaging" && cp -r "$TOP/packaging/apparmor" "$T/src/packaging/"
cp "$CFD" "$T/src/cachefilesd"
cp "${CULLTOOL:-$BUILD/cachefiles-cull}" "$T/src/cachefiles-cull"

inst() { make -s -C "$T/src" -o all install "$@" >"$T/make.out" 2>&1; }

if ! inst DESTDIR="$T/root" UNITDIR=/lib/systemd/system; then
	not_ok "make install DESTDIR= works"
	sed 's/^/#   /' "$T/make.out" | tail -5
	tap_done; exit
fi
ok "make install DESTDIR= works"
R=$T/root
mode() { stat -c %a "$1" 2>/dev/null; }
check_eq "daemon in /usr/sbin, mode 755" 755 "$(mode "$R/usr/sbin/cachefilesd")"
check_eq "cachefilesd.8 installed, mode 644" 644 "$(mode "$R/usr/share/man/man8/cachefilesd.8")"
check_eq "the tool in /usr/sbin, mode 755" 755 "$(mode "$R/usr/sbin/cachefiles-cull")"
check_eq "cachefiles-cull.8 installed, mode 644" 644 "$(mode "$R/usr/share/man/man8/cachefiles-cull.8")"
check_eq "cachefilesd.conf.5 installed, mode 644" 644 "$(mode "$R/usr/share/man/man5/cachefilesd.conf.5")"
check_eq "/etc/cachefilesd.conf installed, mode 644" 644 "$(mode "$R/etc/cachefilesd.conf")"
check_eq "AppArmor profile of the daemon in /etc/apparmor.d, mode 644" 644 "$(mode "$R/etc/apparmor.d/usr.sbin.cachefilesd")"
check_eq "AppArmor profile of the tool in /etc/apparmor.d, mode 644" 644 "$(mode "$R/etc/apparmor.d/usr.sbin.cachefiles-cull")"
U=$R/lib/systemd/system/cachefilesd.service
check_eq "unit installed, mode 644" 644 "$(mode "$U")"
check_grep "unit runs the installed binary" '^ExecStart=/usr/sbin/cachefilesd -n$' "$U"
check_no_grep "no placeholder left in the unit" '@[A-Z]+@' "$U"

# The shipped configuration names a directory; the unit makes it writable.
dir=$(sed -n 's/^[[:space:]]*dir[[:space:]]\{1,\}//p' "$R/etc/cachefilesd.conf" | tail -1)
note "shipped dir: $dir"
check "the shipped configuration's dir is created by make install, as the Debian package does" \
    test -d "$R$dir"
missing=
for p in $(sed -n 's/^ReadWritePaths=//p' "$U"); do
	case $p in -*) continue ;; esac
	[ -e "$R$p" ] || missing="$missing $p"
done
check_eq "every ReadWritePaths= of the unit exists after install or is '-' prefixed" "" "$missing"

# Moving the cache: under ProtectSystem=strict a new dir is read-only for the
# daemon and the kernel, so the man pages must say what to add.
if grep -q '^ProtectSystem=strict' "$U"; then
	man=$(cat "$R/usr/share/man/man8/cachefilesd.8" "$R/usr/share/man/man5/cachefilesd.conf.5")
	if echo "$man" | grep -q 'ReadWritePaths'; then
		ok "the man pages say how to move dir under the sandboxed unit (ReadWritePaths=)"
	else
		not_ok "the man pages say how to move dir under the sandboxed unit (ReadWritePaths=)"
		note "the unit has ProtectSystem=strict and ReadWritePaths=$dir; a new dir elsewhere is read-only"
	fi
fi

# A second install keeps the administrator's configuration.
echo "# edited by the admin" >>"$R/etc/cachefilesd.conf"
inst DESTDIR="$R" UNITDIR=/lib/systemd/system
check_grep "reinstall keeps an edited /etc/cachefilesd.conf" 'edited by the admin' "$R/etc/cachefilesd.conf"

# PREFIX=/usr/local: binary and unit follow.
inst DESTDIR="$T/local" PREFIX=/usr/local UNITDIR=/lib/systemd/system
check "PREFIX=/usr/local puts the daemon in /usr/local/sbin" test -x "$T/local/usr/local/sbin/cachefilesd"
check_grep "  ... and the unit runs it from there" '^ExecStart=/usr/local/sbin/cachefilesd -n$' \
    "$T/local/lib/systemd/system/cachefilesd.service"
# AppArmor attaches a profile by the executable's path: one that names
# /usr/sbin never confines /usr/local/sbin/cachefilesd.
check_grep "the packaged profiles attach to /usr/sbin and /sbin" \
    '^profile cachefilesd /[{]usr/,[}]sbin/cachefilesd ' "$R/etc/apparmor.d/usr.sbin.cachefilesd"
LA=$T/local/etc/apparmor.d
check_grep "PREFIX=/usr/local: the daemon's profile attaches to /usr/local/sbin/cachefilesd" \
    '^profile cachefilesd /usr/local/sbin/cachefilesd ' "$LA/usr.sbin.cachefilesd"
check_grep "  ... the tool's to /usr/local/sbin/cachefiles-cull" \
    '^profile cachefiles-cull /usr/local/sbin/cachefiles-cull ' "$LA/usr.sbin.cachefiles-cull"
cat "$LA/usr.sbin.cachefilesd" "$LA/usr.sbin.cachefiles-cull" >"$T/aa-both"
check_no_grep "  ... no rule names /usr/sbin or /sbin any more" '[{]usr/,[}]sbin|^ *(/usr)?/sbin/' "$T/aa-both"
if command -v apparmor_parser >/dev/null 2>&1 && [ -f /etc/apparmor.d/tunables/global ]; then
	for p in usr.sbin.cachefilesd usr.sbin.cachefiles-cull; do
		if apparmor_parser -Q -K "$LA/$p" >"$T/aa.out" 2>&1; then
			ok "  ... apparmor_parser accepts the installed $p"
		else
			not_ok "  ... apparmor_parser accepts the installed $p"; sed 's/^/#   /' "$T/aa.out" | tail -3
		fi
	done
else
	skip "  ... apparmor_parser accepts the installed profiles" "apparmor_parser or /etc/apparmor.d/tunables is missing"
fi

# The reload checks the configuration first (cachefilesd(8)); a broken
# configuration is not restarted in a loop.
check_grep "the reload runs -t on the installed configuration" \
    '^ExecReload=/usr/sbin/cachefilesd -t -f /etc/cachefilesd.conf$' "$U"
check_grep "  ... then sends SIGHUP" '^ExecReload=/bin/kill -HUP \$MAINPID$' "$U"
check_grep "exit status 2 (configuration error) is not restarted" '^RestartPreventExitStatus=2$' "$U"

# CACHEDIR=/srv/fscache: the installed configuration and the unit both name it.
inst DESTDIR="$T/srv" CACHEDIR=/srv/fscache SYSCONFDIR=/etc/cfd UNITDIR=/lib/systemd/system
S=$T/srv/lib/systemd/system/cachefilesd.service
check_grep "CACHEDIR=/srv/fscache: the configuration's dir" '^dir /srv/fscache$' "$T/srv/etc/cfd/cachefilesd.conf"
check_grep "  ... the unit's RequiresMountsFor=" '^RequiresMountsFor=/srv/fscache$' "$S"
check_grep "  ... the unit's ReadWritePaths=" '^ReadWritePaths=-/srv/fscache$' "$S"
check_no_grep "  ... nothing left of /var/cache/fscache in the unit" '/var/cache/fscache' "$S"
check "  ... the directory is made" test -d "$T/srv/srv/fscache"
SA=$T/srv/etc/apparmor.d
check "  ... the AppArmor profiles still go where AppArmor loads them" \
    test -f "$SA/usr.sbin.cachefilesd" -a -f "$SA/usr.sbin.cachefiles-cull" -a ! -e "$T/srv/etc/cfd/apparmor.d"
check_grep "  ... the AppArmor profile lets the daemon and the kernel write there" \
    '^  /srv/fscache/[*][*] rwlk,$' "$SA/usr.sbin.cachefilesd"
check_grep "  ... and read the configuration in SYSCONFDIR" \
    '^  /etc/cfd/cachefilesd[*].conf r,$' "$SA/usr.sbin.cachefilesd"
check_grep "  ... the tool's too" '^  /etc/cfd/cachefilesd[*].conf r,$' "$SA/usr.sbin.cachefiles-cull"
check_grep "  ... and still /etc's, the binaries' default" \
    '^  /etc/cachefilesd[*].conf r,$' "$SA/usr.sbin.cachefiles-cull"
check_grep "  ... the reload checks the configuration in SYSCONFDIR" \
    '^ExecReload=/usr/sbin/cachefilesd -t -f /etc/cfd/cachefilesd.conf$' "$S"
check_grep "  ... and the daemon starts with it (it reads /etc otherwise)" \
    '^ExecStart=/usr/sbin/cachefilesd -n -f /etc/cfd/cachefilesd.conf$' "$S"

# The shipped configuration passes -t once its directory exists.
mkdir -p "$T/cache"
sed "s|^dir .*|dir $T/cache|" "$R/etc/cachefilesd.conf" >"$T/t.conf"
if "$CFD" -t -f "$T/t.conf" >"$T/t.out" 2>&1; then
	ok "the installed configuration passes -t"
elif grep -q 'xattr' "$T/t.out"; then
	skip "the installed configuration passes -t" "no user.* xattrs on $T"
else
	not_ok "the installed configuration passes -t"; sed 's/^/#   /' "$T/t.out" | tail -3
fi
tap_done
