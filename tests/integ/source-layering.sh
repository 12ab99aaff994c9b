#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The source tree keeps its layering: each component includes only itself
# and the components below it, every include names its folder, and the
# compiler is given no include path but the top.  The companion tool links
# cull/, config/ and lib/ alone, so cull/ must never reach up into the
# kernel channel or the daemon.
#   daemon/ -> kernel/ -> cull/ -> config/ -> lib/
set -u
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1

# allowed COMPONENT: the folders its files may include from.
allowed() {
	case $1 in
	lib) echo "lib" ;;
	config) echo "lib config" ;;
	cull) echo "lib config cull" ;;
	kernel) echo "lib config cull kernel" ;;
	daemon) echo "lib config cull kernel daemon" ;;
	esac
}

for comp in lib config cull kernel daemon; do
	bad=
	for f in "$comp"/*.c "$comp"/*.h; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			dir=${inc%%/*}
			if [ "$dir" = "$inc" ]; then
				bad="$bad $f:$inc(no folder)"
				continue
			fi
			case " $(allowed "$comp") " in
			*" $dir "*) ;;
			*) bad="$bad $f:$inc" ;;
			esac
		done
	done
	check_eq "$comp/ includes only $(allowed "$comp" | tr ' ' ',')/ headers, by folder" "" "$bad"
done

# Other C files (main, tests, bench) name the folder of every project header too.
bad=$(grep -n '^#include "[^/"]*"' cachefilesd.c tests/unit/*.c tests/sim/*.c \
    tests/fuzz/*.c tests/fuzz/*.h bench/*.c 2>/dev/null)
check_eq "every other include names its folder" "" "$bad"

# The Makefile passes -I. and nothing else of ours.
check_no_grep "the Makefile has no -Ilib, -Icull, -Iconfig, -Idaemon or -Ikernel" \
    '-I(lib|cull|config|daemon|kernel)\b' Makefile
check_grep "the Makefile passes -I." '^CPPFLAGS.*-I\.( |$)' Makefile
# Sources are listed by name, component by component: no wildcard picks them up.
check_no_grep "module sources are listed by name, not by wildcard" \
    'wildcard (lib|cull|config|daemon|kernel)/' Makefile
tap_done
