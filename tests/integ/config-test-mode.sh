#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Configurations and command lines we did not write, checked with
# "cachefilesd -t" (no kernel needed).  Files the historical daemon reads
# must be read with the same meaning; mistakes give FILE:LINE and status 2,
# as usage errors do (0.10.10's status for both); a problem with the
# cache directory itself status 1.  A "dir" that is a symbolic link is refused by the
# kernel at bind (the final component is not followed; checked against
# Debian 12's module in a VM), so -t must not call it OK without saying
# that the daemon resolves it.
set -u
. "$TOP/tests/lib.sh"
CFD=${CACHEFILESD:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/cfd-config-test-mode.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/cache" "$T/with space"
ln -s "$T/cache" "$T/link"
C=$T/c.conf

# tconf DESC EXPECTED-STATUS FORMAT [ARGS]: printf the file, run -t on it.
tconf() {
	d=$1 want=$2; shift 2
	# shellcheck disable=SC2059
	printf "$@" >"$C"
	"$CFD" -t -f "$C" >"$T/out" 2>"$T/err"
	st=$?
	if [ "$st" = "$want" ]; then ok "$d"; else
		not_ok "$d"; note "status $st, expected $want"; sed 's/^/#   /' "$T/err" | head -5
	fi
}
has() { check_grep "$1" "$2" "$T/out"; }
err() { check_grep "$1" "$2" "$T/err"; }

# The environment must let -t pass at all (user.* xattrs on $T).
printf 'dir %s\n' "$T/cache" >"$C"
if ! "$CFD" -t -f "$C" >/dev/null 2>"$T/err"; then
	skip "configuration compatibility" "-t fails on $T: $(head -1 "$T/err")"
	tap_done; exit
fi

# -- files the historical daemon reads --
tconf "Debian's shipped directives (secctx commented out)" 0 \
    'dir %s\ntag mycache\nbrun 10%%\nbcull 7%%\nbstop 3%%\nfrun 10%%\nfcull 7%%\nfstop 3%%\n#secctx system_u:system_r:cachefiles_kernel_t:s0\n' "$T/cache"
has "  ... limits read as given" '^bstop 3%$'
tconf "upstream's file with an uncommented secctx" 0 \
    'dir %s\ntag mycache\nsecctx system_u:system_r:cachefiles_kernel_t:s0\n' "$T/cache"
has "  ... secctx kept verbatim" '^secctx system_u:system_r:cachefiles_kernel_t:s0$'
tconf "tabs between directive and argument" 0 'dir\t%s\ntag\tx\n' "$T/cache"
has "  ... tag read across a tab" '^tag x$'
tconf "CRLF line endings" 0 'dir %s\r\ntag x\r\nbrun 10%%\r\n' "$T/cache"
has "  ... no CR in the values" '^brun 10%$'
tconf "leading blanks and indented comments" 0 '   dir %s\n\t# indented\n  \ttag x\n' "$T/cache"
tconf "comment without a blank after #" 0 'dir %s\n#tag x\n' "$T/cache"
tconf "last line without a newline" 0 'dir %s\ntag x' "$T/cache"
tconf "blank lines with only blanks" 0 'dir %s\n   \n\t\n' "$T/cache"
tconf "dir with a trailing slash" 0 'dir %s/\n' "$T/cache"
tconf "dir with a space in its name" 0 'dir %s\n' "$T/with space"
has "  ... whole path kept" "^dir $T/with space\$"
tconf "debug in hexadecimal" 0 'dir %s\ndebug 0x10\n' "$T/cache"
has "  ... debug 0x10" '^debug 0x10$'
tconf "debug in octal (base detected as the kernel does)" 0 'dir %s\ndebug 010\n' "$T/cache"
has "  ... debug 010 is 8" '^debug 0x8$'
tconf "bstop 0%%" 0 'dir %s\nbstop 0%%\n' "$T/cache"
tconf "limits at 99/98/97%%" 0 'dir %s\nbrun 99%%\nbcull 98%%\nbstop 97%%\nfrun 99%%\nfcull 98%%\nfstop 97%%\n' "$T/cache"
tconf "leading zero in a percentage (the kernel reads base 10)" 0 'dir %s\nbrun 010%%\n' "$T/cache"
has "  ... 010%% is 10%%" '^brun 10%$'
tconf "culltable 12" 0 'dir %s\nculltable 12\n' "$T/cache"
tconf "culltable 20" 0 'dir %s\nculltable 20\n' "$T/cache"
tconf "nocull in the file" 0 'dir %s\nnocull\n' "$T/cache"
has "  ... nocull in force" '^nocull$'
tconf "resume_thresholds - -" 0 'dir %s\nresume_thresholds - -\n' "$T/cache"
tconf "limits raised in an order the kernel would refuse one by one" 0 \
    'dir %s\nbcull 10%%\nbrun 20%%\nbstop 5%%\n' "$T/cache"
tconf "a 4095-byte comment line" 0 "dir %s\n#%04094d\n" "$T/cache" 0
tconf "dir that does not exist: status 1, the file being right" 1 'dir %s\n' "$T/nonexist"
err "  ... the directory's problem named" "^cachefilesd: $T/nonexist: stat: No such file"
err "  ... counted as the directory's, not the file's" \
    "^$C: cache directory $T/nonexist: 1 problem\$"
check_no_grep "  ... no configuration error counted" "configuration has" "$T/err"

# -- mistakes: status 2, FILE:LINE --
tconf "empty file" 2 ''
err "  ... says dir is missing" "no 'dir'"
tconf "only comments" 2 '# a\n# b\n'
tconf "upper-case directive" 2 'DIR %s\n' "$T/cache"
err "  ... FILE:LINE" "c.conf:1: .*DIR"
tconf "brun 100%%" 2 'dir %s\nbrun 100%%\n' "$T/cache"
err "  ... FILE:LINE" 'c.conf:2: '
tconf "brun 0%% (below the default bcull)" 2 'dir %s\nbrun 0%%\n' "$T/cache"
tconf "culltable 21" 2 'dir %s\nculltable 21\n' "$T/cache"
tconf "culltable 0x10 (decimal only, as historically)" 2 'dir %s\nculltable 0x10\n' "$T/cache"
tconf "a bind line" 2 'dir %s\nbind\n' "$T/cache"
tconf "a percentage with a blank before %%" 2 'dir %s\nbrun 10 %%\n' "$T/cache"
tconf "a NUL byte" 2 'dir %s\ntag a\000b\n' "$T/cache"
err "  ... NUL named" 'c.conf:2: .*NUL'
tconf "a 5000-byte line" 2 "dir %s\n#%05000d\n" "$T/cache" 0
err "  ... too long named" 'c.conf:2: .*long'
tconf "several mistakes, all reported" 2 'brun 10\ntag a\ntag b\nbogus\n'
check "  ... one FILE:LINE message per mistake on a line (3)" [ "$(grep -c 'c\.conf:[0-9][0-9]*: ' "$T/err")" -eq 3 ]
err "  ... and the missing dir" "no 'dir'"

# -- a symlinked dir: the kernel refuses it at bind (ENOTDIR) --
printf 'dir %s\n' "$T/link" >"$C"
"$CFD" -t -f "$C" >"$T/out" 2>"$T/err"
st=$?
if [ "$st" = 1 ] || { [ "$st" = 0 ] && grep -q 'symbolic link' "$T/err"; }; then
	ok "dir naming a symbolic link: -t refuses it or says the link is resolved (the kernel alone refuses it)"
else
	not_ok "dir naming a symbolic link: -t refuses it or says the link is resolved (the kernel alone refuses it)"
	note "status $st, and nothing about the link:"; sed 's/^/#   /' "$T/err" | head -3
fi
tconf "dir naming a symbolic link with a trailing slash is fine" 0 'dir %s/\n' "$T/link"

# -- a relative dir: 0.10.10 binds it (the kernel resolves it from the
# daemon's working directory; checked in a VM); refusing it is a deliberate
# difference only if the man page's HISTORY says so.
tconf "a relative dir is refused with a message" 2 'dir cache\n'
err "  ... saying it must be absolute" 'absolute'
hist=$(sed -n '/^\.Sh HISTORY/,$p' "$TOP/man/cachefilesd.conf.5")
if echo "$hist" | grep -Eqi 'relative|absolute'; then
	ok "HISTORY of cachefilesd.conf(5) lists the refused relative dir among the differences"
else
	not_ok "HISTORY of cachefilesd.conf(5) lists the refused relative dir among the differences"
	note "0.10.10 binds 'dir real2' started in /fs; ours refuses it; HISTORY does not say so"
fi

# -- command line --
cmd() {
	d=$1 want=$2; shift 2
	"$CFD" "$@" >"$T/out" 2>"$T/err" </dev/null
	st=$?
	if [ "$st" = "$want" ]; then ok "$d"; else
		not_ok "$d"; note "status $st, expected $want"; sed 's/^/#   /' "$T/err" | head -3
	fi
}
printf 'dir %s\n' "$T/cache" >"$C"
cmd "-v exits 0" 0 -v
check_grep "  ... prints the version" 'cachefilesd.*[0-9]+\.[0-9]+' "$T/out"
cmd "--version exits 0" 0 --version
cmd "--help exits 0" 0 --help
check_grep "  ... usage on stdout" '^usage: cachefilesd' "$T/out"
# Output that cannot be written is a failure, not a silent 0.
for a in -v --help "-t -f $C"; do
	# shellcheck disable=SC2086
	"$CFD" $a >/dev/full 2>"$T/err"
	check_eq "$a with standard output full: status 1" 1 $?
	check_grep "  ... and says so" 'standard output: No space left' "$T/err"
done
# A reader that has gone (cachefilesd -h | head -1 after head ended): an
# output error too, status 1, not death by SIGPIPE (141), whatever
# disposition the caller left SIGPIPE in.
for a in -v --help "-t -f $C"; do
	# shellcheck disable=SC2086
	(sleep 0.2; env --default-signal=PIPE "$CFD" $a 2>"$T/err"; echo $? >"$T/rc") | true
	wait_for 5 test -s "$T/rc"
	check_eq "$a with the reader gone: status 1" 1 "$(cat "$T/rc")"
	check_grep "  ... and says so" 'standard output: Broken pipe' "$T/err"
	rm -f "$T/rc"
done
# The same for a usage error, whose message goes to standard error: 2.
(sleep 0.2; env --default-signal=PIPE "$CFD" -x 2>&1; echo $? >"$T/rc") | true
wait_for 5 test -s "$T/rc"
check_eq "a usage error with the reader gone: status 2" 2 "$(cat "$T/rc")"
rm -f "$T/rc"
cmd "unknown option exits 2" 2 -x
check_grep "  ... names it" '\-x' "$T/err"
cmd "-f without its argument exits 2" 2 -f
cmd "a stray argument exits 2" 2 -t -f "$C" extra
cmd "-f naming a missing file exits 2" 2 -t -f "$T/missing.conf"
check_grep "  ... names the file" 'missing\.conf' "$T/err"
cmd "-dddd is accepted (any number of -d, as historically)" 0 -dddd -t -f "$C"
cmd "-n -s -d -t together" 0 -n -s -d -t -f "$C"
cmd "-N -t shows nocull" 0 -N -t -f "$C"
check_grep "  ... nocull in the dump" '^nocull$' "$T/out"
# A start (not -t) with a mistake: the messages, then their count, status 2,
# before the device is looked at.
printf 'dir %s\nbrun 10\nfrob 1\n' "$T/cache" >"$C"
cmd "a start with mistakes exits 2" 2 -n -s -f "$C"
check_grep "  ... each mistake located" "c\.conf:3: unknown directive 'frob'" "$T/err"
check_grep "  ... then the count" "c\.conf: configuration has 2 errors\$" "$T/err"
# A FIFO at the configuration's path, nothing writing to it: an open() that
# waits would hold -t and the start for good.
mkfifo "$T/fifo.conf"
cmd "-t on a FIFO no one writes to exits 2 at once" 2 -t -f "$T/fifo.conf"
check_grep "  ... and says what it is" 'fifo\.conf: a FIFO that nothing was written to' "$T/err"
cmd "a start on that FIFO exits 2 at once" 2 -n -s -f "$T/fifo.conf"
# A pipe with a writer (a shell's -f <(...), -f /dev/stdin) is read.
printf 'dir %s\n' "$T/cache" >"$C"
cat "$C" | "$CFD" -t -f /dev/stdin >"$T/out" 2>"$T/err"
check_eq "-t on a pipe that is written to reads it" 0 $?
check_grep "  ... and shows what it read" "^dir $T/cache\$" "$T/out"
tap_done
