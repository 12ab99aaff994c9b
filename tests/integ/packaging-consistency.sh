#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The packaging agrees with the tree: one version in the Makefile, the
# Debian changelog and the RPM spec; a source format dpkg-source accepts
# for a version with a Debian revision; the unit directory asked of
# pkg-config, not written down; the RPM's configuration kept on upgrade.
set -u
. "$TOP/tests/lib.sh"
P=$TOP/packaging
mk=$(sed -n 's/^VERSION *:= *//p' "$TOP/Makefile")
deb=$(sed -n '1s/^cachefilesd (\([^)]*\)).*/\1/p' "$P/debian/changelog")
rpm=$(sed -n 's/^Version: *//p' "$P/rpm/cachefilesd.spec")
note "Makefile $mk, Debian $deb, RPM $rpm"
check_eq "the Debian upstream version is the Makefile's" "$mk" "${deb%-*}"
check_eq "the RPM version is the Makefile's" "$mk" "$rpm"
fmt=$(cat "$P/debian/source/format")
case $deb in
*-*) check_eq "a Debian revision needs a non-native format" "3.0 (quilt)" "$fmt" ;;
*) check_eq "a native version goes with 3.0 (native)" "3.0 (native)" "$fmt" ;;
esac
check_grep "debian/rules asks pkg-config for the unit directory" \
    'pkg-config --variable=systemdsystemunitdir systemd' "$P/debian/rules"
check_grep "the package build installs nothing (NODEPS=1)" 'check NODEPS=1' "$P/debian/rules"
check_no_grep "no placeholder maintainer" 'localhost|\.invalid' "$P/debian/control"
check_grep "the RPM keeps an edited configuration" \
    '^%config\(noreplace\) %\{_sysconfdir\}/cachefilesd.conf$' "$P/rpm/cachefilesd.spec"
check_grep "the RPM has the SELinux subpackage" '^%package +selinux$' "$P/rpm/cachefilesd.spec"
check_grep "the init script keeps 0.10.10's name and has LSB headers" \
    '^# Provides: +cachefilesd$' "$P/debian/cachefilesd.init"
# Fedora's libattr ships attr/xattr.h as a link to glibc's sys/xattr.h,
# which lacks ENOATTR: every source that includes it compiles there too.
sysx=$(printf '#include <sys/xattr.h>\n' | cc -E -M -x c - 2>/dev/null | tr ' \\' '\n\n' |
    grep '/sys/xattr\.h$' | head -1)
if [ -n "$sysx" ]; then
	T=$(mktemp -d)
	mkdir "$T/attr"
	ln -s "$sysx" "$T/attr/xattr.h"
	for f in $(grep -l '<attr/xattr\.h>' "$TOP"/daemon/*.c "$TOP"/cull/*.c "$TOP"/lib/*.c \
	    "$TOP"/kernel/*.c "$TOP"/cachefilesd.c); do
		if cc -D_GNU_SOURCE -I"$T" -I"$TOP" -Wall -Wextra -Werror -c "$f" -o "$T/x.o" 2>"$T/err"; then
			ok "compiles with Fedora's attr/xattr.h: ${f#"$TOP"/}"
		else
			not_ok "compiles with Fedora's attr/xattr.h: ${f#"$TOP"/}"
			sed 's/^/#   /' "$T/err" | head -5
		fi
	done
	rm -rf "$T"
else
	skip "compiles with Fedora's attr/xattr.h" "no C compiler, or it finds no sys/xattr.h"
fi
# NEWS.Debian: paragraphs, not a changelog's bullets (Developer's
# Reference 6.3.4; lintian's debian-news-entry-uses-asterisk looks at the
# latest entry).
T=$(mktemp)
sed -n '3,/^ -- /p' "$P/debian/cachefilesd.NEWS" >"$T"
check_no_grep "the latest NEWS.Debian entry has no bulleted list" '^ +\* ' "$T"
rm -f "$T"
# Without systemd, debhelper's invoke-rc.d snippets call init_failed
# (debian/rules), which the postinst (a warning) and the prerm (exit 1)
# define before #DEBHELPER#: without the option a failed start ends the
# postinst, without a definition the call itself fails.  The system layer
# checks the scripts of the built package too.
check_grep "debian/rules: dh_installinit --error-handler=init_failed" \
    '^[[:space:]]dh_installinit .*--error-handler=init_failed' "$P/debian/rules"
for s in postinst prerm; do
	check "  ... the $s defines init_failed before #DEBHELPER#" \
	    awk '/^init_failed\(\)/ { f = 1 } /^#DEBHELPER#$/ { exit !f } END { if (!f) exit 1 }' \
	    "$P/debian/cachefilesd.$s"
done
# The init script's LSB header as insserv (update-rc.d on a sysvinit
# system) orders it beside Debian's own: mountnfs in rcS, a syslog daemon
# (rsyslog from orphan-sysvinit-scripts, syslog-ng) that needs $remote_fs.
# A loop makes insserv, so "update-rc.d cachefilesd defaults" and the
# postinst, fail.  Stubs with the real headers; INSSERV names the binary.
check_no_grep "the init script does not start before mountnfs (rcS; a loop through \$syslog)" \
    '^# X-Start-Before:.*(mountnfs|\$remote_fs)' "$P/debian/cachefilesd.init"
ins=${INSSERV:-}
[ -n "$ins" ] || for f in /usr/lib/insserv/insserv /sbin/insserv /usr/sbin/insserv "$TOP/build/tools/insserv"; do
	[ -x "$f" ] && { ins=$f; break; }
done
if [ -n "$ins" ] && [ -x "$ins" ]; then
	T=$(mktemp -d)
	mkdir -p "$T/init.d" "$T/ov" "$T/dep" "$T/rc0.d" "$T/rc1.d" "$T/rc2.d" "$T/rc3.d" \
	    "$T/rc4.d" "$T/rc5.d" "$T/rc6.d" "$T/rcS.d"
	stub() {	# NAME PROVIDES START STOP REQUIRED-START
		printf '#!/bin/sh\n### BEGIN INIT INFO\n# Provides: %s\n# Required-Start: %s\n# Required-Stop:\n# Default-Start: %s\n# Default-Stop: %s\n### END INIT INFO\n' \
		    "$2" "$5" "$3" "$4" >"$T/init.d/$1"
		chmod 755 "$T/init.d/$1"
	}
	stub mountall.sh mountall S "" ""
	stub mountnfs.sh mountnfs S "" '$local_fs'
	stub rsyslog rsyslog "2 3 4 5" "0 1 6" '$remote_fs'
	printf '%s\n' '$local_fs +mountall' '$remote_fs $local_fs +mountnfs' '$syslog +rsyslog' >"$T/insserv.conf"
	cp "$P/debian/cachefilesd.init" "$T/init.d/cachefilesd"
	chmod 755 "$T/init.d/cachefilesd"
	ins_run() { (cd "$T/init.d" && "$ins" -p "$T/init.d" -c "$T/insserv.conf" -o "$T/ov" -i "$T/dep" "$@") >"$T/out" 2>&1; }
	ins_run mountall.sh mountnfs.sh rsyslog
	ins_run cachefilesd
	r=$?
	check_eq "insserv accepts the init script beside mountnfs and a syslog daemon" 0 "$r"
	[ "$r" = 0 ] || sed 's/^/#   /' "$T/out" | head -8
	check "  ... and starts it in runlevel 2" sh -c "ls '$T/rc2.d' | grep -q '^S[0-9][0-9]cachefilesd\$'"
	rm -rf "$T"
else
	skip "insserv accepts the init script beside mountnfs and a syslog daemon" "no insserv, nor in build/tools (make deps fetches it; INSSERV= names one)"
fi
tap_done
