#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mutation audit: put each bug of tests/mutations.txt into a scratch copy
# of the tree, one at a time, build, run the unit and config layers and the
# integ tests the mutant names, and report it killed (some test failed) or
# survived (every test passed).  The work tree is never changed.
#
#   sh tests/mutate.sh            every mutant (make mutate)
#   sh tests/mutate.sh NAME...    only these mutants
#   sh tests/mutate.sh --check    only check that every snippet is found once
#
# Environment: MUTATIONS (the data file), MUTATE_DIR (the scratch directory,
# kept if given, else a temp dir removed at the end), MUTATE_JOBS (make -j,
# default 2), TEST_TIMEOUT (per test program, default 120 s: the longest integ test takes about 20 s).
#
# Exit status: 0 when every mutant was killed or survived as marked
# equivalent; 1 when one survived unmarked; 2 on an error (a snippet not
# found or found twice, a mutant that does not build, a failing baseline).
set -u
cd "$(dirname "$0")/.."
TOP=$PWD
MUTATIONS=${MUTATIONS:-$TOP/tests/mutations.txt}
JOBS=${MUTATE_JOBS:-2}
export TEST_TIMEOUT=${TEST_TIMEOUT:-120}
check_only=0
if [ "${1:-}" = --check ]; then
	check_only=1; shift
fi
only=$*

die() { echo "mutate: $*" >&2; exit 2; }
[ -f "$MUTATIONS" ] || die "$MUTATIONS: no such file"

# parse: the data file as one record a line, fields separated by a unit
# separator (\037): name file froms tos integ equivalent, where froms and
# tos hold one or more snippets separated by \036 (a mutant may change
# several places of its file: "from" and "to" lines in pairs).  Keys are the
# first word of a line; the value is the rest after the blanks that follow.
parse() {
	awk '
	function flush() {
		if (name != "" || file != "" || nfrom > 0) {
			if (name == "" || file == "" || nfrom == 0 || nfrom != nto || integ == "") {
				printf "%s:%d: mutant \"%s\" lacks name, file, integ, or a to for each from\n",
				    FILENAME, start, name > "/dev/stderr"
				bad = 1
			}
			printf "%s\037%s\037%s\037%s\037%s\037%s\n", name, file, from, to, integ, equiv
		}
		name = file = from = to = integ = equiv = ""; nfrom = nto = 0
	}
	/^#/ { next }
	/^[ \t]*$/ { flush(); next }
	{
		if (name == "" && file == "" && nfrom == 0) start = FNR
		key = $0; sub(/[ \t].*/, "", key)
		val = $0; sub(/^[^ \t]*[ \t]*/, "", val)
		if (key == "name") name = val
		else if (key == "file") file = val
		else if (key == "from") { from = from (nfrom++ ? "\036" : "") val }
		else if (key == "to") { to = to (nto++ ? "\036" : "") val }
		else if (key == "integ") integ = val
		else if (key == "equivalent") equiv = val
		else { printf "%s:%d: unknown key \"%s\"\n", FILENAME, FNR, key > "/dev/stderr"; bad = 1 }
	}
	END { flush(); exit bad }' "$MUTATIONS"
}

# apply FILE FROMS TOS OUT: FILE with each snippet of FROMS replaced by the
# same-numbered one of TOS, literally, into OUT; @NL@ stands for a newline
# and @TAB@ for a tab.  Fails unless each snippet occurs exactly once (in the
# file as changed by the snippets before it); prints the bad count.
apply() {
	MUT_FROM=$2 MUT_TO=$3 awk '
	function unesc(x) { gsub(/@NL@/, "\n", x); gsub(/@TAB@/, "\t", x); return x }
	{ buf = buf $0 "\n" }
	END {
		nf = split(ENVIRON["MUT_FROM"], fs, "\036")
		split(ENVIRON["MUT_TO"], ts, "\036")
		for (k = 1; k <= nf; k++) {
			f = unesc(fs[k]); t = unesc(ts[k]); n = 0; out = ""; line = buf
			while ((i = index(line, f)) > 0) {
				n++
				out = out substr(line, 1, i - 1) t
				line = substr(line, i + length(f))
			}
			if (n != 1) { print n " (snippet " k ")" > "/dev/stderr"; exit 3 }
			buf = out line
		}
		printf "%s", buf
	}' "$1" >"$4"
}

records=$(parse) || die "$MUTATIONS: malformed"
US=$(printf '\037')

# Every snippet, checked before anything is built: the list must follow the code.
errors=0 total=0 names=
tmpf=$(mktemp) || exit 2
while IFS=$US read -r name file from to integ equiv; do
	total=$((total + 1))
	case " $names " in *" $name "*) echo "mutate: $name: name used twice" >&2; errors=$((errors + 1)) ;; esac
	names="$names $name"
	if [ ! -f "$file" ]; then
		echo "mutate: $name: $file: no such file" >&2; errors=$((errors + 1)); continue
	fi
	case $integ in all | none) ;; *)
		for t in $integ; do
			[ -f "tests/integ/$t.sh" ] || { echo "mutate: $name: no integ test $t" >&2; errors=$((errors + 1)); }
		done ;;
	esac
	if ! n=$(apply "$file" "$from" "$to" "$tmpf" 2>&1); then
		echo "mutate: $name: an original snippet occurs $n times in $file (must be once): $(echo "$from" | tr '\036' '|')" >&2
		errors=$((errors + 1))
	fi
done <<EOF
$records
EOF
rm -f "$tmpf"
if [ "$errors" -gt 0 ]; then
	echo "mutate: $errors error(s) in $MUTATIONS: update it to follow the code" >&2
	exit 2
fi
if [ "$check_only" = 1 ]; then
	echo "mutate: $total mutants, every original snippet found exactly once"
	exit 0
fi

# The scratch copy: the work tree's files as they are now (tracked and new,
# not ignored ones), never the build directories.  Extracted with the time
# of the copy (-m): a MUTATE_DIR used before holds objects built from the
# last mutant, newer than the work tree's sources, which make would keep.
if [ -n "${MUTATE_DIR:-}" ]; then
	scratch=$MUTATE_DIR
	mkdir -p "$scratch"
else
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/cfd-mutate.XXXXXX") || exit 2
	trap 'rm -rf "$scratch"' EXIT
	trap 'exit 2' INT TERM HUP
fi
git ls-files -z --cached --others --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xmf - -C "$scratch" ||
	die "cannot copy the tree to $scratch"
mkdir -p "$scratch/mutate-logs"
echo "mutate: $total mutants in $scratch (logs: $scratch/mutate-logs)"

build() {
	(cd "$scratch" && nice make -s -j"$JOBS" BUILD=build test-bins) >"$1" 2>&1
}

# run_layers INTEG LOG: unit, config, and the integ tests named (all, none, or names).
run_layers() {
	case $1 in
	none) layers="unit config" tests= ;;
	all) layers="unit config integ" tests= ;;
	*) layers="unit config integ" tests=$1 ;;
	esac
	# The scratch tree's programs, whatever the caller's environment names:
	# tests/run.sh keeps an exported CACHEFILESD and the like, and a mutant
	# tested against the work tree's binaries would survive unseen.
	(cd "$scratch" && BUILD=build LAYERS=$layers INTEG_TESTS=$tests \
	    CACHEFILESD="$scratch/build/cachefilesd" \
	    CACHEFILESD_SIM="$scratch/build/tests/cachefilesd-sim" \
	    CFSIM="$scratch/build/tests/cfsim" CFCTL="$scratch/build/tests/cfctl" \
	    TOOL="$scratch/build/cachefiles-cull" \
	    nice sh tests/run.sh) >"$2" 2>&1
}

# The baseline: unmutated, the same layers must pass, or nothing below means anything.
union=
while IFS=$US read -r name file from to integ equiv; do
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) continue ;; esac
	fi
	case $integ in
	all) union=all ;;
	none) ;;
	*) [ "$union" = all ] || union="$union $integ" ;;
	esac
done <<EOF
$records
EOF
union=$(echo "$union" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/^ *//; s/ *$//')
[ -n "$union" ] || union=none
build "$scratch/mutate-logs/baseline.build" || die "the unmutated tree does not build: $scratch/mutate-logs/baseline.build"
if ! run_layers "$union" "$scratch/mutate-logs/baseline.log"; then
	grep -E '^ +not ok|failed' "$scratch/mutate-logs/baseline.log" | head -20 >&2
	die "the unmutated tree fails its tests: $scratch/mutate-logs/baseline.log"
fi
echo "mutate: baseline passes ($(tail -1 "$scratch/mutate-logs/baseline.log"))"

killed=0 survived=0 equivalent=0 errors=0 ran=0 survivors=
while IFS=$US read -r name file from to integ equiv; do
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) continue ;; esac
	fi
	ran=$((ran + 1))
	f=$scratch/$file
	cp -p "$f" "$f.orig"
	apply "$f.orig" "$from" "$to" "$f" 2>/dev/null
	log=$scratch/mutate-logs/$name.log
	t0=$(date +%s)
	if ! build "$log.build"; then
		echo "ERROR     $name: does not build ($log.build)"
		errors=$((errors + 1))
	elif run_layers "$integ" "$log"; then
		if [ -n "$equiv" ]; then
			echo "survived  $name (equivalent: $equiv)"
			equivalent=$((equivalent + 1))
		else
			echo "SURVIVED  $name ($file; ran unit config${integ:+ integ:$integ})"
			survived=$((survived + 1)); survivors="$survivors $name"
		fi
	else
		why=$(grep -E '^ +not ok ' "$log" | head -1 | sed 's/^ *//')
		echo "killed    $name ($(($(date +%s) - t0)) s): $(tail -1 "$log"); $why"
		[ -n "$equiv" ] && echo "          note: $name is marked equivalent but was killed"
		killed=$((killed + 1))
	fi
	# Back to the original, with a new time stamp so that make rebuilds it.
	mv -f "$f.orig" "$f"
	touch "$f"
done <<EOF
$records
EOF

[ "$ran" -gt 0 ] || die "no mutant matched:$only"
echo "mutate: $ran mutants: $killed killed, $survived survived, $equivalent equivalent (survived as marked), $errors errors${survivors:+; survivors:$survivors}"
[ "$errors" -eq 0 ] || exit 2
[ "$survived" -eq 0 ]
