# SPDX-License-Identifier: GPL-2.0-or-later
# "cull free P" over the control socket against the real module, on a cache
# the kernel is not asking to cull: the goal is reached, oldest objects first.
. /vm/glib.sh
DIR=$FS/sockcull
LOG=/out/sockcull-daemon.log
SOCK=/tmp/cfd/control
mkdir -p "$DIR"
{ conf_limits "$DIR" vmsock; echo "control_socket $SOCK"; } > /tmp/sockcull.conf
if ! command -v cfctl >/dev/null 2>&1; then
	not_ok "cull free over the control socket reaches its goal"
	diag "no cfctl in the guest"
	exit 1
fi
if ! cfd_bind /tmp/sockcull.conf "$LOG" || ! share_mount; then
	not_ok "cull free over the control socket reaches its goal"
	diag "the daemon did not bind"
	diag_file "$LOG"
	exit 1
fi
read_files "$DATA"/old/*.bin
drop_caches
sleep 1.5
read_files "$DATA"/new/*.bin
drop_caches
objects "$DIR" > /tmp/before
while read -r o; do echo "$(stat -c %x "$o")|$o"; done < /tmp/before | sort > /tmp/atimes
# Ask for 2 MiB more than is free now, as a percentage of the disk.
want=$(awk -v a="$(fs_bavail)" -v b="$(fs_blocks)" -v s="$(fs_bsize)" \
	'BEGIN { p = int((a + 2097152 / s) * 100 / b) + 1; print (p > 100 ? 100 : p) }')
r=$(cfctl "$SOCK" "cull free $want" 60000)
log "cull free $want: $r; now $(fs_pct)%"
objects "$DIR" > /tmp/after
case $r in
*'"result":"met"'*) [ "$(fs_bavail)" -ge "$(fs_limit "$want")" ]; verdict $? "cull free over the control socket reaches its goal" ;;
*) not_ok "cull free over the control socket reaches its goal"; diag "reply: $r"; diag_file "$LOG" 20 ;;
esac
awk -F'|' 'NR == FNR { alive[$0] = 1; next }
	{ if ($2 in alive) { ns++; if (!smin || $1 < smin) smin = $1 }
	  else { nc++; if ($1 > cmax) cmax = $1 } }
	END { exit !(nc > 0 && ns > 0 && cmax <= smin) }' /tmp/after /tmp/atimes
verdict $? "cull free over the control socket takes the oldest objects first"
cfd_stop "$CFD_PID"
[ "$CFD_RC" -eq 0 ] && [ ! -e "$SOCK" ]
verdict $? "the daemon exits cleanly and removes its socket"
share_umount
