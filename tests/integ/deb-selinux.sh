#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian postinst and postrm and the SELinux policy module, in scratch
# copies whose paths point into a temp dir and whose selinuxenabled,
# semodule and restorecon are stubs that record their calls: with SELinux
# on, the postinst loads the module at priority 400 (over Debian's module
# of the same name, under which the daemon cannot start) and relabels what
# it labels, before the service starts; with SELinux off, or without the
# tools, it calls nothing; a failed load is told and the install goes on.
# The postrm unloads the module at 400 on removal, purge and a downgrade
# to 0.10.10, and leaves the distribution's module alone.
set -u
. "$TOP/tests/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-deb-selinux.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
if ! command -v dpkg >/dev/null; then
	skip "the SELinux steps of the maintainer scripts" "dpkg is not installed"; tap_done; exit
fi
SH=$(command -v sh)

# Stubs, each in a directory of its own so that a PATH can lack any one:
# selinuxenabled exits with $T/enabled's number; semodule lists $T/modules
# and exits with $T/semodule-rc's number; both record into $T/calls.
for s in selinuxenabled semodule restorecon; do mkdir -p "$T/$s"; done
cat >"$T/selinuxenabled/selinuxenabled" <<EOF
#!$SH
echo "selinuxenabled" >>"$T/calls"
exit \$(cat "$T/enabled")
EOF
cat >"$T/semodule/semodule" <<EOF
#!$SH
case \$1 in
--list-modules=full | -lfull) cat "$T/modules"; exit 0 ;;
esac
echo "semodule \$*" >>"$T/calls"
rc=\$(cat "$T/semodule-rc")
[ "\$rc" = 0 ] || echo "libsemanage: stub failure" >&2
exit \$rc
EOF
cat >"$T/restorecon/restorecon" <<EOF
#!$SH
echo "restorecon \$*" >>"$T/calls"
EOF
chmod +x "$T"/*/*
# The tools the scripts need besides the stubs, and none of the host's
# SELinux tools (this host may have them).
mkdir -p "$T/sys"
for c in dpkg dpkg-query grep cat rm rmdir mkdir; do
	p=$(command -v "$c") && ln -s "$p" "$T/sys/$c"
done
ALL=$T/selinuxenabled:$T/semodule:$T/restorecon:$T/sys

sed -e "s|^DEFAULTS=.*|DEFAULTS=$T/default|" -e "s|^DROPIN_DIR=.*|DROPIN_DIR=$T/d|" \
    -e "s|^OLD_LOGCHECK=.*|OLD_LOGCHECK=$T/ignore.d.workstation|" -e "s|^RC_ROOT=.*|RC_ROOT=$T|" \
    -e "s|^SE_MODULE=.*|SE_MODULE=$T/cachefilesd.pp|" -e "s|^SE_CONF=.*|SE_CONF=$T/cachefilesd.conf|" \
    -e "s|^SE_SBIN=.*|SE_SBIN=$T/sbin/cachefilesd|" -e "s|^SE_RUN=.*|SE_RUN=$T/run/cachefilesd|" \
    -e "s|^SE_PIDFILE=.*|SE_PIDFILE=$T/run/cachefilesd.pid|" -e "s|^SE_CACHE=.*|SE_CACHE=$T/fscache|" \
    -e 's|^#DEBHELPER#$||' "$TOP/packaging/debian/cachefilesd.postinst" >"$T/postinst"
sed -e "s|^DROPIN_DIR=.*|DROPIN_DIR=$T/d|" -e 's|^#DEBHELPER#$||' \
    "$TOP/packaging/debian/cachefilesd.postrm" >"$T/postrm"
# Every real path is replaced: none left to touch on this host.
check_no_grep "the scratch postinst names no path of the host's" \
    '^[A-Z_]+=/(etc|usr|run|var)/' "$T/postinst"
check_no_grep "the scratch postrm names no path of the host's" \
    '^[A-Z_]+=/(etc|usr|run|var)/' "$T/postrm"

# The installed files: the binary, the running daemon's runtime directory
# and socket, the cache with its kept state.
mkdir -p "$T/sbin" "$T/run/cachefilesd" "$T/fscache/cache" "$T/fscache/graveyard"
: >"$T/sbin/cachefilesd"; : >"$T/run/cachefilesd/control"; : >"$T/fscache/cachefilesd.state"
: >"$T/cachefilesd.pp"
printf 'dir /var/cache/fscache\n' >"$T/cachefilesd.conf"

# run SCRIPT PATH ARGS...: a fresh record of calls, SELinux on and semodule
# succeeding unless the case changed $T/enabled or $T/semodule-rc after.
run() {
	s=$1 path=$2
	shift 2
	rm -f "$T/calls"
	PATH=$path "$SH" "$T/$s" "$@" >"$T/out" 2>&1
}
calls() { cat "$T/calls" 2>/dev/null; }
set_se() { echo "$1" >"$T/enabled"; echo "$2" >"$T/semodule-rc"; }

# ---- postinst ----
set_se 0 0
run postinst "$ALL" configure
check_eq "SELinux on, a fresh install: the postinst succeeds" 0 $?
check_eq "  ... loads the module at priority 400, then relabels the paths it labels" \
"selinuxenabled
semodule -X 400 -i $T/cachefilesd.pp
restorecon -R $T/run/cachefilesd
restorecon $T/sbin/cachefilesd $T/fscache $T/fscache/cachefilesd.state" "$(calls)"
check_grep "  ... and says that secctx is needed, where it lacks" \
    "NOTE: add 'secctx system_u:system_r:cachefiles_kernel_t:s0' to $T/cachefilesd.conf" "$T/out"
printf 'dir /var/cache/fscache\n  secctx system_u:system_r:cachefiles_kernel_t:s0\n' >"$T/cachefilesd.conf"
run postinst "$ALL" configure 1.1.0-1
check_eq "SELinux on, an upgrade: the new module replaces the old" \
    "semodule -X 400 -i $T/cachefilesd.pp" "$(calls | grep semodule)"
check_no_grep_may_be_empty "  ... no secctx note where the configuration has it" 'secctx' "$T/out"
printf 'dir /var/cache/fscache\n' >"$T/cachefilesd.conf"
run postinst "$ALL" configure 0.10.10-0.3
check_eq "SELinux on, an upgrade from 0.10.10: loaded too" \
    "semodule -X 400 -i $T/cachefilesd.pp" "$(calls | grep semodule)"

# Only what exists is relabelled (restorecon fails on a missing path).
mv "$T/run" "$T/run.away"; mv "$T/fscache/cachefilesd.state" "$T/state.away"
run postinst "$ALL" configure
check_eq "no runtime directory, no kept state: only the binary and the cache" \
    "restorecon $T/sbin/cachefilesd $T/fscache" "$(calls | grep restorecon)"
mv "$T/run.away" "$T/run"; mv "$T/state.away" "$T/fscache/cachefilesd.state"

set_se 0 1
run postinst "$ALL" configure
check_eq "semodule fails: the postinst still succeeds" 0 $?
check_grep "  ... and warns on stderr" 'WARNING: could not load the SELinux policy module' "$T/out"
check_eq "  ... and relabels nothing" "" "$(calls | grep restorecon)"

set_se 1 0
run postinst "$ALL" configure
check_eq "SELinux off: the postinst succeeds" 0 $?
check_eq "  ... and neither loads nor relabels" "selinuxenabled" "$(calls)"
check_no_grep_may_be_empty "  ... nor says anything of it" 'SELinux|secctx' "$T/out"

set_se 0 0
run postinst "$T/semodule:$T/restorecon:$T/sys" configure
check_eq "no selinuxenabled: the postinst succeeds" 0 $?
check_eq "  ... and calls nothing" "" "$(calls)"
run postinst "$T/selinuxenabled:$T/restorecon:$T/sys" configure
check_eq "no semodule: the postinst succeeds" 0 $?
check_eq "  ... and neither loads nor relabels" "selinuxenabled" "$(calls)"
run postinst "$T/selinuxenabled:$T/semodule:$T/sys" configure
check_eq "no restorecon: the postinst succeeds, the module loaded" \
    "selinuxenabled
semodule -X 400 -i $T/cachefilesd.pp" "$(calls)"
run postinst "$ALL" abort-upgrade 1.1.0-1
check_eq "abort-upgrade: nothing loaded (the old module was never replaced)" "" "$(calls)"

# ---- postrm ----
# mods LINES: what semodule --list-modules=full prints.
mods() { printf '%b' "$1" >"$T/modules"; }
set_se 0 0
mods '400 cachefilesd     pp\n100 cachefilesd     pp\n100 apache          pp\n'
run postrm "$ALL" remove
check_eq "remove: the postrm succeeds" 0 $?
check_eq "  ... and unloads the module at 400 only" "semodule -X 400 -r cachefilesd" "$(calls)"
set_se 1 0
run postrm "$ALL" remove
check_eq "remove with SELinux off since: still unloaded from the store" \
    "semodule -X 400 -r cachefilesd" "$(calls)"
set_se 0 0
mods '100 cachefilesd     pp\n'
run postrm "$ALL" remove
check_eq "remove, the distribution's module only: nothing unloaded" "" "$(calls)"
mods '400 cachefilesd-local pp\n100 cachefilesd     pp\n'
run postrm "$ALL" remove
check_eq "  ... nor a local module whose name begins alike" "" "$(calls)"
mods '400 cachefilesd     pp\n'
run postrm "$ALL" purge
check_eq "purge with the module still loaded: unloaded" "semodule -X 400 -r cachefilesd" "$(calls)"
run postrm "$ALL" upgrade 1.2.0-1
check_eq "upgrade to a newer version: the module stays" "" "$(calls)"
run postrm "$ALL" upgrade 0.10.10-0.3
check_eq "downgrade to 0.10.10: the module is unloaded" "semodule -X 400 -r cachefilesd" "$(calls)"
run postrm "$ALL" failed-upgrade 0.10.10-0.3
check_eq "failed-upgrade: nothing unloaded" "" "$(calls)"
set_se 0 1
run postrm "$ALL" remove
check_eq "semodule -r fails: the postrm still succeeds" 0 $?
check_grep "  ... and says so" 'could not unload the SELinux policy module' "$T/out"
set_se 0 0
run postrm "$T/selinuxenabled:$T/restorecon:$T/sys" remove
check_eq "no semodule: the postrm succeeds" 0 $?
check_eq "  ... and calls nothing" "" "$(calls)"
mkdir -p "$T/d"; : >"$T/d/debian-daemon-opts.conf"
mods ''
run postrm "$ALL" purge
check "purge removes the drop-in directory the postinst may have written" test ! -e "$T/d"
tap_done
