#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SELinux policy module builds against the distribution's policy headers,
# labels the paths the package installs, and keeps the daemon away from cache
# data (metadata only).  The rules the daemon, the kernel and an admin's
# cachefiles-cull need are checked in the compiled module (the .pp turned
# into CIL, where every macro and interface is expanded), as its rules
# reach the kernel.
. "$TOP/tests/lib.sh"
cd "$TOP"
te=selinux/cachefilesd.te
PP2CIL=/usr/libexec/selinux/hll/pp

# in_module DESC KIND SRC TGT CLASS PERM...: the compiled module has KIND
# (allow, dontaudit) rules from SRC to TGT on CLASS that grant every PERM,
# in one rule or several, in an optional block or not.
in_module() {
	d=$1 kind=$2 src=$3 tgt=$4 cls=$5
	shift 5
	have=$(sed -n "s/^[[:space:]]*($kind $src $tgt ($cls (\([^)]*\))))\$/\1/p" "$cil" | tr ' ' '\n')
	missing=
	for p; do
		printf '%s\n' "$have" | grep -qx -- "$p" || missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		ok "$d"
	else
		not_ok "$d"; note "($kind $src $tgt ($cls ...)) lacks:$missing"
	fi
}

# cache_data_rules CIL: the allow rules that let the daemon's domain (or an
# attribute it has) open, read, write or map a file of the cache's type (or
# of an attribute or alias of it).  The module's own attributes only: a base
# policy rule on, say, file_type is not in the module.
cache_data_rules() {
	awk -v d=cachefilesd_t -v c=cachefilesd_cache_t '
	BEGIN { src[d] = 1; tgt[c] = 1 }
	NR == FNR {
		if ($1 == "(typeattributeset" && $3 ~ /^\(/)
			for (i = 3; i <= NF; i++) {
				m = $i; gsub(/[()]/, "", m)
				if (m == d) src[$2] = 1
				if (m == c) tgt[$2] = 1
			}
		if ($1 == "(typealiasactual") {
			m = $3; gsub(/[()]/, "", m)
			if (m == c) tgt[$2] = 1
		}
		next
	}
	$1 == "(allow" && ($2 in src) && ($3 in tgt) && $4 == "(file" {
		for (i = 5; i <= NF; i++) {
			m = $i; gsub(/[()]/, "", m)
			if (m ~ /^(read|write|open|append|map|execute)$/) { print; next }
		}
	}' "$1" "$1"
}

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
	cil=$out/cachefilesd.cil
	if [ ! -x "$PP2CIL" ]; then
		skip "the compiled module's rules" "$PP2CIL (policycoreutils) is not installed"
		cil=
	elif ! "$PP2CIL" "$out/cachefilesd.pp" "$cil" 2>"$out/cil.log" || [ ! -s "$cil" ]; then
		not_ok "the compiled module converts to CIL"; sed 's/^/# /' "$out/cil.log" | tail -5
		cil=
	fi
	if [ -n "$cil" ]; then
		# A stop signal taken during a wait is raised again, and the
		# waiting parent passes SIGTERM/SIGINT to the child.
		in_module "the daemon may signal itself (raise, the parent's kill)" \
			allow cachefilesd_t self process signal
		# The check for a previous instance still answering on the socket.
		in_module "the daemon may connect to a control socket already there" \
			allow cachefilesd_t self unix_stream_socket connectto create bind listen accept
		# DIR's ancestors: the kernel resolves DIR as cachefiles_kernel_t.
		in_module "the kernel's context may search /var" \
			allow cachefiles_kernel_t var_t dir search
		in_module "the daemon may search /var" allow cachefilesd_t var_t dir search
		in_module "the kernel's context may search /mnt (a cache mounted there)" \
			allow cachefiles_kernel_t mnt_t dir search
		in_module "the daemon may search /mnt" allow cachefilesd_t mnt_t dir search
		# cachefiles-cull trim in a confined admin's domain holds the device.
		in_module "sysadm_t may open /dev/cachefiles read-write (trim)" \
			allow sysadm_t cachefiles_device_t chr_file open read write
		in_module "sysadm_t may connect to the control socket (compiled)" \
			allow sysadm_t cachefilesd_t unix_stream_socket connectto
		# Under NoNewPrivileges=yes the exec of modprobe is refused; the
		# daemon says so itself.
		in_module "the refused modprobe transition under NoNewPrivileges is not audited" \
			dontaudit cachefilesd_t kmod_t process2 nnp_transition
		in_module "the daemon may still run modprobe in its domain without NNP" \
			allow cachefilesd_t kmod_t process transition
		# Metadata only, whatever macro or interface a rule came from.
		cache_data_rules "$cil" >"$out/data"
		if [ -s "$out/data" ]; then
			not_ok "the daemon domain cannot read or write cache data (compiled module)"
			sed 's/^/# /' "$out/data"
		else
			ok "the daemon domain cannot read or write cache data (compiled module)"
		fi
	fi
	# The local module README.md gives for a cache below a default_t
	# directory builds, and grants both domains search there.
	loc=$out/local
	mkdir -p "$loc"
	sed -n "/^    cat >cachefilesd_local.te <<'EOF'\$/,/^    EOF\$/{//!s/^    //p}" selinux/README.md \
		>"$loc/cachefilesd_local.te"
	if [ -s "$loc/cachefilesd_local.te" ] && [ -n "$cil" ] &&
		make -s -C "$loc" -f /usr/share/selinux/devel/Makefile cachefilesd_local.pp >"$loc/log" 2>&1 &&
		! grep -qi 'error\|duplicate\|warning' "$loc/log" &&
		"$PP2CIL" "$loc/cachefilesd_local.pp" "$loc/local.cil" 2>/dev/null; then
		mod_cil=$cil cil=$loc/local.cil
		in_module "README's local module: the daemon may search a default_t ancestor" \
			allow cachefilesd_t default_t dir search
		in_module "README's local module: the kernel's context may search it too" \
			allow cachefiles_kernel_t default_t dir search
		cil=$mod_cil
	elif [ -z "$cil" ]; then
		skip "README's local module for a default_t ancestor" "no CIL converter"
	else
		not_ok "README's local module for a default_t ancestor builds"
		sed 's/^/# /' "$loc/cachefilesd_local.te" "$loc/log" 2>/dev/null | tail -15
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
check_grep "  ... also where sbin is merged into bin (Fedora 42 on)" '^/usr/bin/cachefilesd[[:space:]]+--[[:space:]].*cachefilesd_exec_t' selinux/cachefilesd.fc
check_grep "the default cache directory is labelled" '^/var/cache/fscache\(/\.\*\)\?.*cachefilesd_cache_t' selinux/cachefilesd.fc
check_grep "the shipped cache directory matches the config" '^/var/cache/fscache' selinux/cachefilesd.fc
grep -q '^dir /var/cache/fscache$' config/cachefilesd.conf 2>/dev/null &&
	ok "config/cachefilesd.conf uses the labelled directory" ||
	not_ok "config/cachefilesd.conf uses the labelled directory"
# The daemon domain may stat and unlink cache files, never open them.  In
# the source, for a host without the policy headers (the compiled module is
# checked above): a plain rule, any *_file_perms set, or a *_files_pattern
# whose file type is the cache's.
if grep -E '^[[:space:]]*allow cachefilesd_t (cachefilesd_cache_t|cachefiles_var_t):(file|\{[^}]*\bfile\b[^}]*\})[[:space:]]' "$te" |
	grep -Eq '\b(read|write|open|append|map|execute)\b|_file_perms' ||
	grep -Eq '_files_pattern\([[:space:]]*cachefilesd_t[[:space:]]*,[^,]*,[[:space:]]*(cachefilesd_cache_t|cachefiles_var_t)[[:space:]]*\)' "$te"; then
	not_ok "the daemon domain cannot read or write cache data (source)"
else
	ok "the daemon domain cannot read or write cache data (source)"
fi
check_grep "the kept state file is labelled" '^/var/cache/fscache/cachefilesd[^ ]*state.*cachefilesd_state_t' selinux/cachefilesd.fc
check_grep "the kept state is created with its own type" 'type_transition cachefilesd_t cachefilesd_cache_t:file cachefilesd_state_t "cachefilesd.state.tmp"' "$te"
check_grep "secctx override is allowed" 'cachefiles_kernel_t:kernel_service use_as_override' "$te"
tap_done
