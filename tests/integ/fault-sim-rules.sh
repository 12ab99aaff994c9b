#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The simulator's fault injection itself (docs/simulator-protocol.md, "Fault
# injection"), driven by a scripted client so that every step is seen: each
# schedule (nth, every, match, p with a seed, count), each action (errnos,
# malformed lines, slow replies), the probe's exemption, "fault clear", and
# a FAULT: line in the log for every injected fault.
. "$TOP/tests/lib.sh"; . "$TOP/tests/integ/lib-sim.sh"

SIM_NO_TMPFS=1
sim_setup
sim_start --fault "cull EBUSY nth=2"
CTL=$SIM_CTL
mkdir -p "$SIM_DIR/cache"
for f in a b c d e f g h; do : >"$SIM_DIR/cache/$f"; done

# run SCRIPT: the scripted client, bound in $SIM_DIR, cwd DIR/cache.
run() {
	{ printf 'w dir %s\nw bind\ncd %s\n' "$SIM_DIR" "$SIM_DIR/cache"; cat; } |
	    "$CFSIM" client "$SIM_SOCK" >"$SIM_TMP/got"
}

# --- nth (from the command line), every, the errnos ---
sim_ctl fault read EIO every=2 >/dev/null
printf 'w cull a\nw cull b\nw cull c\nr\nr\nr\nr\n' | run
check_grep "nth=2 (--fault): the second cull fails EBUSY" '^w cull b: EBUSY$' "$SIM_TMP/got"
check_grep "nth=2: the first and third are carried out" '^w cull c: ok$' "$SIM_TMP/got"
check "nth=2: the object it refused is still there" test -e "$SIM_DIR/cache/b"
check_eq "every=2: reads 2 and 4 fail EIO" "ok EIO ok EIO" \
	"$(sed -n 's/^r: cull=.*/ok/p; s/^r: \(E[A-Z]*\)$/\1/p' "$SIM_TMP/got" | tr '\n' ' ' | sed 's/ $//')"
check_grep "every fault is logged" '^[0-9.]+ FAULT: rule 1 \(cull EBUSY nth=2\) hit 1: write "cull b" failed' "$SIM_LOG"
check_grep "the write is logged as injected" 'write "cull b" pid [0-9]+ -> EBUSY \(injected\)' "$SIM_LOG"
check_eq "state counts the faults" 3 "$(sim_state faults)"
check_eq "fault clear removes both rules" "ok cleared 2" "$(sim_ctl fault clear)"

for e in EIO ENOMEM EBUSY ESTALE ENOENT; do
	sim_ctl fault cull $e count=1 >/dev/null
	: >"$SIM_DIR/cache/x$e"
	printf 'w cull x%s\nw cull x%s\n' $e $e | run
	check_eq "cull $e count=1: once, then carried out" "w cull x$e: $e|w cull x$e: ok" \
		"$(grep "^w cull" "$SIM_TMP/got" | tr '\n' '|' | sed 's/|$//')"
	sim_ctl fault clear >/dev/null
done

# --- match=WORD, command words, write ---
sim_ctl fault cull ENOMEM match=e >/dev/null
printf 'w cull d\nw cull e\n' | run
check_grep "match=e: cull d is carried out" '^w cull d: ok$' "$SIM_TMP/got"
check_grep "match=e: cull e fails" '^w cull e: ENOMEM$' "$SIM_TMP/got"
sim_ctl fault clear >/dev/null
sim_ctl fault debug ENOMEM >/dev/null
printf 'w debug 0\nw cull zz\n' | run
check_grep "a command word: debug fails ENOMEM" '^w debug 0: ENOMEM$' "$SIM_TMP/got"
check_grep "... and other commands do not" '^w cull zz: ENOENT$' "$SIM_TMP/got"
sim_ctl fault clear >/dev/null

# --- the probe: "tag" after bind is exempt unless a rule says "probe" ---
sim_ctl fault write EIO >/dev/null
printf 'w dir /\n' | run
check_grep "write EIO: dir before bind fails" '^w dir [^ ]*: EIO$' "$SIM_TMP/got"
sim_ctl fault clear >/dev/null
sim_ctl fault cull EIO >/dev/null
sim_ctl fault any EIO match=cull >/dev/null
printf 'w cull f\nw tag CacheFiles\n' | run
check_grep "cull EIO" '^w cull f: EIO$' "$SIM_TMP/got"
check_grep "the probe is exempt: tag gets EEXIST" '^w tag CacheFiles: EEXIST$' "$SIM_TMP/got"
sim_ctl fault probe EIO count=1 >/dev/null
printf 'w cull f\nw tag CacheFiles\nw tag CacheFiles\n' | run
check_eq "a probe rule fails the probe (once with count=1)" \
	"w tag CacheFiles: EIO|w tag CacheFiles: EEXIST" \
	"$(grep '^w tag CacheFiles:' "$SIM_TMP/got" | tr '\n' '|' | sed 's/|$//')"
check_grep "the probe fault is logged" \
	'FAULT: rule 3 \(probe EIO count=1\) hit 1: probe "tag CacheFiles" failed' "$SIM_LOG"
sim_ctl fault clear >/dev/null

# --- read: malformed lines, an injected error keeps the flag and counters ---
sim_ctl fault read malformed nth=1 >/dev/null
printf 'r\nr\n' | run
check_eq "read malformed nth=1: one malformed line, then a good one" "r: cull=2 frun=zz fcull|ok" \
	"$(grep '^r: ' "$SIM_TMP/got" | sed 's/^r: cull=[01] .*/ok/' | tr '\n' '|' | sed 's/|$//')"
sim_ctl fault clear >/dev/null
sim_ctl fault read ENOMEM count=1 >/dev/null
printf 'x %s release g >/dev/null\nr\nr\n' "$CFSIM ctl $CTL" | run
check_grep "read ENOMEM" '^r: ENOMEM$' "$SIM_TMP/got"
check_grep "... kept the released counter for the next read" '^r: cull=. .* freleased=1 ' "$SIM_TMP/got"
sim_ctl fault clear >/dev/null

# --- slow replies ---
sim_ctl fault any slow=200ms >/dev/null
t0=$(date +%s%N)
printf 'r\n' | run
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
check "slow=200ms: dir, bind and a read take over 600 ms ($ms ms)" test "$ms" -ge 600
sim_ctl fault clear >/dev/null

# --- p= with a seed: reproducible, and about p of the operations ---
pattern() {
	sim_ctl fault clear >/dev/null
	sim_ctl fault inuse EBUSY p=0.3 seed="$1" >/dev/null
	i=0
	while [ $i -lt 200 ]; do echo "w inuse h"; i=$((i + 1)); done | run
	grep '^w inuse' "$SIM_TMP/got" | sed 's/^w inuse h: //' | tr -d '\n' | sed 's/EBUSY/B/g; s/ok/./g'
}
p1=$(pattern 7); p2=$(pattern 7); p3=$(pattern 8)
note "seed 7: $p1"
check_eq "p=0.3 seed=7: the same faults on a second run" "$p1" "$p2"
check "another seed gives another pattern" test "$p1" != "$p3"
n=$(printf '%s' "$p1" | tr -cd B | wc -c)
check "p=0.3: 30 % of 200 within 3 sigma (35..85): $n" test "$n" -ge 35 -a "$n" -le 85

# --- bad rules are refused ---
for bad in "cull" "cull EFOO" "cull EIO nth=0" "cull EIO nth=2 every=3" "cull malformed" \
	"read EIO match=x" "cull EIO p=2" "any slow=100000"; do
	r=$(sim_ctl fault $bad)
	case $r in error*) ok "refused: fault $bad" ;; *) not_ok "refused: fault $bad"; note "$r" ;; esac
done
check_eq "no violation" 0 "$(sim_state violations)"
tap_done
