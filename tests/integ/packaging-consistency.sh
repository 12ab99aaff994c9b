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
tap_done
