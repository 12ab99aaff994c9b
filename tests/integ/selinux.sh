#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SELinux policy module builds against the distribution's policy headers,
# labels the paths the package installs, and keeps the daemon away from cache
# data (metadata only).
. "$TOP/tests/lib.sh"
cd "$TOP"
te=selinux/cachefilesd.te
if [ ! -f /usr/share/selinux/devel/Makefile ]; then
	skip "policy module builds" "selinux-policy-dev is not installed"
else
	out=$(mktemp -d)
	cp selinux/cachefilesd.te selinux/cachefilesd.fc selinux/cachefilesd.if "$out"
	if make -s -C "$out" -f /usr/share/selinux/devel/Makefile cachefilesd.pp >"$out/log" 2>&1 &&
	    [ -s "$out/cachefilesd.pp" ]; then
		ok "policy module builds"
	else
		not_ok "policy module builds"; sed 's/^/# /' "$out/log" | tail -20
	fi
	rm -rf "$out"
fi
check_grep "the installed binary is labelled" '^/usr/sbin/cachefilesd[[:space:]]+--[[:space:]].*cachefilesd_exec_t' selinux/cachefilesd.fc
check_grep "the default cache directory is labelled" '^/var/cache/fscache\(/\.\*\)\?.*cachefilesd_cache_t' selinux/cachefilesd.fc
check_grep "the shipped cache directory matches the config" '^/var/cache/fscache' selinux/cachefilesd.fc
grep -q '^dir /var/cache/fscache$' config/cachefilesd.conf 2>/dev/null &&
	ok "config/cachefilesd.conf uses the labelled directory" ||
	not_ok "config/cachefilesd.conf uses the labelled directory"
# The daemon domain may stat and unlink cache files, never open them.
if grep -E '^allow cachefilesd_t cachefilesd_cache_t:file' "$te" | grep -Eq '\b(read|write|open|append|map|rw_file_perms|manage_file_perms)\b'; then
	not_ok "the daemon domain cannot read or write cache data"
else
	ok "the daemon domain cannot read or write cache data"
fi
check_grep "the kept state file is labelled" '^/var/cache/fscache/cachefilesd[^ ]*state.*cachefilesd_state_t' selinux/cachefilesd.fc
check_grep "the kept state is created with its own type" 'type_transition cachefilesd_t cachefilesd_cache_t:file cachefilesd_state_t "cachefilesd.state.tmp"' "$te"
check_grep "secctx override is allowed" 'cachefiles_kernel_t:kernel_service use_as_override' "$te"
tap_done
