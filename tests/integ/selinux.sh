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
	# m4 reports a clash with the distribution's headers (a second
	# cachefilesd_admin) as "Error: duplicate definition" and goes on.
	if grep -qi 'error\|duplicate\|warning' "$out/log"; then
		not_ok "policy module builds without m4 errors or warnings"; grep -i 'error\|duplicate\|warning' "$out/log" | sed 's/^/# /'
	else
		ok "policy module builds without m4 errors or warnings"
	fi
	# An administrator confined to sysadm_t may connect to the control socket.
	if grep -Eq 'allow sysadm_t cachefilesd_t:unix_stream_socket \{? *connectto' "$out/tmp/cachefilesd.tmp" 2>/dev/null; then
		ok "sysadm_t may connect to the control socket"
	else
		not_ok "sysadm_t may connect to the control socket"; grep -n 'sysadm_t' "$out/tmp/cachefilesd.tmp" 2>/dev/null | sed 's/^/# /' | head
	fi
	# Headers that define cachefilesd_domtrans themselves (Fedora's): no
	# second definition.
	fed=$out/fedora
	mkdir -p "$fed/mod"
	cp -r /usr/share/selinux/devel/include "$fed/include"
	printf '## <summary>cachefilesd</summary>\ninterface(`cachefilesd_domtrans'"'"',`\n\tgen_require(`\n\t\ttype cachefilesd_t, cachefilesd_exec_t;\n\t'"'"')\n\tdomtrans_pattern($1, cachefilesd_exec_t, cachefilesd_t)\n'"'"')\n' \
	    > "$fed/include/services/cachefilesd.if"
	cp selinux/cachefilesd.te selinux/cachefilesd.fc selinux/cachefilesd.if "$fed/mod/"
	if make -s -C "$fed/mod" -f /usr/share/selinux/devel/Makefile HEADERDIR="$fed/include" \
	    cachefilesd.pp >"$fed/log" 2>&1 && [ -s "$fed/mod/cachefilesd.pp" ] &&
	    ! grep -qi 'error\|duplicate' "$fed/log"; then
		ok "builds against headers that define cachefilesd_domtrans (Fedora's)"
	else
		not_ok "builds against headers that define cachefilesd_domtrans (Fedora's)"; sed 's/^/# /' "$fed/log" | tail -10
	fi
	# A module that calls the admin interfaces, as an admin role's would:
	# against the distribution's headers (their cachefilesd_admin), and
	# against headers that lack it (ours is defined then).
	adm=$out/adm
	mkdir -p "$adm"
	cp selinux/cachefilesd.if "$adm/"
	: > "$adm/cachefilesd.te"
	printf 'policy_module(cfadmin, 1.0)\ngen_require(`\n\ttype sysadm_t;\n\trole sysadm_r;\n'"'"')\ncachefilesd_admin(sysadm_t, sysadm_r)\ncachefilesd_admin_files(sysadm_t)\n' > "$adm/cfadmin.te"
	if make -s -C "$adm" -f /usr/share/selinux/devel/Makefile cfadmin.pp >"$adm/log" 2>&1 &&
	    [ -s "$adm/cfadmin.pp" ] && ! grep -qi 'error\|duplicate' "$adm/log"; then
		ok "cachefilesd_admin and cachefilesd_admin_files expand against the distribution's headers"
		check_grep "cachefilesd_admin_files lets the admin connect to the socket" \
		    'allow sysadm_t cachefilesd_t:unix_stream_socket \{? *connectto' "$adm/tmp/cfadmin.tmp"
	else
		not_ok "cachefilesd_admin and cachefilesd_admin_files expand against the distribution's headers"; sed 's/^/# /' "$adm/log" | tail -10
	fi
	hd=$out/headers
	cp -r /usr/share/selinux/devel/include "$hd"
	rm -f "$hd/services/cachefilesd.if"
	rm -rf "$adm/tmp" "$adm/cfadmin.pp"
	if make -s -C "$adm" -f /usr/share/selinux/devel/Makefile HEADERDIR="$hd" cfadmin.pp >"$adm/log" 2>&1 &&
	    [ -s "$adm/cfadmin.pp" ] && grep -q 'ptrace' "$adm/tmp/cfadmin.tmp" 2>/dev/null && ! grep -qi 'error\|duplicate\|undefined' "$adm/log"; then
		ok "cachefilesd_admin is defined by the module where the headers lack it"
	else
		not_ok "cachefilesd_admin is defined by the module where the headers lack it"; sed 's/^/# /' "$adm/log" | tail -10
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
