# SPDX-License-Identifier: GPL-2.0-or-later
# Conformance, guest half: the fixed command sequence of "cfsim conform"
# against the real /dev/cachefiles.  The host runs the same sequence against
# the simulator and compares the two outputs.
. /vm/glib.sh
DIR=$FS/conform
mkdir -p "$DIR"
cd "$DIR" || exit 1
timeout -s KILL 120 "$CFSIM" conform /dev/cachefiles "$DIR" > /out/conform-kernel.txt 2> /out/conform-kernel.err
rc=$?
echo "$rc" > /out/conform-kernel.rc
log "cfsim conform exit status $rc, $(wc -l < /out/conform-kernel.txt) lines"
dmesg | grep -E 'CacheFiles|FS-Cache' | tail -20 >&2
exit "$rc"
