#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The golden configuration corpus, as TAP.
#
# Each tests/config/NAME.conf is run through "cachefilesd -t -f NAME.conf"
# from a scratch directory; its stdout, stderr and exit status must equal
# tests/config/NAME.out.  Before the run, @DIR@ becomes an existing cache
# directory, @LONG@ a 4096-byte word and @NUL@ a NUL byte; in the output the
# directory becomes @DIR@ again.  Good files (good-*) must also survive a
# round trip: their canonical dump, parsed again, gives the same dump.
# Then: the shipped config/cachefilesd.conf, the file Debian ships with
# cachefilesd 0.10.10 (downloaded when the archive answers), and the man
# pages through mandoc -Tlint.
#
# The .out files are written by hand or reviewed line by line: a run compares
# and never rewrites them.  Only an explicit request does, and then it shows
# the diff of every file it changes (review it before committing):
#   make golden      (UPDATE_GOLDEN=1 sh tests/config/run.sh)
# tests/run.sh, hence make check, unsets UPDATE_GOLDEN.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
TOP=$PWD
CACHEFILESD=${CACHEFILESD:-$TOP/${BUILD:-build}/cachefilesd}
UPDATE_GOLDEN=${UPDATE_GOLDEN:-0}
corpus=$TOP/tests/config

if [ ! -x "$CACHEFILESD" ]; then
	not_ok "cachefilesd binary at $CACHEFILESD"
	exit 1
fi

# The cache directory must be on a filesystem with user xattrs for -t to
# pass: try TMPDIR, then the build directory.
xattr_ok() {
	command -v setfattr >/dev/null 2>&1 || return 0
	setfattr -n user.cfgtest -v 1 "$1" 2>/dev/null &&
		setfattr -x user.cfgtest "$1" 2>/dev/null
}
work=
for base in "${TMPDIR:-/tmp}" "$TOP/${BUILD:-build}"; do
	mkdir -p "$base" 2>/dev/null
	w=$(mktemp -d "$base/cfgtest.XXXXXX" 2>/dev/null) || continue
	if xattr_ok "$w"; then work=$w; break; fi
	rm -rf "$w"
done
if [ -z "$work" ]; then
	skip "golden corpus" "no writable filesystem with user xattrs (tried ${TMPDIR:-/tmp} and $BUILD)"
	exit 0
fi
trap 'rm -rf "$work"' EXIT INT TERM
cache=$work/cache
mkdir "$cache"
: >"$cache/a-file"
long=$(printf '%4092s' '' | tr ' ' x)	# "tag " + 4092 = 4096 bytes

# prepare SRC DST: the file as the test runs it.
prepare() {
	sed -e "s|@DIR@|$cache|g" -e "s|@LONG@|$long|g" -e 's|@NUL@|\x00|g' "$1" >"$2"
}

# run_t NAME: run -t on $work/NAME.conf; the formatted result on stdout.
# The noatime warning depends on where the test runs, so it is dropped.
run_t() {
	(cd "$work" && "$CACHEFILESD" -t -f "$1.conf" >"$1.stdout" 2>"$1.stderr")
	rc=$?
	cat "$work/$1.stdout"
	echo "--- stderr"
	grep -v 'warning: the filesystem is mounted noatime' "$work/$1.stderr"
	echo "--- exit status $rc"
}

normalise() {
	sed "s|$cache|@DIR@|g"
}

for src in "$corpus"/*.conf; do
	name=$(basename "$src" .conf)
	prepare "$src" "$work/$name.conf"
	run_t "$name" | normalise >"$work/$name.result"
	if [ "$UPDATE_GOLDEN" = 1 ]; then
		if [ -f "$corpus/$name.out" ] && cmp -s "$corpus/$name.out" "$work/$name.result"; then
			ok "$name: expectation unchanged"
		else
			[ -f "$corpus/$name.out" ] || : >"$corpus/$name.out"
			note "$name.out rewritten; review:"
			diff -u "$corpus/$name.out" "$work/$name.result" | sed 's/^/#   /'
			cp "$work/$name.result" "$corpus/$name.out"
			ok "$name: expectation rewritten"
		fi
		continue
	fi
	if [ ! -f "$corpus/$name.out" ]; then
		not_ok "$name: no expected output $name.out (write it by hand, or make golden and review it)"
		continue
	fi
	if diff -u "$corpus/$name.out" "$work/$name.result" >"$work/$name.diff"; then
		ok "$name: output and exit status as expected"
	else
		not_ok "$name: output differs from $name.out"
		sed 's/^/#   /' "$work/$name.diff" | head -40
	fi
	case $name in
	good-*)
		# The canonical dump is itself a configuration with the same dump.
		grep -v '^configuration OK$' "$work/$name.stdout" >"$work/rt-$name.conf"
		(cd "$work" && "$CACHEFILESD" -t -f "rt-$name.conf" >"rt-$name.stdout" 2>/dev/null)
		rc=$?
		if [ "$rc" -eq 0 ] && cmp -s "$work/$name.stdout" "$work/rt-$name.stdout"; then
			ok "$name: the dump parses back to the same dump"
		else
			not_ok "$name: the dump does not parse back to itself (exit $rc)"
		fi ;;
	bad-dir-*)
		# The file is right, its directory is not (checkenv): counted
		# as the directory's problems, never as configuration errors.
		if grep -q "^$name\.conf: cache directory .*: [0-9]* problem" "$work/$name.stderr" &&
		    ! grep -q "configuration has" "$work/$name.stderr"; then
			ok "$name: the directory's problems are counted as such"
		else
			not_ok "$name: no count of the directory's problems on stderr"
		fi ;;
	bad-*)
		# Every message is FILE:LINE: or FILE: (missing dir), and they
		# precede the count.
		if grep -q "configuration has [0-9]* error" "$work/$name.stderr"; then
			ok "$name: the error count is reported"
		else
			not_ok "$name: no error count on stderr"
		fi ;;
	esac
done

# Several mistakes: one FILE:LINE: message each, nothing else, exit 2
# (a configuration error, as in 0.10.10; cachefilesd(8) EXIT STATUS).
prepare "$corpus/bad-several.conf" "$work/several.conf"
(cd "$work" && "$CACHEFILESD" -t -f several.conf >several.stdout 2>several.stderr)
rc=$?
check_eq "several mistakes: exit status 2" 2 "$rc"
check_eq "several mistakes: nothing on stdout" "" "$(cat "$work/several.stdout")"
check_eq "several mistakes: 10 located messages" 10 \
	"$(grep -Ec '^several\.conf:[0-9]+: ' "$work/several.stderr")"
check_eq "several mistakes: one message each, at lines 3, 4 and 7 to 14" \
	"3 4 7 8 9 10 11 12 13 14" \
	"$(sed -n 's/^several\.conf:\([0-9]*\): .*/\1/p' "$work/several.stderr" | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_grep "several mistakes: the missing dir too" "^several\.conf: no 'dir' directive" "$work/several.stderr"

# A configuration file that does not exist.
(cd "$work" && "$CACHEFILESD" -t -f missing.conf >missing.stdout 2>missing.stderr)
check_eq "missing file: exit status 2" 2 "$?"
check_grep "missing file: open error named" "^missing\.conf: open: No such file or directory$" "$work/missing.stderr"

# Usage errors exit 2, help goes to stdout with status 0.
"$CACHEFILESD" -t -f "$work/several.conf" -q >"$work/usage.out" 2>&1
check_eq "unknown option: exit status 2" 2 "$?"
"$CACHEFILESD" --help >"$work/help.out" 2>"$work/help.err"
check_eq "--help: exit status 0" 0 "$?"
check_grep "--help: usage on stdout" "^usage: cachefilesd" "$work/help.out"
"$CACHEFILESD" -v >"$work/version.out" 2>&1
check_grep "-v: version" "^cachefilesd version [0-9]" "$work/version.out"

# The shipped configuration, with dir pointed at the test's directory.
sed "s|^dir .*|dir $cache|" config/cachefilesd.conf >"$work/shipped.conf"
(cd "$work" && "$CACHEFILESD" -t -f shipped.conf >shipped.stdout 2>shipped.stderr)
check_eq "shipped cachefilesd.conf passes -t" 0 "$?"
check_grep "shipped cachefilesd.conf: its limits" "^bstop 3%$" "$work/shipped.stdout"
check_grep "shipped cachefilesd.conf: secctx left to the kernel" "^# secctx not set" "$work/shipped.stdout"

# Debian's own file, unchanged.  Its dir (/var/cache/fscache) may not exist
# here, so only an environment error is allowed, never a parse error.
debian_conf() {
	command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
		{ echo "apt-get or dpkg-deb missing"; return 1; }
	mkdir "$work/deb" && cd "$work/deb" || return 1
	if ! timeout 120 apt-get download -q cachefilesd >download.log 2>&1; then
		echo "apt-get download cachefilesd failed: $(tail -1 download.log)"
		return 1
	fi
	dpkg-deb -x cachefilesd_*.deb root 2>/dev/null || { echo "dpkg-deb -x failed"; return 1; }
	[ -f root/etc/cachefilesd.conf ] || { echo "no etc/cachefilesd.conf in the package"; return 1; }
}
if why=$(debian_conf); then
	deb=$work/deb/root/etc/cachefilesd.conf
	"$CACHEFILESD" -t -f "$deb" >"$work/deb.stdout" 2>"$work/deb.stderr"
	rc=$?
	check_no_grep_may_be_empty "Debian's cachefilesd.conf: no parse error" "^$deb:([0-9]+:| no )" "$work/deb.stderr"
	if [ "$rc" -ne 0 ]; then
		check_grep "Debian's cachefilesd.conf: only its cache directory is missing" \
			"^cachefilesd: /var/cache/fscache: " "$work/deb.stderr"
	else
		ok "Debian's cachefilesd.conf passes -t"
	fi
	# And with nothing but dir changed, it passes entirely.
	sed "s|^dir .*|dir $cache|" "$deb" >"$work/deb-here.conf"
	"$CACHEFILESD" -t -f "$work/deb-here.conf" >"$work/deb-here.stdout" 2>&1
	check_eq "Debian's cachefilesd.conf, dir moved: passes -t" 0 "$?"
	check_grep "Debian's cachefilesd.conf: tag mycache" "^tag mycache$" "$work/deb-here.stdout"
else
	skip "Debian's cachefilesd.conf parses unchanged" "$why"
fi

# The man pages: mandoc finds nothing to say, style included.  Only what
# depends on the machine is left aside: pages cross-referenced but not
# installed here, and the state of its mandoc.db.
if command -v mandoc >/dev/null 2>&1; then
	mandoc -Tlint man/cachefilesd.8 man/cachefilesd.conf.5 man/cachefiles-cull.8 2>&1 |
		grep -v -e 'referenced manual not found' -e 'mandoc\.db' >"$work/lint"
	if [ ! -s "$work/lint" ]; then
		ok "mandoc -Tlint: man pages clean"
	else
		not_ok "mandoc -Tlint: man pages clean"
		sed 's/^/#   /' "$work/lint"
	fi
else
	skip "mandoc -Tlint" "mandoc is not installed (make deps)"
fi
tap_done
